// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared pieces of the histogram GPU tests: an independent host reference, input distributions, and a checker
// that runs the device-wide API on inputs flush against the end of their allocation into a poisoned output.
#pragma once

#include <onchip/detail/histogram/request.cuh>
#include <onchip/histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/onchip_test.hpp"

namespace hist_test {

/// The request (how to plan and run a call beyond its arguments: a forced path, smaller limits) that this test
/// thread's calls pass in their options (requested()); changed for a scope by `scoped`.
inline onchip::detail::histogram_request& test_request() {
  thread_local onchip::detail::histogram_request request;
  return request;
}

/// Options that pass test_request() (and `options`' other fields).
inline onchip::histogram_options requested(onchip::histogram_options options = {}) {
  options.request = &test_request();
  return options;
}

/// Sets one field of test_request() while alive, e.g. `scoped<&histogram_request::path> force(path);`.
template <auto Member>
class scoped {
 public:
  template <class V>
  explicit scoped(V value) : previous_(test_request().*Member) {
    test_request().*Member = value;
  }
  ~scoped() { test_request().*Member = previous_; }
  scoped(const scoped&) = delete;
  scoped& operator=(const scoped&) = delete;

 private:
  std::remove_reference_t<decltype(test_request().*Member)> previous_;
};
using forced_path = scoped<&onchip::detail::histogram_request::path>;

/// Whether the test runs under compute-sanitizer (ONCHIP_SANITIZER set), where big inputs take minutes.
inline bool under_sanitizer() { return std::getenv("ONCHIP_SANITIZER") != nullptr; }

/// `n`, or a smaller size under compute-sanitizer; the edges of the smaller inputs still sit flush against their
/// allocations.
inline std::size_t sized(std::size_t n) {
  return under_sanitizer() && n > (std::size_t{1} << 16) ? (std::size_t{1} << 16) + 3 : n;
}

/// Whether a test may allocate `bytes` of input: not under compute-sanitizer (minutes), and only with 1 GiB to
/// spare on the GPU; logs why not.
inline bool huge_input_fits(std::size_t bytes) {
  if (under_sanitizer()) {
    MESSAGE("skipped under compute-sanitizer (" << (bytes >> 20) << " MiB of input)");
    return false;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  ONCHIP_CUDA_REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < bytes + (std::size_t{1} << 30)) {
    MESSAGE("skipped: the GPU has " << (free_bytes >> 20) << " MiB free, the test needs " << (bytes >> 20));
    return false;
  }
  return true;
}

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half(static_cast<float>(x));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}

/// The reference even bin, written from the documentation: integers exactly (128-bit), floats with
/// (x - lower) * (bins / (upper - lower)) in the documented precision, clamped below upper.
template <class S, class L>
int reference_even(S sample, L lower, L upper, int bins) {
  if constexpr (std::is_integral_v<S> && std::is_integral_v<L>) {
    const __int128 x = sample, lo = lower, hi = upper;
    if (x < lo || x >= hi) { return -1; }
    return static_cast<int>((x - lo) * bins / (hi - lo));
  } else {
    constexpr bool wide = std::is_same_v<S, double> || std::is_same_v<L, double> ||
                          (std::is_integral_v<S> && sizeof(S) > 2);
    using F = std::conditional_t<wide, double, float>;
    const F x = static_cast<F>(as_double(sample)), lo = static_cast<F>(lower), hi = static_cast<F>(upper);
    if (!(x >= lo && x < hi)) { return -1; }
    const F scale = static_cast<F>(static_cast<double>(bins) / (static_cast<double>(upper) - static_cast<double>(lower)));
    return std::min(static_cast<int>((x - lo) * scale), bins - 1);
  }
}

template <class S, class L>
int reference_range(S sample, const std::vector<L>& levels) {
  const double x = as_double(sample);
  if (std::isnan(x)) { return -1; }
  const auto it = std::upper_bound(levels.begin(), levels.end(), x,
                                   [](double v, const L& l) { return v < static_cast<double>(l); });
  if (it == levels.begin() || it == levels.end()) { return -1; }
  return static_cast<int>(it - levels.begin()) - 1;
}

enum class distribution { uniform, degenerate, skewed, sorted_runs, alternating, out_of_range, nan_laced };

inline const char* name(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::degenerate: return "degenerate";
    case distribution::skewed: return "skewed";
    case distribution::sorted_runs: return "sorted runs";
    case distribution::alternating: return "alternating";
    case distribution::out_of_range: return "all out of range";
    case distribution::nan_laced: return "NaN-laced";
  }
  return "?";
}

/// `n` samples over roughly [lo, hi) (a little beyond on both sides for uniform), following `d`.
template <class S>
std::vector<S> make_samples(std::size_t n, double lo, double hi, distribution d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<S> out(n);
  const double span = hi - lo;
  auto clamp_to_type = [](double v) {
    if constexpr (std::is_integral_v<S>) {
      v = std::floor(v);
      v = std::max(v, static_cast<double>(std::numeric_limits<S>::lowest()));
      v = std::min(v, static_cast<double>(std::numeric_limits<S>::max()) * (1.0 - 1e-16));
    }
    return from_double<S>(v);
  };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double a = lo + span * u(rng), b = lo + span * u(rng);
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    switch (d) {
      case distribution::uniform: v = lo - 0.05 * span + 1.1 * span * u(rng); break;
      case distribution::degenerate: v = a; break;
      case distribution::skewed: {
        double g = 0;
        while (u(rng) < 0.5 && g < 60) { g += 1; }
        v = lo + span * std::min(0.999, g / 64.0);
        break;
      }
      case distribution::sorted_runs: v = lo + span * ((i / 977) % 101) / 101.0; break;
      case distribution::alternating: v = i % 2 ? a : b; break;
      case distribution::out_of_range: v = (i % 2 ? hi + 1 + span * u(rng) : lo - 1 - span * u(rng)); break;
      case distribution::nan_laced: v = i % 3 == 0 ? std::nan("") : lo + span * u(rng); break;
    }
    out[i] = clamp_to_type(v);
  }
  return out;
}

/// Device copy of `host` ending exactly where its allocation ends, `offset_bytes` past a 256-byte boundary. Ready
/// for any stream once constructed: a copy from pageable memory may still be in flight when cudaMemcpy returns, and a
/// non-blocking stream does not wait for the legacy stream's work.
template <class S>
struct device_samples {
  onchip_test::device_buffer<unsigned char> buffer;
  const S* data;
  device_samples(const std::vector<S>& host, std::size_t offset_bytes)
      : buffer(offset_bytes + host.size() * sizeof(S) + (host.empty() ? 1 : 0)) {
    data = reinterpret_cast<const S*>(buffer.data() + offset_bytes);
    if (!host.empty()) {
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(buffer.data() + offset_bytes, host.data(), host.size() * sizeof(S),
                                     cudaMemcpyHostToDevice));
    }
    ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
  }
};

/// Poisoned device histogram: every bin must be written. Ready for any stream once constructed (cudaMemset runs on
/// the legacy stream, asynchronously to the host, and a non-blocking stream does not wait for it).
template <class C>
struct device_hist {
  onchip_test::device_buffer<C> buffer;
  explicit device_hist(std::size_t bins) : buffer(bins) {
    ONCHIP_CUDA_REQUIRE(cudaMemset(buffer.data(), 0x5a, buffer.bytes()));
    ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  std::vector<C> get() const {
    std::vector<C> h(buffer.size());
    ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(h.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
};

template <class C>
void require_equal(const std::vector<C>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t b = 0; b < got.size(); ++b) {
    const bool ok = std::is_floating_point_v<C>
                        ? std::fabs(static_cast<double>(got[b]) - expected[b]) <= 1e-6 * std::max(1.0, std::fabs(expected[b]))
                        : static_cast<double>(got[b]) == expected[b];
    if (!ok && wrong++ == 0) { first = b; }
  }
  INFO("first wrong bin " << first << ": got " << static_cast<double>(got[first]) << ", expected " << expected[first]);
  REQUIRE(wrong == 0);
}

/// The reference histogram of `samples` in `bins` even bins over [lower, upper).
template <class S, class L>
std::vector<double> even_counts(const std::vector<S>& samples, L lower, L upper, int bins) {
  std::vector<double> expected(static_cast<std::size_t>(bins), 0.0);
  for (const S& s : samples) {
    const int b = reference_even(s, lower, upper, bins);
    if (b >= 0) { expected[static_cast<std::size_t>(b)] += 1; }
  }
  return expected;
}

/// The reference histogram of `samples` in the bins between consecutive `levels`.
template <class S, class L>
std::vector<double> range_counts(const std::vector<S>& samples, const std::vector<L>& levels) {
  std::vector<double> expected(levels.size() - 1, 0.0);
  for (const S& s : samples) {
    const int b = reference_range(s, levels);
    if (b >= 0) { expected[static_cast<std::size_t>(b)] += 1; }
  }
  return expected;
}

/// Whether a call with `path` forced was refused because that path cannot serve it (the library's message says so).
inline bool refused(cudaError_t e, onchip::detail::histogram_path path) {
  const std::string why = onchip::last_error_message();
  return path != onchip::detail::histogram_path::automatic && e == cudaErrorInvalidValue &&
         (why.find("cannot serve") != std::string::npos || why.find("serves the path") != std::string::npos);
}

/**
 * Runs `call(hist, options)` with `path` forced (automatic: the plan's choice) into a poisoned output of
 * expected.size() counters, and compares the output and the count of the `samples` in no bin with the reference;
 * a forced path must report itself as the path that ran. Returns false, checking nothing, where the forced path
 * refused the call.
 */
template <class C, class Call>
bool check_call(const std::vector<double>& expected, std::size_t samples, onchip::detail::histogram_path path,
                Call&& call) {
  INFO("path " << onchip::detail::path_name(path));
  device_hist<C> hist(expected.size());
  onchip_test::device_buffer<unsigned long long> ignored(1);
  ONCHIP_CUDA_REQUIRE(cudaMemset(ignored.data(), 0, sizeof(unsigned long long)));
  const forced_path force(path);
  onchip::histogram_options options = requested();
  options.ignored = ignored.data();
  const char* ran = nullptr;
  options.path = &ran;
  const cudaError_t e = call(hist.buffer.data(), options);
  if (refused(e, path)) { return false; }
  INFO(onchip::last_error_message());
  ONCHIP_CUDA_REQUIRE(e);
  require_equal(hist.get(), expected);
  double in_bins = 0;
  for (double x : expected) { in_bins += x; }
  unsigned long long got_ignored = 0;
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(&got_ignored, ignored.data(), sizeof got_ignored, cudaMemcpyDeviceToHost));
  REQUIRE(static_cast<double>(got_ignored) == static_cast<double>(samples) - in_bins);
  if (path != onchip::detail::histogram_path::automatic) {
    REQUIRE(ran != nullptr);
    CHECK(std::string(ran) == onchip::detail::path_name(path));
  }
  return true;
}

/// histogram_even of `host` (`offset_bytes` past a 256-byte boundary) against the reference, on `path` (see
/// check_call); returns whether it ran.
template <class C, class S, class L>
bool check_even(const std::vector<S>& host, int bins, L lower, L upper, std::size_t offset_bytes = 0,
                onchip::detail::histogram_path path = onchip::detail::histogram_path::automatic) {
  device_samples<S> in(host, offset_bytes);
  return check_call<C>(even_counts(host, lower, upper, bins), host.size(), path, [&](C* hist, const onchip::histogram_options& options) {
    return onchip::histogram_even(in.data, host.size(), hist, bins, lower, upper, nullptr, options);
  });
}

/// histogram_range of `host` (`offset_bytes` past a 256-byte boundary) over `levels` against the reference, on
/// `path` (see check_call); returns whether it ran.
template <class C, class S, class L>
bool check_range(const std::vector<S>& host, const std::vector<L>& levels, std::size_t offset_bytes = 0,
                 onchip::detail::histogram_path path = onchip::detail::histogram_path::automatic) {
  device_samples<S> in(host, offset_bytes);
  onchip_test::device_buffer<L> d_levels(levels.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(L), cudaMemcpyHostToDevice));
  return check_call<C>(range_counts(host, levels), host.size(), path, [&](C* hist, const onchip::histogram_options& options) {
    return onchip::histogram_range(in.data, host.size(), hist, d_levels.data(), static_cast<int>(levels.size()),
                                   nullptr, options);
  });
}

/// Bounds for a sample type: int levels (or long long for wide integers), float or double levels otherwise.
template <class S>
auto level_bounds() {
  if constexpr (std::is_same_v<S, std::int8_t>) {
    return std::pair<int, int>{-128, 128};
  } else if constexpr (std::is_same_v<S, std::uint8_t>) {
    return std::pair<int, int>{0, 256};
  } else if constexpr (std::is_same_v<S, std::int16_t>) {
    return std::pair<int, int>{-20000, 30000};
  } else if constexpr (std::is_same_v<S, std::uint16_t>) {
    return std::pair<int, int>{100, 65000};
  } else if constexpr (std::is_integral_v<S> && std::is_signed_v<S>) {
    return std::pair<long long, long long>{-1000000007LL, 2000000011LL};
  } else if constexpr (std::is_integral_v<S>) {
    return std::pair<long long, long long>{12345LL, 4000000000LL};
  } else if constexpr (std::is_same_v<S, double>) {
    return std::pair<double, double>{-2.5, 7.5};
  } else {
    return std::pair<float, float>{-2.5f, 7.5f};
  }
}

}  // namespace hist_test
