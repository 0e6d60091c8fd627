// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Binning arithmetic behind onchip::bin_even / bin_range / bin_identity: sample conversion, exact integer even
// binning without overflow or per-sample division, and mixed-sign comparisons. Host and device.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace onchip::detail {

template <class T>
inline constexpr bool is_half_like_v = cuda::std::is_same_v<cuda::std::remove_cv_t<T>, __half> ||
                                       cuda::std::is_same_v<cuda::std::remove_cv_t<T>, __nv_bfloat16>;

/// Samples as arithmetic values: __half and __nv_bfloat16 become float, everything else stays.
template <class T>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE auto arithmetic(T x) {
  if constexpr (cuda::std::is_same_v<cuda::std::remove_cv_t<T>, __half>) {
    return __half2float(x);
  } else if constexpr (cuda::std::is_same_v<cuda::std::remove_cv_t<T>, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

template <class T>
using arithmetic_t = decltype(arithmetic(cuda::std::declval<T>()));

/// The floating type even binning computes in when samples or levels are floating: double when either is double
/// or when integer samples wider than 16 bits meet floating levels (float cannot hold them exactly), else float.
template <class Sample, class Level>
using float_math_t = cuda::std::conditional_t<
    cuda::std::is_same_v<arithmetic_t<Sample>, double> || cuda::std::is_same_v<Level, double> ||
        (cuda::std::is_integral_v<arithmetic_t<Sample>> && sizeof(arithmetic_t<Sample>) > 2),
    double, float>;

#if !defined(__CUDA_ARCH__)
/// The host compilers' 128-bit integer (an extension: marked so that -Wpedantic accepts it).
__extension__ typedef unsigned __int128 host_uint128;
#endif

/// Full 128-bit product of two 64-bit values.
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void mul_wide(cuda::std::uint64_t a, cuda::std::uint64_t b,
                                                    cuda::std::uint64_t& hi, cuda::std::uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  lo = a * b;
  hi = __umul64hi(a, b);
#else
  const host_uint128 p = static_cast<host_uint128>(a) * b;
  lo = static_cast<cuda::std::uint64_t>(p);
  hi = static_cast<cuda::std::uint64_t>(p >> 64);
#endif
}

/// The high 32 bits of a 32 x 32-bit product.
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE cuda::std::uint32_t mul_hi32(cuda::std::uint32_t a, cuda::std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<cuda::std::uint32_t>((static_cast<cuda::std::uint64_t>(a) * b) >> 32);
#endif
}

/// Integer ranges up to this size bin in 32-bit arithmetic alone (lean_even): one high multiply a sample.
inline constexpr cuda::std::uint64_t lean_range_limit = cuda::std::uint64_t{1} << 16;

/**
 * ceil(bins * 2^32 / range) for 1 <= bins < range <= 2^16: then floor(offset * bins / range) ==
 * mul_hi32(offset, magic) for every offset < range (offset * magic = offset * bins * 2^32 / range + offset * e
 * with 0 <= e < 1, and offset * e < range <= 2^32 / range, less than the distance from offset * bins / range to
 * the next integer, scaled by 2^32), and mul_hi32(offset, magic) >= bins for every offset >= range.
 */
ONCHIP_HOST_DEVICE constexpr cuda::std::uint32_t lean_bin_magic(cuda::std::uint64_t bins,
                                                                cuda::std::uint64_t range) {
  return static_cast<cuda::std::uint32_t>(((bins << 32) + range - 1) / range);
}

/// a < b for (hi, lo) pairs.
ONCHIP_HOST_DEVICE constexpr bool wide_less(cuda::std::uint64_t ahi, cuda::std::uint64_t alo,
                                            cuda::std::uint64_t bhi, cuda::std::uint64_t blo) {
  return ahi < bhi || (ahi == bhi && alo < blo);
}

/**
 * floor(offset * bins / range) exactly, for offset < range, range >= 1, bins >= 1, without a division: a
 * double-precision estimate corrected with exact 128-bit products (the estimate is off by at most a few units).
 */
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE cuda::std::uint64_t even_bin(cuda::std::uint64_t offset,
                                                                   cuda::std::uint64_t bins,
                                                                   cuda::std::uint64_t range, double ratio) {
  cuda::std::uint64_t q = static_cast<cuda::std::uint64_t>(static_cast<double>(offset) * ratio);
  if (q >= bins) { q = bins - 1; }
  cuda::std::uint64_t thi, tlo, lhi, llo;
  mul_wide(offset, bins, thi, tlo);  // target = offset * bins
  mul_wide(q, range, lhi, llo);      // q * range must not exceed target
  while (wide_less(thi, tlo, lhi, llo)) {
    --q;
    mul_wide(q, range, lhi, llo);
  }
  // (q + 1) * range must exceed target.
  for (;;) {
    cuda::std::uint64_t nhi, nlo;
    mul_wide(q + 1, range, nhi, nlo);
    if (wide_less(thi, tlo, nhi, nlo)) { break; }
    ++q;
  }
  return q;
}

/// Integer ranges up to this size bin with two 32 x 32 -> 64-bit multiplies and a magic number (even_bin_magic).
inline constexpr cuda::std::uint64_t narrow_range_limit = cuda::std::uint64_t{1} << 32;

/**
 * ceil(remainder * 2^64 / range), for remainder < range <= 2^32 (so that it fits 64 bits), by long division in
 * base 2^32. Then floor(offset * remainder / range) == (offset * magic) >> 64 for every offset < range: offset *
 * magic = offset * remainder * 2^64 / range + offset * e with 0 <= e < 1, and offset * e < range <= 2^64 / range,
 * less than the distance from offset * remainder / range (a multiple of 1 / range) to the next integer, scaled
 * by 2^64. With bins = quotient * range + remainder, floor(offset * bins / range) is offset * quotient plus that.
 */
ONCHIP_HOST_DEVICE constexpr cuda::std::uint64_t even_bin_magic(cuda::std::uint64_t remainder,
                                                                cuda::std::uint64_t range) {
  const cuda::std::uint64_t t1 = remainder << 32;  // remainder * 2^64 / range has two 32-bit digits
  const cuda::std::uint64_t q1 = t1 / range, r1 = t1 % range;
  const cuda::std::uint64_t t0 = r1 << 32;
  const cuda::std::uint64_t q0 = t0 / range, r0 = t0 % range;
  return (q1 << 32) + q0 + (r0 != 0 ? 1 : 0);
}

/// (offset * magic) >> 64 for a 32-bit offset: the top 32 bits of the 96-bit product, in two 32 x 32 -> 64-bit
/// multiplies.
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE cuda::std::uint32_t even_bin_by_magic(cuda::std::uint32_t offset,
                                                                            cuda::std::uint64_t magic) {
  const cuda::std::uint64_t low =
      static_cast<cuda::std::uint64_t>(offset) * static_cast<cuda::std::uint32_t>(magic);
  return static_cast<cuda::std::uint32_t>(
      (static_cast<cuda::std::uint64_t>(offset) * (magic >> 32) + (low >> 32)) >> 32);
}

/// x - lower as an unsigned 64-bit offset, for integers with lower <= x (two's complement makes it exact).
template <class A, class B>
ONCHIP_HOST_DEVICE constexpr cuda::std::uint64_t unsigned_distance(A x, B lower) {
  return static_cast<cuda::std::uint64_t>(x) - static_cast<cuda::std::uint64_t>(lower);
}

/// a < b for any two integers, signed or not.
template <class A, class B>
ONCHIP_HOST_DEVICE constexpr bool int_less(A a, B b) {
  if constexpr (cuda::std::is_signed_v<A> == cuda::std::is_signed_v<B>) {
    return a < b;
  } else if constexpr (cuda::std::is_signed_v<A>) {
    return a < 0 || static_cast<cuda::std::make_unsigned_t<A>>(a) < b;
  } else {
    return b >= 0 && a < static_cast<cuda::std::make_unsigned_t<B>>(b);
  }
}

/// The floating type a sample and a level compare in when either is floating: double when either is double or an
/// integer wider than 16 bits (float cannot hold it exactly), else float.
template <class A, class B>
using compare_float_t =
    cuda::std::conditional_t<cuda::std::is_same_v<A, double> || cuda::std::is_same_v<B, double> ||
                                 (cuda::std::is_integral_v<A> && sizeof(A) > 2) ||
                                 (cuda::std::is_integral_v<B> && sizeof(B) > 2),
                             double, float>;

/// a < b for a sample and a level, whatever their types (integers exactly, else in compare_float_t).
template <class A, class B>
ONCHIP_HOST_DEVICE constexpr bool value_less(A a, B b) {
  if constexpr (cuda::std::is_integral_v<A> && cuda::std::is_integral_v<B>) {
    return int_less(a, b);
  } else {
    using F = compare_float_t<A, B>;
    return static_cast<F>(a) < static_cast<F>(b);
  }
}

}  // namespace onchip::detail
