// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Histogram equalization of a grayscale image: PGM in, PGM out. The histogram comes from
 * onchip::histogram_even, its cumulative sum becomes a 256-entry lookup table on the host, and a remap kernel
 * keeps that table in carved shared memory while it streams the pixels with 16-byte loads.
 *
 *   histogram_equalization [in.pgm [out.pgm]]   (no input: a synthetic low-contrast image; out: equalized.pgm)
 */
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

// example-begin equalize
struct lut_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const { return smem.take<unsigned char>(256); }
};

__global__ void remap(const unsigned char* in, unsigned char* out, size_t n, const unsigned char* table) {
  auto lut = onchip::carve(lut_plan{});
  for (int i = threadIdx.x; i < 256; i += blockDim.x) { lut[i] = table[i]; }
  __syncthreads();
  onchip::grid_for_each<4>(in, n, [&](unsigned char v, size_t i) { out[i] = lut[v]; });
}

// The classic equalization table: cdf rescaled so that the darkest occupied level maps to 0 and the rest spread
// over 0..255.
std::vector<unsigned char> equalization_table(const std::vector<unsigned>& hist) {
  std::vector<unsigned char> table(256);
  unsigned long long cdf = 0, cdf_min = 0, total = 0;
  for (unsigned c : hist) { total += c; }
  for (int v = 0; v < 256; ++v) {
    cdf += hist[v];
    if (cdf_min == 0) { cdf_min = cdf; }
    const double scaled = total > cdf_min ? double(cdf - cdf_min) / double(total - cdf_min) * 255.0 : double(v);
    table[v] = static_cast<unsigned char>(std::lround(scaled));
  }
  return table;
}
// example-end equalize

namespace {

bool read_pgm(const std::string& path, int& width, int& height, std::vector<unsigned char>& pixels) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  int maxval = 0;
  if (!(in >> magic >> width >> height >> maxval) || magic != "P5" || maxval != 255 || width < 1 || height < 1) {
    return false;
  }
  in.get();  // the single whitespace before the pixels
  pixels.resize(static_cast<size_t>(width) * height);
  return static_cast<bool>(in.read(reinterpret_cast<char*>(pixels.data()), static_cast<std::streamsize>(pixels.size())));
}

bool write_pgm(const std::string& path, int width, int height, const std::vector<unsigned char>& pixels) {
  std::ofstream out(path, std::ios::binary);
  out << "P5\n" << width << " " << height << "\n255\n";
  out.write(reinterpret_cast<const char*>(pixels.data()), static_cast<std::streamsize>(pixels.size()));
  return static_cast<bool>(out);
}

double spread(const std::vector<unsigned>& hist) {  // standard deviation of the brightness
  double n = 0, s = 0, s2 = 0;
  for (int v = 0; v < 256; ++v) {
    n += hist[v];
    s += double(hist[v]) * v;
    s2 += double(hist[v]) * v * v;
  }
  return std::sqrt(s2 / n - (s / n) * (s / n));
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "histogram_equalization: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  int width = 1920, height = 1080;
  std::vector<unsigned char> image;
  if (argc > 1) {
    if (!read_pgm(argv[1], width, height, image)) {
      std::fprintf(stderr, "histogram_equalization: '%s' is not a readable 8-bit binary PGM (P5, maxval 255)\n", argv[1]);
      return 2;
    }
  } else {  // a hazy photo: everything squeezed into 90..150
    image.resize(static_cast<size_t>(width) * height);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const double v = 120 + 25 * std::sin(x / 97.0) * std::cos(y / 61.0) + 5 * std::sin((x + 3 * y) / 7.0);
        image[static_cast<size_t>(y) * width + x] = static_cast<unsigned char>(v);
      }
    }
  }
  const std::string out_path = argc > 2 ? argv[2] : "equalized.pgm";
  const size_t n = image.size();
  unsigned char *d_in = nullptr, *d_out = nullptr, *d_table = nullptr;
  unsigned* d_hist = nullptr;
  cudaMalloc(&d_in, n);
  cudaMalloc(&d_out, n);
  cudaMalloc(&d_table, 256);
  cudaMalloc(&d_hist, 256 * sizeof(unsigned));
  cudaMemcpy(d_in, image.data(), n, cudaMemcpyHostToDevice);
  if (onchip::histogram_even(d_in, n, d_hist, 256, 0, 256) != cudaSuccess) {
    std::fprintf(stderr, "histogram_equalization: %s\n", onchip::last_error_message());
    return 1;
  }
  std::vector<unsigned> hist(256), after(256);
  cudaMemcpy(hist.data(), d_hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  const std::vector<unsigned char> table = equalization_table(hist);
  cudaMemcpy(d_table, table.data(), 256, cudaMemcpyHostToDevice);
  remap<<<132 * 4, 256, onchip::smem_bytes(lut_plan{})>>>(d_in, d_out, n, d_table);
  onchip::histogram_even(d_out, n, d_hist, 256, 0, 256);
  std::vector<unsigned char> result(n);
  cudaMemcpy(after.data(), d_hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  if (const cudaError_t e = cudaMemcpy(result.data(), d_out, n, cudaMemcpyDeviceToHost); e != cudaSuccess) {
    std::fprintf(stderr, "histogram_equalization: %s\n", cudaGetErrorString(e));
    return 1;
  }
  bool ok = true;
  for (size_t i = 0; i < n; ++i) { ok = ok && result[i] == table[image[i]]; }
  if (!write_pgm(out_path, width, height, result)) {
    std::fprintf(stderr, "histogram_equalization: cannot write '%s'\n", out_path.c_str());
    return 1;
  }
  std::printf("%dx%d image: brightness spread %.1f -> %.1f levels (standard deviation); wrote %s\n", width, height,
              spread(hist), spread(after), out_path.c_str());
  std::printf("%s\n", ok ? "remap matches the host table" : "MISMATCH");
  return ok && spread(after) > spread(hist) ? 0 : 1;
}
