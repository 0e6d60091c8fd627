// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Range binning through a grid of cells over [first level, last level): the device-wide histogram stages a
// channel's levels in shared memory together with one entry per cell that bounds the bins of every value in that
// cell and holds the level that splits the first two, so a sample costs one table read and one compare, and a
// search only in a cell that two or more level boundaries cross.
//
// Why it is exact: the cell of a value is a non-decreasing function of the value (cell_map), the same function
// for samples and levels. For a sample x in cell c, every level whose cell is below c lies below x, and every
// level whose cell is above c lies above x; so bin(x) = #{i >= 1 : levels[i] <= x} is at least lo(c) = #{i >= 1 :
// cell(levels[i]) < c} and at most lo(c + 1). The search runs between those two.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/binning.cuh>
#if defined(__CUDACC__)
#  include <onchip/detail/block.cuh>
#endif

#include <cuda/std/cmath>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip::detail {

/**
 * A non-decreasing map from values to cells [0, cells) over [origin, last): integer samples and levels by their
 * distance from `origin` shifted right (exact), anything else by fma(x, scale, -origin * scale) in
 * compare_float_t (one rounding of an exact product plus a constant: monotone, whatever the scale), truncated and
 * clamped to [0, cells - 1]. Values outside the range land in a cell at either end (integers below `origin`
 * wrap to the last; the binner tests the range on its own), NaN in the first; a scale
 * that is not finite and positive becomes 0 (every value in cell 0: still exact, the search then covers all
 * levels).
 */
template <class X, class Level>
struct cell_map {
  static constexpr bool integral = cuda::std::is_integral_v<X> && cuda::std::is_integral_v<Level>;
  static constexpr bool narrow = sizeof(X) <= 4 && sizeof(Level) <= 4;  // distances fit 32 bits
  using F = compare_float_t<X, Level>;

  Level origin{};
  F scale{};           // floating map
  F offset{};          // origin * scale
  unsigned shift = 0;  // integer map
  int cells = 1;

  /// The number of bits of x (0 for 0).
  ONCHIP_HOST_DEVICE static int bit_width(cuda::std::uint64_t x) {
#if defined(__CUDA_ARCH__)
    return 64 - __clzll(static_cast<long long>(x));
#else
    int w = 0;
    for (; x != 0; x >>= 1) { ++w; }
    return w;
#endif
  }

  /// The map of `cells` cells (a power of two) over [first, last) (first < last in the levels' order).
  ONCHIP_HOST_DEVICE static cell_map over(Level first, Level last, int cells) {
    cell_map m;
    m.origin = first;
    m.cells = cells;
    if constexpr (integral) {  // (range - 1) >> shift < cells = 2^k: shift = width(range - 1) - k, or 0
      const int width = bit_width(unsigned_distance(last, first) - 1);
      const int k = bit_width(static_cast<cuda::std::uint64_t>(cells)) - 1;
      m.shift = width > k ? static_cast<unsigned>(width - k) : 0u;
    } else {
      const F s = static_cast<F>(cells) / (static_cast<F>(last) - static_cast<F>(first));
      m.scale = s > F(0) && cuda::std::isfinite(s) ? s : F(0);
      m.offset = m.scale > F(0) ? static_cast<F>(first) * m.scale : F(0);
    }
    return m;
  }

  /// The cell of `v` (a sample as arithmetic(), or a level).
  template <class V>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(V v) const {
    if constexpr (integral) {
      if constexpr (narrow) {
        const cuda::std::uint32_t q =
            (static_cast<cuda::std::uint32_t>(v) - static_cast<cuda::std::uint32_t>(origin)) >> shift;
        return static_cast<int>(q < static_cast<cuda::std::uint32_t>(cells - 1) ? q : cells - 1);
      } else {
        const cuda::std::uint64_t q = unsigned_distance(v, origin) >> shift;
        return static_cast<int>(q < static_cast<cuda::std::uint64_t>(cells - 1) ? q : cells - 1);
      }
    } else {
      const F t = cuda::std::fma(static_cast<F>(v), scale, -offset);
#if defined(__CUDA_ARCH__)  // the conversion saturates: negative values and NaN give 0
      unsigned q = 0;
      if constexpr (sizeof(F) == 4) {
        q = __float2uint_rz(t);
      } else {
        q = __double2uint_rz(t);
      }
#else
      const unsigned q = t > F(0) ? (t < F(4294967295.0) ? static_cast<unsigned>(t) : 4294967295u) : 0u;
#endif
      return static_cast<int>(q < static_cast<unsigned>(cells - 1) ? q : static_cast<unsigned>(cells - 1));
    }
  }
};

/// #{i in [1, bins] : map(levels[i]) < c}, by binary search (in bounds whatever the levels hold).
template <class Map, class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int levels_below_cell(const Level* levels, int bins, const Map& map, int c) {
  int first = 1, count = bins;
  while (count > 0) {
    const int step = count / 2;
    if (map(levels[first + step]) < c) {
      first += step + 1;
      count -= step + 1;
    } else {
      count = step;
    }
  }
  return first - 1;
}

/**
 * One cell of the grid: `word` holds the lowest bin of the cell's values in its low 16 bits and how many more bins
 * they may reach in its high 16 (both clamped to the last bin, so that no search can leave the levels; bins <=
 * max_staged_bins); `split` is the level that starts the next bin (the last level when the cell holds one bin,
 * which no sample in range reaches).
 */
template <class Level>
struct level_cell {
  cuda::std::uint32_t word;
  Level split;
};

/// The cell whose values have `lo` levels of levels[1..bins] below their cell and `hi` below the next cell
/// (either clamped to the last bin, so that nothing read from the cell leaves the levels, whatever they hold).
template <class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE level_cell<Level> level_cell_from(const Level* levels, int bins, int lo,
                                                                        int hi) {
  const int last = bins - 1;
  lo = lo < last ? lo : last;
  hi = hi < last ? hi : last;
  const int span = hi > lo ? hi - lo : 0;
  return {static_cast<cuda::std::uint32_t>(lo) | (static_cast<cuda::std::uint32_t>(span) << 16),
          levels[span > 0 ? lo + 1 : bins]};
}

/// Cell c of the grid that `map` lays over levels[0..bins], by two binary searches.
template <class Map, class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE level_cell<Level> level_cell_of(const Level* levels, int bins,
                                                                      const Map& map, int c) {
  return level_cell_from(levels, bins, levels_below_cell(levels, bins, map, c),
                         c + 1 < map.cells ? levels_below_cell(levels, bins, map, c + 1) : bins);
}

/**
 * What level i (1 <= i <= bins) tells the grid that `map` lays over levels[0..bins], so that a block builds the
 * grid from its levels without a search. With m(j) the cell of levels[j], m(0) = -1 and m(bins + 1) = map.cells:
 * level i, where it is the first level of its cell (m(i - 1) < m(i)), has i - 1 levels below that cell, and
 * where it is the last (m(i) < m(i + 1)), i below the next. For ascending levels these are the counts that
 * levels_below_cell gives the cell and the next one (the map never decreases); a cell that holds no level has as
 * many below it and below the next cell as the next cell that holds one has below it.
 */
struct level_fill {
  int cell;    // m(i)
  bool first;  // level i is the first level of its cell
  bool last;   // level i is the last level of its cell
};

template <class Map, class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE level_fill level_fill_of(const Level* levels, int bins, const Map& map,
                                                               int i) {
  const int cell = map(levels[i]);
  const int before = i > 1 ? map(levels[i - 1]) : -1;
  const int next = i < bins ? map(levels[i + 1]) : map.cells;
  return {cell, before < cell, cell < next};
}

/**
 * Range binning over levels and grid cells (shared memory in the device-wide histogram): bin i holds
 * levels[i] <= x < levels[i + 1], -1 for samples outside [levels[0], levels[bins]) and NaN, as bin_range. Every
 * sample runs the same straight-line code (its cell, one compare with the cell's split, a select); only a sample
 * past the split of a cell that two or more level boundaries cross searches on. Without cells (levels too many for
 * a grid beside them in shared memory) every sample takes `whole`, one cell over all levels: a binary search.
 */
template <class X, class Level>
struct gridded_range {
  const Level* levels = nullptr;
  const level_cell<Level>* cells = nullptr;
  level_cell<Level> whole{};  // one cell over all levels
  cell_map<X, Level> map{};
  Level first{}, last{};
  int bins = 0;

  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample sample) const {
    const auto x = arithmetic(sample);
    const bool valid = !value_less(x, first) && value_less(x, last);  // false for NaN
    const level_cell<Level> cell = cells != nullptr ? cells[map(x)] : whole;
    const bool above = !value_less(x, cell.split);
    int b = static_cast<int>(cell.word & 0xffffu) + (above ? 1 : 0);  // levels[b] <= x
    int rest = above ? static_cast<int>(cell.word >> 16) - 1 : 0;     // the bin is at most b + rest
    while (rest > 0) {
      const int half = (rest + 1) >> 1;
      const bool up = !value_less(x, levels[b + half]);
      b += up ? half : 0;
      rest = up ? rest - half : half - 1;
    }
    return valid ? b : -1;
  }
};

/// Whether no value of cell `cell` can need a search: the cell's values reach at most one bin past its lowest.
template <class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE bool cell_is_quiet(const level_cell<Level>& cell) {
  return (cell.word >> 16) <= 1u;
}

/// A quiet cell's word as quiet_range reads it: its lowest bin, without the span.
ONCHIP_HOST_DEVICE constexpr cuda::std::uint32_t quiet_word(cuda::std::uint32_t word) { return word & 0xffffu; }

/**
 * gridded_range over a grid of quiet cells only (cell_is_quiet for every cell, which the block tests once while
 * staging), whose words hold their lowest bins alone (quiet_word): a sample is its cell, one compare with the
 * cell's split and an add, with no search and no branch. Its bins are gridded_range's on such a grid, with or
 * without the words' spans.
 */
template <class X, class Level>
struct quiet_range {
  const level_cell<Level>* cells = nullptr;
  cell_map<X, Level> map{};
  Level first{}, last{};

  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample sample) const {
    const auto x = arithmetic(sample);
    const bool valid = !value_less(x, first) && value_less(x, last);  // false for NaN
    const level_cell<Level> cell = cells[map(x)];
    const int b = static_cast<int>(cell.word) + (value_less(x, cell.split) ? 0 : 1);
    return valid ? b : -1;
  }
};

#if defined(__CUDACC__)
/**
 * Fills the map.cells cells of the grid that `map` lays over levels[0..bins] with the whole block (every thread
 * calls it; the block a whole number of warps; map.cells a power of two of at least 32). Each level writes what it
 * knows (level_fill) into its cell's word by shared atomics on the halves: where it is its cell's first level, the
 * levels below the cell; where it is the last, the levels below the next cell. A cell no level falls in keeps a
 * zero word (a cell that holds a level has at least one level below its next cell), and both of its counts are the
 * levels below the next cell that holds one. Those come from a scan: each warp takes a run of rows of 32 cells,
 * publishes the least count of its run for the warps before it, and then walks its rows from the last down, a lane
 * reading one cell of a row and carrying the least count of the cells after. Then every cell's entry comes from
 * its counts (level_cell_from). The same cells as level_cell_of for ascending levels, and within the levels
 * whatever they hold. Returns whether this thread's cells are all quiet; the caller synchronizes the block before
 * the cells are read. (H200, 4096 cells over 1025 levels, a block of 1024 threads: two binary searches a cell took
 * 16 us, each level writing its run of empty cells 6.6-7.5 us, this scan 2.4 us.)
 */
template <class Map, class Level>
ONCHIP_DEVICE bool build_grid(level_cell<Level>* grid, const Level* levels, int bins, const Map& map) {
  constexpr unsigned all = 0xffffffffu, none = 0xffffu;  // none: no level after (level_cell_from clamps it)
  const int cells = map.cells, lane = block_rank() % 32, warp = block_rank() / 32, warps = block_size() / 32;
  for (int c = block_rank(); c < cells; c += block_size()) { grid[c].word = 0u; }
  __syncthreads();
  for (int i = block_rank() + 1; i <= bins; i += block_size()) {
    const level_fill f = level_fill_of(levels, bins, map, i);
    if (f.first) { atomicOr(&grid[f.cell].word, static_cast<cuda::std::uint32_t>(i - 1)); }
    if (f.last) { atomicOr(&grid[f.cell].word, static_cast<cuda::std::uint32_t>(i) << 16); }
  }
  __syncthreads();
  const int rows = cells / 32, per_warp = (rows + warps - 1) / warps;
  const int row_begin = warp * per_warp < rows ? warp * per_warp : rows;
  const int row_end = row_begin + per_warp < rows ? row_begin + per_warp : rows;
  // Each warp's least count over its rows, published in the spare bytes of cell `warp` (past its word: a cell has
  // at least 8) for the warps before it.
  unsigned mine = none;
  for (int r = row_begin; r < row_end; ++r) {
    const cuda::std::uint32_t word = grid[r * 32 + lane].word;
    mine = word != 0u && (word & 0xffffu) < mine ? word & 0xffffu : mine;
  }
  auto spare = [&](int k) { return reinterpret_cast<cuda::std::uint32_t*>(&grid[k]) + 1; };
  mine = warp_min(mine);
  if (lane == 0 && row_begin < row_end) { *spare(warp) = mine; }
  __syncthreads();
  const int later = warp + 1 + lane;  // lane l reads warp + 1 + l's
  unsigned after = warp_min(later < warps && later * per_warp < rows ? *spare(later) : none);  // past its rows
  __syncthreads();  // every warp has read the spare bytes before any cell is rewritten
  bool quiet = true;
  for (int r = row_end - 1; r >= row_begin; --r) {
    const int c = r * 32 + lane;
    const cuda::std::uint32_t word = grid[c].word;
    unsigned least = word != 0u ? word & 0xffffu : none;  // over this cell and the row's cells after it
#  pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const unsigned next = __shfl_down_sync(all, least, d);  // a lane's own value past lane 31
      least = next < least ? next : least;
    }
    least = least < after ? least : after;
    after = __shfl_sync(all, least, 0);
    const cuda::std::uint32_t counts = word != 0u ? word : least | (least << 16);
    grid[c] = level_cell_from(levels, bins, static_cast<int>(counts & 0xffffu), static_cast<int>(counts >> 16));
    quiet = quiet && cell_is_quiet(grid[c]);
  }
  return quiet;
}
#endif

}  // namespace onchip::detail
