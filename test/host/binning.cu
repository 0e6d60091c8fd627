// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host proofs of onchip's binners against independent references: exact 128-bit integer arithmetic for even
// bins, the documented float formula, edges with nextafter, NaN, negative int8, half and bfloat16, binary search,
// and range binning through the level grid against std::upper_bound.
#include <onchip/detail/histogram/level_bitmap.cuh>
#include <onchip/detail/histogram/level_grid.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

// CUB's integer even bin, computed with 128-bit integers: floor((x - lower) * bins / (upper - lower)).
template <class S, class L>
int reference_int_bin(S x, L lower, L upper, int bins) {
  const __int128 xi = x, lo = lower, hi = upper;
  if (xi < lo || xi >= hi) { return -1; }
  return static_cast<int>((xi - lo) * bins / (hi - lo));
}

}  // namespace

TEST_CASE("even_bin is floor(offset * bins / range) for ranges up to 2^64") {
  const unsigned seed = 424242;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 200000; ++trial) {
    const std::uint64_t range = trial % 3 == 0 ? rng() : (rng() >> (rng() % 63)) + 1;
    const std::uint64_t bins = trial % 5 == 0 ? (rng() % (1u << 24)) + 1 : (rng() % 300) + 1;
    const std::uint64_t offset = rng() % range;
    const double ratio = static_cast<double>(bins) / static_cast<double>(range);
    const auto expected = static_cast<std::uint64_t>(static_cast<unsigned __int128>(offset) * bins / range);
    REQUIRE(onchip::detail::even_bin(offset, bins, range, ratio) == expected);
  }
  // Edges: the last offset of each bin and the first of the next.
  for (std::uint64_t range :
       {std::uint64_t{1}, std::uint64_t{255}, std::uint64_t{256}, std::uint64_t{1000003}, ~std::uint64_t{0}}) {
    for (std::uint64_t bins : {1ull, 2ull, 7ull, 256ull, 65536ull, 16777216ull}) {
      const double ratio = static_cast<double>(bins) / static_cast<double>(range);
      if (bins > range) { continue; }  // then some bins are empty and "first offset of bin k" is not defined
      for (std::uint64_t k = 1; k < 50 && k < bins; ++k) {
        // first offset of bin k: ceil(k * range / bins)
        const auto first =
            static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) * range + bins - 1) / bins);
        if (first >= range || first == 0) { continue; }
        REQUIRE(onchip::detail::even_bin(first, bins, range, ratio) == k);
        REQUIRE(onchip::detail::even_bin(first - 1, bins, range, ratio) == k - 1);
      }
    }
  }
}

namespace {
// The narrow formula of bin_even, written out: offset * (bins / range) + magic part of the remainder.
std::uint64_t narrow_bin(std::uint64_t offset, std::uint64_t bins, std::uint64_t range) {
  const std::uint64_t magic = onchip::detail::even_bin_magic(bins % range, range);
  const auto exact =
      static_cast<std::uint64_t>(((static_cast<unsigned __int128>(bins % range) << 64) + range - 1) / range);
  REQUIRE(magic == exact);  // the base-2^32 long division against 128-bit arithmetic
  return offset * (bins / range) + onchip::detail::even_bin_by_magic(static_cast<std::uint32_t>(offset), magic);
}
}  // namespace

TEST_CASE("narrow even binning: every offset of small ranges, any bin count") {
  const unsigned seed = 99173;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::vector<std::uint64_t> ranges = {1, 2, 3, 255, 256, 257, 1000, 4095, 4096, 65535, 65536};
  for (int i = 0; i < 20; ++i) { ranges.push_back(rng() % 65536 + 1); }
  for (std::uint64_t range : ranges) {
    std::vector<std::uint64_t> bin_counts = {1,    2,    7,     10,    100,       255,           256,
                                             1024, 4096, 65536, range, range + 1, 2 * range + 3, (1u << 30)};
    bin_counts.push_back(rng() % 200000 + 1);
    for (std::uint64_t bins : bin_counts) {
      const std::uint64_t magic = onchip::detail::even_bin_magic(bins % range, range);
      for (std::uint64_t offset = 0; offset < range; ++offset) {
        const std::uint64_t expected = offset * bins / range;
        const std::uint64_t got =
            offset * (bins / range) + onchip::detail::even_bin_by_magic(static_cast<std::uint32_t>(offset), magic);
        if (got != expected) {
          INFO("offset " << offset << " bins " << bins << " range " << range);
          REQUIRE(got == expected);  // REQUIRE only on failure: 10^7 checks
        }
      }
    }
  }
}

TEST_CASE("narrow even binning: floor(offset * bins / range) for ranges up to 2^32") {
  const unsigned seed = 5150;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto check = [](std::uint64_t offset, std::uint64_t bins, std::uint64_t range) {
    const auto expected = static_cast<std::uint64_t>(static_cast<unsigned __int128>(offset) * bins / range);
    const std::uint64_t got = narrow_bin(offset, bins, range);
    if (got != expected) {
      INFO("offset " << offset << " bins " << bins << " range " << range);
      REQUIRE(got == expected);
    }
  };
  for (int trial = 0; trial < 1000000; ++trial) {
    const std::uint64_t range = (rng() >> (32 + rng() % 32)) + 1;  // 1 .. 2^32
    const std::uint64_t bins = trial % 3 == 0 ? (rng() % (1u << 31)) + 1 : (rng() % 5000) + 1;
    check(rng() % range, bins, range);
  }
  // The offsets either side of each bin boundary.
  for (std::uint64_t range : {std::uint64_t{65537}, std::uint64_t{1000000}, std::uint64_t{4294967295u},
                              std::uint64_t{1} << 32, std::uint64_t{3000000019u}}) {
    for (std::uint64_t bins :
         {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{10}, std::uint64_t{100}, std::uint64_t{65536},
          std::uint64_t{1000003}, range - 1, std::uint64_t{2147483647}}) {
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t k = rng() % bins;
        const auto first =
            static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) * range + bins - 1) / bins);
        for (std::uint64_t o : {first - 1, first, first + 1}) {
          if (o < range) { check(o, bins, range); }
        }
      }
      check(range - 1, bins, range);
      check(0, bins, range);
    }
  }
}

TEST_CASE("bin_even gives CUB's bins for every 8- and 16-bit integer sample") {
  for (int bins : {1, 3, 7, 10, 64, 100, 255, 256, 257, 1000}) {
    const onchip::bin_even<int> u8(0, 256, bins);
    for (int x = 0; x < 256; ++x) {
      REQUIRE(u8(static_cast<std::uint8_t>(x)) == reference_int_bin(x, 0, 256, bins));
    }
    const onchip::bin_even<int> s8(-128, 128, bins);  // negative int8 samples are binned, not dropped
    for (int x = -128; x < 128; ++x) {
      REQUIRE(s8(static_cast<std::int8_t>(x)) == reference_int_bin(x, -128, 128, bins));
    }
    const onchip::bin_even<int> narrow(-3, 17, bins);
    for (int x = -128; x < 128; ++x) {
      REQUIRE(narrow(static_cast<std::int8_t>(x)) == reference_int_bin(x, -3, 17, bins));
    }
    const onchip::bin_even<long long> u16(100, 60000, bins);
    for (int x = 0; x < 65536; ++x) {
      REQUIRE(u16(static_cast<std::uint16_t>(x)) == reference_int_bin(x, 100LL, 60000LL, bins));
    }
  }
}

namespace {

// lean_even against the 128-bit reference for every sample of S: the bin, or `bins` (no bin) exactly when the
// reference finds none; whether the lean tier applies is its documented condition.
template <class S, class L>
void check_lean(L lower, L upper, int bins) {
  INFO("lower " << static_cast<long long>(lower) << ", upper " << static_cast<long long>(upper) << ", bins "
                << bins);
  const onchip::bin_even<L> even(lower, upper, bins);
  const __int128 range = static_cast<__int128>(upper) - static_cast<__int128>(lower);
  const bool fits = range >= 1 && range <= 65536 && bins <= range && static_cast<__int128>(lower) >= INT32_MIN &&
                    static_cast<__int128>(upper) <= INT32_MAX;
  REQUIRE(onchip::detail::lean_even<L>::applies(even) == fits);
  if (!fits) { return; }
  const auto lean = onchip::detail::lean_even<L>::of(even);
  bool own_bins = true;  // every value in a bin of its own, in order (the packed kernel's whole-type loop)
  for (long long x = std::numeric_limits<S>::min(); x <= std::numeric_limits<S>::max(); ++x) {
    const int want = reference_int_bin(x, lower, upper, bins);
    REQUIRE(lean(static_cast<S>(x)) == (want < 0 ? bins : want));
    own_bins = own_bins && want == x - std::numeric_limits<S>::min();
    if constexpr (sizeof(S) == 2) {
      if (lean.template covers_type<S>()) {
        REQUIRE(lean.whole_type_bin(static_cast<S>(x)) == static_cast<unsigned>(want));
      }
    }
  }
  // 8-bit samples never take the whole-type loop (they have the byte kernel).
  REQUIRE(lean.template covers_type<S>() == (own_bins && sizeof(S) == 2));
}

}  // namespace

TEST_CASE("lean even binning (8- and 16-bit samples, ranges up to 2^16): every sample, exact, no bin as bins") {
  for (int bins : {1, 2, 3, 7, 10, 64, 100, 255, 256, 1000, 1024, 4095, 4096, 30000, 65535, 65536}) {
    check_lean<std::uint16_t>(0, 65536, bins);
    check_lean<std::int16_t>(-32768, 32768, bins);
    check_lean<std::uint16_t>(100LL, 60000LL, bins);
    check_lean<std::int16_t>(-1000, 3001, bins);
    check_lean<std::uint8_t>(0, 256, bins);
    check_lean<std::int8_t>(-128, 128, bins);
    check_lean<std::int8_t>(-3, 17, bins);
    check_lean<std::uint16_t>(-2147483647 - 1, -2147483647 + 65535, bins);  // lower at int32's edge
    check_lean<std::int16_t>(2147483647 - 65535, 2147483647, bins);         // upper at int32's edge
    check_lean<std::uint16_t>(0u, 65536u, bins);                            // unsigned levels
  }
  // Outside the tier: a range over 2^16, more bins than values, bounds beyond int32.
  check_lean<std::uint16_t>(0, 65537, 10);
  check_lean<std::uint8_t>(0, 10, 11);
  check_lean<std::int16_t>(-3000000000LL, -2999990000LL, 10);
  check_lean<std::uint16_t>(0LL, 4294967296LL, 10);
}

TEST_CASE("bin_even on 32- and 64-bit integers, whole ranges without overflow") {
  std::mt19937_64 rng(77);
  const onchip::bin_even<long long> i32(std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), 1000);
  const onchip::bin_even<std::uint64_t> u64(0, ~std::uint64_t{0}, 16777216);
  const onchip::bin_even<std::int64_t> i64(std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max(), 100);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<int>(rng());
    REQUIRE(i32(a) == reference_int_bin(a, static_cast<long long>(std::numeric_limits<int>::min()),
                                        static_cast<long long>(std::numeric_limits<int>::max()), 1000));
    const std::uint64_t b = rng();
    if (b != ~std::uint64_t{0}) {
      const auto expected = static_cast<int>(static_cast<unsigned __int128>(b) * 16777216 / ~std::uint64_t{0});
      REQUIRE(u64(b) == expected);
    } else {
      REQUIRE(u64(b) == -1);  // upper itself is outside [lower, upper)
    }
    const auto c = static_cast<std::int64_t>(rng());
    if (c != std::numeric_limits<std::int64_t>::max()) {
      REQUIRE(i64(c) == reference_int_bin(c, std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max(), 100));
    }
  }
  // Unsigned samples against signed levels: negative levels still compare correctly.
  const onchip::bin_even<int> mixed(-10, 10, 4);
  CHECK(mixed(0u) == 2);
  CHECK(mixed(9u) == 3);
  CHECK(mixed(10u) == -1);
  CHECK(mixed(4294967295u) == -1);
}

namespace {
/// bin_even<L> on samples of type S against the 128-bit reference: every sample near both bounds and the type's
/// ends, and random ones.
template <class S, class L>
void check_int_edges(L lower, L upper, int bins, std::mt19937_64& rng) {
  const std::string sample = std::string(std::is_signed_v<S> ? "int" : "uint") + std::to_string(8 * sizeof(S));
  INFO("lower " << static_cast<long long>(lower) << " (" << static_cast<unsigned long long>(lower) << "), upper "
                << static_cast<unsigned long long>(upper) << ", bins " << bins << ", samples " << sample);
  const onchip::bin_even<L> even(lower, upper, bins);
  REQUIRE(even.valid());
  std::vector<__int128> xs = {std::numeric_limits<S>::min(), std::numeric_limits<S>::max(), 0, -1, 1};
  for (const __int128 edge : {static_cast<__int128>(lower), static_cast<__int128>(upper)}) {
    for (int d = -3; d <= 3; ++d) { xs.push_back(edge + d); }
  }
  for (int i = 0; i < 2000; ++i) { xs.push_back(static_cast<__int128>(static_cast<S>(rng()))); }
  for (const __int128 x : xs) {
    if (x < std::numeric_limits<S>::min() || x > std::numeric_limits<S>::max()) { continue; }
    const auto s = static_cast<S>(x);
    REQUIRE(even(s) == reference_int_bin(s, lower, upper, bins));
  }
}
}  // namespace

TEST_CASE("bin_even on 32-bit and narrower samples with 64-bit levels: both bounds in one compare, exact") {
  std::mt19937_64 rng(78);
  constexpr long long min64 = std::numeric_limits<long long>::min(), max64 = std::numeric_limits<long long>::max();
  constexpr unsigned long long top = ~0ULL;
  for (int bins : {1, 3, 1000, 1 << 20, 1 << 30}) {
    // Signed levels: ranges within 2^32 (the narrow tier) and beyond, at both ends of the 64-bit range.
    for (const auto& [lo, hi] : std::vector<std::pair<long long, long long>>{{0, 4294967296LL},
                                                                             {-2147483648LL, 2147483648LL},
                                                                             {-5, 7},
                                                                             {min64, min64 + 4294967296LL},
                                                                             {max64 - 4294967296LL, max64},
                                                                             {min64, max64},
                                                                             {-4294967296LL, 0},
                                                                             {100, 100 + (1LL << 40)}}) {
      check_int_edges<std::uint32_t>(lo, hi, bins, rng);
      check_int_edges<std::int32_t>(lo, hi, bins, rng);
      check_int_edges<std::int16_t>(lo, hi, bins, rng);
      check_int_edges<std::uint8_t>(lo, hi, bins, rng);
    }
    // Unsigned levels, up to 2^64 - 1: unsigned samples take the one compare, signed ones the two.
    for (const auto& [lo, hi] : std::vector<std::pair<unsigned long long, unsigned long long>>{
             {0, 4294967296ULL}, {top - 4294967296ULL, top}, {top - 10, top}, {0, top}, {7, 4000000000ULL}}) {
      check_int_edges<std::uint32_t>(lo, hi, bins, rng);
      check_int_edges<std::int32_t>(lo, hi, bins, rng);
      check_int_edges<std::uint16_t>(lo, hi, bins, rng);
      check_int_edges<std::int8_t>(lo, hi, bins, rng);
    }
  }
}

namespace {
/// narrow_even's shift path on 32-bit samples S against the 128-bit reference: taken exactly when the bins are a
/// power of two wide (range = bins << s, s < 32) and [lower, upper) lies within S's values, and then exact on
/// every sample near both bounds and the type's ends, and on random ones.
template <class S, class L>
void check_shifted(L lower, L upper, int bins, std::mt19937_64& rng) {
  INFO("lower " << static_cast<long long>(lower) << ", upper " << static_cast<unsigned long long>(upper)
                << ", bins " << bins << ", samples " << (std::is_signed_v<S> ? "int32" : "uint32"));
  const onchip::bin_even<L> even(lower, upper, bins);
  REQUIRE(onchip::detail::narrow_even<L>::applies(even));
  const auto narrow = onchip::detail::narrow_even<L>::of(even);
  const __int128 lo = static_cast<__int128>(lower), hi = static_cast<__int128>(upper), range = hi - lo;
  bool power = false;
  for (int sh = 0; sh < 32; ++sh) { power = power || (static_cast<__int128>(bins) << sh) == range; }
  const bool within = lo >= std::numeric_limits<S>::min() && hi - 1 <= std::numeric_limits<S>::max();
  REQUIRE(narrow.template shifts<S>() == (power && within));
  REQUIRE(!narrow.template shifts<float>());
  if (!narrow.template shifts<S>()) { return; }
  std::vector<__int128> xs = {std::numeric_limits<S>::min(), std::numeric_limits<S>::max(), 0, -1, 1};
  for (const __int128 edge : {lo, hi}) {
    for (int d = -3; d <= 3; ++d) { xs.push_back(edge + d); }
  }
  for (int i = 0; i < 4000; ++i) { xs.push_back(static_cast<__int128>(static_cast<S>(rng()))); }
  for (int i = 0; i < 1000; ++i) {
    xs.push_back(lo + static_cast<__int128>(rng() % static_cast<std::uint64_t>(range)));
  }
  for (const __int128 x : xs) {
    if (x < std::numeric_limits<S>::min() || x > std::numeric_limits<S>::max()) { continue; }
    const auto sample = static_cast<S>(x);
    REQUIRE(narrow.shifted(sample) == reference_int_bin(sample, lower, upper, bins));
    REQUIRE(narrow.shifted(sample) == narrow(sample));
  }
}
}  // namespace

TEST_CASE("narrow even binning's shift path: bins a power of two wide within 32-bit samples, exact") {
  std::mt19937_64 rng(79);
  for (int bins : {1, 2, 3, 1024, 1000, 1 << 20, 1 << 22, 1 << 24, 1 << 30}) {
    // The whole type of each sample (64-bit levels), part of it, across its edges, and beyond it.
    for (const auto& [lo, hi] : std::vector<std::pair<long long, long long>>{{0, 4294967296LL},
                                                                             {-2147483648LL, 2147483648LL},
                                                                             {0, 2147483648LL},
                                                                             {-2147483648LL, 0},
                                                                             {1024, 1024 + (1LL << 31)},
                                                                             {-4096, 4096},
                                                                             {4294967296LL - 65536, 4294967296LL},
                                                                             {2147483648LL - 65536, 2147483648LL},
                                                                             {-4294967296LL, 0},
                                                                             {4294967296LL, 8589934592LL},
                                                                             {-5, 7},
                                                                             {100, 100 + 3000}}) {
      check_shifted<std::uint32_t>(lo, hi, bins, rng);
      check_shifted<std::int32_t>(lo, hi, bins, rng);
    }
    // 32-bit levels.
    check_shifted<std::uint32_t>(0u, 2147483648u, bins, rng);
    check_shifted<std::int32_t>(0u, 2147483648u, bins, rng);
    check_shifted<std::int32_t>(-1073741824, 1073741824, bins, rng);
    check_shifted<std::uint32_t>(-1073741824, 1073741824, bins, rng);
  }
  // The cases the benchmarks and the partition tests run take the shift path.
  const auto keys =
      onchip::detail::narrow_even<long long>::of(onchip::bin_even<long long>(0, 4294967296LL, 1 << 22));
  CHECK(keys.shift == 10);
  CHECK(keys.shifts<std::uint32_t>());
  CHECK(!keys.shifts<std::int32_t>());  // negative samples would wrap into the range
}

TEST_CASE("bin_even on floats: the documented formula, never bin num_bins below upper, NaN ignored") {
  std::mt19937 rng(99);
  for (int bins : {1, 2, 7, 100, 1000, 4096, 1 << 20, 1 << 24}) {
    for (auto [lo, hi] : {std::pair{0.0f, 1.0f}, std::pair{-3.5f, 2.25f}, std::pair{1e-3f, 1e6f}}) {
      const onchip::bin_even<float> b(lo, hi, bins);
      const float scale = static_cast<float>(static_cast<double>(bins) / (static_cast<double>(hi) - lo));
      std::uniform_real_distribution<float> d(lo, hi);
      for (int i = 0; i < 2000; ++i) {
        const float x = d(rng);
        int expected = static_cast<int>((x - lo) * scale);
        expected = std::min(expected, bins - 1);
        if (!(x >= lo && x < hi)) { expected = -1; }
        REQUIRE(b(x) == expected);
      }
      const float below_upper = std::nextafter(hi, lo);
      CHECK(b(below_upper) == bins - 1);
      CHECK(b(hi) == -1);
      CHECK(b(lo) == 0);
      CHECK(b(std::nextafter(lo, hi - 1e9f)) == -1);  // just below lower
      CHECK(b(std::numeric_limits<float>::quiet_NaN()) == -1);
      CHECK(b(std::numeric_limits<float>::infinity()) == -1);
      CHECK(b(-std::numeric_limits<float>::infinity()) == -1);
    }
  }
}

TEST_CASE("bin_even with include_upper: upper lands in the last bin, nothing above it, no other bin moves") {
  std::mt19937 rng(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (int bins : {1, 4, 7, 1000}) {
    for (auto [lo, hi] : {std::pair{0.0f, 1.0f}, std::pair{-3.5f, 2.25f}}) {
      const onchip::bin_even<float> open(lo, hi, bins), closed(lo, hi, bins, true);
      REQUIRE(closed.valid());
      CHECK(open(hi) == -1);
      CHECK(closed(hi) == bins - 1);
      CHECK(closed(std::nextafter(hi, inf)) == -1);
      CHECK(closed(std::numeric_limits<float>::quiet_NaN()) == -1);
      CHECK(closed(inf) == -1);
      std::uniform_real_distribution<float> d(lo, hi);
      for (int i = 0; i < 2000; ++i) {
        const float x = d(rng);
        REQUIRE(closed(x) == open(x));
      }
    }
  }
  // Double bounds, integer samples (as NumPy bins integers with float edges): upper is counted, upper + 1 not.
  const onchip::bin_even<double> ints(0.0, 100.0, 10, true);
  CHECK(ints(100) == 9);
  CHECK(ints(std::uint8_t{100}) == 9);
  CHECK(ints(std::int64_t{101}) == -1);
  CHECK(ints(99) == 9);
  CHECK(ints(0) == 0);
  CHECK(ints(-1) == -1);
  // Float bounds, double samples: the bound is the next double above upper, not the next float.
  const onchip::bin_even<float> wide(0.0f, 1.0f, 4, true);
  CHECK(wide(1.0) == 3);
  CHECK(wide(std::nextafter(1.0, 2.0)) == -1);
  CHECK(wide(__float2half(1.0f)) == 3);
  // Integer bounds cannot include upper.
  CHECK(!onchip::bin_even<int>(0, 10, 10, true).valid());
  CHECK(onchip::bin_even<int>(0, 10, 10, false).valid());
}

TEST_CASE("bin_even on half and bfloat16 samples with float levels") {
  const onchip::bin_even<float> b(0.0f, 1.0f, 10);
  for (int i = 0; i < 1000; ++i) {
    const float x = i / 1000.0f;
    const __half h = __float2half(x);
    const float hx = __half2float(h);
    const int expected = hx < 1.0f ? std::min(static_cast<int>(hx * 10.0f), 9) : -1;
    REQUIRE(b(h) == expected);
    const __nv_bfloat16 bf = __float2bfloat16(x);
    const float bx = __bfloat162float(bf);
    REQUIRE(b(bf) == (bx < 1.0f ? std::min(static_cast<int>(bx * 10.0f), 9) : -1));
  }
  CHECK(b(__float2half(std::numeric_limits<float>::quiet_NaN())) == -1);
}

TEST_CASE("bin_even validity: bins >= 1, lower < upper, no NaN") {
  CHECK(onchip::bin_even<int>(0, 256, 256).valid());
  CHECK(!onchip::bin_even<int>(0, 256, 0).valid());
  CHECK(!onchip::bin_even<int>(5, 5, 3).valid());
  CHECK(!onchip::bin_even<int>(6, 5, 3).valid());
  CHECK(!onchip::bin_even<float>(0.0f, std::numeric_limits<float>::quiet_NaN(), 3).valid());
  CHECK(!onchip::bin_even<float>(1.0f, 0.0f, 3).valid());
}

TEST_CASE("bin_range is the level interval found by binary search") {
  std::mt19937 rng(5);
  for (int levels_count : {2, 3, 17, 1025}) {
    std::vector<float> levels(levels_count);
    std::uniform_real_distribution<float> d(-100.0f, 100.0f);
    for (auto& l : levels) { l = d(rng); }
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    const onchip::bin_range<float> b(levels.data(), static_cast<int>(levels.size()));
    for (int i = 0; i < 5000; ++i) {
      const float x = d(rng) * 1.1f;
      const auto it = std::upper_bound(levels.begin(), levels.end(), x);
      const int expected =
          (it == levels.begin() || it == levels.end()) ? -1 : static_cast<int>(it - levels.begin()) - 1;
      REQUIRE(b(x) == expected);
    }
    for (std::size_t k = 0; k + 1 < levels.size(); ++k) { REQUIRE(b(levels[k]) == static_cast<int>(k)); }
    CHECK(b(levels.back()) == -1);
    CHECK(b(std::numeric_limits<float>::quiet_NaN()) == -1);
  }
  const int int_levels[] = {-128, -1, 0, 1, 127};
  const onchip::bin_range<int> s8(int_levels, 5);
  CHECK(s8(static_cast<std::int8_t>(-128)) == 0);
  CHECK(s8(static_cast<std::int8_t>(-1)) == 1);
  CHECK(s8(static_cast<std::int8_t>(0)) == 2);
  CHECK(s8(static_cast<std::int8_t>(126)) == 3);
  CHECK(s8(static_cast<std::int8_t>(127)) == -1);
  CHECK(s8(200u) == -1);
}

TEST_CASE("bin_identity keeps non-negative integers and ignores the rest") {
  const onchip::bin_identity id;
  CHECK(id(0) == 0);
  CHECK(id(static_cast<std::uint8_t>(255)) == 255);
  CHECK(id(-1) == -1);
  CHECK(id(static_cast<std::int8_t>(-5)) == -1);
  CHECK(id(5000000000LL) == -1);
  CHECK(id(3.0f) == 3);
  CHECK(id(3.5f) == -1);
  CHECK(id(std::numeric_limits<float>::quiet_NaN()) == -1);
}

TEST_CASE("block_histogram layouts: one copy for one-instruction adds, warp copies within 32 KiB otherwise") {
  using onchip::block_histogram;
  using onchip::block_layout;
  // automatic follows the counter: 32-bit integers and packed uint16_t add with one shared atomic instruction;
  // 64-bit integers, float and double with a compare-and-swap loop.
  CHECK(block_histogram<256>::layout == block_layout::one_copy);
  CHECK(block_histogram<256, int>::layout == block_layout::one_copy);
  CHECK(block_histogram<256, std::uint16_t>::layout == block_layout::one_copy);
  CHECK(block_histogram<256, unsigned long long>::layout == block_layout::warp_copies);
  CHECK(block_histogram<256, long long>::layout == block_layout::warp_copies);
  CHECK(block_histogram<256, float>::layout == block_layout::warp_copies);
  CHECK(block_histogram<256, double>::layout == block_layout::warp_copies);
  CHECK(block_histogram<256, double, block_layout::one_copy>::layout == block_layout::one_copy);
  // One copy whatever the block size.
  CHECK(block_histogram<256>::replicas(1024) == 1);
  CHECK(block_histogram<256>::smem_bytes(1024) == 256 * 4);
  CHECK(block_histogram<7, std::uint16_t>::smem_bytes(64) == 4 * 4);  // 7 counters in 4 words
  CHECK(block_histogram<65536, std::uint16_t>::smem_bytes(256) == 65536 * 2);
  CHECK(block_histogram<100, double, block_layout::one_copy>::smem_bytes(512) == 100 * 8);
  // Warp copies: one per warp at most, 32 at most, within 32 KiB together.
  using copies_u32 = block_histogram<256, unsigned, block_layout::warp_copies>;
  CHECK(copies_u32::replicas(256) == 8);
  CHECK(copies_u32::smem_bytes(256) == 8 * 256 * 4);
  CHECK(copies_u32::replicas(32) == 1);
  CHECK(copies_u32::replicas(1024) == 32);
  CHECK(block_histogram<4096, unsigned, block_layout::warp_copies>::replicas(1024) == 2);
  CHECK(block_histogram<7, std::uint16_t, block_layout::warp_copies>::smem_bytes(64) == 2 * 4 * 4);
  CHECK(block_histogram<100, float>::replicas(128) == 4);
  CHECK(block_histogram<8192, double>::replicas(1024) == 1);  // one copy is 64 KiB already
  // Inside a plan the carver accounts for it like any array.
  struct plan {
    ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
      c.take<char>(3);
      return onchip::block_histogram<100, double>(c, 128);
    }
  };
  CHECK(onchip::smem_bytes(plan{}) == 8 + onchip::block_histogram<100, double>::smem_bytes(128));
}

// A model of one word of two packed 16-bit counters under the library's carry rule: the word is added to modulo
// 2^32 and each wrap's credits go to 32-bit outputs; half plus output must equal the exact count modulo 2^32.
TEST_CASE("packed 16-bit counters: a half's value plus its carries is the exact count, carries into 0xffff too") {
  struct model {
    unsigned word = 0;
    unsigned out[2] = {0, 0};
    unsigned long long exact[2] = {0, 0};
    void add(unsigned b, unsigned count) {
      const unsigned old = word;
      word = old + (count << (b * 16));
      exact[b] += count;
      if (const unsigned code = onchip::detail::packed16_wrap(old, b, count)) {
        out[b] += 65536u;
        if (b == 0) { out[1] += onchip::detail::packed16_high_credit(code); }
      }
    }
    void check() const {
      for (unsigned b = 0; b < 2; ++b) {
        CHECK(((word >> (b * 16)) & 0xffffu) + out[b] == static_cast<unsigned>(exact[b]));
      }
    }
  };
  {  // the low half wraps while the high half holds 0xffff: the carry wraps it as well
    model m;
    for (int i = 0; i < 65535; ++i) { m.add(1, 1); }
    for (int i = 0; i < 65536 * 2 + 5; ++i) { m.add(0, 1); }
    m.check();
    m.add(1, 1);
    m.check();
  }
  std::mt19937 rng(2026);
  for (int round = 0; round < 200; ++round) {
    model m;
    const unsigned max_count = round % 2 == 0 ? 8u : 65535u;
    for (int i = 0; i < 5000; ++i) {
      m.add(rng() % 2, 1 + rng() % max_count);
      if (m.word >> 16 != 0xffffu && rng() % 4 == 0) {  // steer the high half to 0xffff often
        m.add(1, 0xffffu - (m.word >> 16));
      }
    }
    m.check();
  }
}

TEST_CASE("bin_even refuses bounds whose width or scale is not finite in the levels' precision") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_FALSE(onchip::bin_even<float>(-inf, inf, 16).valid());
  CHECK_FALSE(onchip::bin_even<float>(0.0f, inf, 16).valid());
  CHECK_FALSE(onchip::bin_even<double>(-std::numeric_limits<double>::infinity(), 0.0, 16).valid());
  CHECK_FALSE(onchip::bin_even<float>(-3e38f, 3e38f, 16).valid());      // the width overflows float
  CHECK(onchip::bin_even<double>(-3e38, 3e38, 16).valid());             // but not double
  CHECK_FALSE(onchip::bin_even<float>(0.0f, 1e-44f, 1 << 30).valid());  // the scale overflows float
  CHECK(onchip::bin_even<float>(-1e30f, 1e30f, 1 << 30).valid());
  CHECK(onchip::bin_even<float>(0.0f, 1.0f, 1).valid());
  CHECK_FALSE(onchip::bin_even<float>(1.0f, 1.0f, 4).valid());
  CHECK_FALSE(onchip::bin_even<float>(std::nanf(""), 1.0f, 4).valid());
}

namespace {

// The bin of x between non-decreasing levels as std::upper_bound finds it (-1 outside [front, back) and for NaN).
template <class X, class Level>
int reference_level_bin(X x, const std::vector<Level>& levels) {
  using onchip::detail::value_less;
  if (x != x || value_less(x, levels.front()) || !value_less(x, levels.back())) { return -1; }
  const auto it = std::upper_bound(levels.begin(), levels.end(), x, [](X a, Level b) { return value_less(a, b); });
  return static_cast<int>(it - levels.begin()) - 1;
}

// Builds a bitmap of `sub_cells` sub-cells over the levels (bitmap_entry_of, every entry from its definition) and
// requires bitmap_range's bin of every sample to be the reference's; returns the share of marked entries (where a
// sub-cell holds two or more levels and samples search).
template <class X, class Level>
double check_level_bitmap(const std::vector<Level>& levels, const std::vector<X>& samples, int sub_cells) {
  const int bins = static_cast<int>(levels.size()) - 1;
  onchip::detail::bitmap_range<X, Level> b;
  b.levels = levels.data();
  b.first = levels.front();
  b.last = levels.back();
  b.map = onchip::detail::cell_map<X, Level>::over(b.first, b.last, sub_cells);
  std::vector<onchip::detail::bitmap_entry> entries;
  int crowded = 0;
  for (int w = 0; w < onchip::detail::bitmap_entries(sub_cells); ++w) {
    entries.push_back(onchip::detail::bitmap_entry_of(levels.data(), bins, b.map, w));
    crowded += (entries.back().below & onchip::detail::bitmap_crowded) != 0 ? 1 : 0;
  }
  REQUIRE(entries.back().below == static_cast<std::uint32_t>(bins));  // the end entry: every level counted
  b.entries = entries.data();
  for (const X x : samples) {
    INFO("bitmap of " << sub_cells << " sub-cells, bins " << bins << " sample " << +x);
    REQUIRE(b(x) == reference_level_bin(x, levels));
  }
  return static_cast<double>(crowded) / (entries.size() - 1);
}

// The grid as a block builds it (build_grid: every level's level_fill, a cell holding no level given the least
// count below of the cells after it that hold one, then each cell from its two counts), here one level and one
// cell after another; requires each cell to equal the two binary searches' (level_cell_of).
template <class Level, class Map>
void check_grid_fill(const std::vector<Level>& levels, const Map& map) {
  const int bins = static_cast<int>(levels.size()) - 1;
  std::vector<std::uint32_t> counts(static_cast<std::size_t>(map.cells), 0u);
  for (int i = 1; i <= bins; ++i) {
    const onchip::detail::level_fill f = onchip::detail::level_fill_of(levels.data(), bins, map, i);
    REQUIRE(f.cell >= 0);
    REQUIRE(f.cell < map.cells);
    if (f.first) { counts[f.cell] |= static_cast<std::uint32_t>(i - 1); }
    if (f.last) { counts[f.cell] |= static_cast<std::uint32_t>(i) << 16; }
  }
  std::uint32_t least = 0xffffu;
  for (int c = map.cells - 1; c >= 0; --c) {
    if (counts[c] != 0u) {
      least = std::min(least, counts[c] & 0xffffu);
    } else {
      counts[c] = least * 0x10001u;
    }
  }
  for (int c = 0; c < map.cells; ++c) {
    const auto built = onchip::detail::level_cell_from(levels.data(), bins, static_cast<int>(counts[c] & 0xffffu),
                                                       static_cast<int>(counts[c] >> 16));
    const auto searched = onchip::detail::level_cell_of(levels.data(), bins, map, c);
    INFO("bins " << bins << " cell " << c << " of " << map.cells);
    REQUIRE(built.word == searched.word);
    REQUIRE(std::memcmp(&built.split, &searched.split, sizeof(Level)) == 0);
  }
}

// Builds the grid as the device does (`cells` cells, 0: tuning::level_cells; without the grid, one cell over all
// levels) and returns the share of cells in which no sample searches (at most one level boundary); requires every
// sample's bin to be the reference's, through quiet_range too where every cell is quiet.
template <class X, class Level>
double check_level_grid(const std::vector<Level>& levels, std::vector<X> samples, bool grid = true,
                        int cells = 0) {
  const int bins = static_cast<int>(levels.size()) - 1;
  if (cells == 0) { cells = onchip::detail::tuning::level_cells(bins); }
  onchip::detail::gridded_range<X, Level> g;
  g.levels = levels.data();
  g.bins = bins;
  g.first = levels.front();
  g.last = levels.back();
  std::vector<onchip::detail::level_cell<Level>> table;
  int quiet = 0;
  g.map = onchip::detail::cell_map<X, Level>::over(g.first, g.last, cells);
  for (int c = 0; c < cells; ++c) {
    table.push_back(onchip::detail::level_cell_of(levels.data(), bins, g.map, c));
    quiet += onchip::detail::cell_is_quiet(table.back()) ? 1 : 0;
  }
  check_grid_fill(levels, g.map);
  g.cells = grid ? table.data() : nullptr;
  g.whole = onchip::detail::level_cell_of(levels.data(), bins,
                                          onchip::detail::cell_map<X, Level>::over(g.first, g.last, 1), 0);
  for (const Level& l : levels) {  // every level, and its neighbours
    samples.push_back(static_cast<X>(l));
    if constexpr (std::is_floating_point_v<X>) {
      samples.push_back(std::nextafter(static_cast<X>(l), -std::numeric_limits<X>::infinity()));
      samples.push_back(std::nextafter(static_cast<X>(l), std::numeric_limits<X>::infinity()));
    } else {
      samples.push_back(static_cast<X>(static_cast<X>(l) - 1));
      samples.push_back(static_cast<X>(static_cast<X>(l) + 1));
    }
  }
  // A grid of quiet cells only also bins without a search (the kernels' loop for such grids), over words of their
  // lowest bins alone, and so does gridded_range over those words.
  const bool all_quiet = grid && quiet == cells;
  std::vector<onchip::detail::level_cell<Level>> quiet_table = table;
  for (auto& cell : quiet_table) { cell.word = onchip::detail::quiet_word(cell.word); }
  const onchip::detail::quiet_range<X, Level> q{quiet_table.data(), g.map, g.first, g.last};
  auto masked = g;
  masked.cells = quiet_table.data();
  for (const X x : samples) {
    INFO("bins " << bins << " sample " << +x);
    const int expected = reference_level_bin(x, levels);
    REQUIRE(g(x) == expected);
    if (all_quiet) {
      REQUIRE(q(x) == expected);
      REQUIRE(masked(x) == expected);
    }
  }
  // The same levels through bitmaps: a coarse one whose entries crowd (more than 64 levels above the first in 64
  // sub-cells: some sub-cell holds two, so samples search), and the one for levels in device memory.
  const double crowded = check_level_bitmap(levels, samples, 64);
  CHECK((bins <= 64 || crowded > 0.0));
  check_level_bitmap(levels, samples, onchip::detail::tuning::bitmap_sub_cells);
  return static_cast<double>(quiet) / cells;
}

template <class X>
std::vector<X> float_samples(std::mt19937& rng, double lo, double hi, int n) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<X> out;
  for (int i = 0; i < n; ++i) { out.push_back(static_cast<X>(d(rng))); }
  for (X x : {std::numeric_limits<X>::quiet_NaN(), std::numeric_limits<X>::infinity(),
              -std::numeric_limits<X>::infinity(), X(0), -X(0), std::numeric_limits<X>::max(),
              std::numeric_limits<X>::lowest(), std::numeric_limits<X>::denorm_min()}) {
    out.push_back(x);
  }
  return out;
}

}  // namespace

TEST_CASE("level grid: a power of two of cells per channel, 4 per bin from 256 to 4096") {
  using onchip::detail::tuning::level_cells;
  CHECK(level_cells(1) == 256);
  CHECK(level_cells(64) == 256);
  CHECK(level_cells(100) == 512);
  CHECK(level_cells(1024) == 4096);
  CHECK(level_cells(65535) == 4096);
  for (int bins = 1; bins <= 65535; bins += 97) {
    const int c = level_cells(bins);
    REQUIRE((c & (c - 1)) == 0);
    REQUIRE(c >= 256);
    REQUIRE(c <= 4096);
  }
}

TEST_CASE("level grid: the cell map never decreases, for samples and levels alike") {
  std::mt19937 rng(11);
  const auto fm = onchip::detail::cell_map<float, float>::over(-3.0f, 7.5f, 4096);
  const auto samples = float_samples<float>(rng, -4.0, 8.0, 20000);
  std::vector<float> sorted(samples.begin(), samples.end() - 8);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) { REQUIRE(fm(sorted[i - 1]) <= fm(sorted[i])); }
  CHECK(fm(-3.0f) == 0);
  CHECK(fm(std::nextafter(7.5f, 0.0f)) == 4095);
  const auto im = onchip::detail::cell_map<std::uint16_t, int>::over(0, 65536, 1024);
  CHECK(im.shift == 6);
  for (int v = 1; v < 65536; ++v) {
    REQUIRE(im(static_cast<std::uint16_t>(v - 1)) <= im(static_cast<std::uint16_t>(v)));
  }
  CHECK(im(static_cast<std::uint16_t>(65535)) == 1023);
  const auto wm = onchip::detail::cell_map<std::int64_t, std::int64_t>::over(INT64_MIN, INT64_MAX, 8192);
  CHECK(wm(INT64_MIN) == 0);
  CHECK(wm(INT64_MAX - 1) == 8191);
  CHECK(wm(std::int64_t{0}) == 4096);
  // A width that overflows float: scale 0, every value in cell 0 (the search then covers all levels).
  CHECK(onchip::detail::cell_map<float, float>::over(-3e38f, 3e38f, 256).scale == 0.0f);
}

TEST_CASE("level grid: built from unsorted levels or any counts, a cell stays within the levels") {
  // Unchecked builds promise unspecified bins but no access outside the levels for unsorted levels: the levels'
  // writes stay in the grid, and whatever counts a cell ends with, its search stays in [0, bins - 1].
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> levels(300);
  for (auto& l : levels) { l = d(rng); }
  levels[17] = std::numeric_limits<float>::quiet_NaN();
  const int bins = static_cast<int>(levels.size()) - 1;
  const auto map = onchip::detail::cell_map<float, float>::over(-0.5f, 0.5f, 1024);
  for (int i = 1; i <= bins; ++i) {
    const onchip::detail::level_fill f = onchip::detail::level_fill_of(levels.data(), bins, map, i);
    REQUIRE(f.cell >= 0);
    REQUIRE(f.cell < map.cells);
  }
  for (int lo = 0; lo < 65536; lo += 251) {
    for (int hi = 0; hi < 65536; hi += 257) {
      const auto cell = onchip::detail::level_cell_from(levels.data(), bins, lo, hi);
      REQUIRE(static_cast<int>(cell.word & 0xffffu) + static_cast<int>(cell.word >> 16) <= bins - 1);
    }
  }
}

TEST_CASE("level grid: range binning equals std::upper_bound on every kind of level set") {
  std::mt19937 rng(20261130);
  const float inf = std::numeric_limits<float>::infinity();
  SUBCASE("random sorted levels") {
    for (int count : {2, 3, 17, 1025, 5000}) {
      std::uniform_real_distribution<float> d(-100.0f, 100.0f);
      std::vector<float> levels(count);
      for (auto& l : levels) { l = d(rng); }
      std::sort(levels.begin(), levels.end());
      levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
      check_level_grid(levels, float_samples<float>(rng, -120.0, 120.0, 20000));
    }
  }
  SUBCASE("square-root spaced levels: no cell needs a search") {
    std::vector<float> levels(1025);
    for (int i = 0; i < 1025; ++i) { levels[i] = static_cast<float>(std::sqrt(i / 1024.0)); }
    CHECK(check_level_grid(levels, float_samples<float>(rng, -0.1, 1.1, 50000)) == 1.0);
  }
  SUBCASE("64 log-spaced levels over three decades: two crowded cells of 4096, the fine grid quiet") {
    std::vector<float> levels(64);
    for (int i = 0; i < 64; ++i) { levels[i] = static_cast<float>(std::pow(10.0, 3.0 * (i / 63.0 - 1.0))); }
    const auto samples = float_samples<float>(rng, -0.1, 1.1, 50000);
    CHECK(check_level_grid(levels, samples, true, 4096) < 1.0);
    CHECK(check_level_grid(levels, samples, true, onchip::detail::tuning::fine_level_cells) == 1.0);
    std::vector<float> even(65);  // and 64 even bins in any grid
    for (int i = 0; i < 65; ++i) { even[i] = -1.0f + static_cast<float>(i) / 32.0f; }
    CHECK(check_level_grid(even, samples) == 1.0);
  }
  SUBCASE("64 log-spaced levels over twelve decades") {
    std::vector<float> levels(64);
    for (int i = 0; i < 64; ++i) { levels[i] = static_cast<float>(std::pow(10.0, -6.0 + 12.0 * i / 63.0)); }
    auto samples = float_samples<float>(rng, 0.0, 1e6, 10000);
    for (int i = 0; i < 10000; ++i) {  // log-uniform as well
      samples.push_back(
          static_cast<float>(std::pow(10.0, std::uniform_real_distribution<double>(-7.0, 7.0)(rng))));
    }
    check_level_grid(levels, samples);
  }
  SUBCASE("clustered levels crowding one cell") {
    std::vector<float> levels = {0.0f, 10.0f, 50.0f, 100.0f};
    for (int i = 0; i < 600; ++i) { levels.push_back(20.0f + i * 1e-5f); }
    std::sort(levels.begin(), levels.end());
    auto samples = float_samples<float>(rng, -1.0, 101.0, 10000);
    const auto crowd = float_samples<float>(rng, 19.999, 20.007, 10000);
    samples.insert(samples.end(), crowd.begin(), crowd.end());
    check_level_grid(levels, samples);
  }
  SUBCASE("duplicate levels (empty bins)") {
    std::vector<float> levels = {0.0f, 1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 3.0f};
    check_level_grid(levels, float_samples<float>(rng, -1.0, 4.0, 5000));
  }
  SUBCASE("infinite and overflowing outer levels") {
    check_level_grid(std::vector<float>{-inf, -1.0f, 0.0f, 1.0f, inf}, float_samples<float>(rng, -3.0, 3.0, 5000));
    check_level_grid(std::vector<float>{-inf, 5.0f}, float_samples<float>(rng, -3.0, 7.0, 2000));
    check_level_grid(std::vector<float>{-3e38f, -1.0f, 0.0f, 2.5f, 3e38f},
                     float_samples<float>(rng, -3.0, 3.0, 5000));
  }
  SUBCASE("65535 bins, the most a cell's 16-bit bounds hold; one cell without the grid (a binary search)") {
    std::vector<float> levels(65536);
    for (int i = 0; i < 65536; ++i) { levels[i] = static_cast<float>(i) * 0.5f; }
    const auto samples = float_samples<float>(rng, -10.0, 32780.0, 20000);
    check_level_grid(levels, samples);
    check_level_grid(levels, samples, false);
    std::vector<float> few = {-1.0f, 0.0f, 0.5f, 8.0f};
    check_level_grid(few, float_samples<float>(rng, -2.0, 9.0, 5000), false);
  }
  SUBCASE("double samples and levels") {
    std::vector<double> levels(300);
    for (int i = 0; i < 300; ++i) { levels[i] = std::exp(i * 0.05) - 1e3; }
    check_level_grid(levels, float_samples<double>(rng, -1e3, 3.3e3, 20000));
  }
  SUBCASE("16-bit samples, 257 integer levels") {
    std::vector<int> levels(257);
    for (int i = 0; i < 257; ++i) { levels[i] = i * 256; }
    levels.back() = 65536;
    std::vector<std::uint16_t> all(65536);
    for (int v = 0; v < 65536; ++v) { all[v] = static_cast<std::uint16_t>(v); }
    check_level_grid(levels, all);
    std::vector<int> uneven = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
    std::vector<std::int16_t> every(65536);
    for (int v = 0; v < 65536; ++v) { every[v] = static_cast<std::int16_t>(v - 32768); }
    check_level_grid(uneven, every);
  }
  SUBCASE("8-bit, 32-bit and 64-bit integers, float samples with integer levels") {
    std::vector<int> s8_levels = {-128, -100, -1, 0, 3, 64, 127};
    std::vector<std::int8_t> s8;
    for (int v = -128; v < 128; ++v) { s8.push_back(static_cast<std::int8_t>(v)); }
    check_level_grid(s8_levels, s8);
    std::vector<std::int64_t> wide = {INT64_MIN, -5000000000LL, -1, 0, 7, 1LL << 40, INT64_MAX};
    std::vector<std::int64_t> wide_samples = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, 6, 8, INT64_MAX - 1, INT64_MAX};
    for (int i = 0; i < 10000; ++i) { wide_samples.push_back(static_cast<std::int64_t>(rng()) << (rng() % 32)); }
    check_level_grid(wide, wide_samples);
    std::vector<int> u32_levels = {0, 10, 1000, 2147483647};
    std::vector<std::uint32_t> u32_samples = {0u, 9u, 10u, 4000000000u, 2147483646u, 2147483647u};
    for (int i = 0; i < 10000; ++i) { u32_samples.push_back(static_cast<std::uint32_t>(rng())); }
    check_level_grid(u32_levels, u32_samples);
    std::vector<int> int_levels = {-50, -3, 0, 2, 1000};
    check_level_grid(int_levels, float_samples<float>(rng, -60.0, 1100.0, 10000));
  }
}

TEST_CASE("level bitmap: entries of 32 sub-cells, worked by hand") {
  // Levels 0..4 over 64 sub-cells of 1/16: level 1 in sub-cell 16, 2 in 32 (entry 1's first), 3 in 48 (entry 1's
  // 16th), and the last level clamped into the last sub-cell, 63 (entry 1's 31st). A level beside 3 (3.01, also
  // sub-cell 48) crowds entry 1: its mark is set and its bits are cleared (its samples search).
  using onchip::detail::bitmap_crowded;
  using onchip::detail::bitmap_entry_of;
  const std::vector<float> levels = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  const auto map = onchip::detail::cell_map<float, float>::over(0.0f, 4.0f, 64);
  CHECK(onchip::detail::bitmap_entries(64) == 3);
  const auto e0 = bitmap_entry_of(levels.data(), 4, map, 0), e1 = bitmap_entry_of(levels.data(), 4, map, 1),
             end = bitmap_entry_of(levels.data(), 4, map, 2);
  CHECK(e0.bits == (1u << 16));
  CHECK(e0.below == 0u);
  CHECK(e1.bits == ((1u << 31) | (1u << 16) | 1u));
  CHECK(e1.below == 1u);
  CHECK(end.bits == 0u);
  CHECK(end.below == 4u);
  const std::vector<float> crowded = {0.0f, 1.0f, 2.0f, 3.0f, 3.01f, 4.0f};
  const auto c1 = bitmap_entry_of(crowded.data(), 5, map, 1);
  CHECK(c1.bits == 0u);
  CHECK(c1.below == (1u | bitmap_crowded));
  CHECK(bitmap_entry_of(crowded.data(), 5, map, 2).below == 5u);
  // Samples through both bitmaps: a sub-cell below a level's (15), the level's own sub-cell on either side of it
  // (16, 48), the crowded entry's search, and samples outside [0, 4) and NaN.
  const std::vector<onchip::detail::bitmap_entry> plain = {e0, e1, end};
  const std::vector<onchip::detail::bitmap_entry> marked = {e0, c1, bitmap_entry_of(crowded.data(), 5, map, 2)};
  const onchip::detail::bitmap_range<float, float> by_plain{levels.data(), plain.data(), map, 0.0f, 4.0f};
  const onchip::detail::bitmap_range<float, float> by_marked{crowded.data(), marked.data(), map, 0.0f, 4.0f};
  CHECK(by_plain(0.99f) == 0);
  CHECK(by_plain(1.0f) == 1);
  CHECK(by_plain(1.03f) == 1);
  CHECK(by_plain(2.99f) == 2);
  CHECK(by_plain(3.0f) == 3);
  CHECK(by_plain(3.999f) == 3);
  CHECK(by_marked(3.005f) == 3);
  CHECK(by_marked(3.01f) == 4);
  CHECK(by_marked(2.5f) == 2);
  CHECK(by_marked(0.5f) == 0);
  CHECK(by_plain(-0.5f) == -1);
  CHECK(by_plain(4.0f) == -1);
  CHECK(by_marked(std::nanf("")) == -1);
}

TEST_CASE("value table: levels as offsets into the table of every 16-bit value, clamped to the sample type") {
  using u16_table = onchip::detail::value_table_binners<std::uint16_t, int>;
  using i16_table = onchip::detail::value_table_binners<std::int16_t, long long>;
  CHECK(u16_table::offset_of(-5) == 0);
  CHECK(u16_table::offset_of(0) == 0);
  CHECK(u16_table::offset_of(300) == 300);
  CHECK(u16_table::offset_of(65536) == 65536);
  CHECK(u16_table::offset_of(1 << 30) == 65536);
  CHECK(i16_table::offset_of(-40000) == 0);
  CHECK(i16_table::offset_of(-32768) == 0);
  CHECK(i16_table::offset_of(-1) == 32767);
  CHECK(i16_table::offset_of(32767) == 65535);
  CHECK(i16_table::offset_of(1LL << 40) == 65536);
  CHECK(onchip::detail::value_table_binners<std::int16_t, unsigned long long>::offset_of(~0ull) == 65536);
  // A table filled as the device fills it, read by the binner, against std::upper_bound for every value.
  const std::vector<int> levels = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
  std::vector<std::uint16_t> entries(65536, 0xffff);
  using table = onchip::detail::value_table_binners<std::int16_t, int>;
  for (int b = 0; b + 1 < static_cast<int>(levels.size()); ++b) {
    for (long long v = table::offset_of(levels[b]); v < table::offset_of(levels[b + 1]); ++v) {
      entries[v] = static_cast<std::uint16_t>(b);
    }
  }
  const table::table_binner binner{entries.data()};
  for (int v = -32768; v < 32768; ++v) {
    const auto x = static_cast<std::int16_t>(v);
    REQUIRE(binner(x) == reference_level_bin(x, levels));
  }
}

TEST_CASE("value folding: per-value counts folded in runs give the histogram of std::upper_bound") {
  // Counts for every 16-bit value, folded in runs of every length the device uses (odd numbers of words) and a
  // few others, against each value's bin by std::upper_bound: sorted level sets that crowd, skip, leave the
  // type's range and sit at its ends.
  using u16_table = onchip::detail::value_table_binners<std::uint16_t, int>;
  using i16_table = onchip::detail::value_table_binners<std::int16_t, int>;
  std::mt19937 rng(20261201);
  std::vector<unsigned> counts(65536);
  for (auto& c : counts) { c = rng() % 3 == 0 ? 0u : rng() % 70000; }
  auto check = [&](auto table, const std::vector<int>& levels) {
    using table_t = decltype(table);
    INFO(levels.size() << " levels from " << levels.front() << " to " << levels.back());
    const int bins = static_cast<int>(levels.size()) - 1;
    std::vector<unsigned long long> expected(bins + 1, 0), folded(bins + 1, 0);  // the last: no bin
    for (int v = 0; v < 65536; ++v) {
      const long long value = v + table_t::lowest;
      const auto above =
          std::upper_bound(levels.begin(), levels.end(), value, [](long long x, int level) { return x < level; });
      const auto below = static_cast<int>(above - levels.begin());
      REQUIRE(table.levels_at_or_below(v) == below);
      const int bin = below >= 1 && below <= bins ? below - 1 : bins;
      REQUIRE(table.bin_at(v) == (bin == bins ? -1 : bin));
      expected[bin] += counts[v];
    }
    for (int run : {2, 66, 130, 1000, 65536}) {
      INFO("runs of " << run << " values");
      std::fill(folded.begin(), folded.end(), 0);
      for (int begin = 0; begin < 65536; begin += run) {
        int last = -2;
        table.fold(
            begin, std::min(begin + run, 65536), [&](int v) { return counts[v]; },
            [&](int b, unsigned long long sum) {
              REQUIRE(b >= -1);
              REQUIRE(b < bins);
              REQUIRE(sum != 0);
              REQUIRE((b > last || b == -1));  // one sum per bin and run
              last = b;
              folded[b < 0 ? bins : b] += sum;
            });
      }
      CHECK(folded == expected);
    }
  };
  std::vector<int> even(257);
  for (int i = 0; i < 257; ++i) { even[i] = i * 256; }
  check(u16_table{even.data(), {256}}, even);
  const std::vector<int> crowded = {-7, 0, 1, 2, 3, 4, 100, 101, 65534, 65535, 70000};
  check(u16_table{crowded.data(), {static_cast<int>(crowded.size()) - 1}}, crowded);
  const std::vector<int> inner = {300, 301, 40000};
  check(u16_table{inner.data(), {2}}, inner);
  std::vector<int> dense(65536);
  for (int i = 0; i < 65536; ++i) { dense[i] = i - 32768; }
  check(i16_table{dense.data(), {65535}}, dense);
  const std::vector<int> uneven = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
  check(i16_table{uneven.data(), {8}}, uneven);
  // Levels out of order: whatever is counted, every bin emitted is in range.
  const std::vector<int> unsorted = {500, 20, 9000, 9000, 3, 60000};
  const u16_table table{unsorted.data(), {5}};
  for (int run : {66, 4096}) {
    for (int begin = 0; begin < 65536; begin += run) {
      table.fold(
          begin, std::min(begin + run, 65536), [&](int v) { return counts[v]; },
          [&](int b, unsigned long long) {
            REQUIRE(b >= -1);
            REQUIRE(b < 5);
          });
    }
  }
}

TEST_CASE("carry grid: a cell's word and a sample's bits add up to its counter index, wherever no cell crowds") {
  // For sorted level sets (crowding or not: repeated levels, levels outside the type, at its ends, at and inside
  // cell edges) and both cell widths: crowds() against a direct count of the level boundaries inside each cell,
  // and where no cell crowds, every 16-bit sample's index against std::upper_bound. Unsorted levels: every index
  // stays within [0, bins + 1].
  using u16_table = onchip::detail::value_table_binners<std::uint16_t, int>;
  using i16_table = onchip::detail::value_table_binners<std::int16_t, int>;
  int quiet_sets = 0, crowded_sets = 0;
  auto check = [&](auto table, const std::vector<int>& levels) {
    using table_t = decltype(table);
    const int bins = static_cast<int>(levels.size()) - 1;
    for (int cell_bits : {7, 8}) {
      INFO(levels.size() << " levels from " << levels.front() << " to " << levels.back() << ", cells of 2^"
                         << cell_bits);
      bool crowded = false;  // some cell holds two boundaries past its first value
      for (long long first = 0; first < 65536; first += 1LL << cell_bits) {
        const long long last = first + (1LL << cell_bits) - 1;
        crowded = crowded || table.levels_at_or_below(last) - table.levels_at_or_below(first) >= 2;
      }
      REQUIRE(table.crowds(cell_bits) == crowded);
      (crowded ? crowded_sets : quiet_sets) += 1;
      std::vector<unsigned> words(65536 >> cell_bits);
      for (int slot = 0; slot < static_cast<int>(words.size()); ++slot) {
        words[slot] = table.carry_word(slot, cell_bits);
      }
      for (unsigned bits = 0; bits < 65536; ++bits) {
        const unsigned index = table_t::carry_index(words[bits >> cell_bits], bits, cell_bits);
        REQUIRE(index <= static_cast<unsigned>(bins + 1));
        if (!crowded) {
          const long long value = static_cast<long long>(bits ^ table_t::position_flip) + table_t::lowest;
          const auto above = std::upper_bound(levels.begin(), levels.end(), value,
                                              [](long long x, int level) { return x < level; });
          REQUIRE(index == static_cast<unsigned>(above - levels.begin()));
        }
      }
    }
  };
  std::vector<int> even(257), even_signed(257);
  for (int i = 0; i < 257; ++i) {
    even[i] = i * 256;
    even_signed[i] = i * 256 - 32768;
  }
  check(u16_table{even.data(), {256}}, even);
  check(i16_table{even_signed.data(), {256}}, even_signed);
  std::vector<int> offset(257);  // every 255 from 100: boundaries inside cells, some at a cell's first value
  for (int i = 0; i < 257; ++i) { offset[i] = 100 + 255 * i; }
  check(u16_table{offset.data(), {256}}, offset);
  std::vector<int> mid(383);  // 130 apart: quiet in cells of 128 values only
  for (int i = 0; i < 383; ++i) { mid[i] = 5 + 130 * i - 32768; }
  check(i16_table{mid.data(), {382}}, mid);
  const std::vector<int> outside = {-9, 0, 65535, 70000};
  check(u16_table{outside.data(), {3}}, outside);
  const std::vector<int> repeated = {0, 300, 300, 1000};  // an empty bin inside one cell
  check(u16_table{repeated.data(), {3}}, repeated);
  const std::vector<int> at_edges = {256, 512, 513, 768, 1023};
  check(u16_table{at_edges.data(), {4}}, at_edges);
  const std::vector<int> uneven = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
  check(i16_table{uneven.data(), {8}}, uneven);
  const std::vector<int> two = {40000, 40001};
  check(u16_table{two.data(), {1}}, two);
  std::mt19937 rng(20261203);
  for (int round = 0; round < 40; ++round) {
    std::vector<int> levels(2 + rng() % 300);
    const int spread = round % 2 ? 70000 : 2000;
    for (int& l : levels) { l = static_cast<int>(rng() % spread) - (round % 4 == 3 ? 1000 : 0); }
    std::sort(levels.begin(), levels.end());
    check(u16_table{levels.data(), {static_cast<int>(levels.size()) - 1}}, levels);
  }
  CHECK(quiet_sets > 10);
  CHECK(crowded_sets > 10);
  const std::vector<int> unsorted = {500, 20, 9000, 9000, 3, 60000};
  const u16_table table{unsorted.data(), {5}};
  for (int cell_bits : {7, 8}) {
    for (unsigned bits = 0; bits < 65536; ++bits) {
      REQUIRE(u16_table::carry_index(table.carry_word(static_cast<int>(bits >> cell_bits), cell_bits), bits,
                                     cell_bits) <= 6u);
    }
  }
}
