// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The binner sets of the device-wide histogram: one binner per active channel, and how each set stages what it
// reads in a kernel's shared memory (range binners: their levels with a grid of cells or a bitmap; 16-bit range
// binning: a table of every value's bin, or the carry grid's words).
#pragma once

#include <onchip/binning.cuh>
#include <onchip/detail/block.cuh>
#include <onchip/detail/check.cuh>
#include <onchip/detail/histogram/binning.cuh>
#include <onchip/detail/histogram/layout.cuh>
#include <onchip/detail/histogram/level_bitmap.cuh>
#include <onchip/detail/histogram/level_grid.cuh>
#include <onchip/detail/histogram/tuning.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cstdio>

namespace onchip::detail {

#if defined(__CUDACC__)
/// Checked builds: traps with a message unless levels[0..bins] (channel `channel`'s) ascend.
template <class Level>
ONCHIP_DEVICE void check_ascending(const Level* levels, int bins, int channel) {
  for (int i = 0; i < bins; ++i) {
    if (!(levels[i] < levels[i + 1])) {
      printf(
          "onchip::histogram_range: levels must be sorted ascending, but level %d is not below level %d "
          "(channel %d)\n",
          i, i + 1, channel);
      fail_check(true);
    }
  }
}
#endif

/// Binners that read nothing staged (even, custom): the same binners in every phase.
template <int Active, class Binner>
struct plain_binners {
  using binner_t = Binner;
  Binner binner[Active];
  int bins[Active];
  static constexpr int level_bytes = 0;
  static constexpr int table_bytes = 0;
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE const Binner& operator[](int c) const { return binner[c]; }
  /// Channel c's binner without staging (the byte kernels bin each value once, at the end).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE Binner unstaged(int c) const { return binner[c]; }
#if defined(__CUDACC__)
  template <class Sample>
  ONCHIP_DEVICE plain_binners stage(const shared_spans&) const {
    return *this;
  }
#endif
};

/**
 * Binners between sorted levels in device memory; stage() copies each channel's levels into shared memory (where
 * the plan found room for them) and builds the grid of cells over them (level_grid.cuh), so most samples are
 * binned by one table read; levels the plan leaves in device memory get a bitmap of their sub-cells instead
 * where it fits (level_bitmap.cuh).
 */
template <int Active, class Level>
struct range_binners {
  const Level* levels[Active];  // device memory
  int bins[Active];             // num_levels - 1
  static constexpr int level_bytes = sizeof(Level);
  static constexpr int table_bytes = 0;
  static_assert(sizeof(level_cell<Level>) == level_cell_bytes(level_bytes) && alignof(level_cell<Level>) <= 16,
                "onchip::histogram_range: levels of this type do not fit the level grid's cells");

  /// Channel c's binner reading the levels in device memory (the byte kernels bin each value once, at the end).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE bin_range<Level> unstaged(int c) const { return {levels[c], bins[c] + 1}; }

  /// Every channel's grid of quiet cells (staged::quiet_binners): binners with no search.
  template <class X>
  struct quiet_staged {
    quiet_range<X, Level> binner[Active];
    ONCHIP_DEVICE ONCHIP_FORCEINLINE const quiet_range<X, Level>& operator[](int c) const { return binner[c]; }
  };

  /// Every channel's bitmap (staged::bitmaps).
  template <class X>
  struct bitmap_staged {
    bitmap_range<X, Level> binner[Active];
    ONCHIP_DEVICE ONCHIP_FORCEINLINE const bitmap_range<X, Level>& operator[](int c) const { return binner[c]; }
  };

  template <class X>
  struct staged {
    gridded_range<X, Level> binner[Active];
    bool quiet = false;  // every channel has a grid and no cell of it needs a search (the same in every thread)
    bitmap_staged<X> bitmaps{};  // where the plan gave the channels bitmaps (launch_plan::level_bitmap)
    ONCHIP_DEVICE ONCHIP_FORCEINLINE const gridded_range<X, Level>& operator[](int c) const { return binner[c]; }

#if defined(__CUDACC__)
    /// Where `quiet`, called by every thread of the block: each grid's words become their lowest bins alone
    /// (quiet_word; quiet_range adds no mask, and gridded_range's bins are the same on a quiet grid without the
    /// spans), and returns the binners without search over them.
    ONCHIP_DEVICE quiet_staged<X> quiet_binners() const {
      quiet_staged<X> q{};
      for (int a = 0; a < Active; ++a) {
        auto* grid = const_cast<level_cell<Level>*>(binner[a].cells);
        for (int c = block_rank(); c < binner[a].map.cells; c += block_size()) {
          grid[c].word = quiet_word(grid[c].word);
        }
        q.binner[a] = {binner[a].cells, binner[a].map, binner[a].first, binner[a].last};
      }
      __syncthreads();
      return q;
    }
#endif
  };

#if defined(__CUDACC__)
  /// Copies the levels into the layout's level arrays, fills each channel's cells (or builds its bitmap) and
  /// returns binners reading them, which also tell whether every cell is quiet (synchronizes the block; the cells
  /// and bitmaps can be read on return).
  template <class Sample>
  ONCHIP_DEVICE staged<arithmetic_t<Sample>> stage(const shared_spans& s) const {
    using X = arithmetic_t<Sample>;
    staged<X> out{};
    for (int a = 0; a < Active; ++a) {
      auto* copy = reinterpret_cast<Level*>(s.levels[a]);
      if (copy != nullptr) {  // else the levels are searched in device memory (too many for shared memory)
        for (int i = block_rank(); i <= bins[a]; i += block_size()) { copy[i] = levels[a][i]; }
      }
      out.binner[a].levels = copy != nullptr ? copy : levels[a];
      out.binner[a].bins = bins[a];
    }
    __syncthreads();
#  if ONCHIP_CHECKS
    if (blockIdx.x == 0 && block_rank() == 0) {
      for (int a = 0; a < Active; ++a) { check_ascending(out.binner[a].levels, bins[a], a); }
    }
#  endif
    bool loud = false;  // a cell of this thread's needs a search, or a channel has no grid
    for (int a = 0; a < Active; ++a) {
      gridded_range<X, Level>& b = out.binner[a];
      b.first = b.levels[0];
      b.last = b.levels[b.bins];
      const int cells = s.cell_count[a];
      if (s.bitmap[a] != nullptr) {  // the plan gives every channel a bitmap or none
        auto* entries = reinterpret_cast<bitmap_entry*>(s.bitmap[a]);
        const auto map = cell_map<X, Level>::over(b.first, b.last, tuning::bitmap_sub_cells);
        build_bitmap(entries, bitmap_entries(tuning::bitmap_sub_cells), b.levels, b.bins, map);
        out.bitmaps.binner[a] = {b.levels, entries, map, b.first, b.last};
        loud = true;
        continue;
      }
      if (cells == 0) {  // no grid: every sample searches all levels, from one cell over them all
        b.whole = level_cell_of(b.levels, b.bins, cell_map<X, Level>::over(b.first, b.last, 1), 0);
        loud = true;
        continue;
      }
      b.map = cell_map<X, Level>::over(b.first, b.last, cells);
      auto* grid = reinterpret_cast<level_cell<Level>*>(s.cells[a]);
      loud = !build_grid(grid, b.levels, b.bins, b.map) || loud;
      b.cells = grid;
    }
    out.quiet = __syncthreads_or(loud) == 0;
    return out;
  }

#endif
};

/// 16-bit integer samples between integer levels, unweighted, one channel: the range binning of every value.
template <class Sample, class Level>
inline constexpr bool value_table_v = cuda::std::is_integral_v<Sample> &&
                                      sizeof(Sample) == 2 && cuda::std::is_integral_v<Level>;

/**
 * Range binning of 16-bit integer samples between integer levels. The packed 16-bit path counts every sample value
 * and folds the values into bins at the end (bin_at and fold, called by kernels/shared.cuh's count_folded); other
 * paths stage a table from every sample value to its bin (0xffff: no bin; so at most 65535 bins) in shared memory,
 * so a sample costs one 16-bit shared load. stage() fills the table from the levels in device memory, a warp per
 * bin writing its values.
 */
template <class Sample, class Level>
struct value_table_binners {
  static_assert(value_table_v<Sample, Level>, "value tables bin 16-bit integer samples between integer levels");
  const Level* levels;  // device memory
  int bins[1];          // num_levels - 1, at most 65535
  static constexpr int level_bytes = 0;
  static constexpr int table_bytes = 65536 * 2;
  static constexpr long long lowest = cuda::std::is_signed_v<Sample> ? -32768 : 0;
  /// A sample's bits as uint16_t are its value's offset above `lowest` exclusive-or this.
  static constexpr unsigned position_flip = cuda::std::is_signed_v<Sample> ? 0x8000u : 0u;

  struct table_binner {
    const cuda::std::uint16_t* entries;
    ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const {
      const unsigned bin = entries[static_cast<cuda::std::uint16_t>(static_cast<long long>(x) - lowest)];
      return bin == 0xffffu ? -1 : static_cast<int>(bin);
    }
  };
  struct staged {
    table_binner binner[1];
    ONCHIP_DEVICE ONCHIP_FORCEINLINE const table_binner& operator[](int) const { return binner[0]; }
  };

  /// levels[b] as a sample value offset, clamped to [0, 65536].
  ONCHIP_HOST_DEVICE static long long offset_of(Level level) {
    if (int_less(level, lowest)) { return 0; }
    if (int_less(lowest + 65536, level)) { return 65536; }
    return static_cast<long long>(level) - lowest;
  }

  /// Where level i starts, as a sample value offset (65536, which no value reaches, past the last level).
  ONCHIP_HOST_DEVICE long long boundary(int i) const { return i <= bins[0] ? offset_of(levels[i]) : 65536; }

  /// How many levels are at or below the sample value `offset` values above the type's least: a binary search
  /// of the levels in device memory, in [0, bins + 1] whatever they hold.
  ONCHIP_HOST_DEVICE int levels_at_or_below(long long offset) const {
    int first = 0, count = bins[0] + 1;
    ONCHIP_NO_UNROLL
    while (count > 0) {
      const int step = count / 2;
      if (offset_of(levels[first + step]) <= offset) {
        first += step + 1;
        count -= step + 1;
      } else {
        count = step;
      }
    }
    return first;
  }

  /// The bin of a value with `below` levels at or below it (-1: none).
  ONCHIP_HOST_DEVICE int bin_of_levels(int below) const { return below >= 1 && below <= bins[0] ? below - 1 : -1; }

  /// The bin of the sample value `offset` values above the type's least (-1: none).
  ONCHIP_HOST_DEVICE int bin_at(long long offset) const { return bin_of_levels(levels_at_or_below(offset)); }

  /**
   * Folds the counts of the values [begin, end) (offsets, in order) into bins: count(v) is value v's count, and
   * emit(bin, sum) gets each run of values that share a bin (-1: no bin) with a non-zero sum. One search for the
   * first value, then a step through the levels at each boundary; every bin emitted is in [-1, bins) whatever
   * the levels hold.
   */
  ONCHIP_EXEC_CHECK_DISABLE
  template <class Count, class Emit>
  ONCHIP_HOST_DEVICE void fold(int begin, int end, Count&& count, Emit&& emit) const {
    if (begin >= end) { return; }
    int below = levels_at_or_below(begin);
    long long next = boundary(below);
    unsigned long long sum = 0;
    for (int v = begin; v < end; ++v) {
      if (v >= next) {
        if (sum != 0) { emit(bin_of_levels(below), sum); }
        sum = 0;
        do { next = boundary(++below); } while (v >= next);  // ends: boundary(bins + 1) is 65536
      }
      sum += count(v);
    }
    if (sum != 0) { emit(bin_of_levels(below), sum); }
  }

  // The carry grid (the carry_grid path, kernels/carry.cuh): the 16-bit values cut into cells of 2^cell_bits
  // values, one 32-bit word a cell, chosen so that a sample's counter index (the levels at or below it: 0 below
  // the first, bins + 1 at or past the last) is one addition and one shift:
  //   index = (word[bits >> cell_bits] + (bits << 8)) >> (8 + cell_bits)
  // with `bits` the sample's 16 bits. The word is ((first - slot) << (8 + cell_bits)) + ((2^cell_bits - s) << 8):
  // `first` is the index of the cell's first value, `slot` the cell's place in the table (its value bits before
  // position_flip), `s` the offset inside the cell of the one level that starts there (2^cell_bits: none), so the
  // addition carries into the index exactly at that level. Exact where no cell holds two such levels (crowds()).

  /// Whether levels i and i + 1 lie inside one cell, neither at its first value (nor past the type).
  ONCHIP_HOST_DEVICE bool pair_crowds(int i, int cell_bits) const {
    const long long a = offset_of(levels[i]), b = offset_of(levels[i + 1]), inside = (1LL << cell_bits) - 1;
    return (a & inside) != 0 && b < 65536 && (a >> cell_bits) == (b >> cell_bits);
  }

  /// Whether some cell of 2^cell_bits values holds two level boundaries inside it (or a repeated one): then the
  /// carry grid cannot count these levels.
  ONCHIP_HOST_DEVICE bool crowds(int cell_bits) const {
    for (int i = 0; i < bins[0]; ++i) {
      if (pair_crowds(i, cell_bits)) { return true; }
    }
    return false;
  }

  /// The word of table slot `slot` for cells of 2^cell_bits values (at most 8; bins at most 2^(24 - cell_bits)
  /// - 2). Whatever the levels hold, the index it gives is in [0, bins + 1].
  ONCHIP_HOST_DEVICE unsigned carry_word(int slot, int cell_bits) const {
    const int cell = slot ^ static_cast<int>(position_flip >> cell_bits);
    const long long width = 1LL << cell_bits, first = static_cast<long long>(cell) << cell_bits;
    const int lo = levels_at_or_below(first), hi = levels_at_or_below(first + width - 1);
    long long split = width;
    if (hi == lo + 1) {  // then lo <= bins: levels[lo] is the level inside the cell
      const long long at = boundary(lo) - first;
      if (at >= 1 && at < width) { split = at; }
    }
    return (static_cast<unsigned>(lo - slot) << (8 + cell_bits)) + (static_cast<unsigned>(width - split) << 8);
  }

  /// A sample's counter index from its slot's word and its 16 bits.
  ONCHIP_HOST_DEVICE static unsigned carry_index(unsigned word, unsigned bits, int cell_bits) {
    return (word + (bits << 8)) >> (8 + cell_bits);
  }

#if defined(__CUDACC__)
  /// Whether the levels crowd cells of 2^cell_bits values (crowds()), decided by the whole block; synchronizes it.
  ONCHIP_DEVICE bool block_crowds(int cell_bits) const {
    bool crowded = false;
    for (int i = block_rank(); i < bins[0]; i += block_size()) { crowded = crowded || pair_crowds(i, cell_bits); }
    return __syncthreads_or(crowded) != 0;
  }

  /// Checked builds: the first block's first thread traps unless the levels ascend.
  ONCHIP_DEVICE void check_levels() const {
#  if ONCHIP_CHECKS
    if (blockIdx.x == 0 && block_rank() == 0) { check_ascending(levels, bins[0], 0); }
#  endif
  }

  /// Fills the table (synchronizes the block; the caller synchronizes before it is read).
  template <class S>
  ONCHIP_DEVICE staged stage(const shared_spans& s) const {
    auto* words = reinterpret_cast<cuda::std::uint32_t*>(s.table);
    for (int i = block_rank(); i < table_bytes / 4; i += block_size()) { words[i] = 0xffffffffu; }
    __syncthreads();
    check_levels();
    auto* entries = reinterpret_cast<cuda::std::uint16_t*>(s.table);
    const int lane = block_rank() % 32, warps = block_size() / 32;
    for (int b = block_rank() / 32; b < bins[0]; b += warps) {
      const long long end = offset_of(levels[b + 1]);
      for (long long v = offset_of(levels[b]) + lane; v < end; v += 32) {
        entries[v] = static_cast<cuda::std::uint16_t>(b);
      }
    }
    return {{{entries}}};
  }
#endif
};

template <class Binners>
inline constexpr bool is_value_table_v = false;
template <class Sample, class Level>
inline constexpr bool is_value_table_v<value_table_binners<Sample, Level>> = true;

}  // namespace onchip::detail
