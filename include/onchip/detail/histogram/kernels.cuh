// The general histogram kernels. shared_kernel keeps the bins in shared memory, as `replicas` interleaved 32- or
// 64-bit copies (bin b of copy r at word b * replicas + r; lane l adds to copy l % replicas, so with 32 copies no
// two lanes of a warp ever touch one word or one bank, whatever the data) or as one copy of packed 16-bit counters
// that carry into the output; then one atomic per non-zero bin per block. global_kernel adds one atomic per sample
// straight into the output, for bins beyond shared memory. Neither needs temporary storage.
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/smem.cuh>

namespace onchip::detail {

#if defined(__CUDACC__)
/// One block's shared counters of `bins` bins (`Smem` = the counter type, or uint16_t for packed counters).
template <class Smem, class Job>
struct shared_counters {
  using word_t = typename counter_traits<Smem>::word;
  static constexpr bool packed = counter_traits<Smem>::packed16;
  word_t* words;
  int replicas;
  int bins;

  ONCHIP_DEVICE ONCHIP_FORCEINLINE int stride() const { return counter_traits<Smem>::words(bins); }

  /// Every copy, and the spare counters of samples in no bin (no synchronization).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void zero() const {
    for (int i = block_rank(); i < replicas * (stride() + 1); i += block_size()) { words[i] = word_t(0); }
  }

  /// Adds every non-zero bin into the output, `base` bins in (after the block is synchronized).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void flush(const Job& job, cuda::std::size_t base) const {
    for (int b = block_rank(); b < bins; b += block_size()) {
      const auto sum = packed ? merged<Smem>(words, b, 1, stride()) : merged<Smem>(words + b * replicas, 0, replicas, 1);
      if (sum != word_t(0)) { add_to_output(job, b, sum, base); }
    }
  }
};

template <class Job, class Smem, int Threads, int MinBlocks, int Vectors>
__global__ void __launch_bounds__(Threads, MinBlocks) shared_kernel(Job job, kernel_args a) {
  constexpr bool packed = counter_traits<Smem>::packed16;
  using counter_t = typename Job::counter_t;
  using word_t = typename counter_traits<Smem>::word;
  const shared_spans spans = onchip::carve(
      layout_of(packed ? histogram_path::shared_packed16 : histogram_path::shared_replicas, a.call, a.replicas));
  const shared_counters<Smem, Job> counters{reinterpret_cast<word_t*>(spans.counters), a.replicas, job.total_bins()};
  zero_output(job, a);
  counters.zero();
  const auto binners = job.binners.stage(spans);
  __syncthreads();
  // This lane's spare counter and the stride of one bin, as shared-window byte addresses.
  const unsigned slot = (threadIdx.x % 32) & static_cast<unsigned>(a.replicas - 1);
  const int stride = counters.stride();
  const auto spare = static_cast<unsigned>(__cvta_generic_to_shared(counters.words + a.replicas * stride + slot));
  const auto bin_bytes = static_cast<unsigned>(a.replicas * sizeof(word_t));
  const unsigned first = spare - static_cast<unsigned>(a.replicas * stride) * static_cast<unsigned>(sizeof(word_t));
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    const int b = job.offset[decltype(ch)::value] + bin;
    if constexpr (packed) {
      if (valid) { smem_add<Smem>(counters.words, b, weight, reinterpret_cast<unsigned*>(job.hist[0]), counters.bins); }
    } else {  // no branch: samples in no bin go to the spare counter
      shared_red(valid ? first + static_cast<unsigned>(b) * bin_bytes : spare, static_cast<counter_t>(weight));
    }
  };
  auto slice = [&](int s, auto&& count) {  // segments: count a slice, flush it into its segment, start afresh
    count();
    __syncthreads();
    counters.flush(job, static_cast<cuda::std::size_t>(s) * counters.bins);
    __syncthreads();
    counters.zero();
    __syncthreads();
  };
  add_ignored(count_samples<Vectors>(job, a, binners, add, slice), a.ignored);
  if constexpr (!Job::segmented) {
    __syncthreads();
    counters.flush(job, 0);
  }
}

template <class Job, int Threads, int MinBlocks, int Vectors>
__global__ void __launch_bounds__(Threads, MinBlocks) global_kernel(Job job, kernel_args a) {
  const shared_spans spans = onchip::carve(layout_of(histogram_path::global_atomics, a.call, 0));
  zero_output(job, a);
  const auto binners = job.binners.stage(spans);
  __syncthreads();  // the output is zeroed before anything is added
  cuda::std::size_t base = 0;  // segments: the current segment's first bin
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    constexpr int c = decltype(ch)::value;
    if (valid) { atomic_add<false>(job.hist[c] + base + bin, static_cast<typename Job::counter_t>(weight)); }
  };
  auto slice = [&](int s, auto&& count) {
    base = static_cast<cuda::std::size_t>(s) * job.total_bins();
    count();
  };
  add_ignored(count_samples<Vectors>(job, a, binners, add, slice), a.ignored);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
