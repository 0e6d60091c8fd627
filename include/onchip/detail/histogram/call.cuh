// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The vocabulary of the device-wide histogram's launch plan: the kernel paths, what a call is (histogram_call),
// what the GPU offers (device_limits), and which kernel runs and how (launch_plan).
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace onchip::detail {

/// The kernels of the device-wide histogram (`automatic` asks the plan to choose).
enum class histogram_path : unsigned char {
  automatic,
  byte_lanes,
  shared_replicas,
  shared_packed16,
  carry_grid,
  partition,
  global_atomics,
};

/// How a kernel's blocks walk the input.
enum class traversal : unsigned char {
  whole_grid,      // each row (one for 1-D input) by the whole grid
  block_per_row,   // many short rows: one block per row at a time
  segment_slices,  // segments cut into slices, one block per slice at a time, flushed per slice
};

/// Which instance of a path's kernel runs (its compiled shape): the path's own, one wide block per SM (shared
/// replicas of calls that gain by twice the copies), or smaller blocks for many short segments' slices.
enum class kernel_variant : unsigned char {
  standard,
  wide,
  small_slices,
};

inline constexpr int max_channels = 4;

/// What a call is, as far as the plan cares.
struct histogram_call {
  int sample_bytes = 4;
  bool byte_samples = false;  // 1-byte integers: the byte kernels count values and bin each value once
  bool integer_samples = false;
  bool wide_integer_binning = false;  // integers binned evenly over a range past 32-bit products (128-bit ones)
  int channels = 1;
  int active = 1;
  int bins[max_channels] = {};   // per active channel (per segment when segmented)
  int level_bytes = 0;           // range binners: bytes of one level (else 0)
  bool level_grid = true;        // range binners: a grid of cells beside the staged levels (level_grid.cuh)
  bool level_staged = true;      // range binners: the levels copied into shared memory (else read where they are)
  bool level_grid_fine = false;  // range binners: the grid has tuning::fine_level_cells cells (else level_cells)
  bool level_bitmap = false;     // range binners: the levels stay in device memory and a bitmap of their
                                 // tuning::bitmap_sub_cells sub-cells is staged instead of a grid
                                 // (level_bitmap.cuh)
  int table_bytes = 0;           // a table from every 16-bit sample value to its bin, staged in shared memory
  bool weighted = false;
  int counter_bytes = 4;
  bool counter_takes_packed16 = false;  // 32-bit integer counters (packed 16-bit shared counters carry into them)
  long long segments = 0;               // segmented histograms: the number of segments (0: not segmented)
  cuda::std::size_t row_samples = 0;    // samples per row (1-D input: all of them)
  cuda::std::size_t rows = 1;
  bool accumulate = false;

  ONCHIP_HOST_DEVICE constexpr int total_bins() const {
    int total = 0;
    ONCHIP_UNROLL
    for (int a = 0; a < max_channels; ++a) { total += a < active ? bins[a] : 0; }  // constant indices
    return total;
  }
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t input_bytes() const {
    return row_samples * rows * static_cast<cuda::std::size_t>(sample_bytes);
  }
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t output_bytes() const {
    const auto per = static_cast<cuda::std::size_t>(total_bins()) * static_cast<cuda::std::size_t>(counter_bytes);
    return segments > 0 ? per * static_cast<cuda::std::size_t>(segments) : per;
  }
};

/// Whether the plan sees two calls as one (every field equal).
ONCHIP_HOST_DEVICE constexpr bool same_call(const histogram_call& a, const histogram_call& b) {
  static_assert(sizeof(histogram_call) == 88, "histogram_call changed: compare every field of it in same_call");
  bool same = a.sample_bytes == b.sample_bytes && a.byte_samples == b.byte_samples &&
              a.integer_samples == b.integer_samples && a.wide_integer_binning == b.wide_integer_binning &&
              a.channels == b.channels && a.active == b.active && a.level_bytes == b.level_bytes &&
              a.level_grid == b.level_grid && a.level_staged == b.level_staged &&
              a.level_grid_fine == b.level_grid_fine && a.level_bitmap == b.level_bitmap &&
              a.table_bytes == b.table_bytes && a.weighted == b.weighted && a.counter_bytes == b.counter_bytes &&
              a.counter_takes_packed16 == b.counter_takes_packed16 && a.segments == b.segments &&
              a.row_samples == b.row_samples && a.rows == b.rows && a.accumulate == b.accumulate;
  for (int c = 0; c < max_channels; ++c) { same = same && a.bins[c] == b.bins[c]; }
  return same;
}

/// What the GPU offers (cudaDeviceGetAttribute), queried once per device.
struct device_limits {
  int arch = 0;  // compute capability x 10
  int sms = 0;
  cuda::std::size_t smem_per_sm = 0;
  cuda::std::size_t smem_per_block_optin = 0;
  cuda::std::size_t smem_reserved_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
};

/**
 * The partition path's passes over each chunk of the input: the scatter of every tile's bins into keys (the low
 * slice_bits bits, 16-bit) sorted by bucket (bin >> slice_bits) in the workspace (launched as the launch_plan
 * says: threads, blocks per SM, grid, shared bytes), and the bucket pass (each bucket's keys counted in shared
 * memory, a bucket of many keys split between blocks by tiles, each part at least `item_keys` keys; launched as
 * below).
 */
struct partition_plan {
  int slice_bits = 0;  // each bucket holds 2^slice_bits bins
  int buckets = 0;
  int tile = 0;         // samples per tile of the scatter (partition_tile)
  bool direct = false;  // whether the scatter has a direct bucket's counters (partition_scatter_layout)
  cuda::std::size_t chunk_samples = 0;  // samples per chunk (the workspace holds one chunk's keys)
  cuda::std::size_t item_keys = 0;      // the fewest keys of a split bucket's part (the bucket pass shares more)
  int bins_grid = 0;
  int bins_blocks_per_sm = 0;
  cuda::std::size_t bins_smem = 0;
  cuda::std::size_t workspace_bytes = 0;
};

/// Which kernel runs, and how.
struct launch_plan {
  histogram_path path = histogram_path::automatic;  // automatic: nothing serves the call
  traversal walk = traversal::whole_grid;
  kernel_variant variant = kernel_variant::standard;
  int threads = 0;        // per block
  int blocks_per_sm = 0;  // resident blocks the plan counts on (launch bounds keep the registers within it)
  int replicas = 0;       // interleaved copies of the shared counters (1 for single-copy paths, 0 for global)
  int vectors = 0;        // 16-byte vectors in flight per thread
  int grid = 0;
  int slices = 1;  // segments: slices per segment
  cuda::std::size_t smem_bytes = 0;
  bool zero_in_kernel = false;  // the kernels write every bin (a single block's small output, or the partition
                                // path's passes over many buckets, not accumulating): no memset
  bool level_grid = false;  // range binners: the levels' grid of cells is staged too (histogram_call::level_grid)
  bool level_staged = false;     // range binners: the levels are staged (else searched in device memory)
  bool level_grid_fine = false;  // range binners: the grid is the fine one (histogram_call::level_grid_fine)
  bool level_bitmap = false;     // range binners: a bitmap of the levels' sub-cells (histogram_call::level_bitmap)
  partition_plan partition{};    // the partition path's passes (the fields above: its scatter's)
  ONCHIP_HOST_DEVICE constexpr bool ok() const { return path != histogram_path::automatic; }
};

/// Range binning takes at most this many bins a channel (a cell's bounds, also those of the one cell over all
/// levels that a search without grid starts from, are two 16-bit fields, level_grid.cuh): 65536 levels, as many
/// as a 16-bit type has values.
inline constexpr int max_staged_bins = 65535;

/// A path's name, as the docs and error messages use it.
ONCHIP_HOST_DEVICE constexpr const char* path_name(histogram_path path) {
  switch (path) {
    case histogram_path::byte_lanes: return "byte_lanes";
    case histogram_path::shared_replicas: return "shared_replicas";
    case histogram_path::shared_packed16: return "shared_packed16";
    case histogram_path::carry_grid: return "carry_grid";
    case histogram_path::partition: return "partition";
    case histogram_path::global_atomics: return "global_atomics";
    default: return "automatic";
  }
}

}  // namespace onchip::detail
