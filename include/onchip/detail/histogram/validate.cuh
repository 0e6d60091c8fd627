// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Argument checks of the device-wide histogram: each failure is cudaErrorInvalidValue with a sentence naming the
// function, the argument and what was wrong, before anything is launched or written.
#pragma once

#include <onchip/binning.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/binning.cuh>
#include <onchip/detail/histogram/counters.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

namespace onchip::detail {

template <class Counter, class Sample>
constexpr void check_types() {
  static_assert(counter_traits<Counter>::device,
                "onchip histogram: the histogram's counters must be unsigned int, int, unsigned long long, long "
                "long, float or double");
  static_assert(cuda::std::is_arithmetic_v<arithmetic_t<Sample>>,
                "onchip histogram: samples must be arithmetic types, __half or __nv_bfloat16");
}

inline cudaError_t invalid(const char* who, const std::string& why) {
  return fail(cudaErrorInvalidValue, std::string(who) + ": " + why);
}

template <class Level>
bool level_is_nan(Level x) {
  if constexpr (cuda::std::is_floating_point_v<Level>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

template <class Level>
std::string level_text(Level x) {
  if constexpr (cuda::std::is_floating_point_v<Level>) {
    return std::to_string(static_cast<double>(x));
  } else if constexpr (cuda::std::is_signed_v<Level>) {
    return std::to_string(static_cast<long long>(x));
  } else {
    return std::to_string(static_cast<unsigned long long>(x));
  }
}

template <class Level>
cudaError_t check_even(const char* who, int num_bins, Level lower, Level upper, bool include_upper) {
  if (num_bins < 1) { return invalid(who, "num_bins must be at least 1, got " + std::to_string(num_bins)); }
  if constexpr (cuda::std::is_integral_v<Level>) {
    if (include_upper) {
      return invalid(who,
                     "histogram_options::include_upper needs floating-point bounds: pass lower and upper as "
                     "double (or float)");
    }
  }
  if (level_is_nan(lower) || level_is_nan(upper)) { return invalid(who, "lower and upper must not be NaN"); }
  if constexpr (cuda::std::is_floating_point_v<Level>) {
    if (!std::isfinite(lower) || !std::isfinite(upper)) {
      return invalid(who,
                     "lower and upper must be finite, got " + level_text(lower) + " and " + level_text(upper));
    }
  }
  if (!(lower < upper)) {
    return invalid(who, "lower (" + level_text(lower) + ") must be below upper (" + level_text(upper) + ")");
  }
  if (!bin_even<Level>(lower, upper, num_bins, include_upper).valid()) {
    return invalid(who, "upper - lower (" + level_text(upper) + " - " + level_text(lower) +
                            ") or num_bins / (upper "
                            "- lower) with " +
                            std::to_string(num_bins) + " bins overflows the levels' floating type");
  }
  return cudaSuccess;
}

inline cudaError_t check_pointers(const char* who, const void* samples, cuda::std::size_t count,
                                  const void* hist) {
  if (hist == nullptr) { return invalid(who, "the histogram pointer is null"); }
  if (samples == nullptr && count > 0) {
    return invalid(who, "the samples pointer is null but " + std::to_string(count) + " samples were given");
  }
  return cudaSuccess;
}

inline cudaError_t check_rows(const char* who, cuda::std::size_t row_bytes, cuda::std::size_t rows,
                              cuda::std::size_t row_stride_bytes) {
  if (rows > 1 && row_stride_bytes < row_bytes) {
    return invalid(who, "row_stride_bytes (" + std::to_string(row_stride_bytes) + ") is smaller than a row (" +
                            std::to_string(row_bytes) + " bytes)");
  }
  return cudaSuccess;
}

inline cudaError_t check_levels(const char* who, const void* levels, int num_levels) {
  if (num_levels < 2) { return invalid(who, "num_levels must be at least 2, got " + std::to_string(num_levels)); }
  if (levels == nullptr) { return invalid(who, "the levels pointer is null"); }
  return cudaSuccess;
}

inline cudaError_t check_bins_total(const char* who, long long total) {
  if (total > (1ll << 30)) {
    return invalid(who, "at most 2^30 bins in total are supported, got " + std::to_string(total));
  }
  return cudaSuccess;
}

}  // namespace onchip::detail
