// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Range binning through a bitmap of sub-cells, for levels that stay in device memory (more than shared memory
// holds beside the counters). The map of level_grid.cuh lays many more sub-cells over [first level, last level)
// than there are levels, and shared memory keeps, per 32 sub-cells, one bit per sub-cell that holds a level and
// the number of levels in lower sub-cells: 8 bytes per 32 sub-cells. A sample's bin is that number plus the levels
// of its entry below its own sub-cell (a population count), and, only where its own sub-cell holds a level, one
// compare with that level read from device memory. An entry in which a sub-cell holds two or more levels is marked
// and its samples search the entry's levels instead.
//
// Why it is exact: the map never decreases and is the same for samples and levels, so for a sample x in sub-cell c
// every level in a lower sub-cell lies below x and every level in a higher one above it (level_grid.cuh); the
// levels of sub-cell c itself are the only ones to compare.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/level_grid.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#if defined(__CUDACC__)
#  include <onchip/detail/block.cuh>
#endif

namespace onchip::detail {

/// 32 sub-cells of a level bitmap: bit r set when sub-cell 32w + r holds one of levels[1..bins]; `below` the
/// number of those levels in lower sub-cells, with bitmap_crowded set when a sub-cell of the entry holds two or
/// more. A marked (crowded) entry's bits are cleared: its samples search its levels instead.
struct bitmap_entry {
  cuda::std::uint32_t bits;
  cuda::std::uint32_t below;
};

inline constexpr cuda::std::uint32_t bitmap_crowded = 0x80000000u;

/// Entries of a bitmap of `sub_cells` sub-cells (a multiple of 32): one per 32 of them, and an end entry whose
/// `below` is the number of levels (where the last entry's search ends).
ONCHIP_HOST_DEVICE constexpr int bitmap_entries(int sub_cells) { return sub_cells / 32 + 1; }

/// Entry w of the bitmap that `map` lays over levels[0..bins] (w = map.cells / 32: the end entry), from its
/// definition: a binary search of the levels and a walk over the entry's own (host reference and tests).
template <class Map, class Level>
ONCHIP_HOST_DEVICE bitmap_entry bitmap_entry_of(const Level* levels, int bins, const Map& map, int w) {
  const int first_cell = w * 32;
  const int below = first_cell < map.cells ? levels_below_cell(levels, bins, map, first_cell) : bins;
  bitmap_entry e{0u, static_cast<cuda::std::uint32_t>(below)};
  for (int i = below + 1; i <= bins; ++i) {
    const int r = map(levels[i]) - first_cell;
    if (r >= 32) { break; }
    const cuda::std::uint32_t bit = 1u << r;
    e.below |= (e.bits & bit) != 0 ? bitmap_crowded : 0u;
    e.bits |= bit;
  }
  if ((e.below & bitmap_crowded) != 0) { e.bits = 0u; }
  return e;
}

/// levels[i] if `read` (else a zero Level), in one predicated load on the device where the type allows, so a batch
/// of samples issues its loads back to back instead of branching around each; read-only data cache (the levels do
/// not change during a kernel).
template <class Level>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE Level level_if(bool read, const Level* levels, int i) {
#if defined(__CUDA_ARCH__)
  if constexpr ((cuda::std::is_integral_v<Level> || cuda::std::is_same_v<Level, float> ||
                 cuda::std::is_same_v<Level, double>)&&(sizeof(Level) == 4 || sizeof(Level) == 8)) {
    using bits_t = cuda::std::conditional_t<sizeof(Level) == 4, cuda::std::uint32_t, cuda::std::uint64_t>;
    bits_t v = 0;
    const Level* at = levels + i;
    if constexpr (sizeof(Level) == 4) {
      asm("{\n .reg .pred p;\n setp.ne.u32 p, %1, 0;\n @p ld.global.nc.b32 %0, [%2];\n}"
          : "+r"(v)
          : "r"(static_cast<unsigned>(read)), "l"(at));
    } else {
      asm("{\n .reg .pred p;\n setp.ne.u32 p, %1, 0;\n @p ld.global.nc.b64 %0, [%2];\n}"
          : "+l"(v)
          : "r"(static_cast<unsigned>(read)), "l"(at));
    }
    if constexpr (cuda::std::is_same_v<Level, float>) {
      return __uint_as_float(v);
    } else if constexpr (cuda::std::is_same_v<Level, double>) {
      return __longlong_as_double(static_cast<long long>(v));
    } else {
      return static_cast<Level>(v);  // integers of 4 or 8 bytes
    }
  }
#endif
  return read ? levels[i] : Level{};
}

/**
 * Range binning over levels in device memory and a bitmap of their sub-cells in shared memory: bin i holds
 * levels[i] <= x < levels[i + 1], -1 for samples outside [levels[0], levels[bins]) and NaN, as bin_range and
 * gridded_range. A sample reads one entry; it reads a level only where its own sub-cell holds one, and searches
 * only in a marked entry (between the entry's `below` and the next entry's). In two steps for batches (start()
 * reads the entry and, predicated, the level; finish() compares, or searches a marked entry), so the loads of a
 * batch's samples are in flight together; operator() does both.
 */
template <class X, class Level>
struct bitmap_range {
  const Level* levels = nullptr;  // device memory
  const bitmap_entry* entries = nullptr;
  cell_map<X, Level> map{};  // map.cells sub-cells, a multiple of 32
  Level first{}, last{};

  /// started::step of a sample outside [first, last) or NaN, of one whose sub-cell holds a level (`level`) in an
  /// entry not marked, and of one whose sub-cell holds none; a marked entry's samples hold the entry's index.
  static constexpr int outside = -3, compare = -2, counted = -1;

  /// A sample between start() and finish() (four words: a batch's states stay in registers).
  struct started {
    X x;
    Level level;  // the level of the sample's own sub-cell, levels[upto] (step == compare)
    int upto;     // levels in lower sub-cells and the sample's own (marked entries: levels below the entry)
    int step;     // what finish() does: outside, compare, counted, or the marked entry to search
  };

  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE started start(Sample sample) const {
    const auto x = arithmetic(sample);
    const int c = map(x);
    const int w = c / 32;
    const cuda::std::uint32_t r = static_cast<cuda::std::uint32_t>(c % 32);
    const bitmap_entry e = entries[w];
    const bool marked = (e.below & bitmap_crowded) != 0;
    const cuda::std::uint32_t t = e.bits << (31u - r);  // bit r on top, the lower sub-cells' under it (marked: 0)
    const bool own = (t & 0x80000000u) != 0;
    const int upto = static_cast<int>(e.below & ~bitmap_crowded) + popcount(t);
    const bool valid = !value_less(x, first) && value_less(x, last);  // false for NaN
    return {x, level_if(own, levels, upto), upto, !valid ? outside : marked ? w : own ? compare : counted};
  }

  /// Whether finish() must search a marked entry for s; finish_unmarked(s) == finish(s) where it need not.
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE static bool searches(const started& s) { return s.step >= 0; }
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE static int finish_unmarked(const started& s) {
    const int b = s.upto - (s.step == compare && value_less(s.x, s.level) ? 1 : 0);
    return s.step == outside ? -1 : b;
  }

  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int finish(const started& s) const {
    if (!searches(s)) { return finish_unmarked(s); }
    int b = s.upto;  // levels[b + 1 .. end] are the marked entry's: count those at or below x
    int count = static_cast<int>(entries[s.step + 1].below & ~bitmap_crowded) - b;
    while (count > 0) {
      const int step = count / 2;
      if (!value_less(s.x, level_if(true, levels, b + 1 + step))) {
        b += step + 1;
        count -= step + 1;
      } else {
        count = step;
      }
    }
    return b;  // a marked entry's samples are in [first, last)
  }

  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample sample) const {
    return finish(start(sample));
  }

  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE static int popcount(cuda::std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    return __builtin_popcount(v);
#endif
  }
};

/// Whether a binner bins in two steps, finish(start(sample)) (bitmap_range): the counting loops start a batch of
/// samples before they finish any, so the batch's loads are in flight together. A stepped binner also has
/// searches(s), whether finish(s) must search, and finish_unmarked(s), equal to finish(s) where it need not.
template <class Binner, class = void>
inline constexpr bool stepped_binner_v = false;
template <class Binner>
inline constexpr bool stepped_binner_v<Binner, cuda::std::void_t<decltype(&Binner::finish)>> = true;

/// out[k] = stepped.finish(stepped.start(items[first + k])) for k < Batch, every start() before the first
/// finish(), so the batch's loads are in flight together (the counting loops' batches of a vector's samples).
template <int Batch, class Stepped, class Items, class Out>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void step_batch(const Stepped& stepped, const Items& items, int first,
                                                      Out (&out)[Batch]) {
  decltype(stepped.start(items[0])) started[Batch];
  ONCHIP_UNROLL
  for (int k = 0; k < Batch; ++k) { started[k] = stepped.start(items[first + k]); }
  bool search = false;  // one branch for the batch rather than one around each sample's search
  ONCHIP_UNROLL
  for (int k = 0; k < Batch; ++k) {
    out[k] = static_cast<Out>(stepped.finish_unmarked(started[k]));
    search = search || stepped.searches(started[k]);
  }
  if (search) {  // rare: a sample in a marked entry
    ONCHIP_UNROLL
    for (int k = 0; k < Batch; ++k) {
      if (stepped.searches(started[k])) { out[k] = static_cast<Out>(stepped.finish(started[k])); }
    }
  }
}

#if defined(__CUDACC__)
/**
 * Builds the `count` entries (bitmap_entries of map.cells) of the bitmap that `map` lays over levels[0..bins] in
 * device memory into shared memory, with the whole block: every thread marks some levels (shared atomics on their
 * entries' bits and counts), then the warps turn the counts into the numbers of levels below (a scan). Every
 * thread of the block (a whole number of warps) must call it; the entries can be read on return.
 */
template <class Map, class Level>
ONCHIP_DEVICE void build_bitmap(bitmap_entry* entries, int count, const Level* levels, int bins, const Map& map) {
  for (int w = block_rank(); w < count; w += block_size()) { entries[w] = {0u, 0u}; }
  __syncthreads();
  // A thread's levels are loaded `batch` at a time before it marks any (one load after another, each waiting on
  // the L2, held the build to about 40 us a block with 65535 levels).
  constexpr int batch = 8;
  const int threads = block_size();
  for (int i0 = 1 + block_rank(); i0 <= bins; i0 += batch * threads) {
    Level v[batch];
    ONCHIP_UNROLL
    for (int k = 0; k < batch; ++k) { v[k] = level_if(i0 + k * threads <= bins, levels, i0 + k * threads); }
    ONCHIP_UNROLL
    for (int k = 0; k < batch; ++k) {
      if (i0 + k * threads > bins) { break; }
      const int c = map(v[k]);
      const cuda::std::uint32_t bit = 1u << (c % 32);
      if ((atomicOr(&entries[c / 32].bits, bit) & bit) != 0) { atomicOr(&entries[c / 32].below, bitmap_crowded); }
      atomicAdd(&entries[c / 32].below, 1u);  // at most 65536 levels: the count never reaches the mark's bit
    }
  }
  __syncthreads();
  // Each entry's own count becomes the count of levels in lower entries: a scan of rows of 32 entries, each warp
  // over a run of rows, whose total it publishes in the `below` of its run's first entry (keeping that entry's own
  // word) for the warps after it. (A scan by warp 0 alone, lane l over 257 entries one after another, cost a
  // block of 1024 threads 1.3 us more on the H200.)
  const int lane = block_rank() % 32, warp = block_rank() / 32, warps = block_size() / 32;
  const int rows = (count + 31) / 32, per_warp = (rows + warps - 1) / warps;
  const int row_begin = warp * per_warp < rows ? warp * per_warp : rows;
  const int row_end = row_begin + per_warp < rows ? row_begin + per_warp : rows;
  const int head = row_begin * 32;
  cuda::std::uint32_t total = 0;
  for (int r = row_begin; r < row_end; ++r) {
    const int w = r * 32 + lane;
    total += w < count ? entries[w].below & ~bitmap_crowded : 0u;
  }
  total = warp_sum(total);
  const cuda::std::uint32_t head_word = row_begin < row_end ? entries[head].below : 0u;
  __syncwarp();
  if (lane == 0 && row_begin < row_end) { entries[head].below = total; }
  __syncthreads();
  // lane l reads warp l's total, for the warps before this one
  const bool earlier = lane < warp && lane * per_warp < rows;
  cuda::std::uint32_t before = warp_sum(earlier ? entries[lane * per_warp * 32].below : 0u);
  __syncthreads();  // every warp has read the totals before any entry is rewritten
  for (int r = row_begin; r < row_end; ++r) {
    const int w = r * 32 + lane;
    const cuda::std::uint32_t word = w == head ? head_word : w < count ? entries[w].below : 0u;
    const cuda::std::uint32_t own = word & ~bitmap_crowded, mark = word & bitmap_crowded;
    const cuda::std::uint32_t upto = warp_inclusive_sum(own, lane);  // over the row's lanes
    if (w < count) {
      entries[w].below = (before + upto - own) | mark;
      if (mark != 0) { entries[w].bits = 0u; }
    }
    before += __shfl_sync(0xffffffffu, upto, 31);
  }
  __syncthreads();
}
#endif

}  // namespace onchip::detail
