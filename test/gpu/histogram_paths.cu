// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The launch plan on a real GPU: every kernel path, forced, gives the host reference's histogram; the plan's
// blocks per SM are resident; the cached device limits are the device's; calls from many host threads at once;
// small inputs whose single block zeroes the output, or several blocks after a memset (every path, and captured in
// a graph and replayed); many small segments; range binning through the level grid on every path; 16-bit range
// binning by folding counted values. Compiled as 21 units (ONCHIP_TEST_PART 0 to 20, a test case or a group of
// light ones each), so that a build on several cores compiles them side by side.
#include <onchip/histogram.cuh>

#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "histogram_common.cuh"

#ifndef ONCHIP_TEST_PART
#  error "compile with -DONCHIP_TEST_PART=0 to 20, or -1 for every part (test/gpu/CMakeLists.txt builds them)"
#endif

using hist_test::distribution;
using onchip::detail::histogram_path;

namespace {

// histogram_even of `n` samples at `in` into a poisoned output against `expected`, then again accumulating into
// it (twice `expected`).
template <class S, class L>
void check_then_accumulate(const S* in, std::size_t n, int bins, L lo, L hi, std::vector<double> expected) {
  hist_test::device_hist<unsigned> hist(static_cast<std::size_t>(bins));
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in, n, hist.buffer.data(), bins, lo, hi, nullptr, hist_test::requested()));
  hist_test::require_equal(hist.get(), expected);
  onchip::histogram_options add = hist_test::requested();
  add.accumulate = true;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in, n, hist.buffer.data(), bins, lo, hi, nullptr, add));
  for (auto& e : expected) { e *= 2; }
  hist_test::require_equal(hist.get(), expected);
}

// Every path in `paths`, forced, against `expected` (each must serve the call and report itself as the path that
// ran): the bins `run(hist, options)` fills, and the count of the `samples` that fell in no bin.
template <class Run>
void check_forced(std::initializer_list<histogram_path> paths, const std::vector<double>& expected,
                  std::size_t samples, Run&& run) {
  for (histogram_path path : paths) { CHECK(hist_test::check_call<unsigned>(expected, samples, path, run)); }
}

// histogram_even of `host` (misaligned by one sample) on every path in `paths`, forced, against the reference.
template <class S>
void check_paths(const std::vector<S>& host, int bins, int lo, int hi, std::initializer_list<histogram_path> paths) {
  hist_test::device_samples<S> in(host, sizeof(S));
  check_forced(paths, hist_test::even_counts(host, lo, hi, bins), host.size(),
               [&](unsigned* hist, const onchip::histogram_options& options) {
                 return onchip::histogram_even(in.data, host.size(), hist, bins, lo, hi, nullptr, options);
               });
}

// histogram_range of `host` (misaligned by one sample) over `levels` on every path in `paths`, forced (automatic:
// the plan's choice), against the reference.
template <class S, class L>
void check_range_paths(const std::vector<S>& host, const std::vector<L>& levels,
                       std::initializer_list<histogram_path> paths = {histogram_path::automatic,
                                                                      histogram_path::shared_replicas,
                                                                      histogram_path::shared_packed16,
                                                                      histogram_path::global_atomics}) {
  hist_test::device_samples<S> in(host, sizeof(S));
  onchip_test::device_buffer<L> d_levels(levels.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(L), cudaMemcpyHostToDevice));
  INFO(levels.size() << " levels");
  check_forced(paths, hist_test::range_counts(host, levels), host.size(), [&](unsigned* hist, const onchip::histogram_options& options) {
                 return onchip::histogram_range(in.data, host.size(), hist, d_levels.data(),
                                                static_cast<int>(levels.size()), nullptr, options);
               });
}

}  // namespace

#if ONCHIP_TEST_PART_IS(2)
ONCHIP_GPU_TEST_CASE("every kernel path, forced, gives the reference histogram") {
  using P = histogram_path;
  for (distribution d : {distribution::uniform, distribution::degenerate, distribution::skewed}) {
    INFO(hist_test::name(d));
    const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 5);
    // One channel of bytes has the byte kernel alone (the host tests check the others refuse it).
    check_paths(hist_test::make_samples<std::uint8_t>(n, 0, 256, d, 7), 256, 0, 256, {P::byte_lanes});
    check_paths(hist_test::make_samples<std::int8_t>(n, -128, 128, d, 8), 100, -100, 100, {P::byte_lanes});
    check_paths(hist_test::make_samples<std::uint16_t>(n, 0, 65536, d, 9), 1024, 0, 65536,
                {P::shared_replicas, P::shared_packed16, P::global_atomics});
    // 4096 bins: the shared replicas run as one wide block; negative 16-bit samples, some outside the levels.
    check_paths(hist_test::make_samples<std::uint16_t>(n, 0, 65536, d, 11), 4096, 0, 65536, {P::shared_replicas});
    check_paths(hist_test::make_samples<std::int16_t>(n, -32768, 32768, d, 12), 3000, -30000, 30000,
                {P::shared_replicas, P::shared_packed16, P::global_atomics});
  }
  // 16-bit shared counters past 65535 in one block: 2^24 equal samples over at most a few hundred blocks.
  const std::size_t many = hist_test::sized(std::size_t{1} << 24);
  const auto same = hist_test::make_samples<std::uint16_t>(many, 0, 65536, distribution::degenerate, 10);
  check_paths(same, 4096, 0, 65536, {P::shared_packed16});
  // Every sample in no bin (the spare half wraps), and every sample in the last bin of an odd count, whose low half
  // wraps into the spare half above it.
  const int v = same[0];
  check_paths(same, 10, v + 1, v + 11, {P::shared_packed16, P::shared_replicas});
  check_paths(same, 9, v - 8, v + 1, {P::shared_packed16, P::shared_replicas});
}
#endif

#if ONCHIP_TEST_PART_IS(3)
ONCHIP_GPU_TEST_CASE("65536 bins over the whole 16-bit type: the packed path bins by the sample's bits") {
  using P = histogram_path;
  for (distribution d : {distribution::uniform, distribution::degenerate, distribution::skewed}) {
    INFO(hist_test::name(d));
    const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 5);
    check_paths(hist_test::make_samples<std::uint16_t>(n, 0, 65536, d, 21), 65536, 0, 65536,
                {P::automatic, P::shared_packed16});
    check_paths(hist_test::make_samples<std::int16_t>(n, -32768, 32768, d, 22), 65536, -32768, 32768,
                {P::automatic, P::shared_packed16});
    // The same bins shifted by one value: the general binning, samples below the range in no bin.
    check_paths(hist_test::make_samples<std::uint16_t>(n, 0, 65536, d, 23), 65536, 1, 65537, {P::shared_packed16});
  }
  // Vectors of two alternating values (no vector of one value, so every sample's add is tested for a wrap), 2^25
  // samples: each block's counters of both bins pass 65535, the even bin's wraps carrying into the odd one's half.
  // The extreme values of the type sit in the first and last words.
  const std::size_t many = hist_test::sized(std::size_t{1} << 25);
  for (int low : {0, 12344, 65534}) {
    INFO("values " << low << " and " << low + 1);
    std::vector<std::uint16_t> pairs(many);
    for (std::size_t i = 0; i < many; ++i) {
      pairs[i] = static_cast<std::uint16_t>(low + static_cast<int>(i % 2));
    }
    check_paths(pairs, 65536, 0, 65536, {P::shared_packed16});
    std::vector<std::int16_t> signed_pairs(many);
    for (std::size_t i = 0; i < many; ++i) { signed_pairs[i] = static_cast<std::int16_t>(pairs[i] - 32768); }
    check_paths(signed_pairs, 65536, -32768, 32768, {P::shared_packed16});
  }
}
#endif

namespace {

// multi_histogram_even<Channels, Active> of `pixels` pixels of `samples` placed `misalign` samples past 16-byte
// alignment, against the host reference, channel by channel.
template <int Channels, int Active, class S, class L>
void check_channels(const std::vector<S>& samples, std::size_t pixels, std::size_t misalign, const int* bins,
                    const L* lo, const L* hi) {
  INFO(Channels << " channels, " << Active << " active, misaligned by " << misalign);
  hist_test::device_samples<S> in(samples, misalign * sizeof(S));
  std::vector<hist_test::device_hist<unsigned>> outs;
  int b[Active];
  L l[Active], h[Active];
  unsigned* hists[Active];
  for (int a = 0; a < Active; ++a) {
    outs.emplace_back(static_cast<std::size_t>(bins[a]));
    b[a] = bins[a];
    l[a] = lo[a];
    h[a] = hi[a];
  }
  for (int a = 0; a < Active; ++a) { hists[a] = outs[a].buffer.data(); }
  ONCHIP_CUDA_REQUIRE((onchip::multi_histogram_even<Channels, Active>(in.data, pixels, hists, b, l, h, nullptr,
                                                                      hist_test::requested())));
  for (int a = 0; a < Active; ++a) {
    std::vector<double> expected(bins[a], 0.0);
    for (std::size_t p = 0; p < pixels; ++p) {
      const int bin = hist_test::reference_even(samples[p * Channels + a], lo[a], hi[a], bins[a]);
      if (bin >= 0) { expected[bin] += 1; }
    }
    INFO("channel " << a);
    hist_test::require_equal(outs[a].get(), expected);
  }
}

// The byte inputs of the channel tests: skewed bytes, four to a pixel, and bins for up to three active channels.
struct byte_channels {
  std::size_t pixels = hist_test::sized(300001);
  std::vector<std::uint8_t> bytes =
      hist_test::make_samples<std::uint8_t>(pixels * 4, 0, 256, distribution::skewed, 32);
  int bins[3] = {256, 16, 100};
  int lower[3] = {0, 0, 50}, upper[3] = {256, 256, 150};
};

}  // namespace

#if ONCHIP_TEST_PART_IS(4)
ONCHIP_GPU_TEST_CASE("range binning through the level grid: f32 level sets that crowd, skip and overflow cells") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 20) + 5);
  std::mt19937 rng(20261130);
  const float inf = std::numeric_limits<float>::infinity();
  SUBCASE("f32, 64 log-spaced levels over six decades") {
    std::vector<float> levels(64);
    for (int i = 0; i < 64; ++i) { levels[i] = static_cast<float>(std::pow(10.0, -6.0 + 6.0 * i / 63.0)); }
    for (distribution d : {distribution::uniform, distribution::skewed, distribution::nan_laced}) {
      INFO(hist_test::name(d));
      check_range_paths(hist_test::make_samples<float>(n, 0.0, 1.0, d, 3), levels);
    }
  }
  SUBCASE("f32, 1025 square-root spaced levels and 65 even ones: grids of quiet cells (the loop without search)") {
    // The host tests show these grids quiet (at most one level boundary a cell), so the kernels count through
    // quiet_range; samples at every level and its neighbours, and outside the range, beside uniform ones.
    std::vector<float> root(1025), even(65);
    for (int i = 0; i < 1025; ++i) { root[i] = static_cast<float>(std::sqrt(i / 1024.0)); }
    for (int i = 0; i < 65; ++i) { even[i] = -1.0f + static_cast<float>(i) / 32.0f; }
    for (const auto* levels : {&root, &even}) {
      auto samples = hist_test::make_samples<float>(n, -1.1, 1.1, distribution::nan_laced, 12);
      for (std::size_t i = 0; i + 2 < n / 2; i += 3) {
        const float l = (*levels)[(i / 3) % levels->size()];
        samples[i] = l;
        samples[i + 1] = std::nextafter(l, -inf);
        samples[i + 2] = std::nextafter(l, inf);
      }
      check_range_paths(samples, *levels);
    }
  }
  SUBCASE("f32, 600 levels 1e-5 apart crowding one cell beside four wide ones, samples in the crowd") {
    std::vector<float> levels = {0.0f, 0.1f, 0.5f, 1.0f};
    for (int i = 0; i < 600; ++i) { levels.push_back(0.3f + static_cast<float>(i) * 1e-5f); }
    std::sort(levels.begin(), levels.end());
    auto samples = hist_test::make_samples<float>(n / 2, 0.0, 1.0, distribution::uniform, 4);
    const auto crowd = hist_test::make_samples<float>(n / 2, 0.2999, 0.3061, distribution::uniform, 5);
    samples.insert(samples.end(), crowd.begin(), crowd.end());
    check_range_paths(samples, levels);
  }
  SUBCASE("f32, infinite outer levels; two levels") {
    const auto samples = hist_test::make_samples<float>(n, -1.0, 2.0, distribution::nan_laced, 6);
    check_range_paths(samples, std::vector<float>{-inf, 0.25f, 0.5f, 0.75f, inf});
    check_range_paths(samples, std::vector<float>{0.1f, 0.9f});
  }
  SUBCASE("f32, 20000 random levels") {
    std::vector<float> levels(20000);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& l : levels) { l = u(rng); }
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    check_range_paths(hist_test::make_samples<float>(n, -1.0, 1.0, distribution::uniform, 7), levels);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(5)
ONCHIP_GPU_TEST_CASE("range binning through the level grid: u16 samples between 257 even integer levels") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 20) + 5);
  std::vector<int> even(257);
  for (int i = 0; i < 257; ++i) { even[i] = i * 256; }
  for (distribution d : {distribution::uniform, distribution::sorted_runs, distribution::degenerate}) {
    INFO(hist_test::name(d));
    check_range_paths(hist_test::make_samples<std::uint16_t>(n, 0.0, 65536.0, d, 8), even);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(6)
ONCHIP_GPU_TEST_CASE("range binning through the level grid: i16 samples between uneven negative integer levels") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 20) + 5);
  const std::vector<int> uneven = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
  check_range_paths(hist_test::make_samples<std::int16_t>(n, -32768.0, 32768.0, distribution::uniform, 9), uneven);
}
#endif

#if ONCHIP_TEST_PART_IS(7)
ONCHIP_GPU_TEST_CASE("range binning through the level grid: f64 samples and levels, __half samples") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 20) + 5);
  SUBCASE("f64 samples and levels; __half samples with float levels") {
    std::vector<double> levels(300);
    for (int i = 0; i < 300; ++i) { levels[i] = std::exp(i * 0.05) - 1e3; }
    check_range_paths(hist_test::make_samples<double>(n, -1e3, 3.3e3, distribution::uniform, 10), levels);
    const std::vector<float> half_levels = {-2.0f, -0.5f, 0.0f, 0.001f, 0.25f, 1.0f, 100.0f};
    check_range_paths(hist_test::make_samples<__half>(n, -3.0, 3.0, distribution::nan_laced, 11), half_levels);
  }
}
#endif

namespace {

// The plan of histogram_range over `levels` for `n` floats on this device (with this thread's overrides).
[[maybe_unused]] onchip::detail::launch_plan range_plan(const std::vector<float>& levels, std::size_t n) {
  using namespace onchip::detail;
  const range_binners<1, float> binners{{levels.data()}, {static_cast<int>(levels.size()) - 1}};
  unsigned* const out[1] = {nullptr};
  const float* const none = nullptr;
  const auto job = make_job<1, 1>(none, sample_rows{n, 1, n * sizeof(float)}, unweighted, binners, out);
  int device = 0;
  device_limits limits{};
  launch_plan plan{};
  ONCHIP_CUDA_REQUIRE(plan_on_current_device(call_of(job, false), hist_test::test_request(), device, limits, plan, "test"));
  REQUIRE(plan.ok());
  return plan;
}

// Whether this device gives a block the 192 KiB that 65535 bins of packed counters and the bitmap take (sm_90).
[[maybe_unused]] bool bitmap_beside_65535_bins() {
  int device = 0, optin = 0;
  ONCHIP_CUDA_REQUIRE(cudaGetDevice(&device));
  ONCHIP_CUDA_REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return optin >= 196624;
}

}  // namespace

#if ONCHIP_TEST_PART_IS(0)
ONCHIP_GPU_TEST_CASE("range binning past shared memory: 65536 levels in device memory, through a bitmap or grid") {
  using P = histogram_path;
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 3);
  const int count = onchip::detail::max_staged_bins + 1;  // 65536 float levels: 256 KiB, more than a block holds
  std::vector<float> spread(count), clustered(count), paired(count);
  for (int i = 0; i < count; ++i) {
    spread[i] = static_cast<float>(std::sqrt(static_cast<double>(i) / (count - 1)));  // finer towards 1
    // 1000 levels over [0, 0.5), 64000 within 0.0064 of 0.5 (one or two floats apart, crowding a few cells),
    // the rest over (0.51, 1]
    clustered[i] = i < 1000    ? 0.5f * static_cast<float>(i) / 1000.0f
                   : i < 65000 ? 0.5f + static_cast<float>(i - 1000) * 1e-7f
                               : 0.51f + 0.49f * static_cast<float>(i - 64999) / static_cast<float>(count - 65000);
    // Levels in pairs one float apart: every other bin holds one value (levels must ascend strictly)
    const float v = static_cast<float>(i / 2) / (count / 2);
    paired[i] = i % 2 == 0 ? v : std::nextafter(v, 1.0f);
  }
  paired.front() = -std::numeric_limits<float>::infinity();
  paired.back() = std::numeric_limits<float>::infinity();
  // The plan keeps these levels in device memory: the call's own kernel, and the global kernel forced.
  const auto f32 = hist_test::make_samples<float>(n, -0.01, 1.01, distribution::uniform, 61);
  const auto near = hist_test::make_samples<float>(n, 0.499, 0.507, distribution::uniform, 62);
  std::vector<float> on_levels(n);  // samples at the finite levels, so the one-value bins are hit
  for (std::size_t i = 0; i < n; ++i) { on_levels[i] = paired[1 + i % (count - 2)]; }
  for (bool bitmaps : {true, false}) {
    INFO("bitmaps " << (bitmaps ? "on: through the bitmap where the plan gives it" : "off: through the grid"));
    const hist_test::scoped<&onchip::detail::histogram_request::level_bitmaps> use(bitmaps);
    const onchip::detail::launch_plan plan = range_plan(spread, n);
    CHECK_FALSE(plan.level_staged);
    CHECK((plan.level_bitmap || !bitmaps || !bitmap_beside_65535_bins()));
    CHECK((!plan.level_bitmap || bitmaps));
    check_range_paths(f32, spread, {P::automatic, P::global_atomics});
    check_range_paths(f32, clustered, {P::automatic, P::global_atomics});
    check_range_paths(near, clustered, {P::automatic});  // most samples in the crowded cells or entries
    check_range_paths(f32, paired, {P::automatic, P::global_atomics});
    check_range_paths(on_levels, paired, {P::automatic});
  }
  // One level more is refused with a message.
  std::vector<float> too_many(count + 1);
  for (int i = 0; i <= count; ++i) { too_many[i] = static_cast<float>(i); }
  onchip_test::device_buffer<float> d_levels(too_many.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), too_many.data(), too_many.size() * sizeof(float),
                                 cudaMemcpyHostToDevice));
  hist_test::device_samples<float> in(f32, 0);
  hist_test::device_hist<unsigned> hist(static_cast<std::size_t>(count));
  const cudaError_t refused = onchip::histogram_range(in.data, n, hist.buffer.data(), d_levels.data(), count + 1,
                                                      nullptr, hist_test::requested());
  CHECK(refused == cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("at most 65536 levels") != std::string::npos);
}
#endif

#if ONCHIP_TEST_PART_IS(0)
ONCHIP_GPU_TEST_CASE("range binning of levels whose staging leaves only global atomics: a bitmap, shared counts") {
  using P = histogram_path;
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 7);
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> random(40000);  // 160 KiB of levels, their grid 32 KiB: on the H200 the global path held them
  for (auto& l : random) { l = u(rng); }
  std::sort(random.begin(), random.end());
  random.erase(std::unique(random.begin(), random.end()), random.end());
  const auto samples = hist_test::make_samples<float>(n, -1.1, 1.1, distribution::nan_laced, 71);
  for (bool bitmaps : {true, false}) {
    INFO("bitmaps " << (bitmaps ? "on" : "off"));
    const hist_test::scoped<&onchip::detail::histogram_request::level_bitmaps> use(bitmaps);
    const onchip::detail::launch_plan plan = range_plan(random, n);
    if (plan.level_bitmap) {
      CHECK(bitmaps);
      CHECK_FALSE(plan.level_staged);
      CHECK(plan.path != P::global_atomics);
    }
    if (bitmaps && bitmap_beside_65535_bins()) { CHECK(plan.level_bitmap); }
    check_range_paths(samples, random, {P::automatic, P::global_atomics});
  }
}
#endif

#if ONCHIP_TEST_PART_IS(8)
ONCHIP_GPU_TEST_CASE("16-bit range binning folds counted values into bins: carries past 65535 across bins") {
  // Two alternating values, 2^25 samples: each block's counters of both values pass 65535, the even value's wraps
  // carrying into the odd one's half. Levels put the two values in neighbouring bins, the odd one past the last
  // level, or the even one below the first, so each carry and its credit land in different bins or in none.
  const std::size_t many = hist_test::sized(std::size_t{1} << 25);
  for (int low : {0, 12344, 65534}) {
    INFO("values " << low << " and " << low + 1);
    std::vector<std::uint16_t> pairs(many);
    std::vector<std::int16_t> signed_pairs(many);
    for (std::size_t i = 0; i < many; ++i) {
      pairs[i] = static_cast<std::uint16_t>(low + static_cast<int>(i % 2));
      signed_pairs[i] = static_cast<std::int16_t>(pairs[i] - 32768);
    }
    for (const std::vector<int>& levels : {std::vector<int>{0, low + 1, 65536}, std::vector<int>{low, low + 1},
                                           std::vector<int>{low + 1, 65536}}) {
      check_range_paths(pairs, levels);
      std::vector<int> shifted(levels);
      for (int& l : shifted) { l -= 32768; }
      check_range_paths(signed_pairs, shifted);
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(9)
ONCHIP_GPU_TEST_CASE("16-bit range binning through the carry grid; levels that crowd its cells left to the fallback") {
  // Forced and automatic: the carry grid counts levels whose cells hold at most one boundary each (the host tests
  // decide which sets those are, for both cell widths); the fold or the replicas count the others after it.
  using P = histogram_path;
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 5);
  const std::initializer_list<P> carry = {P::automatic, P::carry_grid};
  std::vector<int> even(257), offset(257), signed_mid(383), dense(600), coarse(256);
  for (int i = 0; i < 257; ++i) {
    even[i] = i * 256;         // 256 bins: cells of 128 values, boundaries at cell edges
    offset[i] = 100 + 255 * i; // boundaries inside cells
  }
  for (int i = 0; i < 383; ++i) { signed_mid[i] = 5 + 130 * i - 32768; }  // 382 bins: the most with 512 cells
  for (int i = 0; i < 600; ++i) { dense[i] = 3 + 109 * i; }   // 599 bins: 256 cells, two boundaries in some
  for (int i = 0; i < 256; ++i) { coarse[i] = 200 + 257 * i; }  // 255 bins, quiet
  for (distribution d : {distribution::uniform, distribution::sorted_runs, distribution::degenerate}) {
    INFO(hist_test::name(d));
    const auto u16 = hist_test::make_samples<std::uint16_t>(n, 0.0, 65536.0, d, 31);
    check_range_paths(u16, even, carry);
    check_range_paths(u16, offset, carry);
    check_range_paths(u16, dense, carry);
    check_range_paths(hist_test::make_samples<std::int16_t>(n, -32768.0, 32768.0, d, 32), signed_mid, carry);
  }
  const auto u16 = hist_test::make_samples<std::uint16_t>(n, 0.0, 65536.0, distribution::uniform, 33);
  check_range_paths(u16, coarse, carry);
  check_range_paths(u16, std::vector<int>{0, 300, 301, 40000}, carry);    // two boundaries in one cell
  check_range_paths(u16, std::vector<int>{-9, 0, 65535, 70000}, carry);   // levels past the type
  check_range_paths(u16, std::vector<int>{40000, 40001}, carry);          // one bin, most samples outside
  const std::vector<int> uneven = {-40000, -300, -2, 0, 1, 5, 900, 17000, 32767};
  check_range_paths(hist_test::make_samples<std::int16_t>(n, -32768.0, 32768.0, distribution::uniform, 34), uneven,
                    carry);
  for (std::size_t small : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{8191}}) {  // forced
    INFO(small << " samples");
    check_range_paths(hist_test::make_samples<std::uint16_t>(small, 0.0, 65536.0, distribution::uniform, 35), even,
                      {P::carry_grid});
  }
}
#endif

#if ONCHIP_TEST_PART_IS(10)
ONCHIP_GPU_TEST_CASE("the carry grid into 64-bit and float counters, accumulating, and rows") {
  const hist_test::forced_path force(histogram_path::carry_grid);  // also on inputs cut short
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 3);
  const auto host = hist_test::make_samples<std::uint16_t>(n, 0.0, 65536.0, distribution::skewed, 36);
  std::vector<int> levels(200);
  for (int i = 0; i < 200; ++i) { levels[i] = 1000 + 300 * i; }
  hist_test::device_samples<std::uint16_t> in(host, 0);
  onchip_test::device_buffer<int> d_levels(levels.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(int), cudaMemcpyHostToDevice));
  const std::vector<double> expected = hist_test::range_counts(host, levels);
  const int count = static_cast<int>(levels.size());
  const char* path = nullptr;
  onchip::histogram_options options = hist_test::requested();
  options.path = &path;
  hist_test::device_hist<unsigned long long> wide(expected.size());
  ONCHIP_CUDA_REQUIRE(onchip::histogram_range(in.data, n, wide.buffer.data(), d_levels.data(), count, nullptr, options));
  CHECK(std::string(path) == "carry_grid");
  hist_test::require_equal(wide.get(), expected);
  hist_test::device_hist<float> real(expected.size());
  ONCHIP_CUDA_REQUIRE(onchip::histogram_range(in.data, n, real.buffer.data(), d_levels.data(), count, nullptr,
                                              hist_test::requested()));
  hist_test::require_equal(real.get(), expected);
  options.accumulate = true;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_range(in.data, n, wide.buffer.data(), d_levels.data(), count, nullptr, options));
  std::vector<double> twice(expected);
  for (double& e : twice) { e *= 2; }
  hist_test::require_equal(wide.get(), twice);
  // Rows: 4 rows of n / 4 - 1 samples, n / 4 + 1 samples apart (every row but the first misaligned).
  const std::size_t row = n / 4 - 1;
  std::vector<double> rows(expected.size(), 0.0);
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t i = 0; i < row; ++i) {
      const int b = hist_test::reference_range(host[r * (n / 4 + 1) + i], levels);
      if (b >= 0) { rows[b] += 1; }
    }
  }
  hist_test::device_hist<unsigned> by_rows(expected.size());
  ONCHIP_CUDA_REQUIRE(onchip::histogram_range(in.data, row, 4, (n / 4 + 1) * sizeof(std::uint16_t),
                                              by_rows.buffer.data(), d_levels.data(), count, nullptr,
                                              hist_test::requested()));
  hist_test::require_equal(by_rows.get(), rows);
}
#endif

#if ONCHIP_TEST_PART_IS(11)
ONCHIP_GPU_TEST_CASE("several channels: f32 RGB") {
  const std::size_t pixels = hist_test::sized(300001);
  const auto rgb = hist_test::make_samples<float>(pixels * 3, 0.0, 1.0, distribution::uniform, 31);
  const int rgb_bins[3] = {100, 37, 1000};
  const float flo[3] = {0.0f, 0.25f, 0.0f}, fhi[3] = {1.0f, 0.75f, 0.5f};
  check_channels<3, 3>(rgb, pixels, 0, rgb_bins, flo, fhi);
}
#endif

#if ONCHIP_TEST_PART_IS(12)
ONCHIP_GPU_TEST_CASE("several channels: RGBA and RGB bytes, three active, on the byte and shared paths") {
  const byte_channels in;
  for (histogram_path path : {histogram_path::byte_lanes, histogram_path::shared_replicas}) {
    INFO("path " << onchip::detail::path_name(path));
    const hist_test::forced_path force(path);
    for (std::size_t misalign = 0; misalign < 4; ++misalign) {  // vectors that start in every channel
      const std::size_t n = in.pixels - 1;  // room for the misalignment
      check_channels<4, 3>(in.bytes, n, misalign, in.bins, in.lower, in.upper);
      check_channels<3, 3>(in.bytes, n, misalign, in.bins, in.lower, in.upper);
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(13)
ONCHIP_GPU_TEST_CASE("several channels: one or two active of two or four byte channels (the byte kernel alone)") {
  const byte_channels in;
  const hist_test::forced_path force(histogram_path::byte_lanes);
  for (std::size_t misalign = 0; misalign < 4; ++misalign) {  // vectors that start in every channel
    const std::size_t n = in.pixels - 1;  // room for the misalignment
    check_channels<2, 1>(in.bytes, n, misalign, in.bins, in.lower, in.upper);
    check_channels<2, 2>(in.bytes, n, misalign, in.bins, in.lower, in.upper);
    check_channels<4, 1>(in.bytes, n, misalign, in.bins, in.lower, in.upper);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(14)
ONCHIP_GPU_TEST_CASE("byte inputs too large for one launch run in pieces: 1-D, RGBA, rows, ignored samples") {
  // The limit lowered from 128 GiB to about 1 MiB, so the pieces are many and small: odd lengths, every
  // misalignment, whole rows per piece and rows cut into pieces, with and without accumulating.
  const bool sanitizer = hist_test::under_sanitizer();  // smaller sizes, as many pieces
  const std::size_t limit = (sanitizer ? std::size_t{4096} : std::size_t{1} << 20) + 37;
  const hist_test::scoped<&onchip::detail::histogram_request::byte_piece_bytes> pieces(limit);
  const std::size_t n = 5 * limit + 11;
  const auto host = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::skewed, 41);
  for (std::size_t misalign : {0, 1, 3}) {
    INFO("misaligned by " << misalign);
    hist_test::device_samples<std::uint8_t> in(host, misalign);
    onchip_test::device_buffer<unsigned long long> ignored(1);
    ONCHIP_CUDA_REQUIRE(cudaMemset(ignored.data(), 0, sizeof(unsigned long long)));
    hist_test::device_hist<unsigned> hist(200);
    onchip::histogram_options options = hist_test::requested();
    options.ignored = ignored.data();
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, n, hist.buffer.data(), 200, 20, 220, nullptr, options));
    hist_test::require_equal(hist.get(), hist_test::even_counts(host, 20, 220, 200));
    unsigned long long missed = 0;
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(&missed, ignored.data(), sizeof missed, cudaMemcpyDeviceToHost));
    std::size_t outside = 0;
    for (std::uint8_t s : host) { outside += s < 20 || s >= 220; }
    CHECK(missed == outside);
    options.accumulate = true;  // a second call adds every piece again
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, n, hist.buffer.data(), 200, 20, 220, nullptr, options));
    auto twice = hist_test::even_counts(host, 20, 220, 200);
    for (double& e : twice) { e *= 2; }
    hist_test::require_equal(hist.get(), twice);
    // RGBA, three active channels: pieces end on whole 16-byte vectors of whole pixels.
    const int bins[3] = {256, 16, 100}, lo[3] = {0, 0, 50}, hi[3] = {256, 256, 150};
    check_channels<4, 3>(host, n / 4 - 1, misalign, bins, lo, hi);
    check_channels<2, 2>(host, n / 2 - 1, misalign, bins, lo, hi);
  }
  // Rows: short rows go several to a piece, long rows are cut; rows 16 + 5 bytes apart beyond their length.
  for (std::size_t row : {std::size_t{1000}, limit / 3, 2 * limit + 5}) {
    INFO("rows of " << row << " bytes");
    const std::size_t stride = row + 21, rows = n / stride;
    hist_test::device_samples<std::uint8_t> in(host, 2);
    hist_test::device_hist<unsigned> hist(256);
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, row, rows, stride, hist.buffer.data(), 256, 0, 256, nullptr,
                                               hist_test::requested()));
    std::vector<double> expected(256, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < row; ++i) { expected[host[r * stride + i]] += 1; }
    }
    hist_test::require_equal(hist.get(), expected);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("a forced path that cannot serve the call is refused with a message") {
  hist_test::device_samples<float> in(std::vector<float>(100, 0.5f), 0);
  hist_test::device_hist<unsigned> hist(10);
  const hist_test::forced_path force(histogram_path::byte_lanes);
  CHECK(onchip::histogram_even(in.data, 100, hist.buffer.data(), 10, 0.0f, 1.0f, nullptr, hist_test::requested()) ==
        cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("byte_lanes cannot serve this call") != std::string::npos);
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("infinite bounds, or bounds whose width overflows float, are refused with a message") {
  hist_test::device_samples<float> in(std::vector<float>(100, 0.5f), 0);
  hist_test::device_hist<unsigned> hist(16);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(onchip::histogram_even(in.data, 100, hist.buffer.data(), 16, -inf, inf) == cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("lower and upper must be finite") != std::string::npos);
  CHECK(onchip::histogram_even(in.data, 100, hist.buffer.data(), 16, -3e38f, 3e38f) == cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("overflows the levels' floating type") != std::string::npos);
  const auto untouched = hist.get();  // nothing was written: still the poison
  CHECK(untouched[0] == 0x5a5a5a5au);
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("the cached device limits are the device's, and planned blocks are resident") {
  int device = 0;
  onchip::detail::device_limits limits{};
  ONCHIP_CUDA_REQUIRE(onchip::detail::current_device_limits(device, limits, "test"));
  cudaDeviceProp prop{};
  ONCHIP_CUDA_REQUIRE(cudaGetDeviceProperties(&prop, device));
  CHECK(limits.sms == prop.multiProcessorCount);
  CHECK(limits.arch == prop.major * 10 + prop.minor);
  CHECK(limits.smem_per_block_optin == prop.sharedMemPerBlockOptin);
  CHECK(limits.smem_per_sm == prop.sharedMemPerMultiprocessor);
  CHECK(limits.max_threads_per_sm == prop.maxThreadsPerMultiProcessor);
  CHECK(limits.regs_per_sm == prop.regsPerMultiprocessor);
  // The shared-replica kernel of f32 / 1024 bins and the byte kernel: the occupancy calculator agrees.
  using namespace onchip::detail;
  using f32_job = histogram_job<1, 1, float, no_weights, plain_binners<1, onchip::bin_even<float>>, unsigned>;
  using u8_job = histogram_job<1, 1, std::uint8_t, no_weights, plain_binners<1, onchip::bin_even<int>>, unsigned>;
  f32_job f{};
  f.offset[1] = 1024;
  f.row_samples = std::size_t{1} << 28;
  f.rows = 1;
  const launch_plan fp = plan_histogram(call_of(f, false), limits);
  [[maybe_unused]] constexpr kernel_shape s = shape_v<histogram_path::shared_replicas, f32_job>;
  constexpr auto shared = shared_kernel<f32_job, unsigned, s.threads, s.blocks, s.vectors>;
  ONCHIP_CUDA_REQUIRE((allow_dynamic_smem<shared>(device, limits, "test")));
  int resident = 0;
  ONCHIP_CUDA_REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, shared, fp.threads, fp.smem_bytes));
  CHECK(fp.path == histogram_path::shared_replicas);
  CHECK(resident >= fp.blocks_per_sm);
  u8_job u{};
  u.offset[1] = 256;
  u.row_samples = std::size_t{1} << 28;
  u.rows = 1;
  const launch_plan up = plan_histogram(call_of(u, false), limits);
  if (up.path == histogram_path::byte_lanes) {
    [[maybe_unused]] constexpr kernel_shape b = shape_v<histogram_path::byte_lanes, u8_job>;
    constexpr auto lanes = byte_lanes_kernel<u8_job, b.threads, b.blocks, b.vectors>;
    ONCHIP_CUDA_REQUIRE((allow_dynamic_smem<lanes>(device, limits, "test")));
    ONCHIP_CUDA_REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, lanes, up.threads, up.smem_bytes));
    CHECK(resident >= up.blocks_per_sm);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(15)
ONCHIP_GPU_TEST_CASE("calls from eight host threads at once, each on its own stream") {
  const auto host = hist_test::make_samples<float>(hist_test::sized(1 << 20), 0.0, 1.0, distribution::uniform, 21);
  hist_test::device_samples<float> in(host, 0);
  const std::vector<double> expected = hist_test::even_counts(host, 0.0f, 1.0f, 1000);
  std::vector<hist_test::device_hist<unsigned>> hists;
  for (int t = 0; t < 8; ++t) { hists.emplace_back(1000); }
  std::vector<cudaError_t> results(8, cudaErrorUnknown);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      cudaStream_t stream = nullptr;
      results[t] = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (int k = 0; k < 20 && results[t] == cudaSuccess; ++k) {
        results[t] = onchip::histogram_even(in.data, host.size(), hists[t].buffer.data(), 1000, 0.0f, 1.0f, stream);
      }
      if (results[t] == cudaSuccess) { results[t] = cudaStreamSynchronize(stream); }
      cudaStreamDestroy(stream);
    });
  }
  for (auto& t : threads) { t.join(); }
  for (int t = 0; t < 8; ++t) {
    ONCHIP_CUDA_REQUIRE(results[t]);
    hist_test::require_equal(hists[t].get(), expected);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(16)
ONCHIP_GPU_TEST_CASE("small inputs: one block zeroes a small output itself, accumulates, or leaves a big one to a memset") {
  // f32 (the shared replicas), then bytes (the byte kernel).
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{4096}, std::size_t{16411}}) {
    INFO("n " << n);
    const auto host = hist_test::make_samples<float>(n, 0.0, 1.0, distribution::uniform, static_cast<unsigned>(n));
    hist_test::device_samples<float> in(host, 4);
    for (int bins : {1, 300, 100000}) {  // 100000 bins: 400 KB of output, more than a block zeroes
      INFO("bins " << bins);
      check_then_accumulate(in.data, n, bins, 0.0f, 1.0f, hist_test::even_counts(host, 0.0f, 1.0f, bins));
    }
  }
  // Bytes: one block of the byte kernel per 16 KiB, so 16411 bytes take two blocks and a memset.
  for (std::size_t n : {1, 4096, 16384, 16411, 70001}) {
    INFO("bytes, n " << n);
    const auto seed = static_cast<unsigned>(n);
    const auto host = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::skewed, seed);
    hist_test::device_samples<std::uint8_t> in(host, 3);
    for (int bins : {256, 100000}) {
      INFO("bins " << bins);
      check_then_accumulate(in.data, n, bins, 0, 256, hist_test::even_counts(host, 0, 256, bins));
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(17)
ONCHIP_GPU_TEST_CASE("small inputs on several blocks: a memset zeroes the output, on every path") {
  using P = histogram_path;
  // f32 on 3 to 128 blocks (8192 samples a block of the shared replicas), misaligned by one sample.
  for (std::size_t n : {std::size_t{16411}, std::size_t{100003}, std::size_t{1} << 20}) {
    INFO("f32, n " << n);
    const auto host = hist_test::make_samples<float>(n, -0.1, 1.1, distribution::uniform, static_cast<unsigned>(n));
    hist_test::device_samples<float> in(host, 4);
    for (int bins : {1, 300, 16384}) {
      INFO("bins " << bins);
      const std::vector<double> expected = hist_test::even_counts(host, 0.0f, 1.0f, bins);
      check_forced({P::automatic, P::shared_replicas, P::global_atomics}, expected, n,
                   [&](unsigned* hist, const onchip::histogram_options& options) {
                     return onchip::histogram_even(in.data, n, hist, bins, 0.0f, 1.0f, nullptr, options);
                   });
      check_then_accumulate(in.data, n, bins, 0.0f, 1.0f, expected);
    }
  }
  // 16-bit samples on the packed counters (which add carries into the output while counting) and 16-bit range
  // binning (which folds values into the output), bytes on the byte kernel: several blocks each, every path.
  const std::size_t n = 300001;
  const auto shorts = hist_test::make_samples<std::uint16_t>(n, 0, 65536, distribution::skewed, 5);
  check_paths(shorts, 4000, 100, 60100, {P::shared_packed16, P::shared_replicas, P::global_atomics});
  std::vector<std::uint16_t> levels;
  for (int v = 0; v <= 65535; v += 255) { levels.push_back(static_cast<std::uint16_t>(v)); }
  check_range_paths(shorts, levels);
  const auto bytes = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::skewed, 6);
  check_paths(bytes, 256, 0, 256, {P::byte_lanes});
}
#endif

#if ONCHIP_TEST_PART_IS(18)
ONCHIP_GPU_TEST_CASE("small inputs on one and on several blocks, captured in a graph and replayed") {
  const std::size_t n = 200001, few = 4096;  // several blocks after a memset; one block zeroing its own output
  const auto host = hist_test::make_samples<float>(n, 0.0, 1.0, distribution::uniform, 41);
  hist_test::device_samples<float> in(host, 0);
  const auto bytes = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::skewed, 42);
  hist_test::device_samples<std::uint8_t> b(bytes, 0);
  hist_test::device_hist<unsigned> f32_hist(1000), u8_hist(256), one_block(1000);
  cudaStream_t stream = nullptr;
  ONCHIP_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  ONCHIP_CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t f32_call = onchip::histogram_even(in.data, n, f32_hist.buffer.data(), 1000, 0.0f, 1.0f, stream);
  const cudaError_t u8_call = onchip::histogram_even(b.data, n, u8_hist.buffer.data(), 256, 0, 256, stream);
  const cudaError_t one_call = onchip::histogram_even(in.data, few, one_block.buffer.data(), 1000, 0.0f, 1.0f, stream);
  ONCHIP_CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  ONCHIP_CUDA_REQUIRE(f32_call);
  ONCHIP_CUDA_REQUIRE(u8_call);
  ONCHIP_CUDA_REQUIRE(one_call);
  const std::vector<float> first(host.begin(), host.begin() + few);
  cudaGraphExec_t exec = nullptr;
  ONCHIP_CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {  // each replay zeroes the outputs again
    INFO("replay " << replay);
    ONCHIP_CUDA_REQUIRE(cudaMemsetAsync(f32_hist.buffer.data(), 0x5a, f32_hist.buffer.bytes(), stream));
    ONCHIP_CUDA_REQUIRE(cudaMemsetAsync(u8_hist.buffer.data(), 0x5a, u8_hist.buffer.bytes(), stream));
    ONCHIP_CUDA_REQUIRE(cudaMemsetAsync(one_block.buffer.data(), 0x5a, one_block.buffer.bytes(), stream));
    ONCHIP_CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    ONCHIP_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    hist_test::require_equal(f32_hist.get(), hist_test::even_counts(host, 0, 1, 1000));
    hist_test::require_equal(u8_hist.get(), hist_test::even_counts(bytes, 0, 256, 256));
    hist_test::require_equal(one_block.get(), hist_test::even_counts(first, 0, 1, 1000));
  }
  ONCHIP_CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  ONCHIP_CUDA_REQUIRE(cudaGraphDestroy(graph));
  ONCHIP_CUDA_REQUIRE(cudaStreamDestroy(stream));
}
#endif

#if ONCHIP_TEST_PART_IS(19)
ONCHIP_GPU_TEST_CASE("many small segments of bytes and of 16-bit samples, empty ones among them") {
  const int segments = 20000;
  std::mt19937 rng(77);
  std::vector<long long> offsets(segments + 1, 0);
  for (int s = 0; s < segments; ++s) { offsets[s + 1] = offsets[s] + (s % 5 == 0 ? 0 : rng() % 300); }
  const auto n = static_cast<std::size_t>(offsets.back());
  onchip_test::device_buffer<long long> d_offsets(offsets.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_offsets.data(), offsets.data(), offsets.size() * sizeof(long long), cudaMemcpyHostToDevice));
  auto check = [&](const auto& samples, int bins, int lo, int hi) {
    using S = typename std::decay_t<decltype(samples)>::value_type;
    hist_test::device_samples<S> in(samples, 0);
    hist_test::device_hist<unsigned> hist(static_cast<std::size_t>(bins) * segments);
    ONCHIP_CUDA_REQUIRE(onchip::segmented_histogram_even(in.data, d_offsets.data(), segments, hist.buffer.data(), bins, lo,
                                                        hi, nullptr, hist_test::requested()));
    std::vector<double> expected(static_cast<std::size_t>(bins) * segments, 0.0);
    for (int s = 0; s < segments; ++s) {
      for (long long i = offsets[s]; i < offsets[s + 1]; ++i) {
        const int b = hist_test::reference_even(samples[i], lo, hi, bins);
        if (b >= 0) { expected[static_cast<std::size_t>(s) * bins + b] += 1; }
      }
    }
    hist_test::require_equal(hist.get(), expected);
  };
  check(hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::uniform, 3), 256, 0, 256);
  check(hist_test::make_samples<std::uint16_t>(n, 0, 65536, distribution::skewed, 4), 64, 0, 65536);
}
#endif

#if ONCHIP_TEST_PART_IS(20)
ONCHIP_GPU_TEST_CASE("inputs past 4 GiB: more than 2^32 hits in one bin, counted in 64-bit counters") {
  const std::size_t u16_samples = (std::size_t{1} << 32) + 5;  // 8 GiB + 10 bytes
  const std::size_t bytes = u16_samples * 2 + 16;
  if (!hist_test::huge_input_fits(bytes)) { return; }
  onchip_test::device_buffer<unsigned char> buffer(bytes);
  ONCHIP_CUDA_REQUIRE(cudaMemset(buffer.data(), 0x2a, bytes));
  hist_test::device_hist<unsigned long long> hist(1024);
  // Bytes, misaligned by 3: the byte kernel's per-block sums and the output pass 2^32 in bin 42.
  const std::size_t u8_samples = (std::size_t{9} << 29) + 7;  // 4.5 GiB + 7
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(buffer.data() + 3, u8_samples, hist.buffer.data(), 256, 0, 256));
  auto got = hist.get();
  std::vector<double> expected(256, 0.0);
  expected[42] = static_cast<double>(u8_samples);
  got.resize(256);
  hist_test::require_equal(got, expected);
  // 16-bit samples 0x2a2a = 10794: bin 10794 * 1024 / 65536 = 168 of 1024, with 2^32 + 5 hits.
  const auto* u16 = reinterpret_cast<const std::uint16_t*>(buffer.data() + 2);
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(u16, u16_samples, hist.buffer.data(), 1024, 0, 65536));
  std::vector<double> expected16(1024, 0.0);
  expected16[168] = static_cast<double>(u16_samples);
  hist_test::require_equal(hist.get(), expected16);
}
#endif
