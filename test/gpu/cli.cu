// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// onchip-hist end to end on a GPU: files larger than the chunk size, standard input, several channels, levels and
// weights, each against a histogram computed here on the host.
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

std::pair<int, std::string> hist(const std::string& args) {
  // stdout alone (run_capture merges stderr, where CSV mode reports its throughput)
  const auto [status, output] =
      onchip_test::run_capture("( \"" + std::string(ONCHIP_HIST) + "\" --no-progress " + args + " 2>/dev/null )");
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

template <class T>
std::string write(const std::string& name, const std::vector<T>& values) {
  const std::string path = std::string(ONCHIP_TEST_TMP) + "/" + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  return path;
}

// channel -> counts, from onchip-hist's CSV.
std::vector<std::vector<double>> read_csv(const std::string& csv) {
  std::vector<std::vector<double>> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "channel,bin,from,to,count");
  while (std::getline(in, line)) {
    int channel = 0, bin = 0;
    double from = 0, to = 0, count = 0;
    REQUIRE(std::sscanf(line.c_str(), "%d,%d,%lf,%lf,%lf", &channel, &bin, &from, &to, &count) == 5);
    if (static_cast<int>(out.size()) <= channel) { out.resize(channel + 1); }
    REQUIRE(static_cast<int>(out[channel].size()) == bin);
    out[channel].push_back(count);
  }
  return out;
}

}  // namespace

ONCHIP_GPU_TEST_CASE("onchip-hist: u8 file larger than the chunk size, and the same bytes on standard input") {
  std::mt19937 rng(7);
  std::vector<std::uint8_t> bytes((7u << 19) + 13);  // 3.5 MiB + 13 bytes, chunks of 1 MiB
  std::vector<double> expected(256);
  for (auto& b : bytes) {
    b = static_cast<std::uint8_t>(rng() % 7 == 0 ? 200 : rng());
    expected[b] += 1;
  }
  const std::string path = write("bytes.raw", bytes);
  auto [code, out] = hist("-t u8 --chunk-mb 1 -f csv " + path);
  REQUIRE(code == 0);
  CHECK(read_csv(out) == std::vector<std::vector<double>>{expected});
  std::tie(code, out) = hist("-t u8 --chunk-mb 1 -f csv - < " + path);
  REQUIRE(code == 0);
  CHECK(read_csv(out) == std::vector<std::vector<double>>{expected});
  std::tie(code, out) = hist("-t u8 --chunk-mb 1 -b 16 -f csv " + path + " " + path);  // two files, 16 bins
  REQUIRE(code == 0);
  std::vector<double> coarse(16);
  for (int v = 0; v < 256; ++v) { coarse[v / 16] += 2 * expected[v]; }
  CHECK(read_csv(out) == std::vector<std::vector<double>>{coarse});
}

ONCHIP_GPU_TEST_CASE("onchip-hist: f32 with NaN and out-of-range samples, the ignored count in JSON") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-0.1f, 1.1f);
  std::vector<float> x(1500001);
  std::vector<double> expected(100);
  long long ignored = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = i % 1000 == 0 ? std::nanf("") : u(rng);
    const double d = x[i];
    if (d >= 0.0 && d < 1.0) {
      expected[std::min(99, static_cast<int>(d * 100.0))] += 1;
    } else {
      ++ignored;
    }
  }
  const std::string path = write("floats.bin", x);
  auto [code, out] = hist("-t f32 -r 0 1 -b 100 --chunk-mb 1 -f csv " + path);
  REQUIRE(code == 0);
  CHECK(read_csv(out) == std::vector<std::vector<double>>{expected});
  std::tie(code, out) = hist("-t f32 -r 0 1 -b 100 -f json " + path);
  REQUIRE(code == 0);
  CHECK(out.find("\"ignored\":" + std::to_string(ignored) + ",") != std::string::npos);
  std::tie(code, out) = hist("-t f32 -r 0 1 -b 100 " + path);  // the table: summary and throughput lines
  REQUIRE(code == 0);
  CHECK(out.find("ignored " + std::to_string(ignored) + ", entropy") != std::string::npos);
  CHECK(out.find("f32 samples from " + path + "; 6000004 bytes in") != std::string::npos);
}

ONCHIP_GPU_TEST_CASE("onchip-hist: RGBA with three active channels, levels and weights") {
  std::mt19937 rng(3);
  std::vector<std::uint8_t> rgba(4 * 300001);
  std::vector<std::vector<double>> expected(3, std::vector<double>(256));
  for (std::size_t i = 0; i < rgba.size(); ++i) {
    rgba[i] = static_cast<std::uint8_t>(rng() >> (i % 4 * 2));
    if (i % 4 < 3) { expected[i % 4][rgba[i]] += 1; }
  }
  auto [code, out] = hist("-t u8 --channels 4 --active 3 --chunk-mb 1 -f csv " + write("rgba.raw", rgba));
  REQUIRE(code == 0);
  CHECK(read_csv(out) == expected);

  std::vector<std::uint16_t> u16(200003);
  const std::vector<double> levels = {0, 10, 100, 1000, 30000, 65535};
  std::vector<double> by_level(levels.size() - 1);
  for (auto& v : u16) {
    v = static_cast<std::uint16_t>(rng());
    for (std::size_t b = 0; b + 1 < levels.size(); ++b) {
      if (v >= levels[b] && v < levels[b + 1]) { by_level[b] += 1; }
    }
  }
  std::ofstream(std::string(ONCHIP_TEST_TMP) + "/levels.txt") << "0\n10\n100\n1000\n30000\n65535\n";
  std::tie(code, out) = hist("-t u16 -l " + std::string(ONCHIP_TEST_TMP) + "/levels.txt -f csv " + write("u16.raw", u16));
  REQUIRE(code == 0);
  CHECK(read_csv(out) == std::vector<std::vector<double>>{by_level});

  std::vector<float> x(200003), w(x.size());
  std::vector<double> weighted(4);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(rng() % 4000) / 1000.0f;  // [0, 4)
    w[i] = static_cast<float>(rng() % 8) * 0.25f;         // sums exact in float and double
    weighted[static_cast<int>(x[i])] += w[i];
  }
  std::tie(code, out) = hist("-t f32 -r 0 4 -b 4 -w " + write("weights.f32", w) + " -f csv " + write("x.f32", x));
  REQUIRE(code == 0);
  CHECK(read_csv(out) == std::vector<std::vector<double>>{weighted});
}
