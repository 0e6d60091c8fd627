// Byte samples (one-byte integers, unweighted): the kernels count values, not bins. Each of the 256 values is
// binned once per block at the end, so any binner (even, range, custom) costs nothing per sample.
//
// One channel: every thread owns a column of 256 sixteen-bit counters, one per value, laid out so that the 32
// lanes of a warp always touch 32 different banks (the counter of value v for the thread at column t is at byte
// v * 256 + 2 * t, and a warp's columns are 2 * lane + k). A sample costs one PRMT (its counter's address), a
// load, an add and a store in shared memory: no atomics, whatever the distribution. Samples go in pairs (both
// loads before either store, the same counter counted twice when both samples are equal), and a vector of one
// value is one add of 16. A counter is kept at byte_column_limit or below at the start of each 16-byte vector, so 16
// increments cannot wrap it; a vector that may lift one past that moves its counters into the block's 64-bit
// totals (once every 4000 vectors per thread at most). 128 threads to a block (64 KiB of columns), three blocks
// to an SM, eight 16-byte vectors in flight per thread.
//
// Several channels (e.g. RGBA): interleaved replicas of channels x 256 32-bit counters (counter i of replica r at
// word i * replicas + r, lane l on replica l % replicas), one shared atomic per active sample.
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail {

#if defined(__CUDACC__)
using tuning::byte_column_limit;
using tuning::byte_column_threads;

/// One increment of the 16-bit counter at shared address `addr`; returns its value before.
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned bump_column(unsigned addr) {
  unsigned short c;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(c) : "r"(addr) : "memory");
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(static_cast<unsigned short>(c + 1)) : "memory");
  return c;
}

/**
 * Increments the 16-bit counters at shared addresses `a` and `b` (the same counter twice when a == b), with both
 * loads issued before either store: half the load-to-store latency per sample of two bump_column calls. Returns
 * the larger value before.
 */
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned bump_pair(unsigned a, unsigned b) {
  unsigned short ca, cb;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(ca) : "r"(a) : "memory");
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(cb) : "r"(b) : "memory");
  const unsigned short both = a == b ? 1 : 0;
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(b), "h"(static_cast<unsigned short>(cb + 1 + both)) : "memory");
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(a), "h"(static_cast<unsigned short>(ca + 1 + both)) : "memory");
  return max(static_cast<unsigned>(ca), static_cast<unsigned>(cb));
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned load_column(unsigned addr) {
  unsigned short c;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(c) : "r"(addr) : "memory");
  return c;
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE void store_column(unsigned addr, unsigned c) {
  asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(static_cast<unsigned short>(c)) : "memory");
}

/// Counts one channel's bytes in this thread's counter column (based at shared address `column`); values whose
/// counters pass byte_column_limit move to `totals`.
struct byte_column_counter {
  unsigned column;  // shared address of this thread's counter of value 0
  unsigned base;    // shared address of the counters
  unsigned long long* totals;

  ONCHIP_DEVICE ONCHIP_FORCEINLINE void spill(unsigned v) const {
    const unsigned addr = column + (v << 8);
    const unsigned c = load_column(addr);
    if (c != 0) {
      atomicAdd_block(totals + v, static_cast<unsigned long long>(c));
      store_column(addr, 0);
    }
  }

  ONCHIP_DEVICE ONCHIP_FORCEINLINE void operator()(const uint4& w) const {
    if (w.x == w.y && w.x == w.z && w.x == w.w && w.x == __byte_perm(w.x, 0, 0x0000)) {  // one value: one add
      const unsigned v = w.x & 0xffu;
      const unsigned addr = column + (v << 8);
      const unsigned c = load_column(addr);
      store_column(addr, c + 16);
      if (c + 16 > byte_column_limit) { spill(v); }
      return;
    }
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
    const unsigned offset = column - base;  // below 256
    unsigned peak = 0;
#  pragma unroll
    for (int j = 0; j < 4; ++j) {
#  pragma unroll
      for (int k = 0; k < 4; k += 2) {
        // byte 0 = this thread's column, byte 1 = the sample: each counter's offset in one PRMT
        const unsigned a = base + __byte_perm(words[j], offset, 0x5504u | (static_cast<unsigned>(k) << 4));
        const unsigned b = base + __byte_perm(words[j], offset, 0x5504u | (static_cast<unsigned>(k + 1) << 4));
        peak = max(peak, bump_pair(a, b));
      }
    }
    if (peak + 2 > byte_column_limit) {  // a counter may now exceed byte_column_limit
#  pragma unroll
      for (int j = 0; j < 4; ++j) {
#  pragma unroll
        for (int k = 0; k < 4; ++k) { spill((words[j] >> (8 * k)) & 0xffu); }
      }
    }
  }

  ONCHIP_DEVICE ONCHIP_FORCEINLINE void operator()(unsigned v) const {
    if (bump_column(column + (v << 8)) + 1 > byte_column_limit) { spill(v); }
  }
};

/// Zeroes this block's counter columns and totals and returns its counter (a collective of byte_column_threads
/// threads).
ONCHIP_DEVICE ONCHIP_FORCEINLINE byte_column_counter start_byte_columns(unsigned char* counters,
                                                                       unsigned long long* totals) {
  const unsigned tid = threadIdx.x;
  for (unsigned i = tid; i < 256 * 2 * byte_column_threads / 16; i += byte_column_threads) {
    reinterpret_cast<uint4*>(counters)[i] = make_uint4(0, 0, 0, 0);
  }
  totals[tid] = 0;
  totals[tid + byte_column_threads] = 0;
  __syncthreads();
  const unsigned lane = tid % 32, warp = tid / 32;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(counters));
  return {base + 2 * ((lane << 1) | (warp & 1u) | ((warp >> 1) << 6)), base, totals};
}

/// The counting loop of the one-channel byte kernel: shared memory only (an instruction contract checks it).
template <class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_byte_columns(const Job job, const kernel_args& a,
                                                         const byte_column_counter& count) {
  using sample_t = typename Job::sample_t;
  walk_samples<tuning::byte_column_vectors>(
      job, a,
      [&](const vec<sample_t, 16>& items, cuda::std::size_t) { count(reinterpret_cast<const uint4&>(items)); },
      [&](sample_t v, cuda::std::size_t) { count(static_cast<unsigned>(static_cast<unsigned char>(v))); },
      no_slices{});
}

/// Bins byte value `v` of channel C once and adds its count `total` to the output; returns `total` if it falls in
/// no bin.
template <int C, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long add_value(const Job& job, unsigned v, unsigned long long total) {
  const int bin = job.binners.unstaged(C)(static_cast<typename Job::sample_t>(v));
  if (static_cast<unsigned>(bin) < static_cast<unsigned>(job.offset[C + 1] - job.offset[C])) {
    atomic_add<false>(job.hist[C] + bin, static_cast<typename Job::counter_t>(total));
    return 0;
  }
  return total;
}

/// The one-channel byte kernel (see the top of this file).
template <class Job>
__global__ void __launch_bounds__(tuning::byte_column_threads, tuning::byte_column_blocks)
    byte_columns_kernel(Job job, kernel_args a) {
  const shared_spans spans = onchip::carve(layout_of(histogram_path::byte_columns, a.call, 1));
  unsigned char* const counters = spans.counters;
  unsigned long long* const totals = spans.totals;
  zero_output(job, a);  // start_byte_columns synchronizes the block
  count_byte_columns(job, a, start_byte_columns(counters, totals));
  __syncthreads();
  // Each thread sums two values over the 128 columns (64 words each, visited from a different word per lane so
  // that the warp reads 32 banks), then bins each value once.
  unsigned long long ignored = 0;
  for (unsigned v = threadIdx.x; v < 256; v += byte_column_threads) {
    const unsigned* row = reinterpret_cast<const unsigned*>(counters + v * 256);
    unsigned sum = 0;  // at most 128 * 65535
    for (unsigned j = 0; j < 64; ++j) {
      const unsigned w = row[(j + v) & 63u];
      sum += (w & 0xffffu) + (w >> 16);
    }
    const unsigned long long total = totals[v] + sum;
    if (total != 0) { ignored += add_value<0>(job, v, total); }
  }
  add_ignored(ignored, a.ignored);
}

/// The several-channel byte kernel (see the top of this file).
template <class Job>
__global__ void __launch_bounds__(tuning::byte_replica_threads, tuning::byte_replica_blocks)
    byte_replicas_kernel(Job job, kernel_args a) {
  using sample_t = typename Job::sample_t;
  constexpr int C = Job::channels, A = Job::active;
  const int replicas = a.replicas;
  unsigned* const counters = reinterpret_cast<unsigned*>(
      onchip::carve(layout_of(histogram_path::byte_replicas, a.call, replicas)).counters);
  zero_output(job, a);
  for (int i = block_rank(); i < replicas * A * 256; i += block_size()) { counters[i] = 0; }
  __syncthreads();
  const int slot = static_cast<int>(threadIdx.x % 32) & (replicas - 1);
  auto count = [&](unsigned v, int c) {
    if (c < A) { atomicAdd_block(counters + (c * 256 + static_cast<int>(v)) * replicas + slot, 1u); }
  };
  walk_samples<tuning::byte_replica_vectors>(
      job, a,
      [&](const vec<sample_t, 16>& items, cuda::std::size_t i) {
        const uint4& w = reinterpret_cast<const uint4&>(items);
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
        int c = static_cast<int>(i % C);
#  pragma unroll
        for (int j = 0; j < 4; ++j) {
#  pragma unroll
          for (int k = 0; k < 4; ++k) {
            count((words[j] >> (8 * k)) & 0xffu, c);
            c = c + 1 == C ? 0 : c + 1;
          }
        }
      },
      [&](sample_t v, cuda::std::size_t i) {
        count(static_cast<unsigned>(static_cast<unsigned char>(v)), static_cast<int>(i % C));
      },
      no_slices{});
  __syncthreads();
  unsigned long long ignored = 0;
  for (int i = block_rank(); i < A * 256; i += block_size()) {
    unsigned long long total = 0;
    for (int r = 0; r < replicas; ++r) { total += counters[i * replicas + r]; }
    if (total != 0) {
      with_channel<A>(i / 256, [&](auto ch) { ignored += add_value<decltype(ch)::value>(job, i % 256, total); });
    }
  }
  add_ignored(ignored, a.ignored);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
