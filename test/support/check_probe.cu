// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A program that breaks onchip's checked mode on purpose, run as a child process by the tests (a trap ends the
// CUDA context, so it cannot happen inside the test binary). Built with ONCHIP_CHECKS=1.
//   check_probe capacity         launches a plan with fewer bytes than it needs (needs a GPU)
//   check_probe misaligned       carves a host buffer that is not 16-byte aligned (host only)
//   check_probe unsorted-levels  runs histogram_range with levels out of order (needs a GPU)
//   check_probe unsorted-u16-levels  the same for 16-bit samples between integer levels (the value table)
#include <onchip/histogram.cuh>
#include <onchip/smem.cuh>

#include <cstdint>
#include <cstdio>
#include <cstring>

#if !ONCHIP_CHECKS
#  error "check_probe must be built with ONCHIP_CHECKS=1"
#endif

namespace {
struct plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    c.take<char>(16);
    return c.take<float>(1000);
  }
};

__global__ void too_small(float* out) {
  auto floats = onchip::carve(plan{});
  floats[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = floats[999 - threadIdx.x];
}

// histogram_range of `samples` between `levels` (expected to trap on levels out of order).
template <class Level, class Sample, int L, int N>
int range_with(const Level (&levels)[L], const Sample (&samples)[N]) {
  Level* d_levels = nullptr;
  Sample* d_samples = nullptr;
  unsigned* d_hist = nullptr;
  if (cudaMalloc(&d_levels, sizeof levels) != cudaSuccess || cudaMalloc(&d_samples, sizeof samples) != cudaSuccess ||
      cudaMalloc(&d_hist, (L - 1) * sizeof(unsigned)) != cudaSuccess) {
    return 3;
  }
  cudaMemcpy(d_levels, levels, sizeof levels, cudaMemcpyHostToDevice);
  cudaMemcpy(d_samples, samples, sizeof samples, cudaMemcpyHostToDevice);
  cudaError_t e = onchip::histogram_range(d_samples, N, d_hist, d_levels, L);
  if (e == cudaSuccess) { e = cudaDeviceSynchronize(); }
  if (e != cudaSuccess) {
    std::printf("probe: histogram failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("probe: unsorted levels were accepted\n");
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "capacity") == 0) {
    float* out = nullptr;
    if (cudaMalloc(&out, 1000 * sizeof(float)) != cudaSuccess) { return 3; }
    too_small<<<1, 256, onchip::smem_bytes(plan{}) - 16>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("probe: kernel failed: %s\n", cudaGetErrorString(e));
      return 1;
    }
    std::printf("probe: kernel ran\n");
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "misaligned") == 0) {
    alignas(16) static unsigned char buffer[64];
    onchip::carver c(buffer + 1, 32);
    std::printf("probe: carver accepted a misaligned base (used %zu)\n", c.used());
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "unsorted-levels") == 0) {  // staged levels and their grid
    const float levels[5] = {0.0f, 0.25f, 0.75f, 0.5f, 1.0f};
    const float samples[4] = {0.1f, 0.3f, 0.6f, 0.9f};
    return range_with(levels, samples);
  }
  if (argc == 2 && std::strcmp(argv[1], "unsorted-u16-levels") == 0) {  // the table of every 16-bit value
    const int levels[5] = {0, 100, 300, 200, 65536};
    const std::uint16_t samples[4] = {50, 150, 250, 350};
    return range_with(levels, samples);
  }
  std::fprintf(stderr, "usage: check_probe capacity|misaligned|unsorted-levels|unsorted-u16-levels\n");
  return 2;
}
