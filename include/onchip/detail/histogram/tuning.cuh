// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every number the histogram's launch plan uses, with the reason for it and where it was measured. Budgets that
// depend on the GPU (shared memory per block, blocks per SM, grid size) are derived in plan.cuh from the device's
// real limits; what is here holds on every architecture from sm_75 to sm_90.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail {

/// Threads, intended blocks per SM and 16-byte vectors in flight per thread of a kernel (shape.cuh gives each
/// path's for a call; the kernels take the same numbers as template arguments).
struct kernel_shape {
  int threads;
  int blocks;
  int vectors;
};

}  // namespace onchip::detail

namespace onchip::detail::tuning {

// --- Architectures before sm_90.
// ---------------------------------------------------------------------------------
/**
 * Vectors in flight a kernel keeps in the pass compiled for this GPU: the counts here are the H200's; before sm_90
 * a kernel keeps at most `pre_hopper_cap` (ptxas for sm_80 needs more registers for the same loops and spilled
 * 4-24 bytes to local memory at the H200's counts: the packed 16-bit kernel at 4 vectors, the shared kernel at 6;
 * none at 2 and 4). The host's plan keeps the H200's count (it only sizes small grids). The byte kernel needs no
 * cap: at one block an SM it has 64 registers a thread and keeps its eight vectors without spilling on sm_75 and
 * sm_80.
 */
ONCHIP_HOST_DEVICE constexpr int device_vectors(int vectors, int pre_hopper_cap) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  return vectors < pre_hopper_cap ? vectors : pre_hopper_cap;
#else
  static_cast<void>(pre_hopper_cap);
  return vectors;
#endif
}
/**
 * The blocks per SM a kernel of `threads` threads asks its launch bounds for in the pass compiled for this GPU:
 * the H200's count, capped to the threads an SM of this architecture holds (sm_75: 1024; sm_86, sm_87, sm_89 and
 * sm_120: 1536), so that ptxas accepts the bounds; the plan caps blocks per SM the same way from the device's
 * limits.
 */
ONCHIP_HOST_DEVICE constexpr int device_min_blocks(int threads, int blocks) {
#if defined(__CUDA_ARCH__)
  constexpr int arch = __CUDA_ARCH__;
  constexpr int sm_threads = arch == 750                                                   ? 1024
                             : (arch == 860 || arch == 870 || arch == 890 || arch >= 1200) ? 1536
                                                                                           : 2048;
  const int fit = sm_threads / threads > 0 ? sm_threads / threads : 1;
  return blocks < fit ? blocks : fit;
#else
  static_cast<void>(threads);
  return blocks;
#endif
}
inline constexpr int packed16_pre_hopper_vectors = 2;
inline constexpr int shared_pre_hopper_vectors = 4;

// --- Byte lanes: 1-byte samples counted per value in lane-owned 32-bit counters (kernels/bytes.cuh). -----------
/// 64 KiB planes of counters: one for one or two active channels, two for three or four.
ONCHIP_HOST_DEVICE constexpr int byte_lane_planes(int active) { return active <= 2 ? 1 : 2; }
/// One active channel: one block of 1024 threads and 64 KiB to an SM, eight 16-byte vectors in flight per thread
/// (128 KiB of loads in flight per SM, as many as the read ceiling's kernel). Two blocks of four vectors (the same
/// loads in flight) ran 0.1-0.7 points of the read ceiling below it on every input tried, three blocks of 512
/// threads 1-2 points below (H100, 2026-12-06; bench_byte_shapes; bench/notes/histogram-kernels.md, "The byte
/// kernel's shape").
inline constexpr kernel_shape byte_lanes{1024, 1, 8};
/// Several active channels: 128 KiB (three or four channels) leave room for one block, so it has 1024 threads to
/// keep as many loads in flight.
inline constexpr kernel_shape byte_lane_channels{1024, 1, 4};
/// Small inputs: a block of the byte kernel is launched for every 16-byte vector per thread (16 KiB), not for a
/// whole round of four. Time per call of u8 / 256 bins with the GPU idle before it (H200, 2026-11-30): 1 MiB in 64
/// blocks 8.6-9.0 us against 11.7 in 16; 256 KiB in 16 blocks 8.5-8.9 against 9.5 in 4 (bench/notes/).
inline constexpr int byte_lane_small_vectors = 1;
/// A counter word receives at most 1/32 of a block's samples: below 2^37 bytes of input no word can wrap, however
/// few blocks run. Byte inputs of this size or more run as several launches, each below it.
inline constexpr cuda::std::size_t byte_lane_max_bytes = cuda::std::size_t{1} << 37;

// --- Shared replicas: interleaved 32- or 64-bit copies of the bins in shared memory. --------------------------
inline constexpr int shared_threads = 512;
/// 56-64 registers per thread on sm_90: two blocks of 512 threads fill the register file.
inline constexpr int shared_blocks = 2;
/// Several active channels: the per-sample channel dispatch needs more than 64 registers per thread on sm_80
/// (ptxas spilled to local memory there at two blocks of 512), so one block of 512 threads per SM.
inline constexpr int channel_blocks = 1;
/// One copy per lane at most: with 32, no two lanes of a warp ever add to one word or one bank.
inline constexpr int max_replicas = 32;
/// 16-byte vectors in flight per thread. u16 / 1024 bins in two blocks of 512 (16 copies): 79.3-79.5% of the read
/// ceiling with 2, 90.0-90.6% with 4, 91.0% with 6, 91.6% with 8 (H200, 2026-11-30; 8 leaves no registers for
/// the other sample types); f32 with 4 since 2026-11-29.
ONCHIP_HOST_DEVICE constexpr int sample_vectors(int sample_bytes) { return sample_bytes == 2 ? 6 : 4; }
/// The shared kernel over one stream of 4-byte integers (one channel, unweighted, not segmented) binned with
/// 32-bit products (integer_stream): eight vectors. The wide integer binning (128-bit products) spilled with
/// eight on sm_90 and keeps sample_vectors.
/// The narrow binning's two 32 x 32 -> 64 multiplies make each sample's chain long, so more loads in flight hide
/// it: i32 / 10 bins in two blocks of 512, 90.9% of the read ceiling with 4, 94.7% with 8 (same run), no local
/// memory on sm_90. f32 (binned with float arithmetic) lost 1-2% with 8 in that run and 8 segments of 32 MiB 6%,
/// so they keep sample_vectors (H200, 2026-11-30). GPUs before sm_90 keep shared_pre_hopper_vectors.
ONCHIP_HOST_DEVICE constexpr int shared_vectors(int sample_bytes, bool range_binner, bool integer_stream) {
  return sample_bytes == 4 && !range_binner && integer_stream ? 8 : sample_vectors(sample_bytes);
}
/// One channel of 2-byte samples whose two blocks of 512 threads hold fewer copies than this runs as one block of
/// 1024 threads with the whole shared memory (twice the copies) and six vectors in flight: u16 / 4096 bins, 8
/// copies, 89.3-91.2% of the read ceiling, against 84.9-86.2% with 4 copies in two blocks (H200, 2026-11-30).
/// Range binning of 4-byte samples over a level grid runs as one wide block wherever that holds more copies (its
/// loop is bound by shared-memory bank traffic; ncu measured 2.2 wavefronts an atomic into 16 copies of 1025 bins,
/// 1.2 into 32 copies of 63):
/// f32 / 1025 levels, 32 copies instead of 16, 67.5-67.9% -> 69.4-70.0% of the read ceiling on uniform samples
/// and 67.9-69.6% -> 72.3-73.1% on normal(0.5, 0.02) ones, with sample_vectors (58 registers, no spill; H200,
/// 2026-12-02).
inline constexpr int wide_min_copies = 8;
inline constexpr kernel_shape wide{1024, 1, 6};

/// Many segments (at least a full grid of 512-thread blocks): each slice is zeroed, counted and flushed by one
/// block, and slices are short, so more, smaller blocks keep more loads in flight. H200, 2026-11-30: 16384
/// segments of 16 KiB ran 1476 GB/s in 512-thread blocks, 2126 in 256-thread blocks; 8 segments of 32 MiB ran
/// 3193 in 512-thread blocks, 2858 in 256-thread ones.
inline constexpr int segment_threads = 256;
inline constexpr int segment_blocks = 4;

// --- Range binning: a grid of cells over each channel's levels (level_grid.cuh). -------------------------------
/**
 * Cells of a channel's grid: the power of two from 4 per bin, at least 256 and at most 4096 (32 KiB of 8-byte
 * cells for 4-byte levels). Most cells then hold at most one level boundary, so most samples need no search.
 */
ONCHIP_HOST_DEVICE constexpr int level_cells(int bins) {
  int cells = 256;
  while (cells < 4096 && cells < 4 * bins) { cells *= 2; }
  return cells;
}
/**
 * The fine grid's cells (64 KiB of 8-byte cells), which the plan takes where it costs nothing else (the same path,
 * threads, blocks per SM and copies). Uneven levels need it: of 64 levels log-spaced over three decades, 2 of 4096
 * cells hold two level boundaries and none of 8192, and a grid whose every cell holds at most one runs the loop
 * without search. H200, 2026-12-02: f32 / 64 log-spaced levels 52.3-52.6% of the read ceiling with 256 cells,
 * 75.5-76.0% with 8192 (bench/notes/).
 */
inline constexpr int fine_level_cells = 8192;
/**
 * Sub-cells of the bitmap over levels kept in device memory (level_bitmap.cuh): 2^18, so 65536 levels fill about
 * one sub-cell in four and a sample reads a level from device memory about as often, in 64 KiB of entries beside
 * the 128 KiB of packed counters of 65535 bins. H200, 2026-12-02: f32 / 65536 square-root levels 38.1% (uniform)
 * and 39.9% (normal) of the read ceiling, against 6.6% and 11.8% for a grid of 4096 cells and a search of the
 * levels in device memory (bench/notes/).
 */
inline constexpr int bitmap_sub_cells = 1 << 18;
/// Building the fine grid costs a block two binary searches of the levels per cell, 16 cells a thread in blocks of
/// 512 (a few microseconds): only blocks with at least this many samples (256 KiB of f32) build it.
inline constexpr cuda::std::size_t fine_grid_block_samples = cuda::std::size_t{1} << 16;

// --- block_histogram (the block primitive). -------------------------------------------------------------------
/// Its warp_copies layout keeps its copies together within this, leaving room for the caller's own shared arrays.
inline constexpr cuda::std::size_t block_replica_bytes = 32 * 1024;

// --- Packed 16-bit shared counters: one copy of the bins at half the size, carrying into the output. ----------
/// Returning atomics (needed to see carries) have long latency: 1024 threads hide it where registers allow;
/// range binners and 8-byte samples need more registers per thread (f32 range binning: 80 on sm_90, and 64 at
/// 1024 threads spilled). Range binning on this path mostly searches its levels in device memory, one dependent
/// load after another, so threads in flight set its rate: f32 / 65536 levels 160 -> 291 GB/s uniform and 270 ->
/// 522 normal(0.5, 0.02) with 512 threads instead of 256 (H200, 2026-12-02). Range binning through a bitmap
/// (level_bitmap.cuh: no search for most samples, a kernel of its own) fits 1024 threads' registers and gains by
/// them: f32 / 65536 levels normal(0.5, 0.02) 19.2% -> 33.1% of the read ceiling (H200, 2026-12-02).
ONCHIP_HOST_DEVICE constexpr int packed16_threads(bool range_binner, int sample_bytes, bool bitmap = false) {
  return range_binner && !bitmap ? 512 : sample_bytes <= 4 ? 1024 : 512;
}
inline constexpr int packed16_blocks = 1;
/// A vector's returning atomics are issued back to back (their old values held in registers): four vectors.
inline constexpr int packed16_vectors = 4;

// --- Carry grid: 16-bit range binning through a table of cells whose words carry into the counter index. -----
/**
 * Two blocks of 1024 threads an SM (32 registers a thread) and four vectors in flight: the loop is 8 instructions
 * a sample, and the SM's full 2048 threads are what it needs. Prototype on the H200, u16 / 257 levels, 1 GiB
 * (2026-12-03, bench/notes/): 93.4-95.4% of the read ceiling at 2 x 1024 threads, 80-83% at 2 x 512 or 1 x 1024,
 * 89-91% with two vectors; 96.5-97.7% with the addresses formed by a shift and an add. The library's path (512
 * cells, and the fallback's launch after it): 91.6-92.3%, against 75.2-78.4% for the fold in the same call.
 */
inline constexpr kernel_shape carry{1024, 2, 4};
/// A block's table and counters stay within this (two blocks to an SM of 228 KiB).
inline constexpr cuda::std::size_t carry_block_bytes = 112 * 1024;
/// Cells of the table: 512 (cells of 128 values) where they fit beside the bins' counters, else 256 (cells of
/// 256 values); finer cells let levels lie closer together before two share a cell. For 257 levels on the H200
/// the two tables measured the same (91.1-91.7% and 91.5-92.1% of the read ceiling, bench/notes/).
ONCHIP_HOST_DEVICE constexpr int carry_cells(int bins) {
  return (512 + static_cast<cuda::std::size_t>(bins) + 2) * 128 <= carry_block_bytes ? 512 : 256;
}
/// At most this many bins (256 cells and bins + 2 counters of 32 lanes within carry_block_bytes).
inline constexpr int carry_max_bins = static_cast<int>(carry_block_bytes / 128) - 256 - 2;
/// Inputs of fewer samples keep the fold alone: a carry-grid call also launches its fallback (whose blocks return
/// at once unless the levels crowd a cell), a second launch that small calls feel more than the carry grid saves
/// them. The threshold is a choice, not yet measured.
inline constexpr cuda::std::size_t carry_min_samples = cuda::std::size_t{1} << 22;
/// A lane's counter word takes at most 1/32 of its block's samples: below 2^37 samples none can wrap.
inline constexpr cuda::std::size_t carry_max_samples = cuda::std::size_t{1} << 37;

// --- Global atomics: bins beyond shared memory, one atomic per sample into the output. ------------------------
inline constexpr int global_threads = 256;
/// 48-72 registers per thread on sm_90: three blocks of 256 threads fit the register file.
inline constexpr int global_blocks = 3;

// --- Partition: bins beyond shared memory, counted in two passes through a workspace (kernels/partition.cuh).
// -------
/// Bins per bucket: the largest power of two up to 2^15 whose 32-bit counters (plus the buckets' items) fit one
/// block, and at least 2^12; keys are the low bits of a bin, so a bucket holds at most 2^16 bins.
inline constexpr int partition_max_slice_bits = 15;
inline constexpr int partition_min_slice_bits = 12;
/// At most this many buckets (each block of the scatter ranks a tile's keys among all of them, and the table
/// holds 2 bytes per bucket and tile); more bins take the global atomics.
inline constexpr int partition_max_buckets = 4096;
/// The scatter's shape: threads per block and samples per thread; a tile (threads x items samples) is what the
/// bucket pass finds one run of each bucket's keys in, so longer tiles mean longer runs. One block per SM, which
/// holds a tile's bins and ranks and the next tile's samples (loaded while this one is written out) in its
/// registers. Tiles of half the keys (two blocks of 512 x 8 per SM) ran a faster scatter (487 against 525 us per
/// chunk of 534 MB at 2^20 bins) but measured 404 against 546 GB/s at 2^24 bins (1 GiB of f32, H200, 2026-12-01).
/// Samples of 4 bytes or fewer: 512 x 32 (tiles of 16384, up to 128 registers a thread): against 1024 x 8, at 2^24
/// bins 11-15% more GB/s (uniform and Zipf keys, 64-bit counters), at 2^22 2-4%, at 2^20 -4 to -1% (1 GiB, H100,
/// 2026-12-05; 512 x 16, tiles of 8192 at 128 registers, measured as 1024 x 8: the runs' length is the gain).
/// From sm_90 on the same tiles as 1024 x 16 (64 registers: twice the warps to hide the scatter's shared-memory
/// latency): against 512 x 32, +1-4% at 2^24 bins on uniform keys and 64-bit counters (Zipf keys -2 to +1%), 0 to
/// +8% at 2^22 and 2^20 (1 GiB, H100, two device calls, 2026-12-05); before sm_90 that shape spills. 8-byte
/// samples: 1024 x 8 (32 of them a thread with the next tile's in flight spilled at 128 registers). `arch`: the
/// device's compute capability x 10 (where the device runs PTX of an earlier architecture, run_partition launches
/// the earlier shape within the same plan); the tile is the same for every arch.
struct partition_shape {
  int threads;
  int items;
};
ONCHIP_HOST_DEVICE constexpr partition_shape partition_scatter_shape(int sample_bytes, int arch) {
  if (sample_bytes > 4) { return {1024, 8}; }
  return arch >= 90 ? partition_shape{1024, 16} : partition_shape{512, 32};
}
/// Whether the scatter's shape for `sample_bytes`-byte samples is compiled and launched only on sm_90 and later.
ONCHIP_HOST_DEVICE constexpr bool partition_scatter_sm90_only(int sample_bytes, int threads) {
  return threads != partition_scatter_shape(sample_bytes, 0).threads;
}
inline constexpr int partition_scatter_blocks = 1;
/// The bucket pass: one block of 1024 threads per SM around one bucket's counters, two batches of 2 vectors of 8
/// keys per lane in flight (the next batch's loads issued before this one's keys are counted; batches of 4 spill
/// in 64 registers).
inline constexpr int partition_bins_threads = 1024;
inline constexpr int partition_bins_gather = 2;
/// A bucket holding more keys than a fair share of the chunk's keys written by the scatter, this many items per
/// block, is split between blocks (so skewed keys spread over the GPU), in parts of no fewer keys than the least
/// below; a bucket counted by one block is added into the output without atomics.
inline constexpr int partition_items_per_block = 2;
inline constexpr cuda::std::size_t partition_min_item_keys = cuda::std::size_t{1} << 16;
/// The workspace never exceeds this (inputs with more samples than it holds keys run in chunks): the keys of 2^28
/// samples and their table up to 2^25 bins, so 1 GiB of 4-byte samples runs in one chunk. Each chunk costs a
/// flush of every bin's counter (at 2^24 bins, 64 MiB read and written); one chunk instead of two measured +3-8%
/// at 2^20-2^24 bins, as two instead of three did +1-6% (bench/notes/).
inline constexpr cuda::std::size_t partition_workspace_cap = cuda::std::size_t{576} << 20;
/// The plan partitions only inputs of at least this many samples, and at least one per bin: below that, the
/// fixed cost (zeroing and flushing every bucket's counters, three launches per chunk) exceeds the atomics saved.
inline constexpr cuda::std::size_t partition_min_samples = cuda::std::size_t{1} << 20;

// --- Grid shape. -----------------------------------------------------------------------------------------------
/// A row runs on the whole grid when it holds at least this many samples per resident thread (shorter rows:
/// one block per row, so each block streams whole rows).
inline constexpr int whole_grid_samples_per_thread = 4;
/// Small inputs: a block gets at least one round of loads per thread (threads x vectors x 16 bytes) before
/// another block is launched (64 KiB per block, so 4 rounds of the byte kernel, took 16 us on 64 KiB of bytes on
/// the H200, against 12 us for 396 blocks).
inline constexpr int min_rounds_per_block = 1;
/// Small inputs: at most one shared counter word per this many samples of a block (zeroing and merging copies
/// the block has too few samples to fill costs more than the contention they save).
inline constexpr int samples_per_counter_word = 2;
/// A single-block launch zeroes an output of at most this many bytes itself, saving the memset's launch.
inline constexpr cuda::std::size_t in_kernel_zero_bytes = 64 * 1024;

}  // namespace onchip::detail::tuning
