// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Carving dynamic shared memory into several typed arrays with one plan.
 *
 * Each block normalizes a row of floats: it stages the row in shared memory, reduces it per warp, and writes
 * row / sum. The row length is only known at run time, so the shared arrays are sized at run time too. The same
 * plan tells the host how many bytes to launch with and gives the device its arrays.
 *
 *   smem_carving [columns]      (default 3000)
 */
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin plan
// The plan: written once, evaluated on the host (bytes) and on the device (spans).
struct row_plan {
  int columns;
  int warps;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    auto row = smem.take_aligned<16, float>(columns);  // 16-byte aligned, for float4 access
    auto partial = smem.take<double>(warps);           // aligned to 8, whatever came before
    auto flag = smem.take<unsigned char, 1>();          // a compile-time extent
    return cuda::std::tuple{row, partial, flag};
  }
};

__global__ void normalize_rows(const float* in, float* out, row_plan plan) {
  auto [row, partial, flag] = onchip::carve(plan);  // this block's arrays
  const float* src = in + static_cast<size_t>(blockIdx.x) * plan.columns;
  double sum = 0;
  for (int c = threadIdx.x; c < plan.columns; c += blockDim.x) {
    row[c] = src[c];
    sum += row[c];
  }
  for (int offset = 16; offset > 0; offset /= 2) { sum += __shfl_down_sync(0xffffffffu, sum, offset); }
  if (threadIdx.x % 32 == 0) { partial[threadIdx.x / 32] = sum; }
  if (threadIdx.x == 0) { flag[0] = 1; }
  __syncthreads();
  double total = 0;
  for (int w = 0; w < plan.warps; ++w) { total += partial[w]; }
  for (int c = threadIdx.x; c < plan.columns; c += blockDim.x) {
    out[static_cast<size_t>(blockIdx.x) * plan.columns + c] = static_cast<float>(row[c] / total);
  }
}
// example-end plan

#define CHECK_CUDA(call)                                                                      \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorString(e_),             \
                   onchip::last_error_message());                                             \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "smem_carving: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const int columns = argc > 1 ? std::atoi(argv[1]) : 3000;
  const int rows = 264, threads = 256;
  if (columns < 1) {
    std::fprintf(stderr, "usage: smem_carving [columns >= 1]\n");
    return 2;
  }

  // example-begin launch
  const row_plan plan{columns, threads / 32};
  const std::size_t bytes = onchip::smem_bytes(plan);          // exact launch size
  std::printf("%s", onchip::describe(plan).c_str());           // the layout, for the curious
  CHECK_CUDA(onchip::prepare_dynamic_smem(normalize_rows, bytes));  // opt in above 48 KB if needed
  // example-end launch

  std::vector<float> host(static_cast<size_t>(rows) * columns);
  for (size_t i = 0; i < host.size(); ++i) { host[i] = 1.0f + static_cast<float>(i % 97); }
  float *in = nullptr, *out = nullptr;
  CHECK_CUDA(cudaMalloc(&in, host.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, host.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  normalize_rows<<<rows, threads, bytes>>>(in, out, plan);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> result(host.size());
  CHECK_CUDA(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost));

  double worst = 0;  // each row must sum to 1
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < columns; ++c) { s += result[static_cast<size_t>(r) * columns + c]; }
    worst = std::fmax(worst, std::fabs(s - 1.0));
  }
  std::printf("%d rows of %d columns normalized with %zu bytes of shared memory per block; "
              "largest |row sum - 1| = %.2e\n",
              rows, columns, bytes, worst);
  CHECK_CUDA(cudaFree(in));
  CHECK_CUDA(cudaFree(out));
  return worst < 1e-5 ? 0 : 1;
}
