// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The extended histogram check (ctest label "extended", not in the default run): at least 10,000 random
// configurations of sample type, bins or levels, size, distribution, alignment and counter type, each against the
// host reference, first on the plan's own path and then on one kernel path forced at random (where that path
// serves the call; each path must serve a share of them). Seeds are printed; ONCHIP_EXTENDED_CONFIGS overrides the
// count.
#include <array>
#include <cstdlib>

#include "histogram_common.cuh"

using onchip::detail::histogram_path;

namespace {

/// The forced paths drawn, and how many configurations each one served.
constexpr std::array<histogram_path, 6> forced_paths = {
    histogram_path::byte_lanes, histogram_path::shared_replicas, histogram_path::shared_packed16,
    histogram_path::carry_grid, histogram_path::partition,       histogram_path::global_atomics};
std::array<int, forced_paths.size()> served{};

/// Checks `run(path)` on the plan's own path, then on a forced path drawn from `rng`, counting whether it served.
template <class Run>
void on_two_paths(std::mt19937_64& rng, Run&& run) {
  REQUIRE(run(histogram_path::automatic));
  const std::size_t forced = rng() % forced_paths.size();
  served[forced] += run(forced_paths[forced]) ? 1 : 0;
}

template <class S, class C>
void one_even_config(std::mt19937_64& rng) {
  using hist_test::distribution;
  const auto bounds = hist_test::level_bounds<S>();
  const auto lo = bounds.first, hi = bounds.second;
  const int bins = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 70000) : 1 + static_cast<int>(rng() % 300);
  const std::size_t n = rng() % 5 == 0 ? 0 : static_cast<std::size_t>(std::exp(std::log(200000.0) * (rng() % 1000) / 1000.0));
  const auto d = static_cast<distribution>(rng() % 7);
  const std::size_t offset = (rng() % 16) / sizeof(S) * sizeof(S);
  const unsigned seed = static_cast<unsigned>(rng());
  INFO("even: bins " << bins << ", n " << n << ", " << hist_test::name(d) << ", offset " << offset << ", seed " << seed);
  const auto host = hist_test::make_samples<S>(n, static_cast<double>(lo), static_cast<double>(hi), d, seed);
  on_two_paths(rng, [&](histogram_path path) { return hist_test::check_even<C>(host, bins, lo, hi, offset, path); });
}

/// Up to `count` ascending levels over [lo, hi] of one of four shapes: even, random, most of them crowded into a
/// thousandth of the range, or spaced finer towards hi (square roots); repeats dropped, floating levels sometimes
/// with infinite ends.
template <class L>
std::vector<L> random_levels(std::mt19937_64& rng, int count, double lo, double hi, int& shape) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double crowd = lo + (hi - lo) * u(rng);
  shape = static_cast<int>(rng() % 4);
  std::vector<double> at(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const double f = count > 1 ? static_cast<double>(i) / (count - 1) : 0.0;
    switch (shape) {
      case 0: at[i] = lo + (hi - lo) * f; break;
      case 1: at[i] = lo + (hi - lo) * u(rng); break;
      case 2: at[i] = i % 8 == 0 ? lo + (hi - lo) * u(rng) : crowd + (hi - lo) * 1e-3 * u(rng); break;
      default: at[i] = lo + (hi - lo) * std::sqrt(f); break;
    }
  }
  std::vector<L> levels(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) {
    levels[i] = static_cast<L>(std::is_integral_v<L> ? std::floor(at[i]) : at[i]);
  }
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());  // checked builds require them ascending
  if (levels.size() < 2) { levels.push_back(static_cast<L>(levels.back() + 1)); }
  if constexpr (std::is_floating_point_v<L>) {
    if (count > 2 && rng() % 8 == 0) {
      levels.front() = -std::numeric_limits<L>::infinity();
      levels.back() = std::numeric_limits<L>::infinity();
    }
  }
  return levels;
}

template <class S, class C>
void one_range_config(std::mt19937_64& rng) {
  using hist_test::distribution;
  const auto bounds = hist_test::level_bounds<S>();
  const auto lo = bounds.first, hi = bounds.second;
  using L = std::conditional_t<std::is_integral_v<S>, std::decay_t<decltype(lo)>, S>;
  const int most = sizeof(S) == 1 ? 257 : 65536;  // levels a call takes
  const int count = rng() % 4 == 0 ? 2 + static_cast<int>(rng() % (most - 1)) : 2 + static_cast<int>(rng() % 300);
  const std::size_t n = rng() % 5 == 0 ? 0 : static_cast<std::size_t>(std::exp(std::log(200000.0) * (rng() % 1000) / 1000.0));
  const auto d = static_cast<distribution>(rng() % 7);
  const std::size_t offset = (rng() % 16) / sizeof(S) * sizeof(S);
  const unsigned seed = static_cast<unsigned>(rng());
  int shape = 0;
  const auto levels = random_levels<L>(rng, count, static_cast<double>(lo), static_cast<double>(hi), shape);
  INFO("range: levels " << levels.size() << " of shape " << shape << ", n " << n << ", " << hist_test::name(d) << ", offset "
                        << offset << ", seed " << seed);
  const auto host = hist_test::make_samples<S>(n, static_cast<double>(lo), static_cast<double>(hi), d, seed);
  on_two_paths(rng, [&](histogram_path path) { return hist_test::check_range<C>(host, levels, offset, path); });
}

}  // namespace

ONCHIP_GPU_TEST_CASE("extended: random histogram configurations against the host reference") {
  const char* env = std::getenv("ONCHIP_EXTENDED_CONFIGS");
  const int configs = env != nullptr ? std::atoi(env) : 10000;
  const unsigned long long seed = 20261129;
  MESSAGE("extended histogram check: " << configs << " configurations, seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < configs; ++i) {
    INFO("configuration " << i);
    switch (rng() % 12) {
      case 0: one_even_config<std::uint8_t, unsigned>(rng); break;
      case 1: one_even_config<std::int8_t, int>(rng); break;
      case 2: one_even_config<std::uint16_t, unsigned long long>(rng); break;
      case 3: one_even_config<std::uint16_t, unsigned>(rng); break;  // 16-bit shared counters past ~58,000 bins
      case 4: one_even_config<std::int16_t, unsigned>(rng); break;
      case 5: one_even_config<std::int32_t, unsigned>(rng); break;
      case 6: one_even_config<float, float>(rng); break;
      case 7: one_even_config<double, long long>(rng); break;
      case 8: one_range_config<std::uint8_t, unsigned>(rng); break;
      case 9: one_range_config<std::uint16_t, unsigned>(rng); break;  // the carry grid's calls
      case 10: one_range_config<std::int16_t, unsigned long long>(rng); break;
      default: one_range_config<float, unsigned>(rng); break;
    }
  }
  // Each forced path served a share of the configurations (a fifth of its expected share, or more).
  for (std::size_t p = 0; p < forced_paths.size(); ++p) {
    INFO("path " << onchip::detail::path_name(forced_paths[p]) << " served " << served[p] << " configurations");
    MESSAGE("forced path " << onchip::detail::path_name(forced_paths[p]) << ": served " << served[p]);
    CHECK(served[p] >= configs / 400);
  }
}
