// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of the device-wide histogram functions: validate the arguments, describe the call as a job, and hand
// it to run_job (launch.cuh), which plans, zeroes and launches. In a translation unit not compiled as CUDA, a call
// stops at a static_assert that says so.
#pragma once

#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/launch.cuh>
#include <onchip/detail/histogram/validate.cuh>
#include <onchip/histogram.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

#include <string>

namespace onchip::detail {

/// Where the samples are: `rows` rows of `row_samples` samples, `row_stride` bytes apart.
struct sample_rows {
  cuda::std::size_t row_samples;
  cuda::std::size_t rows;
  cuda::std::size_t row_stride;
};

/// The job of one binner set; segmented calls pass their offsets (rows = segments).
template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter,
          class Offset = no_segments>
histogram_job<Channels, Active, Sample, Weight, Binners, Counter, Offset> make_job(
    const Sample* samples, sample_rows in, const Weight* weights, const Binners& binners,
    Counter* const (&hist)[Active], const Offset* segment_offsets = nullptr) {
  histogram_job<Channels, Active, Sample, Weight, Binners, Counter, Offset> job{
      samples, in.row_samples, in.rows, in.row_stride, weights, segment_offsets, binners, {}, {}};
  for (int a = 0; a < Active; ++a) {
    job.offset[a + 1] = job.offset[a] + binners.bins[a];
    job.hist[a] = hist[a];
  }
  return job;
}

/// Builds the job of one binner set and runs it; segmented calls pass their offsets (rows = segments).
template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter,
          class Offset = no_segments>
cudaError_t run_histogram(const char* who, const Sample* samples, sample_rows in, const Weight* weights,
                          const Binners& binners, Counter* const (&hist)[Active], cudaStream_t stream,
                          const histogram_options& options, const Offset* segment_offsets = nullptr) {
  check_types<Counter, Sample>();
  const auto job = make_job<Channels, Active>(samples, in, weights, binners, hist, segment_offsets);
  long long total = 0;
  for (int a = 0; a < Active; ++a) { total += binners.bins[a]; }
  if (cudaError_t e =
          check_bins_total(who, total * (segment_offsets != nullptr ? static_cast<long long>(in.rows) : 1));
      e != cudaSuccess) {
    return e;
  }
  return run_job(job, options, stream, who);
}

/// Binners of one kind for every active channel if each channel's bin_even allows it (else !ok).
template <class Lean, int Active, class Level>
bool convert_binners(const plain_binners<Active, bin_even<Level>>& from, plain_binners<Active, Lean>& to) {
  for (int a = 0; a < Active; ++a) {
    if (!Lean::applies(from.binner[a])) { return false; }
    to.binner[a] = Lean::of(from.binner[a]);
    to.bins[a] = from.bins[a];
  }
  return true;
}

/// Even binning: integer samples and levels within the lean or narrow tiers use lean_even or narrow_even
/// (smaller, faster kernels). Bytes that the byte kernel counts keep bin_even: it bins each value once a block, so
/// the binner costs nothing per sample there, and one binner compiles one kernel set.
template <int Channels, int Active, class Sample, class Weight, class Level, class Counter,
          class Offset = no_segments>
cudaError_t run_even(const char* who, const Sample* samples, sample_rows in, const Weight* weights,
                     const plain_binners<Active, bin_even<Level>>& binners, Counter* const (&hist)[Active],
                     cudaStream_t stream, const histogram_options& options,
                     const Offset* segment_offsets = nullptr) {
  if constexpr (cuda::std::is_integral_v<arithmetic_t<Sample>> && cuda::std::is_integral_v<Level>) {
    // 8- and 16-bit samples outside the lean tier take bin_even itself (its narrow case is a uniform branch),
    // so each sample type compiles two sets of kernels, not three.
    constexpr bool byte_kernel = sizeof(Sample) == 1 && cuda::std::is_same_v<Weight, no_weights> &&
                                 cuda::std::is_same_v<Offset, no_segments>;
    if constexpr (sizeof(Sample) <= 2 && !byte_kernel) {
      plain_binners<Active, lean_even<Level>> lean{};
      if (convert_binners(binners, lean)) {
        return run_histogram<Channels, Active>(who, samples, in, weights, lean, hist, stream, options,
                                               segment_offsets);
      }
    } else if constexpr (sizeof(Sample) > 2) {
      plain_binners<Active, narrow_even<Level>> narrow{};
      if (convert_binners(binners, narrow)) {
        return run_histogram<Channels, Active>(who, samples, in, weights, narrow, hist, stream, options,
                                               segment_offsets);
      }
    }
  }
  return run_histogram<Channels, Active>(who, samples, in, weights, binners, hist, stream, options,
                                         segment_offsets);
}

/// Whether Binners are bin_even binners (run_even picks their leaner forms).
template <class Binners>
inline constexpr bool is_even_binners_v = false;
template <int Active, class Level>
inline constexpr bool is_even_binners_v<plain_binners<Active, bin_even<Level>>> = true;

/// multi_histogram_even's and multi_histogram_range's channel counts.
template <int Channels, int Active>
constexpr void check_channels() {
  static_assert(Channels >= 1 && Channels <= 4, "onchip::multi_histogram_even/_range: 1 to 4 channels");
  static_assert(Active >= 1 && Active <= Channels,
                "onchip::multi_histogram_even/_range: 1 to NumChannels active channels");
}

/// The checks every one-channel call makes.
inline cudaError_t check_call(const char* who, const void* samples, sample_rows in, cuda::std::size_t sample_size,
                              const void* hist) {
  if (cudaError_t e = check_pointers(who, samples, in.row_samples * in.rows, hist); e != cudaSuccess) { return e; }
  return check_rows(who, in.row_samples * sample_size, in.rows, in.row_stride);
}

/// The checks of a weighted call: the one-channel checks, and weights wherever there are samples.
inline cudaError_t check_weighted(const char* who, const void* samples, const void* weights, sample_rows in,
                                  cuda::std::size_t sample_size, const void* hist) {
  if (cudaError_t e = check_call(who, samples, in, sample_size, hist); e != cudaSuccess) { return e; }
  if (weights == nullptr && in.row_samples > 0) { return invalid(who, "the weights pointer is null"); }
  return cudaSuccess;
}

/// A weighted one-channel call of `n` samples: the weight type, then the binning's check (`binning`, already
/// made), then the samples, weights and output; then the run (even binners through run_even).
template <class Sample, class Weight, class Binners, class Counter>
cudaError_t run_weighted(const char* who, cudaError_t binning, const Sample* samples, const Weight* weights,
                         cuda::std::size_t n, const Binners& binners, Counter* hist, cudaStream_t stream,
                         const histogram_options& options) {
  static_assert(counter_holds_v<Counter, Weight>,
                "onchip::weighted_histogram_even/_range: the counter type cannot hold the weight type (e.g. float "
                "weights need float or double counters)");
  if (binning != cudaSuccess) { return binning; }
  const sample_rows in{n, 1, n * sizeof(Sample)};
  if (cudaError_t e = check_weighted(who, samples, weights, in, sizeof(Sample), hist); e != cudaSuccess) {
    return e;
  }
  Counter* const out[1] = {hist};
  if constexpr (is_even_binners_v<Binners>) {
    return run_even<1, 1>(who, samples, in, weights, binners, out, stream, options);
  } else {
    return run_histogram<1, 1>(who, samples, in, weights, binners, out, stream, options);
  }
}

inline constexpr const no_weights* unweighted = nullptr;

}  // namespace onchip::detail

namespace onchip {

template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Level lower,
                           Level upper, cudaStream_t stream, histogram_options options) {
  return histogram_even(samples, n, 1, n * sizeof(Sample), hist, num_bins, lower, upper, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                           cuda::std::size_t row_stride_bytes, Counter* hist, int num_bins, Level lower,
                           Level upper, cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram_even";
  const detail::sample_rows in{num_row_samples, num_rows, row_stride_bytes};
  if (cudaError_t e = detail::check_even(who, num_bins, lower, upper, options.include_upper); e != cudaSuccess) {
    return e;
  }
  if (cudaError_t e = detail::check_call(who, samples, in, sizeof(Sample), hist); e != cudaSuccess) { return e; }
  const detail::plain_binners<1, bin_even<Level>> binners{
      {bin_even<Level>(lower, upper, num_bins, options.include_upper)}, {num_bins}};
  Counter* const out[1] = {hist};
  return detail::run_even<1, 1>(who, samples, in, detail::unweighted, binners, out, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t n, Counter* hist, const Level* levels,
                            int num_levels, cudaStream_t stream, histogram_options options) {
  return histogram_range(samples, n, 1, n * sizeof(Sample), hist, levels, num_levels, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                            cuda::std::size_t row_stride_bytes, Counter* hist, const Level* levels, int num_levels,
                            cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram_range";
  const detail::sample_rows in{num_row_samples, num_rows, row_stride_bytes};
  if (cudaError_t e = detail::check_levels(who, levels, num_levels); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::check_call(who, samples, in, sizeof(Sample), hist); e != cudaSuccess) { return e; }
  Counter* const out[1] = {hist};
  if constexpr (detail::value_table_v<Sample, Level>) {  // a table of every value's bin where it fits
    if (num_levels - 1 <= detail::max_staged_bins) {
      const detail::value_table_binners<Sample, Level> table{levels, {num_levels - 1}};
      if (detail::plannable(detail::make_job<1, 1>(samples, in, detail::unweighted, table, out), options, who)) {
        return detail::run_histogram<1, 1>(who, samples, in, detail::unweighted, table, out, stream, options);
      }
    }
  }
  const detail::range_binners<1, Level> binners{{levels}, {num_levels - 1}};
  return detail::run_histogram<1, 1>(who, samples, in, detail::unweighted, binners, out, stream, options);
}

template <class Sample, class Counter, class Binner>
cudaError_t histogram(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Binner binner,
                      cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram";
  const detail::sample_rows in{n, 1, n * sizeof(Sample)};
  if (num_bins < 1) {
    return detail::invalid(who, "num_bins must be at least 1, got " + std::to_string(num_bins));
  }
  if (cudaError_t e = detail::check_call(who, samples, in, sizeof(Sample), hist); e != cudaSuccess) { return e; }
  const detail::plain_binners<1, Binner> binners{{binner}, {num_bins}};
  Counter* const out[1] = {hist};
  return detail::run_histogram<1, 1>(who, samples, in, detail::unweighted, binners, out, stream, options);
}

template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_even(const Sample* samples, cuda::std::size_t num_pixels,
                                 Counter* const (&hist)[NumActiveChannels],
                                 const int (&num_bins)[NumActiveChannels], const Level (&lower)[NumActiveChannels],
                                 const Level (&upper)[NumActiveChannels], cudaStream_t stream,
                                 histogram_options options) {
  detail::check_channels<NumChannels, NumActiveChannels>();
  constexpr const char* who = "onchip::multi_histogram_even";
  detail::plain_binners<NumActiveChannels, bin_even<Level>> binners{};
  for (int a = 0; a < NumActiveChannels; ++a) {
    if (cudaError_t e = detail::check_even(who, num_bins[a], lower[a], upper[a], options.include_upper);
        e != cudaSuccess) {
      return e;
    }
    if (cudaError_t e = detail::check_pointers(who, samples, num_pixels, hist[a]); e != cudaSuccess) { return e; }
    binners.binner[a] = bin_even<Level>(lower[a], upper[a], num_bins[a], options.include_upper);
    binners.bins[a] = num_bins[a];
  }
  const cuda::std::size_t n = num_pixels * NumChannels;
  return detail::run_even<NumChannels, NumActiveChannels>(who, samples, {n, 1, n * sizeof(Sample)},
                                                          detail::unweighted, binners, hist, stream, options);
}

template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_range(const Sample* samples, cuda::std::size_t num_pixels,
                                  Counter* const (&hist)[NumActiveChannels],
                                  const Level* const (&levels)[NumActiveChannels],
                                  const int (&num_levels)[NumActiveChannels], cudaStream_t stream,
                                  histogram_options options) {
  detail::check_channels<NumChannels, NumActiveChannels>();
  constexpr const char* who = "onchip::multi_histogram_range";
  detail::range_binners<NumActiveChannels, Level> binners{};
  for (int a = 0; a < NumActiveChannels; ++a) {
    if (cudaError_t e = detail::check_levels(who, levels[a], num_levels[a]); e != cudaSuccess) { return e; }
    if (cudaError_t e = detail::check_pointers(who, samples, num_pixels, hist[a]); e != cudaSuccess) { return e; }
    binners.levels[a] = levels[a];
    binners.bins[a] = num_levels[a] - 1;
  }
  const cuda::std::size_t n = num_pixels * NumChannels;
  return detail::run_histogram<NumChannels, NumActiveChannels>(who, samples, {n, 1, n * sizeof(Sample)},
                                                               detail::unweighted, binners, hist, stream, options);
}

template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_even(const Sample* samples, const Weight* weights, cuda::std::size_t n,
                                    Counter* hist, int num_bins, Level lower, Level upper, cudaStream_t stream,
                                    histogram_options options) {
  constexpr const char* who = "onchip::weighted_histogram_even";
  const detail::plain_binners<1, bin_even<Level>> binners{
      {bin_even<Level>(lower, upper, num_bins, options.include_upper)}, {num_bins}};
  return detail::run_weighted(who, detail::check_even(who, num_bins, lower, upper, options.include_upper), samples,
                              weights, n, binners, hist, stream, options);
}

template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_range(const Sample* samples, const Weight* weights, cuda::std::size_t n,
                                     Counter* hist, const Level* levels, int num_levels, cudaStream_t stream,
                                     histogram_options options) {
  constexpr const char* who = "onchip::weighted_histogram_range";
  const detail::range_binners<1, Level> binners{{levels}, {num_levels - 1}};
  return detail::run_weighted(who, detail::check_levels(who, levels, num_levels), samples, weights, n, binners,
                              hist, stream, options);
}

namespace detail {
/// histogram_workspace_bytes as `request` plans the call.
template <class Sample, class Counter>
cudaError_t workspace_bytes(cuda::std::size_t n, int num_bins, cuda::std::size_t* bytes,
                            const histogram_request& request) {
  constexpr const char* who = "onchip::histogram_workspace_bytes";
  check_types<Counter, Sample>();
  if (bytes == nullptr) { return invalid(who, "the bytes pointer is null"); }
  *bytes = 0;
  if (num_bins < 1) { return invalid(who, "num_bins must be at least 1, got " + std::to_string(num_bins)); }
  if (cudaError_t e = check_bins_total(who, num_bins); e != cudaSuccess) { return e; }
  // The job of an even call (a custom binner's is described alike): the plan sees what histogram_even's would be.
  Counter* const out[1] = {nullptr};
  const plain_binners<1, bin_even<double>> binners{{}, {num_bins}};
  const auto job =
      make_job<1, 1>(static_cast<const Sample*>(nullptr), {n, 1, n * sizeof(Sample)}, unweighted, binners, out);
  int device = 0;
  device_limits limits{};
  launch_plan plan{};
  if (cudaError_t e = plan_on_current_device(call_of(job, false), request, device, limits, plan, who);
      e != cudaSuccess) {
    return e;
  }
  *bytes = plan.path == histogram_path::partition && n > 0 ? plan.partition.workspace_bytes : 0;
  return succeed();
}
}  // namespace detail

template <class Sample, class Counter>
cudaError_t histogram_workspace_bytes(cuda::std::size_t n, int num_bins, cuda::std::size_t* bytes) {
  return detail::workspace_bytes<Sample, Counter>(n, num_bins, bytes, detail::histogram_request{});
}

inline cudaError_t histogram_release_workspace() {
  constexpr const char* who = "onchip::histogram_release_workspace";
  int device = 0;
  if (cudaError_t e = detail::cuda_call(cudaGetDevice(&device), who); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::cuda_call(detail::release_workspace_pool(device), who); e != cudaSuccess) {
    return e;
  }
  return detail::succeed();
}

template <class Sample, class Counter, class Level, class Offset>
cudaError_t segmented_histogram_even(const Sample* samples, const Offset* segment_offsets, int num_segments,
                                     Counter* hist, int num_bins, Level lower, Level upper, cudaStream_t stream,
                                     histogram_options options) {
  static_assert(cuda::std::is_integral_v<Offset>, "onchip::segmented_histogram_even: offsets must be integers");
  constexpr const char* who = "onchip::segmented_histogram_even";
  if (cudaError_t e = detail::check_even(who, num_bins, lower, upper, options.include_upper); e != cudaSuccess) {
    return e;
  }
  if (num_segments < 0) { return detail::invalid(who, "num_segments must not be negative"); }
  if (num_segments == 0) { return detail::succeed(); }
  if (hist == nullptr || segment_offsets == nullptr) {
    return detail::invalid(who, "the histogram and segment_offsets pointers must not be null");
  }
  const detail::plain_binners<1, bin_even<Level>> binners{
      {bin_even<Level>(lower, upper, num_bins, options.include_upper)}, {num_bins}};
  Counter* const out[1] = {hist};
  const detail::sample_rows segments{0, static_cast<cuda::std::size_t>(num_segments), 0};
  return detail::run_even<1, 1>(who, samples, segments, detail::unweighted, binners, out, stream, options,
                                segment_offsets);
}

}  // namespace onchip
