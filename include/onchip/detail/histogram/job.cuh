// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a kernel is given: the job (samples as rows or segments, channels, weights, a binner set from
// binner_sets.cuh, outputs), what its types fix (kind_of<Job>()), the job described to the launch plan (call_of)
// and the plan's decisions (kernel_args).
#pragma once

#include <onchip/binning.cuh>
#include <onchip/detail/histogram/binner_sets.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/layout.cuh>
#include <onchip/detail/histogram/paths.cuh>
#include <onchip/detail/histogram/shape.cuh>
#include <onchip/detail/histogram/tuning.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip::detail {

struct no_weights {};
struct no_segments {};

/**
 * The input and output of one device-wide call. Samples come as `rows` rows of `row_samples` samples
 * `row_stride` bytes apart (one row for 1-D input) with interleaved channels, or, when segmented, as `rows`
 * segments between `segment_offsets` (each with its own histogram of `offset[1]` bins after hist[0]).
 */
template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter,
          class Offset = no_segments>
struct histogram_job {
  static constexpr int channels = Channels;
  static constexpr int active = Active;
  static constexpr bool weighted = !cuda::std::is_same_v<Weight, no_weights>;
  static constexpr bool segmented = !cuda::std::is_same_v<Offset, no_segments>;
  using sample_t = Sample;
  using weight_t = Weight;
  using binners_t = Binners;
  using counter_t = Counter;

  const Sample* samples;
  cuda::std::size_t row_samples;
  cuda::std::size_t rows;
  cuda::std::size_t row_stride;   // bytes
  const Weight* weights;          // one per sample (1-D input only), or null
  const Offset* segment_offsets;  // rows + 1 offsets (segmented), or null
  Binners binners;
  int offset[Active + 1];  // channel a's bins are [offset[a], offset[a + 1]) of the merged histogram
  Counter* hist[Active];

  ONCHIP_HOST_DEVICE int total_bins() const { return offset[Active]; }
};

/// Whether Job bins integer samples with bin_even over integer levels as such: ranges too wide for the narrow
/// binning's 32-bit products (narrower ones run as narrow_even), 128-bit products per sample.
template <class Job>
inline constexpr bool wide_integer_binning_v = false;
template <int Channels, int Active, class Sample, class Weight, class Level, class Counter, class Offset>
inline constexpr bool wide_integer_binning_v<
    histogram_job<Channels, Active, Sample, Weight, plain_binners<Active, bin_even<Level>>, Counter, Offset>> =
    cuda::std::is_integral_v<Sample>&& cuda::std::is_integral_v<Level>;

/// What Job's types fix (paths.cuh): which paths and kernel variants are compiled for it.
template <class Job>
ONCHIP_HOST_DEVICE constexpr call_kind kind_of() {
  using sample_t = typename Job::sample_t;
  call_kind k{};
  k.sample_bytes = static_cast<int>(sizeof(sample_t));
  k.byte_samples = sizeof(sample_t) == 1 && cuda::std::is_integral_v<sample_t> && !Job::weighted;
  k.integer_samples = cuda::std::is_integral_v<sample_t>;
  k.wide_integer_binning = wide_integer_binning_v<Job>;
  k.channels = Job::channels;
  k.active = Job::active;
  k.level_bytes = Job::binners_t::level_bytes;
  k.table_bytes = Job::binners_t::table_bytes;
  k.weighted = Job::weighted;
  k.counter_bytes = static_cast<int>(sizeof(typename Job::counter_t));
  k.counter_takes_packed16 = counter_traits<typename Job::counter_t>::carries_from_packed16;
  k.segmented = Job::segmented;
  return k;
}

/// The job as the launch plan sees it: its kind, bins and sizes.
template <class Job>
ONCHIP_HOST_DEVICE histogram_call call_of(const Job& job, bool accumulate) {
  constexpr call_kind k = kind_of<Job>();
  histogram_call c{};
  c.sample_bytes = k.sample_bytes;
  c.byte_samples = k.byte_samples;
  c.integer_samples = k.integer_samples;
  c.wide_integer_binning = k.wide_integer_binning;
  c.channels = k.channels;
  c.active = k.active;
  for (int a = 0; a < Job::active; ++a) { c.bins[a] = job.offset[a + 1] - job.offset[a]; }
  c.level_bytes = k.level_bytes;
  c.table_bytes = k.table_bytes;
  c.weighted = k.weighted;
  c.counter_bytes = k.counter_bytes;
  c.counter_takes_packed16 = k.counter_takes_packed16;
  c.segments = Job::segmented ? static_cast<long long>(job.rows) : 0;
  c.row_samples = job.row_samples;
  c.rows = job.rows;
  c.accumulate = accumulate;
  return c;
}

/**
 * The call a kernel of type Job carves its shared memory from: the host's (kernel_args::call) with every field
 * that Job's types fix set again from those types, as call_of() set them. The values are the host's; being
 * constants here, they let the compiler fold the layout's arithmetic (without them a small call spent about 240
 * dependent instructions per warp carving, more than its samples took).
 */
template <class Job>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE histogram_call typed_call(histogram_call c) {
  c.sample_bytes = static_cast<int>(sizeof(typename Job::sample_t));
  c.channels = Job::channels;
  c.active = Job::active;
  ONCHIP_UNROLL
  for (int a = Job::active; a < max_channels; ++a) { c.bins[a] = 0; }
  c.level_bytes = Job::binners_t::level_bytes;
  c.table_bytes = Job::binners_t::table_bytes;
  c.weighted = Job::weighted;
  c.counter_bytes = static_cast<int>(sizeof(typename Job::counter_t));
  return c;
}

/// The shape of `Path`'s kernel for jobs of type Job (template arguments of the kernels; Bitmap: range binning
/// through level bitmaps).
template <histogram_path Path, class Job, bool SmallSlices = false, bool Wide = false, bool Bitmap = false>
inline constexpr kernel_shape shape_v = shape_of(Path, sizeof(typename Job::sample_t),
                                                 Job::binners_t::level_bytes > 0,
                                                 integer_stream(cuda::std::is_integral_v<typename Job::sample_t>,
                                                                wide_integer_binning_v<Job>, Job::weighted,
                                                                Job::segmented, Job::active),
                                                 SmallSlices, Job::channels, Job::active, Wide, Bitmap);

/// What every histogram kernel gets besides the job: the plan's decisions.
struct kernel_args {
  traversal walk;
  int replicas;
  int slices;
  bool zero_output;
  histogram_call call;          // to carve the same layout as the host measured
  unsigned long long* ignored;  // options.ignored
  int carry_fallback_bits = 0;  // the carry grid's fallback: count only where the levels crowd its cells of
                                // 2^carry_fallback_bits values (0: always count)
};

}  // namespace onchip::detail
