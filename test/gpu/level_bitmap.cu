// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The level bitmap on the GPU: a block builds it in shared memory from levels in device memory (build_bitmap), and
// every entry must equal its definition computed on the host (bitmap_entry_of); then the block bins samples through
// it (bitmap_range), and every bin must be std::upper_bound's.
#include <onchip/detail/histogram/level_bitmap.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "histogram_common.cuh"

namespace {

using onchip::detail::bitmap_entry;

template <class X, class Level>
__global__ void build_and_bin(const Level* levels, int bins, onchip::detail::cell_map<X, Level> map, int count,
                              const X* samples, int n, bitmap_entry* entries_out, int* bins_out) {
  extern __shared__ bitmap_entry entries[];
  onchip::detail::build_bitmap(entries, count, levels, bins, map);
  if (blockIdx.x == 0) {
    for (int w = threadIdx.x; w < count; w += blockDim.x) { entries_out[w] = entries[w]; }
  }
  const onchip::detail::bitmap_range<X, Level> binner{levels, entries, map, levels[0], levels[bins]};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bins_out[i] = binner(samples[i]);
  }
}

// Builds the bitmap of `sub_cells` sub-cells over `levels` in blocks of `threads`, compares the entries with the
// host's and the bins of `samples` (plus every level and its neighbours) with std::upper_bound's; returns the number
// of marked entries.
template <class X, class Level>
int check_bitmap(const std::vector<Level>& levels, std::vector<X> samples, int sub_cells, int threads) {
  const int bins = static_cast<int>(levels.size()) - 1;
  const auto map = onchip::detail::cell_map<X, Level>::over(levels.front(), levels.back(), sub_cells);
  const int count = onchip::detail::bitmap_entries(sub_cells);
  for (const Level& l : levels) {
    samples.push_back(static_cast<X>(l));
    if constexpr (std::is_floating_point_v<X>) {
      samples.push_back(std::nextafter(static_cast<X>(l), -std::numeric_limits<X>::infinity()));
      samples.push_back(std::nextafter(static_cast<X>(l), std::numeric_limits<X>::infinity()));
    }
  }
  const int n = static_cast<int>(samples.size());
  onchip_test::device_buffer<Level> d_levels(levels.size());
  onchip_test::device_buffer<X> d_samples(samples.size());
  onchip_test::device_buffer<bitmap_entry> d_entries(static_cast<std::size_t>(count));
  onchip_test::device_buffer<int> d_bins(samples.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), levels.data(), d_levels.bytes(), cudaMemcpyHostToDevice));
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_samples.data(), samples.data(), d_samples.bytes(), cudaMemcpyHostToDevice));
  const std::size_t smem = static_cast<std::size_t>(count) * sizeof(bitmap_entry);
  int device = 0, optin = 0;
  ONCHIP_CUDA_REQUIRE(cudaGetDevice(&device));
  ONCHIP_CUDA_REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (smem > static_cast<std::size_t>(optin)) {
    MESSAGE("skipped: " << sub_cells << " sub-cells take " << smem << " bytes of shared memory, this GPU gives " << optin);
    return 0;
  }
  ONCHIP_CUDA_REQUIRE(cudaFuncSetAttribute(build_and_bin<X, Level>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  build_and_bin<X, Level><<<4, threads, smem>>>(d_levels.data(), bins, map, count, d_samples.data(), n,
                                                d_entries.data(), d_bins.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<bitmap_entry> got(static_cast<std::size_t>(count));
  std::vector<int> got_bins(samples.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), d_entries.data(), d_entries.bytes(), cudaMemcpyDeviceToHost));
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got_bins.data(), d_bins.data(), d_bins.bytes(), cudaMemcpyDeviceToHost));
  int marked = 0;
  for (int w = 0; w < count; ++w) {
    const bitmap_entry e = onchip::detail::bitmap_entry_of(levels.data(), bins, map, w);
    INFO("entry " << w << " of " << count);
    REQUIRE(got[w].bits == e.bits);
    REQUIRE(got[w].below == e.below);
    marked += (e.below & onchip::detail::bitmap_crowded) != 0 ? 1 : 0;
  }
  int wrong = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    if (got_bins[i] != hist_test::reference_range(samples[i], levels)) {
      if (wrong++ == 0) { first = i; }
    }
  }
  INFO("first wrong sample " << (first >= 0 ? +samples[first] : X{}) << ": got " << (first >= 0 ? got_bins[first] : 0));
  REQUIRE(wrong == 0);
  return marked;
}

template <class X>
std::vector<X> uniform_samples(double lo, double hi, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<X> out;
  for (int i = 0; i < n; ++i) { out.push_back(static_cast<X>(d(rng))); }
  return out;
}

}  // namespace

ONCHIP_GPU_TEST_CASE("level bitmap: 65536 square-root levels over 2^18 sub-cells, built by blocks of 1024 and 256") {
  std::vector<float> levels(65536);
  for (int i = 0; i < 65536; ++i) { levels[i] = static_cast<float>(std::sqrt(i / 65535.0)); }
  auto samples = uniform_samples<float>(-0.1, 1.1, 200000, 1);
  for (float x : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.0f}) {
    samples.push_back(x);
  }
  // The closest square-root levels (near 1) lie 1/(2 * 65535) apart, two sub-cells of 1/2^18: no sub-cell holds
  // two, so no entry is marked and every sample takes the population count (the clustered test covers the search).
  CHECK(check_bitmap(levels, samples, 1 << 18, 1024) == 0);
  check_bitmap(levels, samples, 1 << 18, 256);
}

ONCHIP_GPU_TEST_CASE("level bitmap: clustered, duplicate and infinite levels, and a coarse bitmap") {
  std::vector<float> clustered = {0.0f, 10.0f, 50.0f, 100.0f};
  for (int i = 0; i < 600; ++i) { clustered.push_back(20.0f + static_cast<float>(i) * 1e-5f); }
  std::sort(clustered.begin(), clustered.end());
  auto samples = uniform_samples<float>(-1.0, 101.0, 20000, 2);
  const auto crowd = uniform_samples<float>(19.999, 20.007, 20000, 3);
  samples.insert(samples.end(), crowd.begin(), crowd.end());
  CHECK(check_bitmap(clustered, samples, 1 << 18, 512) > 0);  // 600 levels within 0.006: marked entries
  check_bitmap(clustered, samples, 64, 512);
  const float inf = std::numeric_limits<float>::infinity();
  check_bitmap(std::vector<float>{0.0f, 1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f}, uniform_samples<float>(-1, 4, 5000, 4),
               1024, 256);
  check_bitmap(std::vector<float>{-inf, -1.0f, 0.0f, 1.0f, inf}, uniform_samples<float>(-3, 3, 5000, 5), 1 << 18, 256);
  check_bitmap(std::vector<float>{-1.0f, 2.0f}, uniform_samples<float>(-3, 3, 5000, 6), 32, 64);
}

ONCHIP_GPU_TEST_CASE("level bitmap: integer levels and 16-bit samples, every value") {
  std::vector<int> levels;
  for (int v = -32768; v <= 32767; v += 3) { levels.push_back(v); }
  std::vector<std::int16_t> every(65536);
  for (int v = 0; v < 65536; ++v) { every[v] = static_cast<std::int16_t>(v - 32768); }
  check_bitmap(levels, every, 1 << 14, 1024);
  check_bitmap(levels, every, 1 << 18, 1024);
}
