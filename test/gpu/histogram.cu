// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The histogram on the device: bin counts x distributions x sizes against the host reference; CUB on the same
// input where the semantics coincide; 2-D regions, channels, weights, segments, accumulate, ignored samples; bad
// input rejected without writing; the block primitive, including 16-bit counters past 65535. Compiled as 13 units
// (ONCHIP_TEST_PART 0 to 12, a test case or a group of light ones each), so that a build on several cores compiles
// them side by side.
#include <onchip/histogram.cuh>

#include <cub/device/device_histogram.cuh>

#include <cuda/std/array>

#include <cstdio>
#include <numeric>

#include "histogram_common.cuh"

#ifndef ONCHIP_TEST_PART
#  error "compile with -DONCHIP_TEST_PART=0 to 12, or -1 for every part (test/gpu/CMakeLists.txt builds them)"
#endif

using hist_test::distribution;

namespace {

[[maybe_unused]] constexpr distribution all_distributions[] = {
    distribution::uniform,     distribution::degenerate,   distribution::skewed,   distribution::sorted_runs,
    distribution::alternating, distribution::out_of_range, distribution::nan_laced};

[[maybe_unused]] std::vector<double> counts_of(const std::vector<int>& bins_of_samples, int bins) {
  std::vector<double> c(bins, 0.0);
  for (int b : bins_of_samples) {
    if (b >= 0) { c[b] += 1; }
  }
  return c;
}

template <class S, class L>
std::vector<double> reference_even_counts(const std::vector<S>& s, L lo, L hi, int bins) {
  std::vector<int> b(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) { b[i] = hist_test::reference_even(s[i], lo, hi, bins); }
  return counts_of(b, bins);
}

}  // namespace

#if ONCHIP_TEST_PART_IS(3)
ONCHIP_GPU_TEST_CASE("bin counts from 1 to 2^20 on every distribution (f32 samples, u32 counters)") {
  for (int bins : {1, 2, 7, 64, 255, 256, 257, 1000, 4096, 65536, 1 << 20}) {
    for (distribution d : all_distributions) {
      INFO("bins " << bins << ", " << hist_test::name(d));
      const auto host =
          hist_test::make_samples<float>(hist_test::sized((std::size_t{1} << 20) + 3), 0.0, 1.0, d, 17u + bins);
      hist_test::check_even<unsigned>(host, bins, 0.0f, 1.0f);
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(4)
ONCHIP_GPU_TEST_CASE("sizes 0, 1, 31, 32, 33, 1000, 2^20 + 3 and misaligned starts (u8 and u16 samples)") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                        std::size_t{1000}, hist_test::sized((std::size_t{1} << 20) + 3)}) {
    for (std::size_t offset = 0; offset < 16; offset += 5) {
      INFO("n " << n << ", offset " << offset);
      const auto bytes = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::uniform, 3);
      hist_test::check_even<unsigned>(bytes, 256, 0, 256, offset);
      const auto shorts = hist_test::make_samples<std::uint16_t>(n, 0, 4096, distribution::skewed, 4);
      hist_test::check_even<unsigned>(shorts, 4096, 0, 4096, offset & ~std::size_t{1});
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(5)
ONCHIP_GPU_TEST_CASE("2^28 bytes into 256 bins, as CUB counts them") {
  const std::size_t n = hist_test::sized(std::size_t{1} << 28);
  std::vector<std::uint8_t> host(n);
  std::mt19937 rng(28);
  for (auto& x : host) { x = static_cast<std::uint8_t>(rng() >> 24); }
  hist_test::device_samples<std::uint8_t> in(host, 0);
  hist_test::device_hist<unsigned> ours(256);
  onchip_test::device_buffer<int> theirs(256);
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, n, ours.buffer.data(), 256, 0, 256));
  std::size_t temp_bytes = 0;
  ONCHIP_CUDA_REQUIRE(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, in.data, theirs.data(), 257, 0, 256,
                                                          static_cast<long long>(n)));
  onchip_test::device_buffer<unsigned char> temp(temp_bytes);
  ONCHIP_CUDA_REQUIRE(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, in.data, theirs.data(), 257, 0,
                                                          256, static_cast<long long>(n)));
  std::vector<int> cub_counts(256);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(cub_counts.data(), theirs.data(), 256 * sizeof(int), cudaMemcpyDeviceToHost));
  const auto got = ours.get();
  for (int b = 0; b < 256; ++b) { REQUIRE(got[b] == static_cast<unsigned>(cub_counts[b])); }
}
#endif

#if ONCHIP_TEST_PART_IS(6)
ONCHIP_GPU_TEST_CASE("range binning with 1025 levels matches CUB's HistogramRange and the reference") {
  std::vector<float> levels(1025);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (auto& l : levels) { l = u(rng); }
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  const int num_levels = static_cast<int>(levels.size());
  onchip_test::device_buffer<float> d_levels(levels.size());
  ONCHIP_CUDA_REQUIRE(
      cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (distribution d : {distribution::uniform, distribution::degenerate, distribution::nan_laced}) {
    INFO(hist_test::name(d));
    const auto host =
        hist_test::make_samples<float>(hist_test::sized((std::size_t{1} << 20) + 7), 0.0, 1.0, d, 12);
    hist_test::device_samples<float> in(host, 4);
    hist_test::device_hist<unsigned> ours(num_levels - 1);
    ONCHIP_CUDA_REQUIRE(
        onchip::histogram_range(in.data, host.size(), ours.buffer.data(), d_levels.data(), num_levels));
    std::vector<int> ref(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) { ref[i] = hist_test::reference_range(host[i], levels); }
    const auto got = ours.get();
    hist_test::require_equal(got, counts_of(ref, num_levels - 1));
    onchip_test::device_buffer<int> theirs(num_levels - 1);
    std::size_t temp_bytes = 0;
    ONCHIP_CUDA_REQUIRE(cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes, in.data, theirs.data(),
                                                             num_levels, d_levels.data(),
                                                             static_cast<long long>(host.size())));
    onchip_test::device_buffer<unsigned char> temp(temp_bytes);
    ONCHIP_CUDA_REQUIRE(cub::DeviceHistogram::HistogramRange(temp.data(), temp_bytes, in.data, theirs.data(),
                                                             num_levels, d_levels.data(),
                                                             static_cast<long long>(host.size())));
    std::vector<int> cub_counts(num_levels - 1);
    ONCHIP_CUDA_REQUIRE(
        cudaMemcpy(cub_counts.data(), theirs.data(), cub_counts.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < num_levels - 1; ++b) { REQUIRE(got[b] == static_cast<unsigned>(cub_counts[b])); }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(7)
ONCHIP_GPU_TEST_CASE("a custom binner and bin_identity") {
  const auto host = hist_test::make_samples<int>(100003, -50, 1100, distribution::uniform, 8);
  hist_test::device_samples<int> in(host, 0);
  hist_test::device_hist<unsigned long long> ours(1000);
  ONCHIP_CUDA_REQUIRE(onchip::histogram(in.data, host.size(), ours.buffer.data(), 1000, onchip::bin_identity{}));
  std::vector<int> ref(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) { ref[i] = host[i] >= 0 && host[i] < 1000 ? host[i] : -1; }
  hist_test::require_equal(ours.get(), counts_of(ref, 1000));
  // A user callable: bin = x mod 10 for even x, ignore odd.
  hist_test::device_hist<int> tens(10);
  ONCHIP_CUDA_REQUIRE(onchip::histogram(in.data, host.size(), tens.buffer.data(), 10, [] __device__(int x) {
    return x % 2 == 0 && x >= 0 ? (x / 2) % 10 : -1;
  }));
  for (std::size_t i = 0; i < host.size(); ++i) {
    ref[i] = host[i] % 2 == 0 && host[i] >= 0 ? (host[i] / 2) % 10 : -1;
  }
  hist_test::require_equal(tens.get(), counts_of(ref, 10));
}
#endif

#if ONCHIP_TEST_PART_IS(8)
ONCHIP_GPU_TEST_CASE("bin counts beyond shared memory (2^22, 2^24) use the bounded path and stay exact") {
  for (int bins : {1 << 22, 1 << 24}) {
    INFO("bins " << bins);
    const auto host = hist_test::make_samples<std::uint32_t>(hist_test::sized((std::size_t{1} << 22) + 5), 0, 4e9,
                                                             distribution::uniform, 9);
    hist_test::check_even<unsigned>(host, bins, 0LL, 4000000000LL);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(9)
ONCHIP_GPU_TEST_CASE("a 2-D region of interest with padded rows") {
  const std::size_t row_samples = 1001, rows = 37, stride_elems = 1013;
  auto host = hist_test::make_samples<std::uint16_t>(rows * stride_elems, 0, 1024, distribution::uniform, 21);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = row_samples; c < stride_elems; ++c) { host[r * stride_elems + c] = 7; }  // padding: bin 7
  }
  hist_test::device_samples<std::uint16_t> in(host, 0);
  for (std::size_t used_rows : {rows, std::size_t{1}}) {
    hist_test::device_hist<unsigned> ours(512);
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(
        in.data, row_samples, used_rows, stride_elems * sizeof(std::uint16_t), ours.buffer.data(), 512, 0, 1024));
    std::vector<int> ref;
    for (std::size_t r = 0; r < used_rows; ++r) {
      for (std::size_t c = 0; c < row_samples; ++c) {
        ref.push_back(hist_test::reference_even(host[r * stride_elems + c], 0, 1024, 512));
      }
    }
    hist_test::require_equal(ours.get(), counts_of(ref, 512));
  }
  // Many short rows (one block per row).
  hist_test::device_hist<unsigned> small(16);
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, 5, rows, stride_elems * sizeof(std::uint16_t),
                                             small.buffer.data(), 16, 0, 1024));
  std::vector<int> ref;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < 5; ++c) {
      ref.push_back(hist_test::reference_even(host[r * stride_elems + c], 0, 1024, 16));
    }
  }
  hist_test::require_equal(small.get(), counts_of(ref, 16));
}
#endif

/// The RGBA tests' input: 2^20 + 1 uniform pixels of four byte channels, on the host and on the device.
struct rgba_pixels {
  std::size_t pixels = hist_test::sized((std::size_t{1} << 20) + 1);
  std::vector<std::uint8_t> host =
      hist_test::make_samples<std::uint8_t>(pixels * 4, 0, 256, distribution::uniform, 31);
  hist_test::device_samples<std::uint8_t> in{host, 0};
};

#if ONCHIP_TEST_PART_IS(10)
ONCHIP_GPU_TEST_CASE("RGBA with 3 active channels: even bins match CUB's MultiHistogramEven and the reference") {
  const rgba_pixels input;
  const auto& [pixels, host, in] = input;
  hist_test::device_hist<unsigned> r(256), g(128), b(17);
  unsigned* const ours[3] = {r.buffer.data(), g.buffer.data(), b.buffer.data()};
  const int bins[3] = {256, 128, 17};
  const int lower[3] = {0, 0, 10}, upper[3] = {256, 256, 200};
  ONCHIP_CUDA_REQUIRE((onchip::multi_histogram_even<4, 3>(in.data, pixels, ours, bins, lower, upper)));
  onchip_test::device_buffer<int> c0(256), c1(128), c2(17);
  const cuda::std::array<int*, 3> theirs = {c0.data(), c1.data(), c2.data()};
  const cuda::std::array<int, 3> levels = {257, 129, 18}, cub_lower = {0, 0, 10}, cub_upper = {256, 256, 200};
  std::size_t temp_bytes = 0;
  ONCHIP_CUDA_REQUIRE((cub::DeviceHistogram::MultiHistogramEven<4, 3>(
      nullptr, temp_bytes, in.data, theirs, levels, cub_lower, cub_upper, static_cast<long long>(pixels))));
  onchip_test::device_buffer<unsigned char> temp(temp_bytes);
  ONCHIP_CUDA_REQUIRE((cub::DeviceHistogram::MultiHistogramEven<4, 3>(
      temp.data(), temp_bytes, in.data, theirs, levels, cub_lower, cub_upper, static_cast<long long>(pixels))));
  const hist_test::device_hist<unsigned>* mine[3] = {&r, &g, &b};
  for (int c = 0; c < 3; ++c) {
    INFO("channel " << c);
    std::vector<int> cub_counts(bins[c]);
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(cub_counts.data(), theirs[c], bins[c] * sizeof(int), cudaMemcpyDeviceToHost));
    const auto got = mine[c]->get();
    std::vector<int> ref;
    for (std::size_t p = 0; p < pixels; ++p) {
      ref.push_back(hist_test::reference_even(host[p * 4 + c], lower[c], upper[c], bins[c]));
    }
    hist_test::require_equal(got, counts_of(ref, bins[c]));
    for (int k = 0; k < bins[c]; ++k) { REQUIRE(got[k] == static_cast<unsigned>(cub_counts[k])); }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(11)
ONCHIP_GPU_TEST_CASE("RGBA with 3 active channels: range levels per channel match the reference") {
  const rgba_pixels input;
  const auto& [pixels, host, in] = input;
  std::vector<int> lv0 = {0, 10, 100, 256}, lv1 = {5, 6, 7, 8, 9, 250}, lv2 = {0, 128, 255};
  onchip_test::device_buffer<int> d0(lv0.size()), d1(lv1.size()), d2(lv2.size());
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d0.data(), lv0.data(), lv0.size() * sizeof(int), cudaMemcpyHostToDevice));
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d1.data(), lv1.data(), lv1.size() * sizeof(int), cudaMemcpyHostToDevice));
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(d2.data(), lv2.data(), lv2.size() * sizeof(int), cudaMemcpyHostToDevice));
  hist_test::device_hist<unsigned> x(3), y(5), z(2);
  unsigned* const outs[3] = {x.buffer.data(), y.buffer.data(), z.buffer.data()};
  const int* const lvls[3] = {d0.data(), d1.data(), d2.data()};
  const int nl[3] = {4, 6, 3};
  ONCHIP_CUDA_REQUIRE((onchip::multi_histogram_range<4, 3>(in.data, pixels, outs, lvls, nl)));
  const std::vector<int>* host_levels[3] = {&lv0, &lv1, &lv2};
  const hist_test::device_hist<unsigned>* range_out[3] = {&x, &y, &z};
  for (int c = 0; c < 3; ++c) {
    std::vector<int> ref;
    for (std::size_t p = 0; p < pixels; ++p) {
      ref.push_back(hist_test::reference_range(host[p * 4 + c], *host_levels[c]));
    }
    hist_test::require_equal(range_out[c]->get(), counts_of(ref, nl[c] - 1));
  }
}
#endif

#if ONCHIP_TEST_PART_IS(0)
ONCHIP_GPU_TEST_CASE(
    "weights read beside the samples: every pairing of alignments, odd sizes, samples in no bin") {
  // Samples and weights at every 4-byte offset from 16-byte alignment (paired when the offsets agree, read one by
  // one otherwise), in the shared path (1024 bins) and the global one (2^20 bins); weights in eighths, so the
  // double sums are exact; a quarter of the samples outside [0, 1), counted by options.ignored.
  const std::size_t sizes[] = {0, 1, 3, 17, 1000, 65537, hist_test::sized((std::size_t{1} << 20) + 5)};
  for (std::size_t n : sizes) {
    const auto samples =
        hist_test::make_samples<float>(n, -0.25, 1.25, distribution::uniform, static_cast<unsigned>(43 + n));
    std::vector<float> weights(n);
    std::mt19937 rng(44 + static_cast<unsigned>(n));
    for (auto& w : weights) { w = static_cast<float>(rng() % 1000) / 8.0f; }
    for (int bins : {1024, 1 << 20}) {
      std::vector<double> expected(bins, 0.0);
      unsigned long long outside = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const int b = hist_test::reference_even(samples[i], 0.0f, 1.0f, bins);
        if (b >= 0) {
          expected[b] += weights[i];
        } else {
          ++outside;
        }
      }
      for (std::size_t sample_offset = 0; sample_offset < 16; sample_offset += 4) {
        for (std::size_t weight_offset = 0; weight_offset < 16; weight_offset += 4) {
          CAPTURE(n);
          CAPTURE(bins);
          CAPTURE(sample_offset);
          CAPTURE(weight_offset);
          hist_test::device_samples<float> in(samples, sample_offset);
          hist_test::device_samples<float> w(weights, weight_offset);
          hist_test::device_hist<double> ours(bins);
          onchip_test::device_buffer<unsigned long long> ignored(1);
          ONCHIP_CUDA_REQUIRE(cudaMemset(ignored.data(), 0, sizeof(unsigned long long)));
          onchip::histogram_options options;
          options.ignored = ignored.data();
          ONCHIP_CUDA_REQUIRE(onchip::weighted_histogram_even(in.data, w.data, n, ours.buffer.data(), bins, 0.0f,
                                                              1.0f, nullptr, options));
          hist_test::require_equal(ours.get(), expected);
          unsigned long long got_ignored = 0;
          ONCHIP_CUDA_REQUIRE(
              cudaMemcpy(&got_ignored, ignored.data(), sizeof got_ignored, cudaMemcpyDeviceToHost));
          CHECK(got_ignored == outside);
        }
      }
    }
  }
}
#endif

#if ONCHIP_TEST_PART_IS(0)
ONCHIP_GPU_TEST_CASE("weights: float weights into double counters, integer weights into 64-bit counters") {
  const std::size_t n = 500009;
  const auto samples = hist_test::make_samples<float>(n, 0.0, 1.0, distribution::uniform, 41);
  std::vector<float> weights(n);
  std::vector<long long> int_weights(n);
  std::mt19937 rng(42);
  for (std::size_t i = 0; i < n; ++i) {
    weights[i] = static_cast<float>(rng() % 1000) / 8.0f;  // exact in float and double
    int_weights[i] = static_cast<long long>(rng() % 2001) - 1000;
  }
  hist_test::device_samples<float> in(samples, 0);
  hist_test::device_samples<float> w(weights, 0);
  hist_test::device_samples<long long> iw(int_weights, 0);
  hist_test::device_hist<double> ours(1024);
  ONCHIP_CUDA_REQUIRE(onchip::weighted_histogram_even(in.data, w.data, n, ours.buffer.data(), 1024, 0.0f, 1.0f));
  hist_test::device_hist<long long> ours_int(1024);
  ONCHIP_CUDA_REQUIRE(
      onchip::weighted_histogram_even(in.data, iw.data, n, ours_int.buffer.data(), 1024, 0.0f, 1.0f));
  std::vector<double> expected(1024, 0.0), expected_int(1024, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int b = hist_test::reference_even(samples[i], 0.0f, 1.0f, 1024);
    if (b >= 0) {
      expected[b] += weights[i];
      expected_int[b] += static_cast<double>(int_weights[i]);
    }
  }
  hist_test::require_equal(ours.get(), expected);
  hist_test::require_equal(ours_int.get(), expected_int);
  // Range binning with weights.
  std::vector<float> levels = {0.0f, 0.1f, 0.5f, 0.9f, 1.0f};
  onchip_test::device_buffer<float> d_levels(levels.size());
  ONCHIP_CUDA_REQUIRE(
      cudaMemcpy(d_levels.data(), levels.data(), levels.size() * sizeof(float), cudaMemcpyHostToDevice));
  hist_test::device_hist<float> ranged(4);
  ONCHIP_CUDA_REQUIRE(
      onchip::weighted_histogram_range(in.data, w.data, n, ranged.buffer.data(), d_levels.data(), 5));
  std::vector<double> expected_range(4, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int b = hist_test::reference_range(samples[i], levels);
    if (b >= 0) { expected_range[b] += weights[i]; }
  }
  const auto got = ranged.get();
  for (int b = 0; b < 4; ++b) { REQUIRE(std::fabs(got[b] - expected_range[b]) <= 1e-5 * expected_range[b]); }
}
#endif

#if ONCHIP_TEST_PART_IS(12)
ONCHIP_GPU_TEST_CASE("segments, including empty ones, each get their own histogram") {
  const std::size_t n = hist_test::sized(3000017);
  const auto samples = hist_test::make_samples<std::int16_t>(n, -1000, 1000, distribution::uniform, 51);
  const std::vector<long long> offsets = {0,
                                          0,
                                          5,
                                          1005,
                                          1005,
                                          1006,
                                          static_cast<long long>(n) * 2 / 3,
                                          static_cast<long long>(n),
                                          static_cast<long long>(n)};
  const int segments = static_cast<int>(offsets.size()) - 1;
  hist_test::device_samples<std::int16_t> in(samples, 2);
  onchip_test::device_buffer<long long> d_offsets(offsets.size());
  ONCHIP_CUDA_REQUIRE(
      cudaMemcpy(d_offsets.data(), offsets.data(), offsets.size() * sizeof(long long), cudaMemcpyHostToDevice));
  for (int bins : {100, 70000}) {  // shared-memory path and (per segment) beyond it
    INFO("bins " << bins);
    hist_test::device_hist<unsigned> ours(static_cast<std::size_t>(bins) * segments);
    ONCHIP_CUDA_REQUIRE(onchip::segmented_histogram_even(in.data, d_offsets.data(), segments, ours.buffer.data(),
                                                         bins, -1000, 1000));
    std::vector<double> expected(static_cast<std::size_t>(bins) * segments, 0.0);
    for (int s = 0; s < segments; ++s) {
      for (long long i = offsets[s]; i < offsets[s + 1]; ++i) {
        const int b = hist_test::reference_even(samples[i], -1000, 1000, bins);
        if (b >= 0) { expected[static_cast<std::size_t>(s) * bins + b] += 1; }
      }
    }
    hist_test::require_equal(ours.get(), expected);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE(
    "include_upper: the last bin also counts upper (NumPy's rule) on every path, and nothing else moves") {
  // Samples k / 8 for k in [-8, 40] over [0, 4] in 32 * m bins: sample k / 8 is in bin k * m for 0 <= k < 32,
  // upper (k = 32) in the last bin, the rest in none, all exact in float.
  const std::size_t n = hist_test::sized((std::size_t{1} << 20) + 3);
  std::vector<int> k(n);
  std::mt19937 rng(71);
  std::uniform_int_distribution<int> pick(-8, 40);
  for (auto& v : k) { v = pick(rng); }
  std::vector<float> f32(n);
  std::vector<std::uint8_t> u8(n);
  for (std::size_t i = 0; i < n; ++i) {
    f32[i] = static_cast<float>(k[i]) / 8.0f;
    u8[i] = static_cast<std::uint8_t>(k[i] + 215);  // 207 to 255: upper 255 is a sample value
  }
  onchip::histogram_options closed;
  closed.include_upper = true;
  for (int m : {1, 32, 1 << 15}) {  // 32, 1024 and 2^20 bins: shared replicas and the partition path
    const int bins = 32 * m;
    INFO("bins " << bins);
    std::vector<double> expected(static_cast<std::size_t>(bins), 0.0);
    for (int v : k) {
      if (v >= 0 && v < 32) { expected[static_cast<std::size_t>(v) * m] += 1; }
      if (v == 32) { expected[static_cast<std::size_t>(bins) - 1] += 1; }
    }
    hist_test::device_samples<float> in(f32, 4);
    hist_test::device_hist<unsigned> hist(static_cast<std::size_t>(bins));
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, n, hist.buffer.data(), bins, 0.0f, 4.0f, nullptr, closed));
    hist_test::require_equal(hist.get(), expected);
    if (m == 1) {  // weights (all 1: the same counts in float) and segments (the whole input as one segment)
      std::vector<float> ones(n, 1.0f);
      hist_test::device_samples<float> w(ones, 4);
      hist_test::device_hist<float> weighted(32);
      ONCHIP_CUDA_REQUIRE(onchip::weighted_histogram_even(in.data, w.data, n, weighted.buffer.data(), 32, 0.0f,
                                                          4.0f, nullptr, closed));
      hist_test::require_equal(weighted.get(), expected);
      const std::vector<long long> offsets = {0, static_cast<long long>(n)};
      onchip_test::device_buffer<long long> d_offsets(2);
      ONCHIP_CUDA_REQUIRE(
          cudaMemcpy(d_offsets.data(), offsets.data(), sizeof(long long) * 2, cudaMemcpyHostToDevice));
      hist_test::device_hist<unsigned> seg(32);
      ONCHIP_CUDA_REQUIRE(onchip::segmented_histogram_even(in.data, d_offsets.data(), 1, seg.buffer.data(), 32,
                                                           0.0f, 4.0f, nullptr, closed));
      hist_test::require_equal(seg.get(), expected);
    }
  }
  // Bytes with double bounds [215, 255], 40 bins of one value: 255 is counted in the last bin with 254.
  std::vector<double> expected(40, 0.0);
  for (int v : k) {
    if (v >= 0 && v < 40) { expected[static_cast<std::size_t>(v)] += 1; }
    if (v == 40) { expected[39] += 1; }
  }
  hist_test::device_samples<std::uint8_t> bytes(u8, 1);
  hist_test::device_hist<unsigned> hist(40);
  ONCHIP_CUDA_REQUIRE(
      onchip::histogram_even(bytes.data, n, hist.buffer.data(), 40, 215.0, 255.0, nullptr, closed));
  hist_test::require_equal(hist.get(), expected);
  // Integer bounds cannot include upper: an error, and the histogram is not written.
  const std::vector<double> poisoned = [&] {
    std::vector<double> p(40);
    for (auto& v : p) { v = static_cast<double>(0x5a5a5a5au); }
    return p;
  }();
  hist_test::device_hist<unsigned> untouched(40);
  CHECK(onchip::histogram_even(bytes.data, n, untouched.buffer.data(), 40, 215, 255, nullptr, closed) ==
        cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("include_upper") != std::string::npos);
  hist_test::require_equal(untouched.get(), poisoned);
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("accumulate adds into the histogram; n = 0 zeroes it or leaves it") {
  const auto host = hist_test::make_samples<float>(77777, 0.0, 1.0, distribution::uniform, 61);
  hist_test::device_samples<float> in(host, 0);
  hist_test::device_hist<unsigned> hist(300);
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, host.size(), hist.buffer.data(), 300, 0.0f, 1.0f));
  onchip::histogram_options add;
  add.accumulate = true;
  ONCHIP_CUDA_REQUIRE(
      onchip::histogram_even(in.data, host.size(), hist.buffer.data(), 300, 0.0f, 1.0f, nullptr, add));
  auto expected = reference_even_counts(host, 0.0f, 1.0f, 300);
  for (auto& e : expected) { e *= 2; }
  hist_test::require_equal(hist.get(), expected);
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, 0, hist.buffer.data(), 300, 0.0f, 1.0f, nullptr, add));
  hist_test::require_equal(hist.get(), expected);  // untouched
  ONCHIP_CUDA_REQUIRE(
      onchip::histogram_even(static_cast<const float*>(nullptr), 0, hist.buffer.data(), 300, 0.0f, 1.0f));
  hist_test::require_equal(hist.get(), std::vector<double>(300, 0.0));
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("bad input returns cudaErrorInvalidValue with a message and writes nothing") {
  const auto host = hist_test::make_samples<float>(1000, 0.0, 1.0, distribution::uniform, 71);
  hist_test::device_samples<float> in(host, 0);
  hist_test::device_hist<unsigned> hist(16);
  const auto poisoned = hist.get();
  auto expect_invalid = [&](cudaError_t e, const char* text) {
    INFO("expected a message containing: " << text << "; got: " << onchip::last_error_message());
    CHECK(e == cudaErrorInvalidValue);
    CHECK(std::string(onchip::last_error_message()).find(text) != std::string::npos);
    CHECK(hist.get() == poisoned);
  };
  expect_invalid(onchip::histogram_even(in.data, 1000, hist.buffer.data(), 0, 0.0f, 1.0f), "num_bins");
  expect_invalid(onchip::histogram_even(in.data, 1000, hist.buffer.data(), 16, 1.0f, 1.0f), "below upper");
  expect_invalid(onchip::histogram_even(in.data, 1000, hist.buffer.data(), 16, 2.0f, 1.0f), "below upper");
  expect_invalid(onchip::histogram_even(in.data, 1000, hist.buffer.data(), 16, 0.0f, std::nanf("")), "NaN");
  expect_invalid(
      onchip::histogram_even(static_cast<const float*>(nullptr), 1000, hist.buffer.data(), 16, 0.0f, 1.0f),
      "samples pointer is null");
  expect_invalid(onchip::histogram_even(in.data, 1000, static_cast<unsigned*>(nullptr), 16, 0.0f, 1.0f),
                 "histogram pointer is null");
  expect_invalid(onchip::histogram_even(in.data, 100, 10, 100, hist.buffer.data(), 16, 0.0f, 1.0f),
                 "row_stride_bytes");
  const float* levels = in.data;
  expect_invalid(onchip::histogram_range(in.data, 1000, hist.buffer.data(), levels, 1), "num_levels");
  expect_invalid(onchip::histogram_range(in.data, 1000, hist.buffer.data(), static_cast<const float*>(nullptr), 5),
                 "levels pointer is null");
  expect_invalid(onchip::weighted_histogram_even(in.data, static_cast<const float*>(nullptr), 1000,
                                                 reinterpret_cast<float*>(hist.buffer.data()), 16, 0.0f, 1.0f),
                 "weights pointer is null");
  expect_invalid(onchip::histogram_even(in.data, 1000, hist.buffer.data(), 16, 5, 5), "below upper");
}
#endif

#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("checked mode: unsorted levels trap with a message") {
  for (const char* mode : {"unsorted-levels", "unsorted-u16-levels"}) {  // staged levels; the 16-bit value table
    const auto probe = onchip_test::run_check_probe(mode);
    const int status = probe.first;
    const std::string& output = probe.second;
    INFO(mode << ": " << output);
    CHECK(status != 0);
    CHECK(output.find("levels must be sorted ascending, but level 2 is not below level 3") != std::string::npos);
  }
}
#endif

#if ONCHIP_TEST_PART_IS(2)
// ---- block primitive ------------------------------------------------------------------------------------------

namespace {

template <onchip::block_layout Layout>
struct tile_plan {
  int threads;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto scratch = c.take<float>(33);  // composes with other arrays
    return cuda::std::tuple{scratch, onchip::block_histogram<64, unsigned, Layout>(c, threads)};
  }
};

// One histogram per tile of 1000 samples, stored per block, plus a global flush of the same counts.
template <onchip::block_layout Layout>
__global__ void tile_histograms(const std::uint8_t* in, std::size_t n, unsigned* per_tile, unsigned* total) {
  auto carved = onchip::carve(tile_plan<Layout>{static_cast<int>(blockDim.x)});
  auto& scratch = cuda::std::get<0>(carved);
  auto& hist =
      cuda::std::get<1>(carved);  // a named reference: lambdas cannot capture structured bindings in C++17
  hist.reset();
  const std::size_t begin = blockIdx.x * std::size_t{1000};
  const std::size_t len = n - begin < 1000 ? n - begin : 1000;
  onchip::block_for_each(in + begin, len, [&](std::uint8_t v, std::size_t) { hist.add(v >> 2); });
  scratch[threadIdx.x % 33] = 1.0f;
  hist.store(per_tile + blockIdx.x * 64);
  hist.flush(total);
}

template <onchip::block_layout Layout>
__global__ void many_hits_u16(unsigned* out, int per_thread) {
  onchip::carver smem = onchip::dynamic_smem();
  onchip::block_histogram<5, std::uint16_t, Layout> hist(smem, out);
  hist.reset();
  for (int i = 0; i < per_thread; ++i) {
    hist.add(0);                      // the low half of a word: a carry must not leak into bin 1
    if (i % 3 == 0) { hist.add(3); }  // the high half
    if (i % 100 == 0) { hist.add(1); }
    hist.add(9);  // out of range: ignored
  }
  int register_bins[4] = {4, 4, -1, 2};
  hist.add(register_bins);
  hist.flush(out);
}

// One histogram reset three times in a block: round r counts (i + r) % 64 for i below 1000 + r, and stores it.
// Every reset after the first must wait for the previous store's readers.
__global__ void reused_histogram(unsigned* out) {
  onchip::carver smem = onchip::dynamic_smem();
  onchip::block_histogram<64> hist(smem);
  for (int r = 0; r < 3; ++r) {
    hist.reset();
    for (int i = static_cast<int>(threadIdx.x); i < 1000 + r; i += static_cast<int>(blockDim.x)) {
      hist.add((i + r) % 64);
    }
    hist.store(out + r * 64);
  }
}

// One thread: 65535 hits on bin 1 (the high half of word 0), then hits on bin 0 (its low half) whose wraps
// carry into that full high half.
__global__ void carry_into_full_half(unsigned* out, int low_hits) {
  onchip::carver smem = onchip::dynamic_smem();
  onchip::block_histogram<2, std::uint16_t> hist(smem, out);
  hist.reset();
  if (threadIdx.x == 0) {
    for (int i = 0; i < 65535; ++i) { hist.add(1); }
    for (int i = 0; i < low_hits; ++i) { hist.add(0); }
  }
  hist.flush(out);
}

__global__ void weighted_block(const float* w, int n, double* out) {
  onchip::carver smem = onchip::dynamic_smem();
  onchip::block_histogram<10, double> hist(smem);
  hist.reset();
  for (int i = threadIdx.x; i < n; i += blockDim.x) { hist.add(i % 10, w[i]); }
  hist.flush(out);
}

}  // namespace

ONCHIP_GPU_TEST_CASE("block_histogram: per-tile store and global flush inside a user kernel, both layouts") {
  const std::size_t n = 1000 * 97 + 123;
  const auto host = hist_test::make_samples<std::uint8_t>(n, 0, 256, distribution::skewed, 81);
  hist_test::device_samples<std::uint8_t> in(host, 0);
  const int tiles = static_cast<int>((n + 999) / 1000);
  onchip_test::device_buffer<unsigned> per_tile(static_cast<std::size_t>(tiles) * 64), total(64);
  ONCHIP_CUDA_REQUIRE(cudaMemset(total.data(), 0, total.bytes()));
  std::vector<unsigned> expected_tiles(per_tile.size(), 0), expected_total(64, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ++expected_tiles[(i / 1000) * 64 + (host[i] >> 2)];
    ++expected_total[host[i] >> 2];
  }
  constexpr auto one = onchip::block_layout::one_copy, warps = onchip::block_layout::warp_copies;
  for (int threads : {64, 256, 1024}) {
    for (bool copies : {false, true}) {
      INFO("threads " << threads << (copies ? ", warp copies" : ", one copy"));
      ONCHIP_CUDA_REQUIRE(cudaMemset(total.data(), 0, total.bytes()));
      if (copies) {
        tile_histograms<warps><<<tiles, threads, onchip::smem_bytes(tile_plan<warps>{threads})>>>(
            in.data, n, per_tile.data(), total.data());
      } else {
        tile_histograms<one><<<tiles, threads, onchip::smem_bytes(tile_plan<one>{threads})>>>(
            in.data, n, per_tile.data(), total.data());
      }
      ONCHIP_CUDA_REQUIRE(cudaGetLastError());
      std::vector<unsigned> tiles_got(per_tile.size()), total_got(64);
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(tiles_got.data(), per_tile.data(), per_tile.bytes(), cudaMemcpyDeviceToHost));
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(total_got.data(), total.data(), total.bytes(), cudaMemcpyDeviceToHost));
      CHECK(tiles_got == expected_tiles);
      CHECK(total_got == expected_total);
    }
  }
}

ONCHIP_GPU_TEST_CASE("block_histogram<uint16_t>: more than 65535 hits on one bin in one block lose nothing") {
  const int threads = 512, per_thread = 400;  // 204800 hits on bin 0 in one block
  for (bool copies : {false, true}) {
    INFO((copies ? "warp copies" : "one copy"));
    onchip_test::device_buffer<unsigned> out(5);
    ONCHIP_CUDA_REQUIRE(cudaMemset(out.data(), 0, out.bytes()));
    if (copies) {
      constexpr auto layout = onchip::block_layout::warp_copies;
      const std::size_t bytes = onchip::block_histogram<5, std::uint16_t, layout>::smem_bytes(threads);
      many_hits_u16<layout><<<1, threads, bytes>>>(out.data(), per_thread);
    } else {
      const std::size_t bytes = onchip::block_histogram<5, std::uint16_t>::smem_bytes(threads);
      many_hits_u16<onchip::block_layout::automatic><<<1, threads, bytes>>>(out.data(), per_thread);
    }
    ONCHIP_CUDA_REQUIRE(cudaGetLastError());
    std::vector<unsigned> got(5);
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    const unsigned t = threads;
    CHECK(got[0] == t * per_thread);
    CHECK(got[1] == t * ((per_thread + 99) / 100));
    CHECK(got[2] == t);
    CHECK(got[3] == t * ((per_thread + 2) / 3));
    CHECK(got[4] == 2 * t);
  }
}

ONCHIP_GPU_TEST_CASE("block_histogram: reset, count and store three times in one block") {
  onchip_test::device_buffer<unsigned> out(3 * 64);
  reused_histogram<<<1, 96, onchip::block_histogram<64>::smem_bytes(96)>>>(out.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<unsigned> got(3 * 64), expected(3 * 64, 0);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 1000 + r; ++i) { ++expected[r * 64 + (i + r) % 64]; }
  }
  CHECK(got == expected);
}

ONCHIP_GPU_TEST_CASE("block_histogram<uint16_t>: a carry into a counter holding 65535 loses nothing") {
  for (int low_hits : {65535, 65536, 65536 * 2 + 7}) {
    INFO("hits on bin 0: " << low_hits);
    onchip_test::device_buffer<unsigned> out(2);
    ONCHIP_CUDA_REQUIRE(cudaMemset(out.data(), 0, out.bytes()));
    const std::size_t bytes = onchip::block_histogram<2, std::uint16_t>::smem_bytes(32);
    carry_into_full_half<<<1, 32, bytes>>>(out.data(), low_hits);
    ONCHIP_CUDA_REQUIRE(cudaGetLastError());
    std::vector<unsigned> got(2);
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
    CHECK(got[0] == static_cast<unsigned>(low_hits));
    CHECK(got[1] == 65535u);
  }
}

ONCHIP_GPU_TEST_CASE("block_histogram with double counters adds weights") {
  const int n = 10007;
  std::vector<float> w(n);
  for (int i = 0; i < n; ++i) { w[i] = 0.25f * static_cast<float>(i % 17); }
  hist_test::device_samples<float> d_w(w, 0);
  onchip_test::device_buffer<double> out(10);
  ONCHIP_CUDA_REQUIRE(cudaMemset(out.data(), 0, out.bytes()));
  weighted_block<<<1, 256, onchip::block_histogram<10, double>::smem_bytes(256)>>>(d_w.data, n, out.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<double> got(10), expected(10, 0.0);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) { expected[i % 10] += w[i]; }
  for (int b = 0; b < 10; ++b) { CHECK(got[b] == expected[b]); }
}
#endif
