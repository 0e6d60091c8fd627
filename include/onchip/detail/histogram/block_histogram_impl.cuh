// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of onchip::block_histogram (block_histogram.cuh) (its counters live in counters.cuh).
#pragma once

#include <onchip/block_histogram.cuh>
#include <onchip/detail/check.cuh>
#include <onchip/detail/histogram/counters.cuh>

#include <cstdio>

namespace onchip {

template <int Bins, class Counter, block_layout Layout>
ONCHIP_HOST_DEVICE constexpr int block_histogram<Bins, Counter, Layout>::replicas(int block_threads) noexcept {
  return layout == block_layout::one_copy ? 1 : detail::default_replicas<Counter>(Bins, block_threads);
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t block_histogram<Bins, Counter, Layout>::smem_bytes(
    int block_threads) noexcept {
  return static_cast<cuda::std::size_t>(replicas(block_threads)) * traits::words(Bins) * sizeof(global_counter);
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_HOST_DEVICE block_histogram<Bins, Counter, Layout>::block_histogram(carver& smem, int block_threads,
                                                                           unsigned* carry_target)
    : replicas_(replicas(block_threads)), carry_(carry_target) {
  storage_ = smem.take<global_counter>(static_cast<cuda::std::size_t>(replicas_) * traits::words(Bins)).data();
}

#if defined(__CUDACC__)
template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE block_histogram<Bins, Counter, Layout>::block_histogram(carver& smem)
    : block_histogram(smem, detail::block_size(), nullptr) {
  static_assert(!traits::packed16,
                "onchip::block_histogram<Bins, uint16_t>: pass the 32-bit histogram you will flush into, "
                "block_histogram(smem, carry_target), so that counters passing 65535 lose nothing");
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE block_histogram<Bins, Counter, Layout>::block_histogram(carver& smem, unsigned* carry_target)
    : block_histogram(smem, detail::block_size(), carry_target) {}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE void block_histogram<Bins, Counter, Layout>::reset() {
  constexpr int words = traits::words(Bins);
  if (counted_) { __syncthreads(); }  // earlier adds, flushes and stores are done (set by collectives: uniform)
  // Loops here run once or a few times a thread: not unrolled, so no trip count (an integer division) is computed.
#  pragma unroll 1
  for (int i = detail::block_rank(); i < copies() * words; i += detail::block_size()) {
    storage_[i] = global_counter(0);
  }
  __syncthreads();
  counted_ = true;
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter, Layout>::add(int bin) {
  add(bin, 1);
}

template <int Bins, class Counter, block_layout Layout>
template <class Weight>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter, Layout>::add(int bin, Weight weight) {
  static_assert(detail::counter_holds_v<Counter, Weight> || (traits::packed16 && cuda::std::is_integral_v<Weight>),
                "onchip::block_histogram::add(bin, weight): the counter type cannot hold this weight type (e.g. "
                "float weights need float or double counters; uint16_t counters take no weights)");
  if (static_cast<unsigned>(bin) >= static_cast<unsigned>(Bins)) { return; }
  if constexpr (traits::packed16) {
#  if ONCHIP_CHECKS
    if (carry_ == nullptr) {
      printf("onchip::block_histogram<%d, uint16_t>: no carry target (construct it with the 32-bit histogram)\n",
             Bins);
      detail::fail_check(true);
    }
#  endif
  }
  constexpr int words = traits::words(Bins);
  global_counter* mine = storage_;
  if constexpr (layout != block_layout::one_copy) { mine += (detail::block_rank() / 32) % replicas_ * words; }
  detail::smem_add<Counter>(mine, bin, weight, carry_, Bins);
}

template <int Bins, class Counter, block_layout Layout>
template <int N>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_histogram<Bins, Counter, Layout>::add(const int (&bins)[N]) {
#  pragma unroll
  for (int i = 0; i < N; ++i) { add(bins[i]); }
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE void block_histogram<Bins, Counter, Layout>::flush(global_counter* global) {
  constexpr int words = traits::words(Bins);
  __syncthreads();
#  pragma unroll 1
  for (int b = detail::block_rank(); b < Bins; b += detail::block_size()) {
    const global_counter sum = detail::merged<Counter>(storage_, b, copies(), words);
    if (sum != global_counter(0)) { detail::atomic_add<false>(global + b, sum); }
  }
}

template <int Bins, class Counter, block_layout Layout>
ONCHIP_DEVICE void block_histogram<Bins, Counter, Layout>::store(Counter* out) {
  static_assert(!traits::packed16,
                "onchip::block_histogram<Bins, uint16_t>::store: 16-bit counts may have carried into the flush "
                "target; use flush, or uint32_t counters for per-block results");
  constexpr int words = traits::words(Bins);
  __syncthreads();
#  pragma unroll 1
  for (int b = detail::block_rank(); b < Bins; b += detail::block_size()) {
    out[b] = detail::merged<Counter>(storage_, b, copies(), words);
  }
}
#endif

}  // namespace onchip
