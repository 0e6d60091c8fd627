// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The range grid on the GPU: a block builds the cells of a grid over its levels in shared memory (build_grid), and
// every cell must equal its definition computed on the host (level_cell_of: two binary searches of the levels),
// for blocks of one warp to 32 warps, grids of 256 to 8192 cells, and level sets that leave most cells empty,
// crowd a few, repeat levels or reach infinity; the block's answer whether every cell is quiet must be the
// host's too.
// Unsorted levels and NaN must leave every cell's search within the levels.
#include <onchip/detail/histogram/level_grid.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "histogram_common.cuh"

namespace {

using onchip::detail::level_cell;

template <class X, class Level>
__global__ void build(const Level* levels, int bins, onchip::detail::cell_map<X, Level> map,
                      level_cell<Level>* cells_out, int* quiet_out) {
  extern __shared__ unsigned char smem[];
  auto* grid = reinterpret_cast<level_cell<Level>*>(smem);
  const bool quiet = onchip::detail::build_grid(grid, levels, bins, map);
  const int all_quiet = __syncthreads_and(quiet ? 1 : 0);
  for (int c = threadIdx.x; c < map.cells; c += blockDim.x) { cells_out[blockIdx.x * map.cells + c] = grid[c]; }
  if (threadIdx.x == 0) { quiet_out[blockIdx.x] = all_quiet; }
}

// Builds the grid of `cells` cells over `levels` in two blocks of each size from 1 to 32 warps; requires each
// block's cells to equal the host's (when `sorted`), or to keep every search within the levels (unsorted levels).
// Returns whether the host finds every cell quiet.
template <class X, class Level>
bool check_grid(const std::vector<Level>& levels, int cells, bool sorted = true) {
  const int bins = static_cast<int>(levels.size()) - 1;
  const auto map = onchip::detail::cell_map<X, Level>::over(levels.front(), levels.back(), cells);
  std::vector<level_cell<Level>> want(static_cast<std::size_t>(cells));
  bool want_quiet = true;
  for (int c = 0; c < cells; ++c) {
    want[c] = onchip::detail::level_cell_of(levels.data(), bins, map, c);
    want_quiet = want_quiet && onchip::detail::cell_is_quiet(want[c]);
  }
  constexpr int blocks = 2;
  onchip_test::device_buffer<Level> d_levels(levels.size());
  onchip_test::device_buffer<level_cell<Level>> d_cells(static_cast<std::size_t>(cells) * blocks);
  onchip_test::device_buffer<int> d_quiet(blocks);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), levels.data(), d_levels.bytes(), cudaMemcpyHostToDevice));
  const std::size_t smem = static_cast<std::size_t>(cells) * sizeof(level_cell<Level>);
  ONCHIP_CUDA_REQUIRE(cudaFuncSetAttribute(build<X, Level>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  for (int threads : {32, 96, 256, 512, 1024}) {
    ONCHIP_CUDA_REQUIRE(cudaMemset(d_cells.data(), 0xff, d_cells.bytes()));
    build<X, Level><<<blocks, threads, smem>>>(d_levels.data(), bins, map, d_cells.data(), d_quiet.data());
    ONCHIP_CUDA_REQUIRE(cudaGetLastError());
    ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
    std::vector<level_cell<Level>> got(static_cast<std::size_t>(cells) * blocks);
    std::vector<int> quiet(blocks);
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), d_cells.data(), d_cells.bytes(), cudaMemcpyDeviceToHost));
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(quiet.data(), d_quiet.data(), d_quiet.bytes(), cudaMemcpyDeviceToHost));
    int wrong = 0, first = -1;
    for (int i = 0; i < cells * blocks; ++i) {
      const level_cell<Level>& g = got[static_cast<std::size_t>(i)];
      const level_cell<Level>& w = want[i % cells];
      const bool ok = sorted ? g.word == w.word && std::memcmp(&g.split, &w.split, sizeof(Level)) == 0
                             : static_cast<int>(g.word & 0xffffu) + static_cast<int>(g.word >> 16) <= bins - 1;
      if (!ok && wrong++ == 0) { first = i; }
    }
    INFO(bins << " levels' bins, " << cells << " cells, " << threads << " threads: first wrong cell " << first);
    REQUIRE(wrong == 0);
    if (sorted) {
      REQUIRE(quiet[0] == (want_quiet ? 1 : 0));
      REQUIRE(quiet[1] == (want_quiet ? 1 : 0));
    }
  }
  return want_quiet;
}

std::vector<float> square_root_levels(int count) {
  std::vector<float> levels(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) { levels[i] = static_cast<float>(std::sqrt(i / (count - 1.0))); }
  return levels;
}

}  // namespace

ONCHIP_GPU_TEST_CASE("level grid: square-root, log-spaced and even levels, every grid size and block size") {
  // Both kinds of grid: 1025 square-root levels (at least 1/2048 apart) leave every cell of 4096 quiet, and 4097
  // crowd some of 4096 (their closest two lie 1/8192 apart).
  CHECK(check_grid<float>(square_root_levels(1025), 4096));
  CHECK_FALSE(check_grid<float>(square_root_levels(4097), 4096));
  for (int cells : {256, 1024, 4096, 8192}) {
    if (cells != 4096) {
      check_grid<float>(square_root_levels(1025), cells);
      check_grid<float>(square_root_levels(4097), cells);
    }
    std::vector<float> log_spaced(64);
    for (int i = 0; i < 64; ++i) { log_spaced[i] = std::pow(10.0f, -3.0f + 3.0f * i / 63.0f); }
    check_grid<float>(log_spaced, cells);
    std::vector<double> even(258);
    for (int i = 0; i < 258; ++i) { even[i] = i / 257.0; }
    check_grid<double>(even, cells);
  }
}

ONCHIP_GPU_TEST_CASE("level grid: levels that leave most cells empty, crowd one, repeat, or reach infinity") {
  std::vector<float> clustered(1025);
  for (int i = 0; i < 1024; ++i) { clustered[i] = static_cast<float>(i) * 1e-6f; }
  clustered[1024] = 1.0f;  // every cell but the first few and the last empty
  CHECK_FALSE(check_grid<float>(clustered, 4096));
  CHECK_FALSE(check_grid<float>(clustered, 256));
  check_grid<float>(std::vector<float>{0.0f, 1.0f}, 256);  // one bin
  check_grid<float>(std::vector<float>{0.0f, 0.5f, 0.5f, 0.5f, 1.0f, 1.0f, 2.0f}, 1024);
  const float inf = std::numeric_limits<float>::infinity();
  check_grid<float>(std::vector<float>{-inf, -1.0f, 0.0f, 1.0f, inf}, 4096);
  std::vector<int> integers;
  for (int v = -30000; v <= 30000; v += 7) { integers.push_back(v); }
  check_grid<int>(integers, 8192);
  check_grid<std::int16_t>(std::vector<std::int16_t>{-5, 0, 1, 2, 3, 100, 101}, 256);
}

ONCHIP_GPU_TEST_CASE("level grid: unsorted levels and NaN keep every cell's search within the levels") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> levels(300);
  for (auto& l : levels) { l = d(rng); }
  levels[17] = std::numeric_limits<float>::quiet_NaN();
  levels.front() = -0.5f;
  levels.back() = 0.5f;
  check_grid<float>(levels, 1024, false);
  check_grid<float>(levels, 256, false);
}
