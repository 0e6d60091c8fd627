// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Binning functors: callables `int(Sample)` that return a sample's bin, or a negative value for samples to
 * ignore. Usable in any kernel, with onchip::block_histogram, and by the device-wide histogram functions.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/binning.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip {

namespace detail {
template <class Level>
struct narrow_even;
template <class Level>
struct lean_even;
}  // namespace detail

/**
 * @brief `num_bins` equal-width bins over `[lower, upper)`, or over `[lower, upper]` with `include_upper`
 * (NumPy's rule: the last bin also holds `upper`); samples outside, and NaN, are ignored.
 *
 * Integer samples with integer levels get exactly CUB's bins, `floor((x - lower) * num_bins / (upper - lower))`,
 * computed without overflow for any 64-bit range and without a per-sample division. Floating samples (or levels)
 * use `(x - lower) * (num_bins / (upper - lower))` in float (double when either side is double, or for integer
 * samples wider than 16 bits), and a sample below `upper` never lands in bin `num_bins`.
 * @tparam Level  type of the bounds, independent of the sample type (int levels for u8 or int8 samples, float
 *                levels for __half samples, ...)
 */
template <class Level>
class bin_even {
  static_assert(cuda::std::is_arithmetic_v<Level>, "onchip::bin_even<Level>: Level must be an arithmetic type");

 public:
  /// No bins (not valid()).
  bin_even() = default;
  /// Bins over `[lower, upper)`, or `[lower, upper]` with `include_upper` (floating-point Level only: integer
  /// levels with `include_upper` are not valid()); call valid() before use (the device-wide API does).
  ONCHIP_HOST_DEVICE bin_even(Level lower, Level upper, int num_bins, bool include_upper = false) noexcept;
  /// The bin of `x`, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
  /// Number of bins.
  ONCHIP_HOST_DEVICE constexpr int bins() const noexcept { return bins_; }
  /// True when num_bins >= 1 and lower < upper, both finite, and (floating levels) upper - lower and
  /// num_bins / (upper - lower) are finite in Level's precision; integer levels without include_upper.
  ONCHIP_HOST_DEVICE bool valid() const noexcept;

 private:
  friend struct detail::narrow_even<Level>;
  friend struct detail::lean_even<Level>;
  template <bool Wide, class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin(Sample x) const;

  Level lower_{}, upper_{};
  // Floating-point binning: the largest value counted is below these bounds (upper itself, or the next value
  // above it in float and in double precision with include_upper); the scale still comes from upper.
  float bound_float_ = 0;
  double bound_double_ = 0;
  int bins_ = 0;
  bool include_upper_ = false;
  double scale_ = 0;               // num_bins / (upper - lower)
  cuda::std::uint64_t range_ = 0;  // integer levels: upper - lower
  // Integer levels with range <= 2^32: bin = offset * quotient_ + (offset * magic_) >> 64, where
  // num_bins = quotient_ * range + remainder and magic_ = ceil(remainder * 2^64 / range) (detail::even_bin_magic).
  cuda::std::uint64_t magic_ = 0;
  cuda::std::uint32_t quotient_ = 0;
  bool narrow_ = false;
};

/**
 * @brief Bins between consecutive `levels`: bin `i` holds `levels[i] <= x < levels[i + 1]`, found by binary
 * search. `num_levels - 1` bins. Precondition: levels sorted ascending (a checked-mode device check in the
 * device-wide API; unchecked, unsorted levels give unspecified bins but nothing is read or written out of bounds).
 * The device-wide API stages the levels in shared memory with a grid of cells over them, so most samples are
 * binned by one table read instead of a search.
 */
template <class Level>
class bin_range {
 public:
  /// No levels.
  bin_range() = default;
  /// Views `num_levels` levels at `levels` (device memory, for device code).
  ONCHIP_HOST_DEVICE constexpr bin_range(const Level* levels, int num_levels) noexcept
      : levels_(levels), num_levels_(num_levels) {}
  /// The bin of `x`, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
  /// Number of bins.
  ONCHIP_HOST_DEVICE constexpr int bins() const noexcept { return num_levels_ - 1; }
  /// The levels.
  ONCHIP_HOST_DEVICE constexpr const Level* levels() const noexcept { return levels_; }
  /// Number of levels.
  ONCHIP_HOST_DEVICE constexpr int num_levels() const noexcept { return num_levels_; }

 private:
  const Level* levels_ = nullptr;
  int num_levels_ = 0;
};

/// The sample is its own bin (integer samples; negative or non-integer values are ignored).
struct bin_identity {
  /// `x` as a bin, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
};

}  // namespace onchip

#include <onchip/detail/histogram/binning_impl.cuh>
