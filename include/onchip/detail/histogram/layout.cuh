// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The shared memory of the counting kernels: one layout per path and call, measured by the host's plan and carved
// by the kernel from the same value, so the two cannot disagree.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/level_bitmap.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail {

/// The byte-addressed pieces of a shared layout, as the device carves them.
struct shared_spans {
  unsigned char* levels[max_channels];  // range binners: the staged levels (null: searched in device memory)
  unsigned char* cells[max_channels];   // range binners: the level grid's cells (level_cell<Level>)
  int cell_count[max_channels];         // and how many (0: no grid)
  unsigned char* bitmap[max_channels];  // range binners: the bitmap's entries (bitmap_entry; null: no bitmap)
  unsigned char* table;                 // value table binners: the bin of every sample value
  unsigned char* counters;
};

/// Bytes of one cell of a level grid (level_grid.cuh's level_cell: a 32-bit word and a level, aligned).
ONCHIP_HOST_DEVICE constexpr int level_cell_bytes(int level_bytes) { return level_bytes <= 4 ? 8 : 16; }

/// Cells of the grid over active channel a's staged levels (0 when nothing is staged, or without the grid, or
/// with a bitmap instead).
ONCHIP_HOST_DEVICE constexpr int staged_cells(const histogram_call& call, int a) {
  if (a >= call.active || call.level_bytes == 0 || !call.level_grid || call.level_bitmap) { return 0; }
  return call.level_grid_fine ? tuning::fine_level_cells : tuning::level_cells(call.bins[a]);
}

/// Bytes of active channel a's level bitmap (0 without one).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t bitmap_bytes(const histogram_call& call, int a) {
  const bool bitmap = a < call.active && call.level_bytes > 0 && call.level_bitmap;
  return bitmap ? static_cast<cuda::std::size_t>(bitmap_entries(tuning::bitmap_sub_cells)) * sizeof(bitmap_entry)
                : 0;
}

/**
 * Shared memory of every histogram kernel: levels and their grid's cells, or a bitmap of the levels' sub-cells,
 * staged per active channel (range binners), the value table (16-bit range binning), then `replicas` copies of
 * `words` counter words (bins and one spare for samples in no bin). The host measures it from the call; the
 * device carves it from the same call, so the two cannot disagree.
 */
struct shared_layout {
  histogram_call call;
  int replicas;
  int word_bytes;
  int words;
  ONCHIP_HOST_DEVICE shared_spans operator()(carver& c) const {
    shared_spans s{};
    ONCHIP_UNROLL
    for (int a = 0; a < max_channels; ++a) {  // constant indices: nothing in local memory
      const bool staged = a < call.active && call.level_bytes > 0 && call.level_staged;
      const auto bytes = staged ? static_cast<cuda::std::size_t>(call.bins[a] + 1) * call.level_bytes : 0;
      unsigned char* const levels = c.take_aligned<8, unsigned char>(bytes).data();
      s.levels[a] = staged ? levels : nullptr;
      s.cell_count[a] = staged_cells(call, a);
      s.cells[a] = c.take_aligned<16, unsigned char>(static_cast<cuda::std::size_t>(s.cell_count[a]) *
                                                     level_cell_bytes(call.level_bytes))
                       .data();
      unsigned char* const bitmap = c.take_aligned<8, unsigned char>(bitmap_bytes(call, a)).data();
      s.bitmap[a] = bitmap_bytes(call, a) > 0 ? bitmap : nullptr;
    }
    s.table = c.take_aligned<16, unsigned char>(static_cast<cuda::std::size_t>(call.table_bytes)).data();
    s.counters =
        c.take_aligned<16, unsigned char>(static_cast<cuda::std::size_t>(replicas) * words * word_bytes).data();
    return s;
  }
};

/// Whether `path` counts `call` per sample value and folds the values into bins at the end: 16-bit range binning
/// (a value table call) in packed counters, 65536 of them, with no table staged.
ONCHIP_HOST_DEVICE constexpr bool folds_values(histogram_path path, const histogram_call& call) {
  return path == histogram_path::shared_packed16 && call.table_bytes > 0;
}

/// The packed 16-bit counters of a call: one per sample value when it folds values, else its bins.
ONCHIP_HOST_DEVICE constexpr int packed_counters(const histogram_call& call) {
  return folds_values(histogram_path::shared_packed16, call) ? 65536 : call.total_bins();
}

/// Cells of 2^carry_cell_bits values in the carry grid of `call` (tuning::carry_cells of its bins).
ONCHIP_HOST_DEVICE constexpr int carry_cell_bits(const histogram_call& call) {
  return tuning::carry_cells(call.total_bins()) == 512 ? 7 : 8;
}

/// The layout of `path` for `call` with `replicas` copies.
ONCHIP_HOST_DEVICE inline shared_layout layout_of(histogram_path path, const histogram_call& call, int replicas) {
  const int bins = call.total_bins();
  histogram_call unstaged = call;  // the byte kernels bin each value once, reading levels from global memory
  unstaged.level_bytes = 0;        // (and folded values are binned at the end, from the levels in global memory)
  unstaged.table_bytes = 0;
  switch (path) {
    case histogram_path::byte_lanes:  // 64 KiB planes of lane-owned 32-bit counters
      return {unstaged, 1, 4, tuning::byte_lane_planes(call.active) * 16384};
    case histogram_path::shared_replicas: return {call, replicas, call.counter_bytes, bins + 1};
    case histogram_path::shared_packed16:
      return {folds_values(path, call) ? unstaged : call, 1, 4, (packed_counters(call) + 1) / 2 + 1};
    case histogram_path::carry_grid: {  // a column of the table per lane, then bins + 2 counters per lane
      histogram_call carry = unstaged;
      carry.table_bytes = tuning::carry_cells(bins) * 32 * 4;
      return {carry, 1, 4, (bins + 2) * 32};
    }
    default:  // staged levels only
      return {call, 0, 4, 0};
  }
}

}  // namespace onchip::detail
