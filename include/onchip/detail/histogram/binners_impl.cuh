// Definitions of onchip's binners.
#pragma once

#include <onchip/detail/histogram/binning.cuh>
#include <onchip/histogram.cuh>

#include <cuda/std/cmath>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip {

template <class Level>
ONCHIP_HOST_DEVICE bin_even<Level>::bin_even(Level lower, Level upper, int num_bins) noexcept
    : lower_(lower), upper_(upper), bins_(num_bins) {
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
    return range_ > 0;
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
    const F xf = static_cast<F>(x), lo = static_cast<F>(lower_), hi = static_cast<F>(upper_);
    if (!(xf >= lo && xf < hi)) { return -1; }  // also NaN
    const int bin = static_cast<int>((xf - lo) * static_cast<F>(scale_));
    return bin < bins_ ? bin : bins_ - 1;  // rounding can reach num_bins just below upper
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
  ONCHIP_HOST_DEVICE static bool applies(const bin_even<Level>& b) {
    return b.narrow_;
  }
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const {
    return even.template bin<false>(x);
  }
};
}  // namespace detail

}  // namespace onchip
