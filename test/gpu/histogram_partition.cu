// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bins beyond shared memory through the partition path (two passes through a workspace), against the host
// reference: 2^16 + 1 to 2^26 bins, uniform, skewed and one-bin keys, keys turning skewed part-way, n = 0 and 1,
// odd tails, misaligned starts, scatter blocks of many tiles, several chunks, a caller's workspace, a failed
// allocation's fallback, the library's own workspace kept between calls and given back, calls on two streams at
// once, 64-bit counters, a custom binner, and outputs overwritten without a memset (every bin stored by the
// passes). Compiled as four units (ONCHIP_TEST_PART 0 to 3, a group of test cases each), so that a build on several
// cores compiles them side by side.
#include <onchip/histogram.cuh>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "histogram_common.cuh"

#ifndef ONCHIP_TEST_PART
#  error "compile with -DONCHIP_TEST_PART=0 to 3, or -1 for every part (test/gpu/CMakeLists.txt builds them)"
#endif

using onchip::detail::histogram_path;

namespace {

/// Keys with a heavy head: floor(span * u^8), most of them in the first bucket (as Zipf-like data puts them).
template <class S>
std::vector<S> heavy_head(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<S> out(n);
  for (auto& x : out) {
    const double p = u(rng), v = lo + (hi - lo) * p * p * p * p * p * p * p * p;
    x = static_cast<S>(std::is_integral_v<S> ? std::floor(v) : v);
  }
  return out;
}

/// n samples lo + (hi - lo) * position(i, draw), draw() giving uniform numbers in [0, 1) from one seeded generator.
template <class S, class Position>
std::vector<S> positioned(std::size_t n, double lo, double hi, unsigned seed, Position position) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto draw = [&] { return u(rng); };
  std::vector<S> out(n);
  for (std::size_t i = 0; i < n; ++i) { out[i] = static_cast<S>(lo + (hi - lo) * position(i, draw)); }
  return out;
}

/// Keys whose hot spot moves: each run of 40,000 samples puts 90% of them within 1/64 of [lo, hi) at a place of
/// its own, the rest anywhere (a tile's skewed bucket changes from run to run, and lane 0 is often outside it).
template <class S>
std::vector<S> moving_hot_spot(std::size_t n, double lo, double hi, unsigned seed) {
  return positioned<S>(n, lo, hi, seed, [](std::size_t i, auto& draw) {
    const double spot = static_cast<double>((i / 40000 * 37) % 64) / 64.0;
    return draw() < 0.9 ? spot + draw() / 64.0 : draw();
  });
}

/// Keys that turn skewed part-way: the first 3/5 uniform over [lo, hi), then 90% within the first 1/256 of it,
/// the rest anywhere; one sample in 64 throughout lies past hi (in no bin). A block's direct bucket then starts
/// in the middle of its tiles, after some of that bucket's keys went through the partition.
template <class S>
std::vector<S> late_skew(std::size_t n, double lo, double hi, unsigned seed) {
  return positioned<S>(n, lo, hi, seed, [n](std::size_t i, auto& draw) {
    const double p = i >= n / 5 * 3 && draw() < 0.9 ? draw() / 256.0 : draw();
    return i % 64 == 63 ? 1.0 + p : p;
  });
}

/// Keys mostly in two neighbouring bins: 80% at `high`, 15% at `low`, the rest anywhere in [lo, hi).
template <class S>
std::vector<S> two_neighbours(std::size_t n, double lo, double hi, double low, double high, unsigned seed) {
  return positioned<S>(n, 0.0, 1.0, seed, [&](std::size_t, auto& draw) {
    const double p = draw();
    return p < 0.8 ? high : p < 0.95 ? low : lo + (hi - lo) * draw();
  });
}

/**
 * histogram_even of `host` (misaligned by one sample) into a poisoned output of `C` counters, with `path` forced,
 * against the reference; the ignored count, and the path the call reports, too. Then accumulating: twice.
 */
template <class C = unsigned, class S, class L>
void check_even(const std::vector<S>& host, int bins, L lo, L hi, histogram_path path,
                const char* expected_path = nullptr) {
  INFO(bins << " bins, " << host.size() << " samples, path " << onchip::detail::path_name(path));
  hist_test::device_samples<S> in(host, sizeof(S));
  hist_test::device_hist<C> hist(static_cast<std::size_t>(bins));
  onchip_test::device_buffer<unsigned long long> ignored(1);
  ONCHIP_CUDA_REQUIRE(cudaMemset(ignored.data(), 0, sizeof(unsigned long long)));
  const hist_test::forced_path force(path);
  onchip::histogram_options options = hist_test::requested();
  options.ignored = ignored.data();
  const char* ran = nullptr;
  options.path = &ran;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, host.size(), hist.buffer.data(), bins, lo, hi, nullptr, options));
  std::vector<double> expected = hist_test::even_counts(host, lo, hi, bins);
  hist_test::require_equal(hist.get(), expected);
  double in_bins = 0;
  for (double e : expected) { in_bins += e; }
  unsigned long long missed = 0;
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(&missed, ignored.data(), sizeof missed, cudaMemcpyDeviceToHost));
  CHECK(static_cast<double>(missed) == static_cast<double>(host.size()) - in_bins);
  REQUIRE(ran != nullptr);
  CHECK(std::string(ran) == std::string(expected_path != nullptr ? expected_path : onchip::detail::path_name(path)));
  options.accumulate = true;
  options.ignored = nullptr;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, host.size(), hist.buffer.data(), bins, lo, hi, nullptr, options));
  for (auto& e : expected) { e *= 2; }
  hist_test::require_equal(hist.get(), expected);
}

}  // namespace

#if ONCHIP_TEST_PART_IS(0)
ONCHIP_GPU_TEST_CASE("the partition path: 2^16 + 1 to 2^26 bins of f32 and u32 keys, uniform, skewed, one bin, "
                     "a moving hot spot, skewed part-way") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 7);
  // The plan skips the output's memset at 2^24 bins and more (the first chunk's passes store every bin): forced
  // at fewer bins too, where skewed and one-bin keys split buckets and share direct buckets among blocks.
  struct sized_bins {
    int bins;
    bool overwrite;  // histogram_request::partition_overwrite: the plan's choice, or no memset forced
  };
  for (const sized_bins& run : {sized_bins{65537, false}, sized_bins{1 << 20, false}, sized_bins{1 << 22, false},
                                sized_bins{1 << 24, false}, sized_bins{1 << 26, false}, sized_bins{65537, true},
                                sized_bins{1 << 20, true}, sized_bins{1 << 22, true}}) {
    const int bins = run.bins;
    const hist_test::scoped<&onchip::detail::histogram_request::partition_overwrite> forced(run.overwrite);
    const char* clearing = run.overwrite ? "no memset (forced)" : "the plan's memset or not";
    INFO(clearing);
    if (hist_test::under_sanitizer() && bins > (1 << 22)) { continue; }  // minutes of flushes under the tools
    for (auto d : {hist_test::distribution::uniform, hist_test::distribution::degenerate}) {
      INFO(hist_test::name(d));
      check_even(hist_test::make_samples<float>(n, 0.0, 1.0, d, 21), bins, 0.0f, 1.0f, histogram_path::partition);
      check_even(hist_test::make_samples<std::uint32_t>(n, 0.0, 4294967296.0, d, 22), bins, 0LL, 4294967296LL,
                 histogram_path::partition);
    }
    check_even(heavy_head<float>(n, 0.0, 1.0, 23), bins, 0.0f, 1.0f, histogram_path::partition);
    check_even(moving_hot_spot<float>(n, 0.0, 1.0, 26), bins, 0.0f, 1.0f, histogram_path::partition);
    check_even(late_skew<float>(n, 0.0, 1.0, 27), bins, 0.0f, 1.0f, histogram_path::partition);
    check_even<unsigned long long>(late_skew<std::uint32_t>(n, 0.0, 2147483648.0, 28), bins, 0u, 2147483648u,
                                   histogram_path::partition);
    check_even(hist_test::make_samples<std::int32_t>(n, -1e9, 1e9, hist_test::distribution::skewed, 24), bins,
               -1000000000, 1000000000, histogram_path::partition);
  }
  // The plan's own choice for a large input of many bins is the partition.
  check_even(hist_test::make_samples<float>(hist_test::sized(std::size_t{3} << 20), 0.0, 1.0,
                                            hist_test::distribution::uniform, 25),
             1 << 20, 0.0f, 1.0f, histogram_path::automatic,
             hist_test::under_sanitizer() ? "global_atomics" : "partition");
}

#endif
#if ONCHIP_TEST_PART_IS(1)
ONCHIP_GPU_TEST_CASE("the partition path's direct bucket: many tiles a scatter block, over 2^16 hits of a bin") {
  // With the scatter cut to one or two blocks, a small input gives each block many tiles: its direct bucket taken
  // in its first tile and counted on through the rest, more than 65535 samples of one bin in one block's counters,
  // two hot bins side by side, and (forced) the first block to flush storing the bucket's bins while the other
  // waits. f32 keys take tiles of partition_tile(4) samples, i64 keys tiles of partition_tile(8).
  const std::size_t tile4 = static_cast<std::size_t>(onchip::detail::partition_tile(4));
  const std::size_t tile8 = static_cast<std::size_t>(onchip::detail::partition_tile(8));
  const double bin20 = 1.0 / (1 << 20);
  for (int blocks : {1, 2}) {
    INFO(blocks << " scatter blocks");
    const hist_test::scoped<&onchip::detail::histogram_request::partition_scatter_grid> grid(blocks);
    const std::size_t n = (blocks == 1 ? 5 : 9) * tile4 + 3;
    const std::vector<float> one(n, 0.3f);
    const auto pair = two_neighbours<float>(n, 0.0, 1.0, 2000.5 * bin20, 2001.5 * bin20, 51);
    for (bool overwrite : {false, true}) {
      const char* clearing = overwrite ? "no memset (forced)" : "the plan's memset or not";
      INFO(clearing);
      const hist_test::scoped<&onchip::detail::histogram_request::partition_overwrite> forced(overwrite);
      check_even(one, 1 << 20, 0.0f, 1.0f, histogram_path::partition);
      check_even(pair, 1 << 20, 0.0f, 1.0f, histogram_path::partition);
      check_even<unsigned long long>(pair, 1 << 24, 0.0f, 1.0f, histogram_path::partition);
      check_even(heavy_head<float>(n, 0.0, 1.0, 52), 1 << 22, 0.0f, 1.0f, histogram_path::partition);
    }
    const std::size_t n8 = (blocks == 1 ? 9 : 17) * tile8 + 3;
    check_even<double>(two_neighbours<std::int64_t>(n8, 0.0, 1e12, 5e9, 5e9 + 1e6, 53), 1 << 20, 0LL,
                       1000000000000LL, histogram_path::partition);
  }
}

ONCHIP_GPU_TEST_CASE("the partition path: n = 0 and 1, odd tails, NaN and out-of-range samples, 64-bit counters") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{8191}, std::size_t{8193},
                        std::size_t{100003}}) {
    check_even(hist_test::make_samples<float>(n, 0.0, 1.0, hist_test::distribution::uniform, 31), 1 << 20, 0.0f,
               1.0f, histogram_path::partition);
  }
  const std::size_t n = hist_test::sized(std::size_t{1} << 21);
  check_even(hist_test::make_samples<float>(n, 0.0, 1.0, hist_test::distribution::nan_laced, 32), 1 << 18, 0.0f,
             1.0f, histogram_path::partition);
  check_even(hist_test::make_samples<double>(n, -5.0, 5.0, hist_test::distribution::out_of_range, 33), 100000, -5.0,
             5.0, histogram_path::partition);
  check_even<unsigned long long>(hist_test::make_samples<std::uint32_t>(n, 0.0, 4294967296.0,
                                                                        hist_test::distribution::uniform, 34),
                                 1 << 24, 0LL, 4294967296LL, histogram_path::partition);
  check_even<double>(heavy_head<std::int64_t>(n, 0.0, 1e12, 35), 1 << 21, 0LL, 1000000000000LL,
                     histogram_path::partition);
}

#endif
#if ONCHIP_TEST_PART_IS(2)
ONCHIP_GPU_TEST_CASE("the partition path in chunks, in a caller's workspace, and without a workspace") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 3);
  const auto samples = heavy_head<float>(n, 0.0, 1.0, 41);
  {
    INFO("a 1 MiB workspace cap: chunks of under 2^19 samples, after the output's memset and without it");
    const hist_test::scoped<&onchip::detail::histogram_request::workspace_cap> cap(std::size_t{1} << 20);
    check_even(samples, 1 << 22, 0.0f, 1.0f, histogram_path::partition);
    const hist_test::scoped<&onchip::detail::histogram_request::partition_overwrite> forced(true);
    check_even(samples, 1 << 22, 0.0f, 1.0f, histogram_path::partition);
  }
  {
    INFO("the allocation fails: global atomics count instead (after the memset, though the partition would not "
         "have needed it), and the call says so");
    const hist_test::scoped<&onchip::detail::histogram_request::workspace_fails> fail(true);
    const hist_test::scoped<&onchip::detail::histogram_request::partition_overwrite> forced(true);
    check_even(samples, 1 << 22, 0.0f, 1.0f, histogram_path::partition, "global_atomics");
  }
  // A caller's workspace at an odd 2-byte offset, sized by the query; a smaller one is refused.
  std::size_t bytes = 0;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_workspace_bytes<float>(n, 1 << 22, &bytes));
  if (!hist_test::under_sanitizer()) { CHECK(bytes > n * 2); }  // one chunk's keys
  std::size_t none = 1;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_workspace_bytes<float>(n, 4096, &none));
  CHECK(none == 0);  // on chip
  CHECK(onchip::histogram_workspace_bytes<float>(n, 0, &none) == cudaErrorInvalidValue);
  const hist_test::forced_path force(histogram_path::partition);
  ONCHIP_CUDA_REQUIRE((onchip::detail::workspace_bytes<float, unsigned>(n, 1 << 22, &bytes, hist_test::test_request())));
  REQUIRE(bytes > 0);
  onchip_test::device_buffer<unsigned char> workspace(bytes + 2);
  hist_test::device_samples<float> in(samples, 4);
  hist_test::device_hist<unsigned> hist(std::size_t{1} << 22);
  onchip::histogram_options options = hist_test::requested();
  options.workspace = workspace.data() + 2;
  options.workspace_bytes = bytes;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in.data, n, hist.buffer.data(), 1 << 22, 0.0f, 1.0f, nullptr, options));
  hist_test::require_equal(hist.get(), hist_test::even_counts(samples, 0.0f, 1.0f, 1 << 22));
  options.workspace_bytes = bytes - 1;
  CHECK(onchip::histogram_even(in.data, n, hist.buffer.data(), 1 << 22, 0.0f, 1.0f, nullptr, options) ==
        cudaErrorInvalidValue);
  CHECK(std::string(onchip::last_error_message()).find("histogram_workspace_bytes") != std::string::npos);
}

ONCHIP_GPU_TEST_CASE("the partition path's own workspace: kept between calls, given back on request, two streams") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 21) + 5);
  const int bins = 1 << 22;
  const hist_test::forced_path force(histogram_path::partition);
  std::size_t bytes = 0;
  ONCHIP_CUDA_REQUIRE((onchip::detail::workspace_bytes<float, unsigned>(n, bins, &bytes, hist_test::test_request())));
  REQUIRE(bytes > 0);
  int device = 0, pools = 0;
  ONCHIP_CUDA_REQUIRE(cudaGetDevice(&device));
  ONCHIP_CUDA_REQUIRE(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
  auto reserved = [&] {  // bytes the library's pool holds on this device
    const cudaMemPool_t pool = onchip::detail::workspace_pool(device, false);
    REQUIRE(pool != nullptr);
    std::uint64_t held = 0;
    ONCHIP_CUDA_REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &held));
    return held;
  };
  // Two inputs counted at once on two streams, each call taking its workspace from the pool, then again on the
  // memory the pool kept: every histogram equal to its reference.
  const std::vector<float> a = hist_test::make_samples<float>(n, 0.0, 1.0, hist_test::distribution::uniform, 51);
  const std::vector<float> b = heavy_head<float>(n, 0.0, 1.0, 52);
  hist_test::device_samples<float> in_a(a, 4), in_b(b, 0);
  hist_test::device_hist<unsigned> hist_a(bins), hist_b(bins);
  cudaStream_t streams[2] = {};
  for (auto& st : streams) { ONCHIP_CUDA_REQUIRE(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); }
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    const char* ran[2] = {};
    onchip::histogram_options options[2] = {hist_test::requested(), hist_test::requested()};
    for (int k = 0; k < 2; ++k) { options[k].path = &ran[k]; }
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in_a.data, n, hist_a.buffer.data(), bins, 0.0f, 1.0f, streams[0],
                                               options[0]));
    ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in_b.data, n, hist_b.buffer.data(), bins, 0.0f, 1.0f, streams[1],
                                               options[1]));
    for (auto& st : streams) { ONCHIP_CUDA_REQUIRE(cudaStreamSynchronize(st)); }
    CHECK(std::string(ran[0]) == "partition");
    CHECK(std::string(ran[1]) == "partition");
    hist_test::require_equal(hist_a.get(), hist_test::even_counts(a, 0.0f, 1.0f, bins));
    hist_test::require_equal(hist_b.get(), hist_test::even_counts(b, 0.0f, 1.0f, bins));
    if (pools != 0) { CHECK(reserved() >= bytes); }  // kept after the synchronization
  }
  for (auto& st : streams) { ONCHIP_CUDA_REQUIRE(cudaStreamDestroy(st)); }
  // The release gives the pool's memory back to the device and forgets the pool; a later call makes a new one.
  const std::uint64_t held = pools != 0 ? reserved() : 0;
  std::size_t free_before = 0, free_after = 0, total = 0;
  ONCHIP_CUDA_REQUIRE(cudaMemGetInfo(&free_before, &total));
  ONCHIP_CUDA_REQUIRE(onchip::histogram_release_workspace());
  ONCHIP_CUDA_REQUIRE(cudaMemGetInfo(&free_after, &total));
  CHECK(onchip::detail::workspace_pool(device, false) == nullptr);
  if (!hist_test::under_sanitizer()) { CHECK(free_after >= free_before + held); }
  ONCHIP_CUDA_REQUIRE(onchip::histogram_release_workspace());  // nothing left to give: still a success
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(in_a.data, n, hist_a.buffer.data(), bins, 0.0f, 1.0f, nullptr,
                                             hist_test::requested()));
  hist_test::require_equal(hist_a.get(), hist_test::even_counts(a, 0.0f, 1.0f, bins));
  if (pools != 0) { CHECK(reserved() >= bytes); }
}

#endif
#if ONCHIP_TEST_PART_IS(3)
namespace {
/// Key frequencies: a multiplicative hash of a 32-bit key into 2^22 bins.
struct hash_bins {
  ONCHIP_HOST_DEVICE int operator()(std::uint32_t key) const { return static_cast<int>((key * 2654435761u) >> 10); }
};
/// A hash onto [-2^21, 3 * 2^21): half the keys fall below bin 0 or past the last of 2^22 bins, and are ignored.
struct wide_hash_bins {
  ONCHIP_HOST_DEVICE int operator()(std::uint32_t key) const {
    return static_cast<int>((key * 2654435761u) >> 9) - (1 << 21);
  }
};
}  // namespace

ONCHIP_GPU_TEST_CASE("the partition path with a custom binner: hashed keys into 2^22 bins, some outside them") {
  const std::size_t n = hist_test::sized((std::size_t{1} << 22) + 1);
  const auto keys = heavy_head<std::uint32_t>(n, 0.0, 1e6, 51);
  hist_test::device_samples<std::uint32_t> in(keys, 0);
  std::vector<double> expected(std::size_t{1} << 22, 0.0);
  for (std::uint32_t k : keys) { expected[hash_bins{}(k)] += 1; }
  for (histogram_path path : {histogram_path::partition, histogram_path::global_atomics}) {
    INFO(onchip::detail::path_name(path));
    const hist_test::forced_path force(path);
    hist_test::device_hist<unsigned> hist(expected.size());
    ONCHIP_CUDA_REQUIRE(onchip::histogram(in.data, n, hist.buffer.data(), 1 << 22, hash_bins{}, nullptr,
                                          hist_test::requested()));
    hist_test::require_equal(hist.get(), expected);
  }
  // A custom binner's bins outside [0, bins) are ignored, and counted as such, on the partition path too.
  std::fill(expected.begin(), expected.end(), 0.0);
  unsigned long long outside = 0;
  for (std::uint32_t k : keys) {
    const int b = wide_hash_bins{}(k);
    if (b >= 0 && b < (1 << 22)) {
      expected[static_cast<std::size_t>(b)] += 1;
    } else {
      ++outside;
    }
  }
  REQUIRE(outside > 0);
  const hist_test::forced_path force(histogram_path::partition);
  hist_test::device_hist<unsigned> hist(expected.size());
  onchip_test::device_buffer<unsigned long long> ignored(1);
  ONCHIP_CUDA_REQUIRE(cudaMemset(ignored.data(), 0, sizeof(unsigned long long)));
  onchip::histogram_options options = hist_test::requested();
  options.ignored = ignored.data();
  ONCHIP_CUDA_REQUIRE(onchip::histogram(in.data, n, hist.buffer.data(), 1 << 22, wide_hash_bins{}, nullptr, options));
  hist_test::require_equal(hist.get(), expected);
  unsigned long long missed = 0;
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(&missed, ignored.data(), sizeof missed, cudaMemcpyDeviceToHost));
  CHECK(missed == outside);
}

ONCHIP_GPU_TEST_CASE("the partition path past 4 GiB: 26 chunks, more than 2^32 hits in one bin of 64-bit counters") {
  const std::size_t samples = (std::size_t{1} << 32) + 5;  // u32: 16 GiB + 20 bytes
  const std::size_t bytes = samples * 4 + 16;
  if (!hist_test::huge_input_fits(bytes)) { return; }
  onchip_test::device_buffer<unsigned char> buffer(bytes);
  ONCHIP_CUDA_REQUIRE(cudaMemset(buffer.data(), 0x2a, bytes));
  // 0x2a2a2a2a = 707406378 over [0, 2^32) in 2^20 bins: bin 707406378 >> 12 = 172706, 2^32 + 5 times; the input
  // starts 4 bytes past 16-byte alignment.
  const auto* keys = reinterpret_cast<const std::uint32_t*>(buffer.data() + 4);
  hist_test::device_hist<unsigned long long> hist(std::size_t{1} << 20);
  const char* ran = nullptr;
  onchip::histogram_options options = hist_test::requested();
  options.path = &ran;
  ONCHIP_CUDA_REQUIRE(onchip::histogram_even(keys, samples, hist.buffer.data(), 1 << 20, 0LL, 4294967296LL, nullptr,
                                             options));
  CHECK(std::string(ran) == "partition");
  std::vector<double> expected(std::size_t{1} << 20, 0.0);
  expected[172706] = static_cast<double>(samples);
  hist_test::require_equal(hist.get(), expected);
}
#endif
