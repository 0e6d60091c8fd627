// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief The README's first kernel: carve a block histogram beside another shared array, stream the input with
 * 16-byte loads, flush once per block. Checks itself against the host.
 */
// example-begin quickstart
#include <onchip/onchip.cuh>
#include <cuda/std/tuple>

struct plan {  // one shared-memory layout: the host sizes the launch with it, the device carves it
  int threads;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    return cuda::std::tuple{onchip::block_histogram<256>(smem, threads), smem.take<unsigned>(1)};
  }
};

__global__ void brightness(const unsigned char* pixels, size_t n, unsigned* hist, unsigned* dark) {
  auto carved = onchip::carve(plan{static_cast<int>(blockDim.x)});
  auto& h = cuda::std::get<0>(carved);
  unsigned* block_dark = cuda::std::get<1>(carved).data();
  h.reset();
  if (threadIdx.x == 0) { *block_dark = 0; }
  __syncthreads();
  onchip::grid_for_each<4>(pixels, n, [&](unsigned char p, size_t) {  // 16-byte loads, peeled head and tail
    h.add(p);
    if (p < 16) { atomicAdd(block_dark, 1u); }
  });
  h.flush(hist);  // synchronizes, then one global atomic per non-zero bin
  if (threadIdx.x == 0) { atomicAdd(dark, *block_dark); }
}
// launch: brightness<<<blocks, 256, onchip::smem_bytes(plan{256})>>>(pixels, n, hist, dark);
// example-end quickstart

#include <cstdio>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "quickstart: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const size_t n = (size_t{1} << 24) + 3;
  std::vector<unsigned char> pixels(n);
  for (size_t i = 0; i < n; ++i) { pixels[i] = static_cast<unsigned char>((i * 2654435761u) >> 13); }
  unsigned char* d_pixels = nullptr;
  unsigned *d_hist = nullptr, *d_dark = nullptr;
  cudaMalloc(&d_pixels, n);
  cudaMalloc(&d_hist, 256 * sizeof(unsigned));
  cudaMalloc(&d_dark, sizeof(unsigned));
  cudaMemcpy(d_pixels, pixels.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(d_hist, 0, 256 * sizeof(unsigned));
  cudaMemset(d_dark, 0, sizeof(unsigned));
  brightness<<<264, 256, onchip::smem_bytes(plan{256})>>>(d_pixels, n, d_hist, d_dark);
  std::vector<unsigned> hist(256), expected(256);
  unsigned dark = 0, expected_dark = 0;
  cudaMemcpy(hist.data(), d_hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  if (const cudaError_t e = cudaMemcpy(&dark, d_dark, sizeof dark, cudaMemcpyDeviceToHost); e != cudaSuccess) {
    std::fprintf(stderr, "quickstart: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (unsigned char p : pixels) {
    ++expected[p];
    expected_dark += p < 16;
  }
  const bool ok = hist == expected && dark == expected_dark;
  std::printf("%zu pixels, %u dark; histogram %s the host's\n", n, dark, ok ? "matches" : "DOES NOT MATCH");
  return ok ? 0 : 1;
}
