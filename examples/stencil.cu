// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Asynchronous staging in a user kernel: a 7-point smoothing stencil over a large array. Each block streams
 * tiles of the input into carved shared memory (the bulk copy engine on Hopper, cp.async on Ampere and Ada), two
 * tiles in flight while it computes on a third, and reads every neighbour from shared memory: each input element
 * comes from global memory once, plus the 6 halo elements at each tile's edges.
 *
 *   stencil [n]     (default 2^26 elements)
 */
#include <onchip/smem.cuh>
#include <onchip/stage.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin stencil
constexpr int radius = 3;
constexpr std::size_t tile = 4096;  // elements each block owns at a time

__host__ __device__ inline float weight(int d) { return 1.0f / static_cast<float>(1 + d * d); }

struct stencil_plan {
  // Three buffers of a tile and its halo (one in use, two in flight), with their barriers.
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    return onchip::staging<float, 3>{tile, {radius, radius}}(smem);
  }
};

__global__ void smooth(const float* in, std::size_t n, float* out) {
  onchip::grid_for_each_tile(onchip::carve(stencil_plan{}), in, n, [&](const onchip::staged_tile<float>& t) {
    for (std::size_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
      float sum = 0;
      for (int d = -radius; d <= radius; ++d) {
        // t[j] is element j of the input, in shared memory; the array's edges repeat its end values.
        const std::size_t j = d < 0 && i < std::size_t(-d) ? 0 : (i + d >= n ? n - 1 : i + d);
        sum += weight(d) * t[j];
      }
      out[i] = sum;
    }
  });
}
// example-end stencil

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "stencil: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 26;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) { host[i] = static_cast<float>((i * 2654435761u) % 1000) / 100.0f; }
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float) + 1) != cudaSuccess || cudaMalloc(&out, n * sizeof(float) + 1) != cudaSuccess) {
    std::fprintf(stderr, "stencil: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  // example-begin launch
  const std::size_t smem = onchip::smem_bytes(stencil_plan{});  // 3 x (4096 + 6) floats + barriers
  const int threads = 256;
  int per_sm = 0, sms = 0, device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (onchip::prepare_dynamic_smem(smooth, smem) != cudaSuccess ||  // above 48 KB needs the opt-in
      onchip::blocks_per_sm(&per_sm, smooth, threads, smem) != cudaSuccess) {
    std::fprintf(stderr, "stencil: %s\n", onchip::last_error_message());
    return 1;
  }
  smooth<<<sms * per_sm, threads, smem>>>(in, n, out);
  // example-end launch
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  smooth<<<sms * per_sm, threads, smem>>>(in, n, out);
  cudaEventRecord(stop);
  if (cudaEventSynchronize(stop) != cudaSuccess || cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "stencil: the kernel failed\n");
    return 1;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  std::vector<float> got(n);
  cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float want = 0;
    for (int d = -radius; d <= radius; ++d) {
      const long long j = std::min<long long>(std::max<long long>(static_cast<long long>(i) + d, 0), n - 1);
      want += weight(d) * host[j];
    }
    wrong += std::fabs(got[i] - want) > 1e-5f * (1 + std::fabs(want));
  }
  std::printf("stencil: %zu elements, %d blocks of %d threads, %zu bytes of shared memory each: %.3f ms "
              "(%.0f GB/s read + written), %zu wrong\n",
              n, sms * per_sm, threads, smem, ms, 2.0 * n * sizeof(float) / ms / 1e6, wrong);
  cudaFree(in);
  cudaFree(out);
  return wrong == 0 ? 0 : 1;
}
