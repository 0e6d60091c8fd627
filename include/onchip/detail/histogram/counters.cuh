// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Counter types and shared-memory counters: which types count where, atomic adds for each of them, the packed
// 16-bit counters with exact carries, and merging replicas. Used by block_histogram and the device-wide kernels.
#pragma once

#include <onchip/detail/block.cuh>
#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/tuning.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip::detail {

/**
 * What onchip knows of a counter type, in one place. `block` / `device`: usable by block_histogram / by the
 * device-wide API (whose outputs are global memory and take no 16-bit counters). `word`: what shared memory holds
 * and what a block flushes into (a 32-bit word of two uint16_t counters, else the counter itself).
 */
template <class Counter>
struct counter_traits {
  static constexpr bool packed16 = cuda::std::is_same_v<Counter, cuda::std::uint16_t>;
  static constexpr bool device = cuda::std::is_same_v<Counter, unsigned> || cuda::std::is_same_v<Counter, int> ||
                                 cuda::std::is_same_v<Counter, unsigned long long> ||
                                 cuda::std::is_same_v<Counter, long long> ||
                                 cuda::std::is_same_v<Counter, float> || cuda::std::is_same_v<Counter, double>;
  static constexpr bool block = device || packed16;
  /// 32-bit integer counters, whose bins may live in packed 16-bit shared counters that carry into them.
  static constexpr bool carries_from_packed16 =
      cuda::std::is_same_v<Counter, unsigned> || cuda::std::is_same_v<Counter, int>;
  using word = cuda::std::conditional_t<packed16, unsigned, Counter>;
  /// Shared words holding `bins` counters.
  ONCHIP_HOST_DEVICE static constexpr int words(int bins) { return packed16 ? (bins + 1) / 2 : bins; }
};

/// Whether a weight of type W can be added to counters of type C without losing its kind.
template <class C, class W>
inline constexpr bool counter_holds_v = cuda::std::is_floating_point_v<W>
                                            ? (cuda::std::is_floating_point_v<C> && sizeof(C) >= sizeof(W))
                                            : (cuda::std::is_arithmetic_v<W> && !counter_traits<C>::packed16);

/// Replicas for a block_histogram: one per warp at most, tuning::max_replicas at most, within
/// tuning::block_replica_bytes together.
template <class Counter>
ONCHIP_HOST_DEVICE constexpr int default_replicas(int bins, int block_threads) {
  using traits = counter_traits<Counter>;
  const auto replica = static_cast<cuda::std::size_t>(traits::words(bins)) * sizeof(typename traits::word);
  const int warps = (block_threads + 31) / 32;
  int r = 1;
  while (2 * r <= warps && 2 * r <= tuning::max_replicas && 2 * r * replica <= tuning::block_replica_bytes) {
    r *= 2;
  }
  return r;
}

/// Packed 16-bit counters (bin b in half b % 2 of word b / 2): whether an add of `count` (below 65536) to bin `b`
/// wrapped its half, from the word's value `old` before it.
ONCHIP_HOST_DEVICE constexpr bool packed16_wrapped(unsigned old, unsigned b, unsigned count) {
  return ((old >> ((b & 1u) * 16u)) & 0xffffu) + count > 0xffffu;
}

/// Whether bin b's half of `old` holds 0xffff, so that an add of one wraps it: packed16_wrapped(old, b, 1), on the
/// device in two instructions (a byte permute replicates the half, one compare).
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE bool packed16_full(unsigned old, unsigned b) {
#if defined(__CUDA_ARCH__)
  unsigned half;  // prmt, not __byte_perm, whose selector is masked first (one more instruction)
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(half) : "r"(old), "r"(0x1010u + (b & 1u) * 0x2222u));
  return half == 0xffffffffu;
#else
  return packed16_wrapped(old, b, 1u);
#endif
}

/**
 * Packed 16-bit counters: what one add of `count` (below 65536) to bin `b`
 * did, from the word's value `old` before it. 0: no half wrapped. Else the bin's half wrapped (the bin gains
 * 65536 in the 32-bit output) and, for a low half, the carry raised the high half by one: 1 when that half then
 * holds one count too many (bin b + 1 loses one), 2 when it held 0xffff and wrapped too (bin b + 1 gains 65535).
 */
ONCHIP_HOST_DEVICE constexpr unsigned packed16_wrap(unsigned old, unsigned b, unsigned count) {
  if (!packed16_wrapped(old, b, count)) { return 0; }
  return (b & 1u) == 0 && (old >> 16) == 0xffffu ? 2u : 1u;
}

/// Bin b + 1's share of a low-half wrap described by packed16_wrap's `code` (1 or 2), as a 32-bit addend.
ONCHIP_HOST_DEVICE constexpr unsigned packed16_high_credit(unsigned code) {
  return code == 2u ? 65535u : 0xffffffffu;
}

#if defined(__CUDACC__)
/// Atomic add of `v` into a counter (block scope for shared memory, device scope for global).
template <bool Block, class C>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void atomic_add(C* p, C v) {
  if constexpr (cuda::std::is_same_v<C, long long>) {
    atomic_add<Block>(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (Block) {
    atomicAdd_block(p, v);
  } else {
    atomicAdd(p, v);
  }
}

/// Atomic add without return into the shared-window address `addr` (one RED, no generic-to-shared conversion).
template <class C>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void shared_red(unsigned addr, C v) {
  static_assert(counter_traits<C>::device, "shared_red: not a device-wide counter type");
  if constexpr (cuda::std::is_integral_v<C> && sizeof(C) == 4) {
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(static_cast<unsigned>(v)) : "memory");
  } else if constexpr (cuda::std::is_integral_v<C>) {
    asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(addr), "l"(static_cast<unsigned long long>(v)) : "memory");
  } else if constexpr (sizeof(C) == 4) {
    asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
  } else {
    asm volatile("red.shared.add.f64 [%0], %1;" ::"r"(addr), "d"(v) : "memory");
  }
}

/**
 * Counts `weight` in `bin` of one replica. uint16_t counters (two per word) carry into `carry` (a 32-bit histogram
 * of `bins` bins): when the low half of a word wraps, the hardware add has also raised the high half by one, so
 * 65536 goes to `carry[bin]` and one is taken from `carry[bin + 1]`; the shared word only ever sees adds, so
 * every wrap is seen exactly once by the thread that caused it, whatever the other threads do meanwhile.
 */
template <class Counter, class W>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void smem_add(typename counter_traits<Counter>::word* replica, int bin, W weight,
                                               unsigned* carry, int bins) {
  if constexpr (counter_traits<Counter>::packed16) {
    const unsigned count = static_cast<unsigned>(weight);  // below 65536
    const unsigned old = atomicAdd_block(replica + (bin >> 1), count << ((bin & 1) * 16));
    if (const unsigned code = packed16_wrap(old, static_cast<unsigned>(bin), count)) {
      atomicAdd(carry + bin, 65536u);
      if ((bin & 1) == 0 && bin + 1 < bins) { atomicAdd(carry + bin + 1, packed16_high_credit(code)); }
    }
  } else {
    static_cast<void>(carry);
    static_cast<void>(bins);
    atomic_add<true>(replica + bin, static_cast<Counter>(weight));
  }
}

/// Sum of `bin` over `replicas` replicas `stride` words apart, read from replica `first` on (wrapping around).
template <class Counter>
ONCHIP_DEVICE ONCHIP_FORCEINLINE typename counter_traits<Counter>::word merged(
    const typename counter_traits<Counter>::word* base, int bin, int replicas, int stride, int first = 0) {
  typename counter_traits<Counter>::word sum = 0;
  for (int k = 0; k < replicas; ++k) {
    const int r = k + first < replicas ? k + first : k + first - replicas;
    if constexpr (counter_traits<Counter>::packed16) {
      sum += (base[r * stride + (bin >> 1)] >> ((bin & 1) * 16)) & 0xffffu;
    } else {
      sum += base[r * stride + bin];
    }
  }
  return sum;
}
#endif  // __CUDACC__

}  // namespace onchip::detail
