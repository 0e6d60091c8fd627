// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief onchip::block_histogram inside your own kernel: a histogram of pixel brightness, computed while the same
 * kernel converts RGB pixels to gray. The block's histogram is carved from the same dynamic shared memory as the
 * kernel's own tile of output pixels, so one plan gives the host the launch size and the device the spans.
 *
 *   block_histogram [pixels]     (default 2^24)
 */
#include <onchip/histogram.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin block
struct gray_plan {
  int threads;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    auto hist = onchip::block_histogram<256>(smem, threads);        // one copy of 256 counters
    auto gray = smem.take<unsigned char>(static_cast<size_t>(threads) * 4);  // the block's output, staged
    return cuda::std::tuple{hist, gray};
  }
};

__global__ void to_gray(const uchar4* rgba, size_t pixels, unsigned char* gray_out, unsigned* histogram) {
  auto [hist, gray] = onchip::carve(gray_plan{static_cast<int>(blockDim.x)});
  hist.reset();
  const size_t per_block = static_cast<size_t>(blockDim.x) * 4;
  for (size_t base = blockIdx.x * per_block; base < pixels; base += gridDim.x * per_block) {
    for (int k = 0; k < 4; ++k) {
      const size_t i = base + k * blockDim.x + threadIdx.x;
      if (i < pixels) {
        const uchar4 p = rgba[i];
        const auto y = static_cast<unsigned char>((77u * p.x + 150u * p.y + 29u * p.z) >> 8);  // BT.601 luma
        gray[k * blockDim.x + threadIdx.x] = y;
        hist.add(y);  // a shared-memory atomic into this block's counters
      }
    }
    __syncthreads();
    for (int k = 0; k < 4; ++k) {  // write the staged tile back, coalesced
      const size_t i = base + k * blockDim.x + threadIdx.x;
      if (i < pixels) { gray_out[i] = gray[k * blockDim.x + threadIdx.x]; }
    }
    __syncthreads();
  }
  hist.flush(histogram);  // one global atomic per non-zero bin per block
}
// example-end block

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "block_histogram: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const size_t pixels = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 24;
  std::vector<uchar4> image(pixels);
  unsigned state = 7;
  for (size_t i = 0; i < pixels; ++i) {
    state = state * 1664525u + 1013904223u;
    const auto shade = static_cast<unsigned char>((i * 255 / pixels + (state >> 29)) & 0xff);
    image[i] = make_uchar4(shade, static_cast<unsigned char>(shade / 2 + 40), static_cast<unsigned char>(state >> 24), 255);
  }
  uchar4* d_image = nullptr;
  unsigned char* d_gray = nullptr;
  unsigned* d_hist = nullptr;
  cudaMalloc(&d_image, pixels * sizeof(uchar4));
  cudaMalloc(&d_gray, pixels);
  cudaMalloc(&d_hist, 256 * sizeof(unsigned));
  cudaMemcpy(d_image, image.data(), pixels * sizeof(uchar4), cudaMemcpyHostToDevice);
  cudaMemset(d_hist, 0, 256 * sizeof(unsigned));
  const int threads = 256;
  const size_t bytes = onchip::smem_bytes(gray_plan{threads});  // the same plan, evaluated on the host
  to_gray<<<132 * 4, threads, bytes>>>(d_image, pixels, d_gray, d_hist);
  std::vector<unsigned> hist(256);
  std::vector<unsigned char> gray(pixels);
  cudaMemcpy(gray.data(), d_gray, pixels, cudaMemcpyDeviceToHost);
  if (const cudaError_t e = cudaMemcpy(hist.data(), d_hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    std::fprintf(stderr, "block_histogram: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::vector<unsigned> expected(256);
  bool ok = true;
  for (size_t i = 0; i < pixels; ++i) {
    const uchar4 p = image[i];
    const auto y = static_cast<unsigned char>((77u * p.x + 150u * p.y + 29u * p.z) >> 8);
    ++expected[y];
    ok = ok && gray[i] == y;
  }
  ok = ok && hist == expected;
  int peak = 0;
  for (int b = 0; b < 256; ++b) { peak = hist[b] > hist[peak] ? b : peak; }
  std::printf("%zu pixels to gray with %zu bytes of shared memory per block; most common brightness %d (%u pixels)\n",
              pixels, bytes, peak, hist[peak]);
  std::printf("%s\n", ok ? "gray image and histogram match the host" : "MISMATCH");
  return ok ? 0 : 1;
}
