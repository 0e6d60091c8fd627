// onchip::segmented_histogram_even: one histogram per segment in one launch. Each segment is cut into slices,
// one block per slice at a time, so a few large segments still fill the GPU.
#pragma once

#include <onchip/detail/histogram/device_impl.cuh>

namespace onchip::detail {

#if defined(__CUDACC__)
template <class Counter>
struct segment_plan {
  int bins;
  int replicas;
  ONCHIP_HOST_DEVICE smem_word_t<Counter>* operator()(carver& c) const {
    return c.take<smem_word_t<Counter>>(static_cast<cuda::std::size_t>(replicas) * smem_words<Counter>(bins)).data();
  }
};

template <class Counter, class Sample, class Level, class Offset>
__global__ void segmented_histogram_kernel(const Sample* samples, const Offset* segment_offsets, int num_segments,
                                           Counter* hist, bin_even<Level> binner, int replicas,
                                           int slices_per_segment, unsigned long long* ignored_total) {
  const int bins = binner.bins();
  const bool shared = replicas > 0;
  smem_word_t<Counter>* counters = onchip::carve(segment_plan<Counter>{bins, replicas});
  const int stride = smem_words<Counter>(bins);
  unsigned long long ignored = 0;
  const long long items = static_cast<long long>(num_segments) * slices_per_segment;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int s = static_cast<int>(item / slices_per_segment), k = static_cast<int>(item % slices_per_segment);
    const auto begin = static_cast<long long>(segment_offsets[s]), end = static_cast<long long>(segment_offsets[s + 1]);
#  if ONCHIP_CHECKS
    if (end < begin) {
      if (block_rank() == 0) {
        printf("onchip::segmented_histogram_even: segment_offsets must not decrease, but segment %d runs from %lld "
               "to %lld\n", s, begin, end);
      }
      fail_check(block_rank() == 0);
    }
#  endif
    const long long len = end > begin ? end - begin : 0;
    const long long slice = (len + slices_per_segment - 1) / slices_per_segment;
    const long long first = begin + k * slice;
    const long long last = first + slice < end ? first + slice : end;
    if (first >= last) { continue; }  // block-uniform
    Counter* out = hist + static_cast<cuda::std::size_t>(s) * bins;
    if (shared) {
      __syncthreads();
      for (int i = block_rank(); i < replicas * stride; i += block_size()) { counters[i] = smem_word_t<Counter>(0); }
      __syncthreads();
    }
    smem_word_t<Counter>* mine = counters + (shared ? ((block_rank() / 32) % replicas) * stride : 0);
    onchip::block_for_each<4>(samples + first, static_cast<cuda::std::size_t>(last - first),
                              [&](Sample v, cuda::std::size_t) {
                                const int bin = binner(v);
                                if (bin < 0) {
                                  ++ignored;
                                } else if (shared) {
                                  smem_add<Counter>(mine, bin, 1, nullptr, 0);
                                } else {
                                  atomic_add<false>(out + bin, Counter(1));
                                }
                              });
    if (shared) {
      __syncthreads();
      for (int b = block_rank(); b < bins; b += block_size()) {
        const auto sum = merged<Counter>(counters, b, replicas, stride);
        if (sum != 0) { atomic_add<false>(out + b, sum); }
      }
    }
  }
  add_ignored(ignored, ignored_total);
}
#endif

}  // namespace onchip::detail

#if defined(__CUDACC__)
namespace onchip {

template <class Sample, class Counter, class Level, class Offset>
cudaError_t segmented_histogram_even(const Sample* samples, const Offset* segment_offsets, int num_segments,
                                     Counter* hist, int num_bins, Level lower, Level upper, cudaStream_t stream,
                                     histogram_options options) {
  detail::check_device_counter<Counter>();
  detail::check_sample<Sample>();
  static_assert(cuda::std::is_integral_v<Offset>, "onchip::segmented_histogram_even: offsets must be integers");
  constexpr const char* who = "onchip::segmented_histogram_even";
  if (cudaError_t e = detail::check_even(who, num_bins, lower, upper); e != cudaSuccess) { return e; }
  if (num_segments < 0) { return detail::invalid(who, "num_segments must not be negative"); }
  if (num_segments == 0) { return detail::succeed(); }
  if (hist == nullptr || segment_offsets == nullptr) {
    return detail::invalid(who, "the histogram and segment_offsets pointers must not be null");
  }
  if (cudaError_t e = detail::check_bins_total(who, static_cast<long long>(num_bins) * num_segments); e != cudaSuccess) {
    return e;
  }
  if (!options.accumulate) {
    if (cudaError_t e = detail::cuda_call(
            cudaMemsetAsync(hist, 0, static_cast<cuda::std::size_t>(num_bins) * num_segments * sizeof(Counter), stream),
            who);
        e != cudaSuccess) {
      return e;
    }
  }
  int device = 0, sms = 0, optin = 0;
  if (cudaError_t e = detail::cuda_call(cudaGetDevice(&device), who); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::cuda_call(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), who);
      e != cudaSuccess) {
    return e;
  }
  if (cudaError_t e = detail::cuda_call(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), who);
      e != cudaSuccess) {
    return e;
  }
  const int threads = detail::histogram_threads;
  int replicas = 0;
  if (smem_bytes(detail::segment_plan<Counter>{num_bins, 1}) + 1024 <= static_cast<cuda::std::size_t>(optin)) {
    replicas = 1;
    while (replicas * 2 <= threads / 32 && smem_bytes(detail::segment_plan<Counter>{num_bins, replicas * 2}) <= 48 * 1024) {
      replicas *= 2;
    }
  }
  const cuda::std::size_t bytes = smem_bytes(detail::segment_plan<Counter>{num_bins, replicas});
  auto* kernel = detail::segmented_histogram_kernel<Counter, Sample, Level, Offset>;
  if (cudaError_t e = prepare_dynamic_smem(kernel, bytes); e != cudaSuccess) { return e; }
  int per_sm = 0;
  if (cudaError_t e = blocks_per_sm(&per_sm, kernel, threads, bytes); e != cudaSuccess) { return e; }
  if (per_sm < 1) { return detail::invalid(who, "the segmented histogram kernel cannot be resident on this device"); }
  const int grid = sms * per_sm;
  const int slices = grid / num_segments > 1 ? grid / num_segments : 1;
  kernel<<<grid, threads, bytes, stream>>>(samples, segment_offsets, num_segments, hist,
                                           bin_even<Level>(lower, upper, num_bins), replicas, slices, options.ignored);
  if (cudaError_t e = detail::cuda_call(cudaGetLastError(), who); e != cudaSuccess) { return e; }
  return detail::succeed();
}

}  // namespace onchip
#endif
