// The extended histogram check (ctest label "extended", not in the default run): at least 10,000 random
// configurations of sample type, bin count, size, distribution, alignment and counter type, each against the host
// reference. Seeds are printed; ONCHIP_EXTENDED_CONFIGS overrides the count.
#include <cstdlib>

#include "histogram_common.cuh"

namespace {

template <class S, class C>
void one_config(std::mt19937_64& rng) {
  using hist_test::distribution;
  const auto [lo, hi] = hist_test::level_bounds<S>();
  const int bins = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 70000) : 1 + static_cast<int>(rng() % 300);
  const std::size_t n = rng() % 5 == 0 ? 0 : static_cast<std::size_t>(std::exp(std::log(200000.0) * (rng() % 1000) / 1000.0));
  const auto d = static_cast<distribution>(rng() % 7);
  const std::size_t offset = (rng() % 16) / sizeof(S) * sizeof(S);
  const unsigned seed = static_cast<unsigned>(rng());
  INFO("bins " << bins << ", n " << n << ", " << hist_test::name(d) << ", offset " << offset << ", seed " << seed);
  const auto host = hist_test::make_samples<S>(n, static_cast<double>(lo), static_cast<double>(hi), d, seed);
  hist_test::check_even<C>(host, bins, lo, hi, offset);
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
    switch (rng() % 8) {
      case 0: one_config<std::uint8_t, unsigned>(rng); break;
      case 1: one_config<std::int8_t, int>(rng); break;
      case 2: one_config<std::uint16_t, unsigned long long>(rng); break;
      case 3: one_config<std::uint16_t, unsigned>(rng); break;  // 16-bit shared counters past ~58,000 bins
      case 4: one_config<std::int16_t, unsigned>(rng); break;
      case 5: one_config<std::int32_t, unsigned>(rng); break;
      case 6: one_config<float, float>(rng); break;
      default: one_config<double, long long>(rng); break;
    }
  }
}
