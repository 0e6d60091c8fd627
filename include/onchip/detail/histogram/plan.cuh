// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The launch plan of the device-wide histogram: from what a call is (histogram_call) and what the GPU offers
// (device_limits) to which kernel runs, how (launch_plan). A pure host function, so the whole table of choices is
// tested on the host for every architecture; the launch code only follows it.
//
// Preference, first that serves the call and fits the device wins:
//   byte_lanes       1-byte integer samples (1-4 channels), unweighted, not segmented: counts per value in
//                    lane-owned counters (inputs of 128 GiB or more run as several launches below that)
//   carry_grid       16-bit range binning (one channel, unweighted, not segmented) of up to tuning::carry_max_bins
//                    bins: a table of cells whose words carry into each sample's counter index, and lane-owned
//                    32-bit counters; where the levels crowd its cells the call also launches the next path that
//                    serves it, whose blocks count only then (inputs of tuning::carry_min_samples samples or more)
//   shared_replicas  the bins (plus staged levels) fit in shared memory as 32- or 64-bit counters
//   shared_packed16  one channel, unweighted 32-bit integer counters, not segmented: 16-bit shared counters
//                    (16-bit range binning counts every sample value there and folds the values into bins at
//                    the end, so it comes before the shared replicas, which read a table of every value's bin)
//   partition        bins beyond shared memory (up to tuning::partition_max_buckets buckets of them), one channel
//                    of 1-D input, unweighted, even or custom binning, at least as many samples as bins: two
//                    passes through a workspace (each sample's bin scattered by bucket, then each bucket counted
//                    in shared memory), in chunks that bound the workspace
//   global_atomics   anything else: one atomic per sample into the output, no shared counters
// The byte kernel's one 64 KiB plane fits every GPU from sm_75 on, so one or two active channels of bytes never
// need another path (and their calls compile no other kernel); three or four active channels take two planes,
// which sm_75, sm_86 and sm_89 cannot give a block, so the shared replicas and global atomics count them there.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/level_bitmap.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/smem.cuh>

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
  whole_grid,     // each row (one for 1-D input) by the whole grid
  block_per_row,  // many short rows: one block per row at a time
  segment_slices, // segments cut into slices, one block per slice at a time, flushed per slice
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
  int bins[max_channels] = {};  // per active channel (per segment when segmented)
  int level_bytes = 0;          // range binners: bytes of one level (else 0)
  bool level_grid = true;       // range binners: a grid of cells beside the staged levels (level_grid.cuh)
  bool level_staged = true;     // range binners: the levels copied into shared memory (else read where they are)
  bool level_grid_fine = false;  // range binners: the grid has tuning::fine_level_cells cells (else level_cells)
  bool level_bitmap = false;     // range binners: the levels stay in device memory and a bitmap of their
                                 // tuning::bitmap_sub_cells sub-cells is staged instead of a grid
                                 // (level_bitmap.cuh)
  int table_bytes = 0;          // a table from every 16-bit sample value to its bin, staged in shared memory
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
              a.table_bytes == b.table_bytes &&
              a.weighted == b.weighted && a.counter_bytes == b.counter_bytes &&
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
  cuda::std::size_t item_keys = 0;  // the fewest keys of a split bucket's part (the bucket pass shares more)
  int bins_grid = 0;
  int bins_blocks_per_sm = 0;
  cuda::std::size_t bins_smem = 0;
  cuda::std::size_t workspace_bytes = 0;
};

/// Which kernel runs, and how.
struct launch_plan {
  histogram_path path = histogram_path::automatic;  // automatic: nothing serves the call
  traversal walk = traversal::whole_grid;
  int threads = 0;        // per block
  int blocks_per_sm = 0;  // resident blocks the plan counts on (launch bounds keep the registers within it)
  int replicas = 0;       // interleaved copies of the shared counters (1 for single-copy paths, 0 for global)
  int vectors = 0;        // 16-byte vectors in flight per thread
  int grid = 0;
  int slices = 1;         // segments: slices per segment
  cuda::std::size_t smem_bytes = 0;
  bool zero_in_kernel = false;  // the kernels write every bin (a single block's small output, or the partition
                                // path's passes over many buckets, not accumulating): no memset
  bool level_grid = false;      // range binners: the levels' grid of cells is staged too (histogram_call::level_grid)
  bool level_staged = false;    // range binners: the levels are staged (else searched in device memory)
  bool level_grid_fine = false;  // range binners: the grid is the fine one (histogram_call::level_grid_fine)
  bool level_bitmap = false;     // range binners: a bitmap of the levels' sub-cells (histogram_call::level_bitmap)
  partition_plan partition{};   // the partition path's passes (the fields above: its scatter's)
  ONCHIP_HOST_DEVICE constexpr bool ok() const { return path != histogram_path::automatic; }
};

/// Threads, intended blocks per SM and vectors in flight of a path's kernel for a call (compile-time facts of
/// the call only, so kernels take the same numbers as template arguments).
struct kernel_shape {
  int threads;
  int blocks;
  int vectors;
};

/// One stream of integer samples binned with 32-bit products: one active channel, unweighted, not segmented (the
/// shared kernel keeps more of them in flight; the wide binning's 128-bit products leave no registers for it).
ONCHIP_HOST_DEVICE constexpr bool integer_stream(bool integer_samples, bool wide_binning, bool weighted,
                                                 bool segmented, int active) {
  return integer_samples && !wide_binning && !weighted && !segmented && active == 1;
}

/// The kernel shape of `path` for a call of `channels` interleaved channels, `active` of them counted, on a device
/// of compute capability `arch` (x 10: only the partition's scatter depends on it). The byte kernel runs every
/// interleaved layout (one active channel too) in its several-channel shape: in the one-channel shape the merge of
/// 2/1, 3/1 and 4/1 layouts spilled registers.
ONCHIP_HOST_DEVICE constexpr kernel_shape shape_of(histogram_path path, int sample_bytes, bool range_binner,
                                                  bool integer_stream, bool small_slices = false, int channels = 1,
                                                  int active = 1, bool wide = false, bool bitmap = false,
                                                  int arch = 0) {
  if (wide) {
    return {tuning::wide_threads, tuning::wide_blocks,
            range_binner ? tuning::sample_vectors(sample_bytes) : tuning::wide_vectors};
  }
  switch (path) {
    case histogram_path::byte_lanes:
      if (channels > 1) {
        return {tuning::byte_lane_channel_threads, tuning::byte_lane_channel_blocks,
                tuning::byte_lane_channel_vectors};
      }
      return {tuning::byte_lane_threads, tuning::byte_lane_blocks, tuning::byte_lane_vectors};
    case histogram_path::shared_replicas:
      return {small_slices ? tuning::segment_threads : tuning::shared_threads,
              small_slices ? tuning::segment_blocks : active > 1 ? tuning::channel_blocks : tuning::shared_blocks,
              tuning::shared_vectors(sample_bytes, range_binner, integer_stream)};
    case histogram_path::shared_packed16:
      return {tuning::packed16_threads(range_binner, sample_bytes, bitmap), tuning::packed16_blocks,
              tuning::packed16_vectors};
    case histogram_path::carry_grid: return {tuning::carry_threads, tuning::carry_blocks, tuning::carry_vectors};
    case histogram_path::partition:  // the scatter's shape (the bucket pass: tuning::partition_bins_threads)
      return {tuning::partition_scatter_shape(sample_bytes, arch).threads, tuning::partition_scatter_blocks,
              tuning::partition_bins_gather};
    default:
      return {tuning::global_threads, tuning::global_blocks, tuning::sample_vectors(sample_bytes)};
  }
}

/// Segments as many as the blocks of a full grid or more: their slices are short, so the shared kernel runs in
/// smaller blocks (see tuning::segment_threads).
ONCHIP_HOST_DEVICE constexpr bool small_slices(const histogram_call& c, const device_limits& d) {
  return c.segments >= static_cast<long long>(d.sms) * tuning::shared_blocks;
}

/// Calls whose shared replicas may run as one wide block (tuning::wide_min_copies): one channel of 2-byte samples,
/// unweighted, even or custom binning, not segmented.
ONCHIP_HOST_DEVICE constexpr bool wide_candidate(const histogram_call& c) {
  return c.sample_bytes == 2 && c.active == 1 && !c.weighted && c.level_bytes == 0 && c.segments == 0;
}

/// Range binning of one channel of 4-byte samples between 4-byte levels, unweighted, not segmented: its loop over
/// the level grid is bound by shared-memory bank traffic (the cells' loads and the atomics), so it runs as one wide
/// block wherever that holds more copies.
ONCHIP_HOST_DEVICE constexpr bool wide_range_candidate(const histogram_call& c) {
  return c.sample_bytes == 4 && c.level_bytes == 4 && c.channels == 1 && c.active == 1 && !c.weighted &&
         c.segments == 0;
}

/// The byte-addressed pieces of a shared layout, as the device carves them.
struct shared_spans {
  unsigned char* levels[max_channels];  // range binners: the staged levels (null: searched in device memory)
  unsigned char* cells[max_channels];  // range binners: the level grid's cells (level_cell<Level>)
  int cell_count[max_channels];        // and how many (0: no grid)
  unsigned char* bitmap[max_channels]; // range binners: the bitmap's entries (bitmap_entry; null: no bitmap)
  unsigned char* table;                // value table binners: the bin of every sample value
  unsigned char* counters;
};

/// Range binning takes at most this many bins a channel (a cell's bounds, also those of the one cell over all
/// levels that a search without grid starts from, are two 16-bit fields, level_grid.cuh): 65536 levels, as many
/// as a 16-bit type has values.
inline constexpr int max_staged_bins = 65535;

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
    s.counters = c.take_aligned<16, unsigned char>(static_cast<cuda::std::size_t>(replicas) * words * word_bytes).data();
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
    case histogram_path::shared_replicas:
      return {call, replicas, call.counter_bytes, bins + 1};
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

/// Calls of bytes that only the byte kernel counts (one plane of counters, which every GPU can give a block).
ONCHIP_HOST_DEVICE constexpr bool byte_lanes_only(bool byte_samples, bool segmented, int active) {
  return byte_samples && !segmented && tuning::byte_lane_planes(active) == 1;
}

/**
 * How a byte input of rows of `row_bytes` bytes runs as launches of fewer than `limit` bytes each (the byte kernel's
 * counter words cannot wrap below tuning::byte_lane_max_bytes): `rows_per_piece` whole rows at a time where rows
 * are shorter than that, else every row cut into pieces of `piece_bytes` (the last one shorter), a multiple of 16
 * and of the channels, so every piece starts in channel 0 and at its row's alignment. Needs row_bytes > 0 and
 * limit > 16 * channels.
 */
struct byte_pieces {
  cuda::std::size_t rows_per_piece;  // 0: rows are cut into pieces
  cuda::std::size_t piece_bytes;
};
ONCHIP_HOST_DEVICE constexpr byte_pieces plan_byte_pieces(cuda::std::size_t row_bytes, int channels,
                                                          cuda::std::size_t limit) {
  const cuda::std::size_t most = limit - 1;
  if (row_bytes <= most) { return {most / row_bytes, 0}; }
  const auto unit = static_cast<cuda::std::size_t>(16 * channels);
  return {0, most / unit * unit};
}

ONCHIP_HOST_DEVICE constexpr bool serves(histogram_path path, const histogram_call& c) {
  const bool bytes_only = byte_lanes_only(c.byte_samples, c.segments > 0, c.active);
  bool stageable = true;  // range binners: every channel's levels within max_staged_bins
  for (int a = 0; a < c.active && c.level_bytes > 0; ++a) { stageable = stageable && c.bins[a] <= max_staged_bins; }
  switch (path) {
    case histogram_path::byte_lanes: return c.byte_samples && !c.weighted && c.segments == 0;
    case histogram_path::shared_packed16:
      return !bytes_only && stageable && c.active == 1 && !c.weighted && c.counter_takes_packed16 && c.segments == 0;
    case histogram_path::carry_grid:
      return c.table_bytes > 0 && c.active == 1 && !c.weighted && c.segments == 0 &&
             c.total_bins() <= tuning::carry_max_bins && c.row_samples * c.rows < tuning::carry_max_samples;
    case histogram_path::partition:
      return !c.byte_samples && c.channels == 1 && !c.weighted && c.segments == 0 && c.rows == 1 &&
             c.level_bytes == 0 && c.table_bytes == 0;
    case histogram_path::shared_replicas:
    case histogram_path::global_atomics: return !bytes_only && stageable;
    default: return false;
  }
}


ONCHIP_HOST_DEVICE constexpr bool replicated(histogram_path path) {
  return path == histogram_path::shared_replicas;
}

/// Shared memory one block may take while `blocks` blocks share an SM (the opt-in limit at most).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t block_budget(const device_limits& d, int blocks) {
  const cuda::std::size_t share = d.smem_per_sm / blocks;
  const cuda::std::size_t budget = share > d.smem_reserved_per_block ? share - d.smem_reserved_per_block : 0;
  return budget < d.smem_per_block_optin ? budget : d.smem_per_block_optin;
}

/// `wanted` blocks of `threads` threads per SM, or as many as the SM's threads and block slots allow.
ONCHIP_HOST_DEVICE constexpr int resident_blocks(const device_limits& d, int threads, int wanted) {
  int blocks = wanted < d.max_threads_per_sm / threads ? wanted : d.max_threads_per_sm / threads;
  return blocks < d.max_blocks_per_sm ? blocks : d.max_blocks_per_sm;
}

/**
 * Sizes `path` for the device: the most blocks per SM up to the intended number whose shared budget holds one
 * copy, then the most interleaved copies (a power of two, up to one per lane) within that budget. Many segments
 * keep one copy: each slice zeroes and flushes its copies. Returns a plan without grid, or !ok() if it cannot fit.
 */
ONCHIP_HOST_DEVICE inline launch_plan fit(histogram_path path, const histogram_call& c, const device_limits& d,
                                          bool wide = false) {
  const kernel_shape shape =
      shape_of(path, c.sample_bytes, c.level_bytes > 0,
               integer_stream(c.integer_samples, c.wide_integer_binning, c.weighted, c.segments > 0, c.active),
               small_slices(c, d), c.channels, c.active, wide, c.level_bitmap, d.arch);
  for (int blocks = resident_blocks(d, shape.threads, shape.blocks); blocks >= 1; --blocks) {
    const cuda::std::size_t budget = block_budget(d, blocks);
    const int first = path == histogram_path::global_atomics ? 0 : 1;
    if (smem_bytes(layout_of(path, c, first)) > budget) { continue; }
    int replicas = first;
    const bool many_segments = c.segments >= static_cast<long long>(d.sms) * blocks;
    while (replicated(path) && !many_segments && replicas < tuning::max_replicas &&
           smem_bytes(layout_of(path, c, 2 * replicas)) <= budget) {
      replicas *= 2;
    }
    launch_plan p{};
    p.path = path;
    p.threads = shape.threads;
    p.blocks_per_sm = blocks;
    p.replicas = replicas;
    p.vectors = shape.vectors;
    p.smem_bytes = smem_bytes(layout_of(path, c, replicas));
    return p;
  }
  return {};
}

/// Fewer copies for small inputs: at most one counter word per tuning::samples_per_counter_word samples a block.
ONCHIP_HOST_DEVICE inline launch_plan trim_replicas(launch_plan p, const histogram_call& c, cuda::std::size_t samples) {
  const int words = layout_of(p.path, c, 1).words;
  while (p.replicas > 1 && static_cast<cuda::std::size_t>(p.replicas) * words * tuning::samples_per_counter_word > samples) {
    p.replicas /= 2;
  }
  p.smem_bytes = smem_bytes(layout_of(p.path, c, p.replicas));
  return p;
}

/// The grid and traversal of a fitted plan: small inputs get fewer blocks (each at least one round of loads per
/// thread, a vector per thread for the byte kernel) and fewer copies.
ONCHIP_HOST_DEVICE inline launch_plan shape_grid(launch_plan p, const histogram_call& c, const device_limits& d) {
  const long long resident = static_cast<long long>(d.sms) * p.blocks_per_sm;
  long long grid = resident;
  if (c.segments > 0) {
    p.walk = traversal::segment_slices;
    p.slices = resident / c.segments > 1 ? static_cast<int>(resident / c.segments) : 1;
  } else if (c.rows == 1 || c.row_samples >= static_cast<cuda::std::size_t>(resident * p.threads *
                                                                             tuning::whole_grid_samples_per_thread)) {
    p.walk = traversal::whole_grid;
    // Rounds of at most the common vector count: more vectors in flight do not mean fewer, fuller blocks.
    const int common = tuning::sample_vectors(c.sample_bytes);
    const int vectors = p.path == histogram_path::byte_lanes ? tuning::byte_lane_small_vectors
                                                              : (p.vectors < common ? p.vectors : common) *
                                                                    tuning::min_rounds_per_block;
    const auto per_block = static_cast<cuda::std::size_t>(p.threads) * vectors * 16;
    const auto wanted = (c.input_bytes() + per_block - 1) / per_block;
    grid = wanted < static_cast<cuda::std::size_t>(resident) ? static_cast<long long>(wanted) : resident;
  } else {
    p.walk = traversal::block_per_row;
    grid = c.rows < static_cast<cuda::std::size_t>(resident) ? static_cast<long long>(c.rows) : resident;
  }
  p.grid = grid > 1 ? static_cast<int>(grid) : 1;
  if (c.segments == 0 && replicated(p.path)) {
    p = trim_replicas(p, c, c.row_samples * c.rows / static_cast<cuda::std::size_t>(p.grid));
  }
  // The carry grid's blocks may leave the counting to a second launch: a memset zeroes its output.
  p.zero_in_kernel = !c.accumulate && p.grid == 1 && c.output_bytes() <= tuning::in_kernel_zero_bytes &&
                     p.path != histogram_path::carry_grid;
  return p;
}

/// The word of key k's counter among a bucket's counters in the partition path's passes: k + k / 32 + k / 1024,
/// one word more every 32 keys and one more every 1024. 32 consecutive keys from a multiple of 32 fall on 32
/// banks, and so do keys 0, 2^s, 2 x 2^s, ... 31 x 2^s for every s from 5 to 10 (any 32 keys 2^s apart on at
/// least 31). Data coarser than the bins, say 16-bit values spread over 2^24 bins, lands every 256th bin, which
/// padding by 32 alone put on 4 banks.
ONCHIP_HOST_DEVICE constexpr unsigned counter_word(unsigned k) { return k + (k >> 5) + (k >> 10); }

/// Words of a bucket's counters (counter_word) for `slice` keys, a power of two.
ONCHIP_HOST_DEVICE constexpr int padded_words(int slice) { return slice + slice / 32 + slice / 1024; }

/// The address which, plus 4 counter_word(bin), is the shared address of a bin's counter among the padded
/// counters of its bucket `bucket` at shared address `counters` (slice_bits at least 10): counter_word(bucket
/// 2^slice_bits + k) is bucket padded_words(2^slice_bits) + counter_word(k), so the scatter's direct counting need
/// not take the key out of the bin (the sum wraps modulo 2^32 back onto the counters).
ONCHIP_HOST_DEVICE constexpr unsigned direct_counters(unsigned counters, unsigned bucket, int slice_bits) {
  return counters - bucket * static_cast<unsigned>(padded_words(1 << slice_bits)) * 4u;
}

/// The shared address of key k's counter among padded counters (padded_words) at shared address `counters`.
ONCHIP_HOST_DEVICE constexpr unsigned padded_counter(unsigned counters, unsigned k) {
  return counters + counter_word(k) * 4u;
}

/// The partition path's scatter: a tile's keys staged by bucket (and a spare slot per thread, for its samples in
/// no bin or counted directly), per bucket its count (and 32 spare counts) and offset in the tile and its keys in
/// the block's tiles so far, and where `direct`, the counters of the block's direct bucket (one bucket's, padded:
/// the bucket a skewed tile piled into, whose later samples the block counts in place of partitioning them).
struct partition_scatter_layout {
  int buckets;
  int tile;
  int slice_bits;
  bool direct;
  int threads;
  struct spans {
    cuda::std::uint16_t* staged;
    unsigned* count;
    unsigned* offset;
    unsigned* total;
    unsigned* warp_sums;
    unsigned* skewed;  // skewed_mark of the last tile with a bucket holding over an eighth of it
    unsigned* direct;  // the direct bucket's counters
  };
  ONCHIP_HOST_DEVICE spans operator()(carver& c) const {
    const auto k = static_cast<cuda::std::size_t>(buckets) + 1;
    spans s{};
    s.staged = c.take_aligned<16, cuda::std::uint16_t>(static_cast<cuda::std::size_t>(tile + threads)).data();
    s.count = c.take<unsigned>(k + 31).data();
    s.offset = c.take<unsigned>(k).data();
    s.total = c.take<unsigned>(k).data();
    s.warp_sums = c.take<unsigned>(32).data();
    s.skewed = c.take<unsigned>(1).data();
    if (direct) {
      s.direct = c.take_aligned<16, unsigned>(static_cast<cuda::std::size_t>(padded_words(1 << slice_bits))).data();
    }
    return s;
  }
};

/// The partition path's bucket pass: 8 x 32 spare words (per key of a vector and lane: they take the gathered
/// keys outside a run), one bucket's 32-bit counters, and per bucket its first item.
struct partition_bins_layout {
  int slice_bits;
  int buckets;
  struct spans {
    unsigned* warp_sums;
    unsigned* spare;
    unsigned* counters;
    unsigned* items;
  };
  ONCHIP_HOST_DEVICE spans operator()(carver& c) const {
    spans s{};  // the fixed-size arrays first: their places are constants, not registers, in the kernel
    s.warp_sums = c.take<unsigned>(32).data();
    s.spare = c.take<unsigned>(256).data();
    s.counters = c.take_aligned<16, unsigned>(static_cast<cuda::std::size_t>(padded_words(1 << slice_bits))).data();
    s.items = c.take<unsigned>(static_cast<cuda::std::size_t>(buckets) + 1).data();
    return s;
  }
};

/// The partition path's tile for samples of `sample_bytes` bytes: the scatter's samples per block and round, and
/// the keys the table indexes (the same on every device, whatever the scatter's shape there).
ONCHIP_HOST_DEVICE constexpr int partition_tile(int sample_bytes) {
  const tuning::partition_shape shape = tuning::partition_scatter_shape(sample_bytes, 0);
  return shape.threads * shape.items;
}
static_assert(partition_tile(4) == tuning::partition_scatter_shape(4, 90).threads *
                                       tuning::partition_scatter_shape(4, 90).items,
              "the scatter's shapes must make the same tile on every device: the bucket pass compiles it in");

/// Tiles of `tile` samples that `samples` samples take (the last one may be partial).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t partition_tiles(cuda::std::size_t samples, int tile) {
  return (samples + static_cast<cuda::std::size_t>(tile) - 1) / static_cast<cuda::std::size_t>(tile);
}

/// Bytes of the partition workspace for chunks of `tiles` tiles of `tile` samples: the buckets' sizes and claims,
/// then the chunk's 16-bit keys, then the table of each bucket's first key per tile (16 bytes spare, so a caller's
/// workspace at any 2-byte alignment holds them).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t partition_workspace_bytes(int buckets, cuda::std::size_t tiles,
                                                                         int tile) {
  const auto k = static_cast<cuda::std::size_t>(buckets);
  return (k * 8 + 15) / 16 * 16 + tiles * static_cast<cuda::std::size_t>(tile) * 2 +
         ((k + 1) * tiles * 2 + 15) / 16 * 16 + 16;
}

/// The most blocks of `threads` threads and `smem` bytes of shared memory an SM holds, up to `wanted`.
ONCHIP_HOST_DEVICE constexpr int blocks_fitting(const device_limits& d, int threads, cuda::std::size_t smem,
                                                int wanted) {
  int blocks = resident_blocks(d, threads, wanted);
  while (blocks >= 1 && smem > block_budget(d, blocks)) { --blocks; }
  return blocks;
}

/**
 * The partition path for `c` on `d` with a workspace of at most `cap` bytes: the widest bucket whose counters
 * fit a block (fewest buckets), within tuning::partition_max_buckets; chunks as large as the cap allows.
 * Returns !ok() where it cannot serve the call.
 */
ONCHIP_HOST_DEVICE inline launch_plan fit_partition(const histogram_call& c, const device_limits& d,
                                                    cuda::std::size_t cap) {
  if (!serves(histogram_path::partition, c)) { return {}; }
  const long long bins = c.total_bins();
  const int threads = tuning::partition_scatter_shape(c.sample_bytes, d.arch).threads;
  const int tile_samples = partition_tile(c.sample_bytes);
  const auto tile = static_cast<cuda::std::size_t>(tile_samples);
  for (int s = tuning::partition_max_slice_bits; s >= tuning::partition_min_slice_bits; --s) {
    const long long buckets = (bins + (1LL << s) - 1) >> s;
    if (buckets > tuning::partition_max_buckets) { return {}; }  // narrower buckets only make more of them
    const int k = static_cast<int>(buckets);
    const cuda::std::size_t bins_smem = smem_bytes(partition_bins_layout{s, k});
    // The scatter with a direct bucket's counters where they fit beside the rest, else without.
    const cuda::std::size_t with_direct = smem_bytes(partition_scatter_layout{k, tile_samples, s, true, threads});
    const bool direct = blocks_fitting(d, threads, with_direct, tuning::partition_scatter_blocks) > 0;
    const cuda::std::size_t scatter_smem =
        direct ? with_direct : smem_bytes(partition_scatter_layout{k, tile_samples, s, false, threads});
    const int bins_blocks = blocks_fitting(d, tuning::partition_bins_threads, bins_smem, 1);
    const int scatter_blocks = blocks_fitting(d, threads, scatter_smem, tuning::partition_scatter_blocks);
    // Whole tiles per chunk (so chunks keep the input's alignment): as many as the cap holds, with their table,
    // and fewer than 2^31 keys (the passes index a chunk's keys in 32 bits, and a bucket's size keeps its top bit
    // for direct_mark).
    const cuda::std::size_t fixed = partition_workspace_bytes(k, 0, tile_samples) + 16;
    const cuda::std::size_t per_tile = tile * 2 + (k + 1) * 2;
    const cuda::std::size_t fitting = cap > fixed ? (cap - fixed) / per_tile : 0, limit = (1ULL << 31) / tile - 1;
    const cuda::std::size_t most = fitting < limit ? fitting : limit;
    if (bins_blocks == 0 || scatter_blocks == 0 || most == 0) { continue; }
    launch_plan p{};
    partition_plan& q = p.partition;
    q.slice_bits = s;
    q.buckets = k;
    q.tile = tile_samples;
    q.direct = direct;
    q.chunk_samples = c.row_samples < most * tile ? c.row_samples : most * tile;
    q.bins_blocks_per_sm = bins_blocks;
    q.bins_smem = bins_smem;
    q.bins_grid = d.sms * bins_blocks;
    const cuda::std::size_t tiles = partition_tiles(q.chunk_samples, tile_samples);
    const auto resident = static_cast<cuda::std::size_t>(d.sms) * scatter_blocks;
    p.grid = static_cast<int>(tiles < resident ? (tiles > 0 ? tiles : 1) : resident);
    q.item_keys = tuning::partition_min_item_keys;
    q.workspace_bytes = partition_workspace_bytes(k, tiles, tile_samples);
    p.path = histogram_path::partition;
    p.threads = threads;
    p.blocks_per_sm = scatter_blocks;
    p.smem_bytes = scatter_smem;
    p.vectors = tuning::partition_bins_gather;
    // The first chunk's passes store every bin, where uniform keys leave every bucket whole (a split bucket's
    // first part clears its bins: measured slower than a memset, where every bucket was split).
    p.zero_in_kernel = !c.accumulate && k >= tuning::partition_items_per_block * q.bins_grid;
    return p;
  }
  return {};
}

/// Whether partitioning pays for an input (the plan's automatic choice; a forced path ignores it).
ONCHIP_HOST_DEVICE constexpr bool worth_partitioning(const histogram_call& c) {
  const cuda::std::size_t samples = c.row_samples * c.rows;
  const auto bins = static_cast<cuda::std::size_t>(c.total_bins());
  return samples >= tuning::partition_min_samples && samples >= bins;
}

/// Whether the carry grid pays for an input (the plan's automatic choice; a forced path ignores it).
ONCHIP_HOST_DEVICE constexpr bool worth_carrying(const histogram_call& c) {
  return c.row_samples * c.rows >= tuning::carry_min_samples;
}

/// The first path in order that serves `call` and fits `device` (`only`: that path alone; `skip`: any but that).
ONCHIP_HOST_DEVICE inline launch_plan first_fit(const histogram_call& call, const device_limits& device,
                                               histogram_path only,
                                               cuda::std::size_t workspace_cap = tuning::partition_workspace_cap,
                                               histogram_path skip = histogram_path::automatic) {
  histogram_path order[] = {histogram_path::byte_lanes, histogram_path::carry_grid, histogram_path::shared_replicas,
                            histogram_path::shared_packed16, histogram_path::partition,
                            histogram_path::global_atomics};
  if (call.table_bytes > 0) {  // folding values beats a table read per sample wherever the counters can carry
    order[2] = histogram_path::shared_packed16;
    order[3] = histogram_path::shared_replicas;
  }
  for (histogram_path path : order) {
    if ((only != histogram_path::automatic && path != only) || path == skip || !serves(path, call)) { continue; }
    if (path == histogram_path::carry_grid && only == histogram_path::automatic && !worth_carrying(call)) {
      continue;
    }
    if (path == histogram_path::partition) {
      if (only == histogram_path::automatic && !worth_partitioning(call)) { continue; }
      const launch_plan p = fit_partition(call, device, workspace_cap);
      if (p.ok()) { return p; }
      continue;
    }
    launch_plan p = fit(path, call, device);
    if (path == histogram_path::carry_grid &&  // two blocks of 1024 threads, and a fallback for crowded levels
        (p.blocks_per_sm < tuning::carry_blocks ||
         !first_fit(call, device, histogram_path::automatic, workspace_cap, histogram_path::carry_grid).ok())) {
      continue;
    }
    // A value table or a level bitmap leaves one block per SM: it runs as one wide block, with as many threads as
    // two (a bitmap's samples wait on level reads from the caches: more threads keep more of them in flight).
    const bool one_block =
        (call.table_bytes > 0 || call.level_bitmap) && p.ok() && p.blocks_per_sm < tuning::shared_blocks;
    const bool widen = (wide_candidate(call) && (p.replicas < tuning::wide_min_copies || one_block)) ||
                       (wide_range_candidate(call) && p.replicas < tuning::max_replicas);
    if (p.ok() && path == histogram_path::shared_replicas && widen) {
      const launch_plan wide = fit(path, call, device, true);
      if (wide.ok() && (wide.replicas > p.replicas || one_block)) { p = wide; }
    }
    if (p.ok()) {
      p.level_grid = call.level_bytes > 0 && call.level_grid;
      p.level_staged = call.level_bytes > 0 && call.level_staged;
      p.level_grid_fine = p.level_grid && call.level_grid_fine;
      p.level_bitmap = call.level_bytes > 0 && call.level_bitmap;
      return shape_grid(p, call, device);
    }
  }
  return {};
}

/// Whether the blocks of plan `p` have samples enough to pay for building the fine grid.
ONCHIP_HOST_DEVICE constexpr bool fine_grid_pays(const histogram_call& call, const launch_plan& p) {
  return p.grid > 0 &&
         call.row_samples * call.rows / static_cast<cuda::std::size_t>(p.grid) >= tuning::fine_grid_block_samples;
}

/**
 * The plan for `call` on `device`; `only` forces one path (!ok() if that path cannot serve the call there).
 * Range binners keep their levels' grid of cells where any path fits with it (a table read per sample beats any
 * layout of the counters), the fine grid where it fits with the same path, threads, blocks per SM and copies and
 * the blocks have samples enough (fine_grid_pays); levels too many for their grid as well run without it (a
 * binary search per sample).
 * Levels too many for shared memory at all stay in device memory, with a bitmap of their sub-cells in shared
 * memory where it fits with the path the grid would take, else the grid where it fits (the few levels of a
 * crowded cell then searched in device memory), else searched there whole. Levels whose staging leaves only the
 * global path stay in device memory too where a bitmap lets shared counters hold the bins (a global atomic per
 * sample costs more than a level read from the caches). `bitmaps`: false keeps the grid (tests, benchmarks).
 */
ONCHIP_HOST_DEVICE inline launch_plan plan_histogram(
    histogram_call call, const device_limits& device, histogram_path only = histogram_path::automatic,
    cuda::std::size_t workspace_cap = tuning::partition_workspace_cap, bool bitmaps = true,
    histogram_path skip = histogram_path::automatic) {
  if (call.level_bytes == 0) { return first_fit(call, device, only, workspace_cap, skip); }
  const bool staged[2] = {call.level_staged, false}, grid[2] = {call.level_grid, false};  // the call's, then less
  for (int s = 0; s < 2; ++s) {
    for (int g = 0; g < 2; ++g) {
      call.level_staged = staged[s];
      call.level_grid = grid[g];
      const launch_plan p = first_fit(call, device, only, workspace_cap);
      if (!p.ok()) { continue; }
      if (bitmaps && (!call.level_staged || p.path == histogram_path::global_atomics)) {
        histogram_call mapped = call;  // a bitmap instead of the grid: on the same path, or on shared counters
        mapped.level_staged = false;
        mapped.level_grid = false;
        mapped.level_bitmap = true;
        const launch_plan bitmap = first_fit(mapped, device, only, workspace_cap);
        const bool better =
            call.level_staged ? bitmap.path != histogram_path::global_atomics : bitmap.path == p.path;
        if (bitmap.ok() && better) { return bitmap; }
      }
      if (p.level_grid && fine_grid_pays(call, p)) {  // the fine grid where it costs the plan nothing
        call.level_grid_fine = true;
        const launch_plan fine = first_fit(call, device, only, workspace_cap);
        call.level_grid_fine = false;
        if (fine.ok() && fine.path == p.path && fine.threads == p.threads &&
            fine.blocks_per_sm == p.blocks_per_sm && fine.replicas == p.replicas) {
          return fine;
        }
      }
      return p;
    }
  }
  return {};
}

/// The call as the planned kernel carves it.
ONCHIP_HOST_DEVICE constexpr histogram_call planned_call(histogram_call call, const launch_plan& p) {
  call.level_grid = p.level_grid;
  call.level_staged = p.level_staged;
  call.level_grid_fine = p.level_grid_fine;
  call.level_bitmap = p.level_bitmap;
  return call;
}

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
