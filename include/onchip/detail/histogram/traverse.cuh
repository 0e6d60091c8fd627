// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device pieces every histogram kernel shares: walking the job's samples as the plan says (whole grid, block per
// row, segment slices), binning and counting each sample through the kernel's add, the ignored count, zeroing
// and adding into the output.
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/load.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include <cstdio>

namespace onchip::detail {

#if defined(__CUDACC__)
template <class F, int... I>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void with_channel_impl(int c, F& f, cuda::std::integer_sequence<int, I...>) {
  ((c == I ? f(cuda::std::integral_constant<int, I>{}) : void()), ...);
}

/// Calls f(integral_constant<int, c>) for a run-time channel c < A, so that per-channel arrays are indexed with
/// constants (a run-time index would put them in local memory).
template <int A, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void with_channel(int c, F&& f) {
  if constexpr (A == 1) {
    f(cuda::std::integral_constant<int, 0>{});
  } else {
    with_channel_impl(c, f, cuda::std::make_integer_sequence<int, A>{});
  }
}

/// Whether every sample of a 16-byte vector holds the same bits.
template <class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE bool vector_is_constant(const uint4& w) {
  if constexpr (sizeof(T) == 8) {
    return w.x == w.z && w.y == w.w;
  } else {
    bool same = w.x == w.y && w.x == w.z && w.x == w.w;
    if constexpr (sizeof(T) == 1) { same = same && w.x == __byte_perm(w.x, 0, 0x0000); }
    if constexpr (sizeof(T) == 2) { same = same && w.x == __byte_perm(w.x, 0, 0x1010); }
    return same;
  }
}

/// Segments cut into `slices` slices, one block per slice at a time: around(s, count) counts slice s of segment s
/// with count() (block-uniform, so `around` may synchronize the block).
template <int Vectors, class Job, class FV, class FI, class Around>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void walk_segments(const Job job, int slices, FV& on_vector, FI& on_item,
                                                    Around& around) {
  const long long items = static_cast<long long>(job.rows) * slices;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int s = static_cast<int>(item / slices), k = static_cast<int>(item % slices);
    const auto begin = static_cast<long long>(job.segment_offsets[s]);
    const auto end = static_cast<long long>(job.segment_offsets[s + 1]);
#  if ONCHIP_CHECKS
    if (end < begin) {
      if (block_rank() == 0) {
        printf(
            "onchip::segmented_histogram_even: segment_offsets must not decrease, but segment %d runs from %lld "
            "to %lld\n",
            s, begin, end);
      }
      fail_check(block_rank() == 0);
    }
#  endif
    const long long slice = ((end > begin ? end - begin : 0) + slices - 1) / slices;
    const long long first = begin + k * slice, last = first + slice < end ? first + slice : end;
    if (first >= last) { continue; }  // block-uniform
    around(s, [&] {
      onchip::block_for_each_vec<Vectors>(job.samples + first, static_cast<cuda::std::size_t>(last - first),
                                          on_vector, on_item);
    });
  }
}

/// Runs on_vector(vec, index) / on_item(sample, index) over the job's samples as the plan walks them (index:
/// within the row or slice); segmented jobs go through `around` (see walk_segments).
template <int Vectors, class Job, class FV, class FI, class Around>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void walk_samples(const Job job, const kernel_args& a, FV&& on_vector,
                                                   FI&& on_item, Around&& around) {
  using sample_t = typename Job::sample_t;
  auto row = [&](cuda::std::size_t r) {
    return reinterpret_cast<const sample_t*>(reinterpret_cast<const unsigned char*>(job.samples) +
                                             r * job.row_stride);
  };
  if constexpr (Job::segmented) {
    walk_segments<Vectors>(job, a.slices, on_vector, on_item, around);
  } else if (a.walk == traversal::whole_grid) {
    for (cuda::std::size_t r = 0; r < job.rows; ++r) {
      onchip::grid_for_each_vec<Vectors>(row(r), job.row_samples, on_vector, on_item);
    }
  } else {
    for (cuda::std::size_t r = blockIdx.x; r < job.rows; r += gridDim.x) {
      onchip::block_for_each_vec<Vectors>(row(r), job.row_samples, on_vector, on_item);
    }
  }
}

/// Whether the weights can be read as vectors beside the samples (for_each_vectors' companion): same size, same
/// alignment modulo 16.
template <class S, class W>
ONCHIP_DEVICE ONCHIP_FORCEINLINE bool weights_pair_with(const S* samples, const W* weights) {
  return sizeof(S) == sizeof(W) &&
         (reinterpret_cast<cuda::std::uintptr_t>(samples) - reinterpret_cast<cuda::std::uintptr_t>(weights)) %
                 16 ==
             0;
}

/// No per-slice work (jobs that are not segmented).
struct no_slices {
  template <class Count>
  ONCHIP_DEVICE void operator()(int, Count&& count) const {
    count();
  }
};

/**
 * One weighted channel on the whole grid whose weights pair with the samples (weights_pair_with): each round
 * issues the weights' 16-byte loads beside the samples' (reading a weight only once its sample arrived costs a
 * second trip to memory), and count(channel, sample, weight) counts each; returns whether it counted the job (else
 * the caller walks the samples one weight at a time).
 */
template <int Vectors, class Job, class Count>
ONCHIP_DEVICE ONCHIP_FORCEINLINE bool count_weight_pairs(const Job& job, const kernel_args& a, Count& count,
                                                         unsigned long long& ignored) {
  using sample_t = typename Job::sample_t;
  constexpr int per_vector = 0 < items_per_16b<sample_t> ? items_per_16b<sample_t> : 1;
  if constexpr (Job::weighted && Job::channels == 1 && !Job::segmented && per_vector > 1) {
    if (a.walk == traversal::whole_grid && job.rows == 1 && weights_pair_with(job.samples, job.weights)) {
      using weight_t = typename Job::weight_t;
      constexpr cuda::std::integral_constant<int, 0> only{};
      auto on_pair = [&](const vec<sample_t, per_vector>& items, const vec<weight_t, per_vector>& ws,
                         cuda::std::size_t) {
        unsigned missed = 0;
#  pragma unroll
        for (int k = 0; k < per_vector; ++k) { missed += count(only, items[k], ws[k]); }
        ignored += missed;
      };
      auto on_pair_item = [&](sample_t v, weight_t w, cuda::std::size_t) { ignored += count(only, v, w); };
      for_each_vectors<Vectors, cache::stream>(job.samples, job.row_samples, grid_rank(), grid_threads(), on_pair,
                                               on_pair_item, job.weights);
      return true;
    }
  }
  return false;
}

/**
 * Bins every sample and calls add(channel, bin, valid, weight) (channel as an integral_constant, bin within the
 * channel, valid = whether it falls in a bin; kernels send invalid samples to a spare counter, so no branch is
 * taken per sample); returns how many fell in no bin, or 0 when `SpareCounts` (the kernel reads that from its
 * spare counters, so nothing is counted per sample). Unweighted one-channel input takes a shortcut for vectors
 * of one value (degenerate data): one add of the vector's count instead of one per sample.
 */
template <int Vectors, bool SpareCounts = false, class Job, class Staged, class Add, class Around>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_samples(const Job job, const kernel_args& a,
                                                                  const Staged binners, Add& add,
                                                                  Around&& around) {
  using sample_t = typename Job::sample_t;
  constexpr int C = Job::channels, A = Job::active;
  constexpr int per_vector = 0 < items_per_16b<sample_t> ? items_per_16b<sample_t> : 1;
  unsigned long long ignored = 0;
  // Counts one sample in `bin` (or `weight` equal unweighted samples); returns 1 (or `weight`) if in no bin.
  auto count_bin = [&](auto ch, int bin, auto weight) -> unsigned {
    constexpr int c = decltype(ch)::value;
    const bool valid = static_cast<unsigned>(bin) < static_cast<unsigned>(job.offset[c + 1] - job.offset[c]);
    add(ch, bin, valid, weight);
    if constexpr (SpareCounts) { return 0u; }
    return valid ? 0u : (Job::weighted ? 1u : static_cast<unsigned>(weight));
  };
  auto count = [&](auto ch, sample_t v, auto weight) -> unsigned {
    return count_bin(ch, binners[decltype(ch)::value](v), weight);
  };
  auto visit = [&](sample_t v, cuda::std::size_t i) -> unsigned {
    const int c = C == 1 ? 0 : static_cast<int>(i % C);
    unsigned missed = 0;
    if (c < A) {
      with_channel<A>(c, [&](auto ch) {
        if constexpr (Job::weighted) {
          missed = count(ch, v, job.weights[i]);
        } else {
          missed = count(ch, v, 1u);
        }
      });
    }
    return missed;
  };
  auto on_vector = [&](const vec<sample_t, per_vector>& items, cuda::std::size_t i) {
    if constexpr (!Job::weighted && C == 1 && per_vector > 1) {
      if (vector_is_constant<sample_t>(reinterpret_cast<const uint4&>(items))) {
        ignored += count(cuda::std::integral_constant<int, 0>{}, items[0], static_cast<unsigned>(per_vector));
        return;
      }
    }
    unsigned missed = 0;
    using binner_t = cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(binners[0])>>;
    if constexpr (stepped_binner_v<binner_t> && !Job::weighted && C == 1) {  // samples started four together
      const binner_t& binner = binners[0];
      constexpr int batch = per_vector < 4 ? per_vector : 4;  // eight 16-bit samples' states spilled
#  pragma unroll
      for (int k0 = 0; k0 < per_vector; k0 += batch) {
        int bins[batch];
        step_batch(binner, items, k0, bins);
#  pragma unroll
        for (int k = 0; k < batch; ++k) {
          missed += count_bin(cuda::std::integral_constant<int, 0>{}, bins[k], 1u);
        }
      }
    } else {
#  pragma unroll
      for (int k = 0; k < per_vector; ++k) { missed += visit(items[k], i + k); }
    }
    ignored += missed;
  };
  if (count_weight_pairs<Vectors>(job, a, count, ignored)) { return ignored; }
  walk_samples<Vectors>(
      job, a, on_vector, [&](sample_t v, cuda::std::size_t i) { ignored += visit(v, i); }, around);
  return ignored;
}

/// Adds this thread's count of samples in no bin to options.ignored (one atomic per warp).
ONCHIP_DEVICE ONCHIP_FORCEINLINE void add_ignored(unsigned long long count, unsigned long long* total) {
  if (total == nullptr) { return; }
  for (int o = 16; o > 0; o /= 2) { count += __shfl_down_sync(0xffffffffu, count, o); }
  if (threadIdx.x % 32 == 0 && count != 0) { atomicAdd(total, count); }
}

/// Adds `sum` to merged bin `b` of the output (segment `base` bins in); the channel is found with constant
/// indices.
template <class Job, class Sum>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void add_to_output(const Job& job, int b, Sum sum, cuda::std::size_t base) {
  using counter_t = typename Job::counter_t;
#  pragma unroll
  for (int a = 0; a < Job::active; ++a) {
    if (b >= job.offset[a] && b < job.offset[a + 1]) {
      atomic_add<false>(job.hist[a] + base + (b - job.offset[a]), static_cast<counter_t>(sum));
    }
  }
}

/// A single-block launch zeroes the output itself (the plan saw that it is small); the caller synchronizes the
/// block before anything is added into it.
template <class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void zero_output(const Job& job, const kernel_args& a) {
  if (!a.zero_output) { return; }
#  pragma unroll
  for (int c = 0; c < Job::active; ++c) {
    const cuda::std::size_t bins =
        static_cast<cuda::std::size_t>(job.offset[c + 1] - job.offset[c]) * (Job::segmented ? job.rows : 1);
    for (cuda::std::size_t i = block_rank(); i < bins; i += block_size()) { job.hist[c][i] = 0; }
  }
}
#endif  // __CUDACC__

}  // namespace onchip::detail
