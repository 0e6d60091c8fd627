// Every number the histogram's launch plan uses, with the reason for it and where it was measured. Budgets that
// depend on the GPU (shared memory per block, blocks per SM, grid size) are derived in plan.cuh from the device's
// real limits; what is here holds on every architecture from sm_75 to sm_90.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail::tuning {

// --- Byte columns: one channel of 1-byte samples, counted per value in lane-owned 16-bit columns. --------------
/// 256 values x 2 bytes x 128 threads = 64 KiB of columns; 128 threads flush two values each.
inline constexpr int byte_column_threads = 128;
/// Intended blocks per SM: three blocks of 66 KiB fit the H200's 228 KB per SM (the configuration measured in
/// bench/NOTES.md, 2026-11-29); smaller SMs get fewer.
inline constexpr int byte_column_blocks = 3;
/// 16-byte vectors in flight per thread: a block of 128 threads needs many loads outstanding to cover latency.
inline constexpr int byte_column_vectors = 8;
/// Inputs below this go to the shared replicas instead: zeroing and merging 64 KiB of columns per block costs
/// more than it saves on small inputs. H200, 2026-11-30, time per call on u8 / 256 bins, byte columns against
/// shared replicas: 4 KiB 10.8 vs 8.7 us, 64 KiB 14.1 vs 11.4, 1 MiB 13.2 vs 13.0, 4 MiB 15.1 vs 16.1, 16 MiB
/// 22.9 vs 34.6.
inline constexpr cuda::std::size_t byte_column_min_bytes = 2 << 20;
/// A column counter is moved to the block's 64-bit totals before 16 more increments could wrap it.
inline constexpr unsigned byte_column_limit = 65535u - 16u;

// --- Byte replicas: several interleaved channels of 1-byte samples (e.g. RGBA). ---------------------------------
inline constexpr int byte_replica_threads = 256;
/// 70 registers per thread on sm_90 (2026-11-29): three blocks of 256 fit the register file.
inline constexpr int byte_replica_blocks = 3;
inline constexpr int byte_replica_vectors = 4;

// --- Shared replicas: interleaved 32- or 64-bit copies of the bins in shared memory. --------------------------
inline constexpr int shared_threads = 512;
/// 56-64 registers per thread on sm_90: two blocks of 512 threads fill the register file.
inline constexpr int shared_blocks = 2;
/// Several active channels: the per-sample channel dispatch needs more than 64 registers per thread on sm_80
/// (ptxas spilled to local memory there at two blocks of 512), so one block of 512 threads per SM.
inline constexpr int channel_blocks = 1;
/// One copy per lane at most: with 32, no two lanes of a warp ever add to one word or one bank.
inline constexpr int max_replicas = 32;
/// 16-byte vectors in flight per thread: 4 for samples of 4 bytes or more, 2 for narrower ones (which already
/// hold 8 or 16 samples a vector). Measured on the H200, f32 and u16 (2026-11-29).
ONCHIP_HOST_DEVICE constexpr int sample_vectors(int sample_bytes) { return sample_bytes >= 4 ? 4 : 2; }

/// Many segments (at least a full grid of 512-thread blocks): each slice is zeroed, counted and flushed by one
/// block, and slices are short, so more, smaller blocks keep more loads in flight. H200, 2026-11-30: 16384
/// segments of 16 KiB ran 1476 GB/s in 512-thread blocks, 2126 in 256-thread blocks; 8 segments of 32 MiB ran
/// 3193 in 512-thread blocks, 2858 in 256-thread ones.
inline constexpr int segment_threads = 256;
inline constexpr int segment_blocks = 4;

// --- block_histogram (the block primitive). -------------------------------------------------------------------
/// Its per-warp replicas together stay within this, so it leaves room for the caller's own shared arrays.
inline constexpr cuda::std::size_t block_replica_bytes = 32 * 1024;

// --- Packed 16-bit shared counters: one copy of the bins at half the size, carrying into the output. ----------
/// Returning atomics (needed to see carries) have long latency: 1024 threads hide it where registers allow;
/// range binners (a staged binary search) and 8-byte samples need more registers per thread.
ONCHIP_HOST_DEVICE constexpr int packed16_threads(bool range_binner, int sample_bytes) {
  return range_binner ? 256 : sample_bytes <= 4 ? 1024 : 512;
}
inline constexpr int packed16_blocks = 1;

// --- Global atomics: bins beyond shared memory, one atomic per sample into the output. ------------------------
inline constexpr int global_threads = 256;
/// 48-72 registers per thread on sm_90: three blocks of 256 threads fit the register file.
inline constexpr int global_blocks = 3;

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
