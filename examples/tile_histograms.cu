// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Per-tile histograms of a grayscale image, as contrast-limited adaptive histogram equalization (CLAHE)
 * needs them: one block per tile, a block_histogram carved next to the kernel's other shared array, each row of
 * the tile read with 16-byte loads by onchip::block_for_each.
 *
 *   tile_histograms [width height]     (default 1920 1080; the image is cut into 8 x 8 tiles)
 */
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin tiles
constexpr int tiles_x = 8, tiles_y = 8, bins = 256;

struct tile_plan {
  int threads;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    auto hist = onchip::block_histogram<bins>(smem, threads);  // one copy of the counters
    auto clipped = smem.take<unsigned>(1);                      // another shared array beside it
    return cuda::std::tuple{hist, clipped};
  }
};

// Block (tx, ty) counts its tile's pixels and stores the tile's 256 bins; pixels above `clip` per bin are
// counted as CLAHE would redistribute them.
__global__ void tile_histograms(const unsigned char* image, int width, int height, unsigned clip, unsigned* out,
                                unsigned* excess) {
  auto carved = onchip::carve(tile_plan{static_cast<int>(blockDim.x)});
  auto& hist = cuda::std::get<0>(carved);
  unsigned* clipped = cuda::std::get<1>(carved).data();
  hist.reset();
  const int x0 = blockIdx.x * width / tiles_x, x1 = (blockIdx.x + 1) * width / tiles_x;
  const int y0 = blockIdx.y * height / tiles_y, y1 = (blockIdx.y + 1) * height / tiles_y;
  for (int y = y0; y < y1; ++y) {
    onchip::block_for_each(image + static_cast<size_t>(y) * width + x0, x1 - x0,
                           [&](unsigned char pixel, size_t) { hist.add(pixel); });
  }
  const int tile = blockIdx.y * tiles_x + blockIdx.x;
  if (threadIdx.x == 0) { *clipped = 0; }
  hist.store(out + tile * bins);  // synchronizes first, so the counts are complete
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    const unsigned count = out[tile * bins + b];
    if (count > clip) { atomicAdd(clipped, count - clip); }
  }
  __syncthreads();
  if (threadIdx.x == 0) { excess[tile] = *clipped; }
}
// example-end tiles

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tile_histograms: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const int width = argc > 2 ? std::atoi(argv[1]) : 1920, height = argc > 2 ? std::atoi(argv[2]) : 1080;
  if (width < tiles_x || height < tiles_y) {
    std::fprintf(stderr, "usage: tile_histograms [width >= 8 height >= 8]\n");
    return 2;
  }
  // A synthetic photo: a bright sky, a dark ground, a gradient and some noise.
  std::vector<unsigned char> image(static_cast<size_t>(width) * height);
  unsigned noise = 12345;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      noise = noise * 1664525u + 1013904223u;
      const double sky = y < height / 2 ? 180.0 + 60.0 * x / width : 40.0 + 50.0 * y / height;
      image[static_cast<size_t>(y) * width + x] = static_cast<unsigned char>(std::fmin(255.0, sky + (noise >> 28)));
    }
  }
  unsigned char* d_image = nullptr;
  unsigned *d_hist = nullptr, *d_excess = nullptr;
  const int tiles = tiles_x * tiles_y, threads = 256;
  cudaMalloc(&d_image, image.size());
  cudaMalloc(&d_hist, tiles * bins * sizeof(unsigned));
  cudaMalloc(&d_excess, tiles * sizeof(unsigned));
  cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice);
  const unsigned clip = 4 * static_cast<unsigned>(width / tiles_x) * (height / tiles_y) / bins;  // 4x the mean
  tile_histograms<<<dim3(tiles_x, tiles_y), threads, onchip::smem_bytes(tile_plan{threads})>>>(d_image, width, height,
                                                                                             clip, d_hist, d_excess);
  std::vector<unsigned> hist(tiles * bins), excess(tiles);
  cudaMemcpy(hist.data(), d_hist, hist.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  if (const cudaError_t e = cudaMemcpy(excess.data(), d_excess, tiles * sizeof(unsigned), cudaMemcpyDeviceToHost);
      e != cudaSuccess) {
    std::fprintf(stderr, "tile_histograms: %s\n", cudaGetErrorString(e));
    return 1;
  }
  // Check every tile against the host and print one row of tiles.
  int wrong = 0;
  for (int ty = 0; ty < tiles_y; ++ty) {
    for (int tx = 0; tx < tiles_x; ++tx) {
      std::vector<unsigned> ref(bins, 0);
      for (int y = ty * height / tiles_y; y < (ty + 1) * height / tiles_y; ++y) {
        for (int x = tx * width / tiles_x; x < (tx + 1) * width / tiles_x; ++x) { ++ref[image[static_cast<size_t>(y) * width + x]]; }
      }
      for (int b = 0; b < bins; ++b) { wrong += ref[b] != hist[(ty * tiles_x + tx) * bins + b]; }
    }
  }
  std::printf("%dx%d image, %d tiles of %dx%d pixels, clip limit %u per bin\n", width, height, tiles, width / tiles_x,
              height / tiles_y, clip);
  for (int ty : {0, tiles_y - 1}) {
    std::printf("tile row %d, pixels above the clip limit:", ty);
    for (int tx = 0; tx < tiles_x; ++tx) { std::printf(" %6u", excess[ty * tiles_x + tx]); }
    std::printf("\n");
  }
  std::printf("%s: %d of %d bins differ from the host's count\n", wrong == 0 ? "ok" : "FAILED", wrong, tiles * bins);
  cudaFree(d_image);
  cudaFree(d_hist);
  cudaFree(d_excess);
  return wrong == 0 ? 0 : 1;
}
