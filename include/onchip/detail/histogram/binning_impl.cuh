// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of onchip's binners (binning.cuh).
#pragma once

#include <onchip/binning.cuh>
#include <onchip/detail/histogram/binning.cuh>

#include <cuda/std/cmath>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace onchip {

template <class Level>
ONCHIP_HOST_DEVICE bin_even<Level>::bin_even(Level lower, Level upper, int num_bins, bool include_upper) noexcept
    : lower_(lower),
      upper_(upper),
      bound_float_(static_cast<float>(upper)),
      bound_double_(static_cast<double>(upper)),
      bins_(num_bins),
      include_upper_(include_upper) {
  if (include_upper) {  // the next value above upper in each precision, so that `x < bound` holds for x == upper
    bound_float_ = cuda::std::nextafter(bound_float_, cuda::std::numeric_limits<float>::infinity());
    bound_double_ = cuda::std::nextafter(bound_double_, cuda::std::numeric_limits<double>::infinity());
  }
  if constexpr (cuda::std::is_integral_v<Level>) {
    range_ = detail::int_less(lower, upper) ? detail::unsigned_distance(upper, lower) : 0;
    scale_ = range_ > 0 ? static_cast<double>(num_bins) / static_cast<double>(range_) : 0.0;
    if (range_ > 0 && num_bins > 0 && range_ <= detail::narrow_range_limit) {
      const auto bins = static_cast<cuda::std::uint64_t>(num_bins);
      quotient_ = static_cast<cuda::std::uint32_t>(bins / range_);
      magic_ = detail::even_bin_magic(bins % range_, range_);
      narrow_ = true;
    }
  } else {
    scale_ = static_cast<double>(num_bins) / (static_cast<double>(upper) - static_cast<double>(lower));
  }
}

template <class Level>
ONCHIP_HOST_DEVICE bool bin_even<Level>::valid() const noexcept {
  if (bins_ < 1) { return false; }
  if constexpr (cuda::std::is_integral_v<Level>) {
    return range_ > 0 && !include_upper_;
  } else {  // finite bounds, width and scale in Level's own precision (float levels bin in float)
    const Level width = upper_ - lower_;
    const auto scale = static_cast<Level>(scale_);
    return lower_ < upper_ && cuda::std::isfinite(lower_) && cuda::std::isfinite(upper_) &&
           cuda::std::isfinite(width) && cuda::std::isfinite(scale) && scale > Level(0);
  }
}

template <class Level>
template <class Sample>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin_even<Level>::operator()(Sample sample) const {
  return bin<true>(sample);
}

template <class Level>
template <bool Wide, class Sample>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin_even<Level>::bin(Sample sample) const {
  const auto x = detail::arithmetic(sample);
  using X = decltype(x);
  if constexpr (cuda::std::is_integral_v<X> && cuda::std::is_integral_v<Level>) {
    cuda::std::uint64_t offset = 0;
    if constexpr (sizeof(X) <= 4 && sizeof(Level) <= 4) {  // exact in 64 bits: one compare for both bounds
      offset = static_cast<cuda::std::uint64_t>(static_cast<long long>(x) - static_cast<long long>(lower_));
      if (offset >= range_) { return -1; }
    } else if constexpr (sizeof(X) <= 4 && (cuda::std::is_signed_v<Level> || cuda::std::is_unsigned_v<X>)) {
      // 32-bit samples, 64-bit levels: modulo 2^64, a sample below lower wraps to range_ or more (upper - x is
      // below 2^64 unless a negative sample meets unsigned levels) and one at upper or above is range_ or more,
      // so one compare tests both bounds.
      offset =
          static_cast<cuda::std::uint64_t>(static_cast<long long>(x)) - static_cast<cuda::std::uint64_t>(lower_);
      if (offset >= range_) { return -1; }
    } else {
      if (detail::int_less(x, lower_) || !detail::int_less(x, upper_)) { return -1; }
      offset = detail::unsigned_distance(x, lower_);
    }
    if (!Wide || narrow_) {
      const auto o = static_cast<cuda::std::uint32_t>(offset);
      return static_cast<int>(o * quotient_ + detail::even_bin_by_magic(o, magic_));
    }
    return static_cast<int>(detail::even_bin(offset, static_cast<cuda::std::uint64_t>(bins_), range_, scale_));
  } else {
    using F = detail::float_math_t<Sample, Level>;
    const F xf = static_cast<F>(x), lo = static_cast<F>(lower_);
    F hi{};
    if constexpr (sizeof(F) == sizeof(float)) {
      hi = bound_float_;
    } else {
      hi = bound_double_;
    }
    if (!(xf >= lo && xf < hi)) { return -1; }  // also NaN
    const int bin = static_cast<int>((xf - lo) * static_cast<F>(scale_));
    return bin < bins_ ? bin : bins_ - 1;  // rounding can reach num_bins just below upper, and upper does
  }
}

template <class Level>
template <class Sample>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin_range<Level>::operator()(Sample sample) const {
  const auto x = detail::arithmetic(sample);
  using X = decltype(x);
  if constexpr (cuda::std::is_floating_point_v<X>) {
    if (x != x) { return -1; }  // NaN
  }
  if (detail::value_less(x, levels_[0]) || !detail::value_less(x, levels_[num_levels_ - 1])) { return -1; }
  int lo = 0, hi = num_levels_ - 1;  // levels[lo] <= x < levels[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (detail::value_less(x, levels_[mid])) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return lo;
}

template <class Sample>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin_identity::operator()(Sample sample) const {
  const auto x = detail::arithmetic(sample);
  using X = decltype(x);
  if constexpr (cuda::std::is_integral_v<X>) {
    return detail::int_less(x, 0) || detail::int_less(0x7fffffff, x) ? -1 : static_cast<int>(x);
  } else {
    if (!(x >= X(0) && x < X(2147483647.0))) { return -1; }
    const int bin = static_cast<int>(x);
    return static_cast<X>(bin) == x ? bin : -1;
  }
}

namespace detail {
/**
 * bin_even for integer samples and levels whose range is at most 2^32, without the code for wider ranges (the
 * device API picks it on the host, keeping the kernels small and free of per-sample branches).
 */
template <class Level>
struct narrow_even {
  bin_even<Level> even;
  cuda::std::uint32_t lower32 = 0;  // lower modulo 2^32
  int shift = -1;                   // where the range is bins << shift (shift < 32): shift, else -1

  ONCHIP_HOST_DEVICE static bool applies(const bin_even<Level>& b) { return b.narrow_; }
  ONCHIP_HOST_DEVICE static narrow_even of(const bin_even<Level>& b) {
    narrow_even n{b};
    n.lower32 = static_cast<cuda::std::uint32_t>(b.lower_);
    const auto bins = static_cast<cuda::std::uint64_t>(b.bins_);
    for (int s = 0; s < 32 && n.shift < 0; ++s) {
      if (bins << s == b.range_) { n.shift = s; }
    }
    return n;
  }
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const {
    return even.template bin<false>(x);
  }
  /**
   * Whether shifted() bins samples of type Sample exactly: 32-bit integer samples, bins 2^shift values wide, and
   * [lower, upper) within Sample's values. Then x - lower modulo 2^32 is the sample's offset when x is in the
   * range and at least range otherwise (a sample below lower wraps past the type's top, which upper does not
   * pass), so its top bits are the bin, or bins or more for a sample in no bin.
   */
  template <class Sample>
  ONCHIP_HOST_DEVICE bool shifts() const {
    using X = arithmetic_t<Sample>;
    if constexpr (cuda::std::is_integral_v<X> && sizeof(X) == 4) {
      return shift >= 0 && !int_less(even.lower_, cuda::std::numeric_limits<X>::min()) &&
             !int_less(cuda::std::numeric_limits<X>::max(), even.upper_ - 1);
    } else {
      return false;
    }
  }
  /// The bin of x where shifts<Sample>(): a subtract, a shift and a compare.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int shifted(Sample x) const {
    const cuda::std::uint32_t bin = (static_cast<cuda::std::uint32_t>(x) - lower32) >> shift;
    return bin < static_cast<cuda::std::uint32_t>(even.bins_) ? static_cast<int>(bin) : -1;
  }
};

template <class Binner>
inline constexpr bool is_narrow_even_v = false;
template <class Level>
inline constexpr bool is_narrow_even_v<narrow_even<Level>> = true;

/**
 * bin_even for integer samples of at most 16 bits with integer levels inside int32, a range of at most 2^16 and
 * no more bins than values, in 32-bit arithmetic: offset = x - lower (a sample below lower wraps to an offset of
 * 2^31 or more), bin = mul_hi32(offset, magic) (lean_bin_magic; bins == range: the offset itself), which is
 * `bins` or more exactly when the sample is outside; returns min(bin, bins), so a sample in no bin comes out as
 * `bins` without a compare or a branch (the shared kernel counts it in its spare counter).
 */
template <class Level>
struct lean_even {
  cuda::std::uint32_t lower = 0;     // lower as a 32-bit two's complement value
  cuda::std::uint32_t magic = 0;     // 0 when bins == range
  cuda::std::uint32_t identity = 0;  // all ones when bins == range, else 0
  cuda::std::uint32_t bins = 0;

  ONCHIP_HOST_DEVICE static bool applies(const bin_even<Level>& b) {
    if constexpr (cuda::std::is_integral_v<Level>) {
      constexpr long long lo = -2147483648LL, hi = 2147483647LL;
      return b.range_ > 0 && b.range_ <= lean_range_limit &&
             static_cast<cuda::std::uint64_t>(b.bins_) <= b.range_ && !int_less(b.lower_, lo) &&
             !int_less(hi, b.upper_);
    } else {
      return false;
    }
  }
  ONCHIP_HOST_DEVICE static lean_even of(const bin_even<Level>& b) {
    lean_even l;
    l.lower = static_cast<cuda::std::uint32_t>(static_cast<long long>(b.lower_));
    l.bins = static_cast<cuda::std::uint32_t>(b.bins_);
    const bool identity = static_cast<cuda::std::uint64_t>(b.bins_) == b.range_;
    l.magic = identity ? 0u : lean_bin_magic(static_cast<cuda::std::uint64_t>(b.bins_), b.range_);
    l.identity = identity ? 0xffffffffu : 0u;
    return l;
  }
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const {
    static_assert(cuda::std::is_integral_v<Sample> && sizeof(Sample) <= 2,
                  "lean_even bins 8- and 16-bit integers");
    const cuda::std::uint32_t offset = static_cast<cuda::std::uint32_t>(static_cast<int>(x)) - lower;
    const cuda::std::uint32_t bin = mul_hi32(offset, magic) | (offset & identity);
    return static_cast<int>(bin < bins ? bin : bins);
  }
  /// Whether each value of the 16-bit `Sample` has a bin of its own (65536 bins from the type's least value): the
  /// bin is then whole_type_bin(x), and no sample falls outside.
  template <class Sample>
  ONCHIP_HOST_DEVICE bool covers_type() const {
    return sizeof(Sample) == 2 && bins == 65536u &&
           lower == static_cast<cuda::std::uint32_t>(static_cast<int>(cuda::std::numeric_limits<Sample>::min()));
  }
  /// When covers_type<Sample>(), the bin of a sample is its bits (as uint16_t) exclusive-or this: the offset from
  /// the type's least value.
  template <class Sample>
  static constexpr cuda::std::uint32_t whole_type_flip = cuda::std::is_signed_v<Sample> ? 0x8000u : 0u;
  /// The bin of `x` when covers_type<Sample>(), without arithmetic.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE static cuda::std::uint32_t whole_type_bin(Sample x) {
    static_assert(sizeof(Sample) == 2, "whole_type_bin: 16-bit samples only");
    return static_cast<cuda::std::uint16_t>(x) ^ whole_type_flip<Sample>;
  }
};

template <class Binner>
inline constexpr bool is_lean_even_v = false;
template <class Level>
inline constexpr bool is_lean_even_v<lean_even<Level>> = true;
}  // namespace detail

}  // namespace onchip
