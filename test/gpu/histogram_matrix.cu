// Every sample type x every counter type through histogram_even, against the host reference. Built twice:
// HIST_MATRIX_PART 0 covers integer samples, 1 floating samples (two translation units compile in parallel).
#include "histogram_common.cuh"

namespace {

template <class S, class C>
void check_pair() {
  const auto [lo, hi] = hist_test::level_bounds<S>();
  for (int bins : {7, 256, 1000}) {
    INFO("bins " << bins);
    const auto host = hist_test::make_samples<S>((std::size_t{1} << 16) + 3, static_cast<double>(lo),
                                                 static_cast<double>(hi), hist_test::distribution::uniform, bins);
    hist_test::check_even<C>(host, bins, lo, hi, sizeof(S) < 16 ? sizeof(S) : 0);  // misaligned by one element
  }
}

template <class S>
void check_all_counters() {
  check_pair<S, unsigned>();
  check_pair<S, int>();
  check_pair<S, unsigned long long>();
  check_pair<S, long long>();
  check_pair<S, float>();
  check_pair<S, double>();
}

}  // namespace

#if HIST_MATRIX_PART == 0
ONCHIP_GPU_TEST_CASE("histogram_even: integer samples x every counter type") {
  SUBCASE("int8") { check_all_counters<std::int8_t>(); }
  SUBCASE("uint8") { check_all_counters<std::uint8_t>(); }
  SUBCASE("int16") { check_all_counters<std::int16_t>(); }
  SUBCASE("uint16") { check_all_counters<std::uint16_t>(); }
  SUBCASE("int32") { check_all_counters<std::int32_t>(); }
  SUBCASE("uint32") { check_all_counters<std::uint32_t>(); }
  SUBCASE("int64") { check_all_counters<std::int64_t>(); }
  SUBCASE("uint64") { check_all_counters<std::uint64_t>(); }
}
#else
ONCHIP_GPU_TEST_CASE("histogram_even: floating samples x every counter type") {
  SUBCASE("half") { check_all_counters<__half>(); }
  SUBCASE("bfloat16") { check_all_counters<__nv_bfloat16>(); }
  SUBCASE("float") { check_all_counters<float>(); }
  SUBCASE("double") { check_all_counters<double>(); }
}
#endif
