// Shared-memory counters behind onchip::block_histogram and the device-wide kernels: replicas, atomic adds for
// every counter type (uint16_t packed two per word, with carries), merging and flushing.
#pragma once

#include <onchip/histogram.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <nv/target>

namespace onchip::detail {

template <class Counter>
inline constexpr bool is_packed16_v = cuda::std::is_same_v<Counter, cuda::std::uint16_t>;

/// What shared memory holds for a Counter: 32-bit words of two uint16_t counters, else the counter itself.
template <class Counter>
using smem_word_t = cuda::std::conditional_t<is_packed16_v<Counter>, unsigned, Counter>;

/// The global counter a shared counter flushes into.
template <class Counter>
using wide_counter_t = cuda::std::conditional_t<is_packed16_v<Counter>, unsigned, Counter>;

template <class Counter>
ONCHIP_HOST_DEVICE constexpr int smem_words(int bins) {
  return is_packed16_v<Counter> ? (bins + 1) / 2 : bins;
}

/// Replicas for a block: one per warp at most, 32 at most, within 32 KiB together.
template <class Counter>
ONCHIP_HOST_DEVICE constexpr int default_replicas(int bins, int block_threads) {
  const cuda::std::size_t replica = static_cast<cuda::std::size_t>(smem_words<Counter>(bins)) * sizeof(smem_word_t<Counter>);
  const int warps = (block_threads + 31) / 32;
  int r = 1;
  while (2 * r <= warps && 2 * r <= 32 && 2 * r * replica <= 32 * 1024) { r *= 2; }
  return r;
}

/// Whether a weight of type W can be added to counters of type C without losing its kind.
template <class C, class W>
inline constexpr bool counter_holds_v =
    cuda::std::is_floating_point_v<W> ? (cuda::std::is_floating_point_v<C> && sizeof(C) >= sizeof(W))
                                      : (cuda::std::is_arithmetic_v<W> && !is_packed16_v<C>);

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

/**
 * Counts `weight` in `bin` of one replica. uint16_t counters (two per word) carry into `carry` (a 32-bit histogram
 * of `bins` bins): when the low half of a word wraps, the hardware add has also raised the high half by one, so
 * 65536 goes to `carry[bin]` and one is taken from `carry[bin + 1]`; the shared word only ever sees adds, so
 * every wrap is seen exactly once by the thread that caused it, whatever the other threads do meanwhile.
 */
template <class Counter, class W>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void smem_add(smem_word_t<Counter>* replica, int bin, W weight, unsigned* carry,
                                               int bins) {
  if constexpr (is_packed16_v<Counter>) {
    const unsigned count = static_cast<unsigned>(weight);  // below 65536
    const unsigned shift = (bin & 1) * 16;
    const unsigned old = atomicAdd_block(replica + (bin >> 1), count << shift);
    if (((old >> shift) & 0xffffu) + count > 0xffffu) {  // this add wrapped the counter
      atomicAdd(carry + bin, 65536u);
      if (shift == 0 && bin + 1 < bins) { atomicAdd(carry + bin + 1, 0xffffffffu); }
    }
  } else {
    static_cast<void>(carry);
    static_cast<void>(bins);
    atomic_add<true>(replica + bin, static_cast<Counter>(weight));
  }
}

/// Sum of `bin` over `replicas` replicas `stride` words apart.
template <class Counter>
ONCHIP_DEVICE ONCHIP_FORCEINLINE wide_counter_t<Counter> merged(const smem_word_t<Counter>* base, int bin, int replicas,
                                                               int stride) {
  wide_counter_t<Counter> sum = 0;
  for (int r = 0; r < replicas; ++r) {
    if constexpr (is_packed16_v<Counter>) {
      sum += (base[r * stride + (bin >> 1)] >> ((bin & 1) * 16)) & 0xffffu;
    } else {
      sum += base[r * stride + bin];
    }
  }
  return sum;
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_size() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }
#endif

}  // namespace onchip::detail

namespace onchip {

template <int Bins, class Counter>
ONCHIP_HOST_DEVICE constexpr int block_histogram<Bins, Counter>::replicas(int block_threads) noexcept {
  return detail::default_replicas<Counter>(Bins, block_threads);
}

template <int Bins, class Counter>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t block_histogram<Bins, Counter>::smem_bytes(int block_threads) noexcept {
  return static_cast<cuda::std::size_t>(replicas(block_threads)) * detail::smem_words<Counter>(Bins) * sizeof(word);
}

template <int Bins, class Counter>
ONCHIP_HOST_DEVICE block_histogram<Bins, Counter>::block_histogram(carver& smem, int block_threads,
                                                                   unsigned* carry_target)
    : replicas_(replicas(block_threads)), carry_(carry_target) {
  storage_ = smem.take<word>(static_cast<cuda::std::size_t>(replicas_) * detail::smem_words<Counter>(Bins)).data();
}

#if defined(__CUDACC__)
template <int Bins, class Counter>
ONCHIP_DEVICE block_histogram<Bins, Counter>::block_histogram(carver& smem)
    : block_histogram(smem, detail::block_size(), nullptr) {
  static_assert(!detail::is_packed16_v<Counter>,
                "onchip::block_histogram<Bins, uint16_t>: pass the 32-bit histogram you will flush into, "
                "block_histogram(smem, carry_target), so that counters passing 65535 lose nothing");
}

template <int Bins, class Counter>
ONCHIP_DEVICE block_histogram<Bins, Counter>::block_histogram(carver& smem, unsigned* carry_target)
    : block_histogram(smem, detail::block_size(), carry_target) {}

template <int Bins, class Counter>
ONCHIP_DEVICE void block_histogram<Bins, Counter>::reset() {
  constexpr int words = detail::smem_words<Counter>(Bins);
  __syncthreads();  // earlier readers (a previous flush or store) are done
  for (int i = detail::block_rank(); i < replicas_ * words; i += detail::block_size()) { storage_[i] = word(0); }
  __syncthreads();
}

template <int Bins, class Counter>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter>::add(int bin) {
  add(bin, 1);
}

template <int Bins, class Counter>
template <class Weight>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter>::add(int bin, Weight weight) {
  static_assert(detail::counter_holds_v<Counter, Weight> || (detail::is_packed16_v<Counter> && cuda::std::is_integral_v<Weight>),
                "onchip::block_histogram::add(bin, weight): the counter type cannot hold this weight type (e.g. "
                "float weights need float or double counters; uint16_t counters take no weights)");
  if (static_cast<unsigned>(bin) >= static_cast<unsigned>(Bins)) { return; }
  if constexpr (detail::is_packed16_v<Counter>) {
#  if ONCHIP_CHECKS
    if (carry_ == nullptr) {
      printf("onchip::block_histogram<%d, uint16_t>: no carry target (construct it with the 32-bit histogram)\n",
             Bins);
      detail::fail_check(true);
    }
#  endif
  }
  constexpr int words = detail::smem_words<Counter>(Bins);
  word* mine = storage_ + (replicas_ == 1 ? 0 : (detail::block_rank() / 32) % replicas_) * words;
  detail::smem_add<Counter>(mine, bin, weight, carry_, Bins);
}

template <int Bins, class Counter>
template <int N>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter>::add(const int (&bins)[N]) {
#  pragma unroll
  for (int i = 0; i < N; ++i) { add(bins[i]); }
}

template <int Bins, class Counter>
ONCHIP_DEVICE void block_histogram<Bins, Counter>::flush(global_counter* global) {
  constexpr int words = detail::smem_words<Counter>(Bins);
  __syncthreads();
  for (int b = detail::block_rank(); b < Bins; b += detail::block_size()) {
    const global_counter sum = detail::merged<Counter>(storage_, b, replicas_, words);
    if (sum != global_counter(0)) { detail::atomic_add<false>(global + b, sum); }
  }
}

template <int Bins, class Counter>
ONCHIP_DEVICE void block_histogram<Bins, Counter>::store(Counter* out) {
  static_assert(!detail::is_packed16_v<Counter>,
                "onchip::block_histogram<Bins, uint16_t>::store: 16-bit counts may have carried into the flush "
                "target; use flush, or uint32_t counters for per-block results");
  constexpr int words = detail::smem_words<Counter>(Bins);
  __syncthreads();
  for (int b = detail::block_rank(); b < Bins; b += detail::block_size()) {
    out[b] = detail::merged<Counter>(storage_, b, replicas_, words);
  }
}
#endif

}  // namespace onchip
