// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Byte samples (one-byte integers, unweighted, 1 to 4 interleaved channels): the kernel counts values, not bins.
// Each of the 256 values of each channel is binned once per block at the end, so any binner (even, range, custom)
// costs nothing per sample.
//
// Lane-owned counters: every lane of a warp has its own 32-bit counter word for every value, so no two lanes of a
// warp ever touch the same word or the same bank, whatever the data. A plane of 64 KiB holds 256 values x 256
// bytes; the counter of value v in half h for lane l is at byte v * 256 + h * 128 + l * 4 of its plane. One
// channel: h is the warp's parity (one plane). Several channels: channel c lives in plane c / 2, half c % 2.
// A sample's counter address is one PRMT of the loaded word with the lane's constant low byte (h * 128 + l * 4),
// the plane a constant offset, and the count one shared atomic without return (ATOMS.POPC.INC): two instructions
// per sample, one of them the atomic (an instruction contract checks the loop).
//
// A counter word receives at most the block's samples of its channel divided by 32, so it cannot wrap below 2^37
// samples a block; larger inputs run as several launches below that (tuning::byte_lane_max_bytes, run_pieces).
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail {

#if defined(__CUDACC__)
/**
 * Bins byte value `v` of channel C once and adds its count `total` to the output; returns `total` if it falls in
 * no bin. A collective of the whole warp (the same C in every lane): lanes whose values share a bin (few bins, or
 * a custom binner) add their sum once, so the output's atomics never queue on one address within a warp.
 */
template <int C, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long add_value(const Job& job, unsigned v,
                                                              unsigned long long total) {
  const int bin = job.binners.unstaged(C)(static_cast<typename Job::sample_t>(v));
  const bool valid = static_cast<unsigned>(bin) < static_cast<unsigned>(job.offset[C + 1] - job.offset[C]);
  const unsigned lane = threadIdx.x % 32;
  const unsigned peers = __match_any_sync(0xffffffffu, valid ? static_cast<unsigned>(bin) : 0xffffffffu);
  unsigned long long sum = total;
  if (!__all_sync(0xffffffffu, peers == 1u << lane)) {  // some lanes share a bin: sum over the peers
    sum = 0;
    for (int l = 0; l < 32; ++l) {
      const unsigned long long t = __shfl_sync(0xffffffffu, total, l);
      sum += (peers >> l) & 1u ? t : 0;
    }
  }
  if (valid && sum != 0 && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
    atomic_add<false>(job.hist[C] + bin, static_cast<typename Job::counter_t>(sum));
  }
  return valid ? 0 : total;
}

/// This thread's view of the block's lane-owned counters (see the top of this file).
template <int Active>
struct byte_lanes {
  unsigned planes;  // shared-window address of byte_lane_planes(Active) x 64 KiB of counters
  unsigned low0;    // this lane's low address byte in half 0 (one channel: in its warp's half)
  unsigned low1;    // and in half 1

  /// The plane and half of channel c.
  ONCHIP_HOST_DEVICE static constexpr int plane(int c) { return Active == 1 ? 0 : c / 2; }
  ONCHIP_HOST_DEVICE static constexpr int half(int c) { return Active == 1 ? 0 : c % 2; }

  /// Counts one sample at byte `offset` of the planes: one shared atomic without return.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void bump(unsigned offset) const { shared_red(planes + offset, 1u); }

  /// Counts byte K (0-3) of `word` in channel C (compile-time: the plane is a constant offset).
  template <int C, int K>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void count(unsigned word) const {
    // bytes {low, sample, 0, 0}: sample * 256 + low
    bump(plane(C) * 65536u + __byte_perm(word, half(C) ? low1 : low0, 0x5504u | (K << 4)));
  }

  /// Counts sample value v of a run-time channel c < Active (odd heads and tails).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void count(unsigned v, int c) const {
    bump(static_cast<unsigned>(plane(c)) * 65536u + (v << 8) + (half(c) ? low1 : low0));
  }
};

/// Counts the 16 samples of one vector whose first sample is in channel R of Channels.
template <int Channels, int Active, int R, int P = 0>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_byte_vector(const byte_lanes<Active>& lanes, const unsigned (&w)[4]) {
  if constexpr (P < 16) {
    constexpr int c = (R + P) % Channels;
    if constexpr (c < Active) { lanes.template count<c, P % 4>(w[P / 4]); }
    count_byte_vector<Channels, Active, R, P + 1>(lanes, w);
  }
}

template <int Channels, int Active, int... R>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_rotated(const byte_lanes<Active>& lanes, const unsigned (&w)[4], int r,
                                                    cuda::std::integer_sequence<int, R...>) {
  ((r == R ? count_byte_vector<Channels, Active, R>(lanes, w) : void()), ...);
}

/// The counting loop of the byte kernel: one PRMT and one shared atomic per active sample (an instruction contract
/// checks it).
template <int Vectors, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_bytes(const Job job, const kernel_args& a,
                                                  const byte_lanes<Job::active>& lanes) {
  using sample_t = typename Job::sample_t;
  constexpr int C = Job::channels, A = Job::active;
  walk_samples<Vectors>(
      job, a,
      [&](const vec<sample_t, 16>& items, cuda::std::size_t i) {
        const uint4& v = reinterpret_cast<const uint4&>(items);
        const unsigned w[4] = {v.x, v.y, v.z, v.w};
        if constexpr (C == 1 || 16 % C == 0) {  // every vector starts in the same channel when i % C == 0
          if (C == 1 || i % C == 0) {
            count_byte_vector<C, A, 0>(lanes, w);
            return;
          }
        }
        count_rotated<C, A>(lanes, w, static_cast<int>(i % C), cuda::std::make_integer_sequence<int, C>{});
      },
      [&](sample_t s, cuda::std::size_t i) {
        const int c = C == 1 ? 0 : static_cast<int>(i % C);
        if (c < A) { lanes.count(static_cast<unsigned>(static_cast<unsigned char>(s)), c); }
      },
      no_slices{});
}

/// Zeroes the block's planes (no synchronization) and returns this thread's view of them.
template <int Active>
ONCHIP_DEVICE ONCHIP_FORCEINLINE byte_lanes<Active> start_byte_lanes(unsigned char* planes) {
  constexpr unsigned words16 = tuning::byte_lane_planes(Active) * 65536u / 16u;
  for (unsigned i = block_rank(); i < words16; i += block_size()) {
    reinterpret_cast<uint4*>(planes)[i] = make_uint4(0, 0, 0, 0);
  }
  const unsigned lane = threadIdx.x % 32, warp_half = Active == 1 ? (threadIdx.x / 32) % 2 : 0;
  return {static_cast<unsigned>(__cvta_generic_to_shared(planes)), warp_half * 128 + lane * 4, 128 + lane * 4};
}

/// The byte kernel (see the top of this file).
template <class Job, int Threads, int MinBlocks, int Vectors>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    byte_lanes_kernel(Job job, kernel_args a) {
  constexpr int A = Job::active;
  constexpr int words = A == 1 ? 64 : 32;  // counter words of one value of one channel
  unsigned char* const planes =
      onchip::carve(layout_of(histogram_path::byte_lanes, typed_call<Job>(a.call), 1)).counters;
  zero_output(job, a);
  const byte_lanes<A> lanes = start_byte_lanes<A>(planes);
  __syncthreads();
  count_bytes<Vectors>(job, a, lanes);
  __syncthreads();
  // One thread per channel and value sums its words as 16-byte loads (from a different 16 bytes in each lane, so a
  // quarter warp reads 32 banks), then bins the value once. A * 256 is a multiple of the warp: whole warps take
  // part in add_value.
  constexpr int groups = words / 4;
  unsigned long long ignored = 0;
  for (int i = block_rank(); i < A * 256; i += block_size()) {
    const int c = i / 256, v = i % 256;
    const auto* row = reinterpret_cast<const uint4*>(planes + byte_lanes<A>::plane(c) * 65536 + v * 256 +
                                                     byte_lanes<A>::half(c) * 128);
    unsigned long long total = 0;
#  pragma unroll
    for (int j = 0; j < groups; ++j) {
      const uint4 w = row[(j + v) % groups];
      total += static_cast<unsigned long long>(w.x) + w.y + static_cast<unsigned long long>(w.z) + w.w;
    }
    with_channel<A>(c, [&](auto ch) { ignored += add_value<decltype(ch)::value>(job, v, total); });
  }
  add_ignored(ignored, a.ignored);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
