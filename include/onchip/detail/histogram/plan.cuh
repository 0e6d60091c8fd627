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
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/layout.cuh>
#include <onchip/detail/histogram/partition_layout.cuh>
#include <onchip/detail/histogram/paths.cuh>
#include <onchip/detail/histogram/shape.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace onchip::detail {

/// Segments as many as the blocks of a full grid or more: their slices are short, so the shared kernel runs in
/// smaller blocks (see tuning::segment_threads).
ONCHIP_HOST_DEVICE constexpr bool small_slices(const histogram_call& c, const device_limits& d) {
  return c.segments >= static_cast<long long>(d.sms) * tuning::shared_blocks;
}

/**
 * How a byte input of rows of `row_bytes` bytes runs as launches of fewer than `limit` bytes each (the byte
 * kernel's counter words cannot wrap below tuning::byte_lane_max_bytes): `rows_per_piece` whole rows at a time
 * where rows are shorter than that, else every row cut into pieces of `piece_bytes` (the last one shorter), a
 * multiple of 16 and of the channels, so every piece starts in channel 0 and at its row's alignment. Needs
 * row_bytes > 0 and limit > 16 * channels.
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

/// Whether `path` serves `c`: its kernels admit the call's kind (paths.cuh), and its sizes fit the path.
ONCHIP_HOST_DEVICE constexpr bool serves(histogram_path path, const histogram_call& c) {
  if (!admits(path, kind_of(c))) { return false; }
  bool stageable = true;  // range binners: every channel's levels within max_staged_bins
  for (int a = 0; a < c.active && c.level_bytes > 0; ++a) {
    stageable = stageable && c.bins[a] <= max_staged_bins;
  }
  switch (path) {
    case histogram_path::carry_grid:
      return c.total_bins() <= tuning::carry_max_bins && c.row_samples * c.rows < tuning::carry_max_samples;
    case histogram_path::partition: return c.rows == 1;
    case histogram_path::byte_lanes: return true;
    default: return stageable;
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
    p.variant = wide                                                            ? kernel_variant::wide
                : path == histogram_path::shared_replicas && small_slices(c, d) ? kernel_variant::small_slices
                                                                                : kernel_variant::standard;
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
ONCHIP_HOST_DEVICE inline launch_plan trim_replicas(launch_plan p, const histogram_call& c,
                                                    cuda::std::size_t samples) {
  const int words = layout_of(p.path, c, 1).words;
  while (p.replicas > 1 &&
         static_cast<cuda::std::size_t>(p.replicas) * words * tuning::samples_per_counter_word > samples) {
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
  } else if (c.rows == 1 || c.row_samples >= static_cast<cuda::std::size_t>(
                                                 resident * p.threads * tuning::whole_grid_samples_per_thread)) {
    p.walk = traversal::whole_grid;
    // Rounds of at most the common vector count: more vectors in flight do not mean fewer, fuller blocks.
    const int common = tuning::sample_vectors(c.sample_bytes);
    const int vectors = p.path == histogram_path::byte_lanes
                            ? tuning::byte_lane_small_vectors
                            : (p.vectors < common ? p.vectors : common) * tuning::min_rounds_per_block;
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
  histogram_path order[] = {histogram_path::byte_lanes,      histogram_path::carry_grid,
                            histogram_path::shared_replicas, histogram_path::shared_packed16,
                            histogram_path::partition,       histogram_path::global_atomics};
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
        (p.blocks_per_sm < tuning::carry.blocks ||
         !first_fit(call, device, histogram_path::automatic, workspace_cap, histogram_path::carry_grid).ok())) {
      continue;
    }
    // A value table or a level bitmap leaves one block per SM: it runs as one wide block, with as many threads as
    // two (a bitmap's samples wait on level reads from the caches: more threads keep more of them in flight).
    const bool one_block =
        (call.table_bytes > 0 || call.level_bitmap) && p.ok() && p.blocks_per_sm < tuning::shared_blocks;
    const call_kind kind = kind_of(call);
    const bool widen = (wide_candidate(kind) && (p.replicas < tuning::wide_min_copies || one_block)) ||
                       (wide_range_candidate(kind) && p.replicas < tuning::max_replicas);
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

}  // namespace onchip::detail
