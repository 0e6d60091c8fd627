// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The histogram functions for one sample type, compiled in a translation unit of its own (CMakeLists.txt writes
// one per type, defining ONCHIP_PY_SAMPLE and ONCHIP_PY_NAME). What each call instantiates is the curated set the
// package serves: int64 counters unweighted, the weights' own type weighted; float bounds and levels for 16- and
// 32-bit floats, double for the rest, and int bounds besides for 16-bit integers (their exact lean binning).
#pragma once

#include <onchip/histogram.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "calls.hpp"

namespace onchip_py {

template <class Sample>
inline constexpr bool float_levels_v =
    std::is_same_v<Sample, float> || std::is_same_v<Sample, __half> || std::is_same_v<Sample, __nv_bfloat16>;

/// The bounds' and levels' type for a sample type.
template <class Sample>
using level_t = std::conditional_t<float_levels_v<Sample>, float, double>;

template <class Sample>
inline constexpr bool small_integer_v = std::is_integral_v<Sample> && sizeof(Sample) <= 2;

inline onchip::histogram_options options_of(bool accumulate, unsigned long long* ignored, bool include_upper) {
  onchip::histogram_options o;
  o.accumulate = accumulate;
  o.ignored = ignored;
  o.include_upper = include_upper;
  return o;
}

template <int Channels, class Sample, class Level>
cudaError_t channel_histograms(const even_call& c, const onchip::histogram_options& o) {
  long long* hist[Channels];
  int bins[Channels];
  Level lower[Channels], upper[Channels];
  for (int i = 0; i < Channels; ++i) {
    hist[i] = static_cast<long long*>(c.hist) + static_cast<std::size_t>(i) * c.bins;
    bins[i] = c.bins;
    lower[i] = static_cast<Level>(c.lower);
    upper[i] = static_cast<Level>(c.upper);
  }
  return onchip::multi_histogram_even<Channels, Channels>(static_cast<const Sample*>(c.samples), c.row_samples,
                                                          hist, bins, lower, upper, c.stream, o);
}

template <class Sample>
cudaError_t even(const even_call& c) {
  using Level = level_t<Sample>;
  const auto* samples = static_cast<const Sample*>(c.samples);
  const auto o = options_of(c.accumulate, c.ignored, c.include_upper);
  const auto lower = static_cast<Level>(c.lower), upper = static_cast<Level>(c.upper);
  if (c.offsets != nullptr) {
    return onchip::segmented_histogram_even(samples, c.offsets, c.segments, static_cast<long long*>(c.hist),
                                            c.bins, lower, upper, c.stream, o);
  }
  if (c.channels > 1) {
    if constexpr (small_integer_v<Sample>) {
      switch (c.channels) {
        case 2: return channel_histograms<2, Sample, Level>(c, o);
        case 3: return channel_histograms<3, Sample, Level>(c, o);
        case 4: return channel_histograms<4, Sample, Level>(c, o);
        default: break;
      }
    }
    return cudaErrorInvalidValue;  // the Python layer admits only these
  }
  if (c.weights != nullptr) {
    if (c.weight == dtype::f32) {
      return onchip::weighted_histogram_even(samples, static_cast<const float*>(c.weights), c.row_samples,
                                             static_cast<float*>(c.hist), c.bins, lower, upper, c.stream, o);
    }
    return onchip::weighted_histogram_even(samples, static_cast<const double*>(c.weights), c.row_samples,
                                           static_cast<double*>(c.hist), c.bins, lower, upper, c.stream, o);
  }
  if constexpr (std::is_integral_v<Sample> && sizeof(Sample) == 2) {  // the exact lean binning
    if (c.integer_bounds) {
      return onchip::histogram_even(samples, c.row_samples, c.rows, c.row_stride_bytes,
                                    static_cast<long long*>(c.hist), c.bins, static_cast<int>(c.lower),
                                    static_cast<int>(c.upper), c.stream, o);
    }
  }
  return onchip::histogram_even(samples, c.row_samples, c.rows, c.row_stride_bytes,
                                static_cast<long long*>(c.hist), c.bins, lower, upper, c.stream, o);
}

template <class Sample>
cudaError_t range(const range_call& c) {
  using Level = level_t<Sample>;
  const auto* samples = static_cast<const Sample*>(c.samples);
  const auto* levels = static_cast<const Level*>(c.levels);
  const auto o = options_of(c.accumulate, c.ignored, false);
  if (c.weights != nullptr) {
    if (c.weight == dtype::f32) {
      return onchip::weighted_histogram_range(samples, static_cast<const float*>(c.weights), c.row_samples,
                                              static_cast<float*>(c.hist), levels, c.num_levels, c.stream, o);
    }
    return onchip::weighted_histogram_range(samples, static_cast<const double*>(c.weights), c.row_samples,
                                            static_cast<double*>(c.hist), levels, c.num_levels, c.stream, o);
  }
  return onchip::histogram_range(samples, c.row_samples, c.rows, c.row_stride_bytes,
                                 static_cast<long long*>(c.hist), levels, c.num_levels, c.stream, o);
}

}  // namespace onchip_py

#if defined(ONCHIP_PY_SAMPLE) && defined(ONCHIP_PY_NAME)
namespace onchip_py {
#  define ONCHIP_PY_JOIN2(a, b) a##b
#  define ONCHIP_PY_JOIN(a, b) ONCHIP_PY_JOIN2(a, b)
extern const sample_functions ONCHIP_PY_JOIN(functions_, ONCHIP_PY_NAME);
const sample_functions ONCHIP_PY_JOIN(functions_, ONCHIP_PY_NAME) = {&even<ONCHIP_PY_SAMPLE>,
                                                                     &range<ONCHIP_PY_SAMPLE>};
}  // namespace onchip_py
#endif
