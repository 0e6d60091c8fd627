// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// onchip-hist on the host: argument parsing, statistics and output formats (tools/onchip_hist/cli.hpp), and the
// program's answers to bad input, which come before it looks for a GPU. The demo run checks the GPU case when
// there is one and the "no CUDA device" message when there is none.
#include <onchip_hist/cli.hpp>

#include <dlfcn.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

onchip_hist::parsed parse(std::vector<const char*> args) {
  args.insert(args.begin(), "onchip-hist");
  return onchip_hist::parse(static_cast<int>(args.size()), args.data());
}

std::pair<int, std::string> hist(const std::string& args) {
  const auto [status, output] = onchip_test::run_capture(std::string("\"") + ONCHIP_HIST + "\" " + args);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(ONCHIP_TEST_TMP) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("onchip-hist arguments: defaults, types, ranges, channels, formats") {
  auto p = parse({"data.raw"});
  REQUIRE(p.error.empty());
  CHECK(p.opts.type == onchip_hist::sample_type::u8);
  CHECK(p.opts.bins == 256);
  CHECK(p.opts.lower == 0);
  CHECK(p.opts.upper == 256);
  CHECK(p.opts.inputs == std::vector<std::string>{"data.raw"});

  p = parse({"-t", "i16", "x"});
  REQUIRE(p.error.empty());
  CHECK(p.opts.lower == -32768);
  CHECK(p.opts.upper == 32768);

  p = parse({"--type", "f32", "--bins", "100", "--range", "0", "1.5", "--format", "json", "a", "b"});
  REQUIRE(p.error.empty());
  CHECK(p.opts.bins == 100);
  CHECK(p.opts.upper == 1.5);
  CHECK(p.opts.format == onchip_hist::output_format::json);
  CHECK(p.opts.inputs.size() == 2);

  p = parse({"--channels", "4", "--active", "3", "rgba"});
  REQUIRE(p.error.empty());
  CHECK(p.opts.channels == 4);
  CHECK(p.opts.active == 3);
  CHECK(parse({"--channels", "3", "x"}).opts.active == 3);  // all channels by default

  p = parse({});  // the demo: f32, 64 bins over [-4, 4)
  REQUIRE(p.error.empty());
  CHECK(p.opts.type == onchip_hist::sample_type::f32);
  CHECK(p.opts.bins == 64);
  CHECK(p.opts.lower == -4);
  CHECK(p.opts.upper == 4);
  CHECK(parse({"--chunk-mb", "2", "-"}).opts.chunk_bytes == 2u << 20);
}

TEST_CASE("onchip-hist arguments: every mistake is a sentence") {
  CHECK(parse({"-t", "u12", "x"}).error == "unknown sample type 'u12' (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)");
  CHECK(parse({"-b", "0", "x"}).error.find("bin count from 1 to 2^30") != std::string::npos);
  CHECK(parse({"-r", "5", "1", "x"}).error == "bad range [5, 1): LO must be below HI");
  CHECK(parse({"-r", "a", "1", "x"}).error.find("must be numbers") != std::string::npos);
  CHECK(parse({"-r", "nan", "1", "x"}).error.find("must be numbers") != std::string::npos);
  CHECK(parse({"-r", "1"}).error == "-r needs two numbers: LO HI");
  CHECK(parse({"-t", "f32", "x"}).error == "--range LO HI (or --levels) is needed for f32 samples");
  CHECK(parse({"-t", "i32", "-r", "0.5", "9", "x"}).error ==
        "the range of i32 samples must be whole numbers from -2^63 to 2^63 - 1");
  CHECK(parse({"--channels", "2", "--active", "3", "x"}).error == "--active must not exceed --channels");
  CHECK(parse({"--channels", "5", "x"}).error == "--channels needs a number from 1 to 4");
  CHECK(parse({"-r", "0", "1", "-l", "levels", "x"}).error == "give --range or --levels, not both");
  CHECK(parse({"--bogus"}).error ==
        "unknown option '--bogus' (see --help; '--' before a file name that starts with '-')");
  CHECK(parse({"-f", "xml", "x"}).error == "unknown format 'xml' (table, csv or json)");
  CHECK(parse({"-", "-"}).error == "standard input ('-') can be read once");
  CHECK(parse({"-t", "f32", "-w", "w.bin"}).error == "--weights needs input files");
  CHECK(parse({"-t", "u16", "-w", "w.bin", "x"}).error == "--weights works with f32 and f64 samples");
  CHECK(parse({"-t", "u16", "--channels", "2", "x"}).error ==
        "--channels works with u8 samples (RGBA and other interleaved bytes)");
  CHECK(parse({"x", "-b"}).error == "-b needs a value: a bin count from 1 to 2^30");
  CHECK(parse({"x", "--bins"}).error == "--bins needs a value: a bin count from 1 to 2^30");
  CHECK(parse({"-b", "many", "x"}).error == "-b needs a bin count from 1 to 2^30, got 'many'");
  CHECK(parse({"-weird.raw"}).error ==
        "unknown option '-weird.raw' (see --help; '--' before a file name that starts with '-')");
  // f32 samples are binned between float bounds: a range past float's, or one that rounds to nothing, is refused.
  const std::string too_wide = parse({"-t", "f32", "-r", "0", "1e39", "x"}).error;
  CHECK(too_wide.find("the range [0, 1e+39) of f32 samples is [0, inf) as floats") == 0);
  CHECK(parse({"-t", "f32", "-r", "0", "1e-50", "x"}).error.find("LO and HI must be finite floats") !=
        std::string::npos);
  CHECK(parse({"-t", "f64", "-r", "0", "1e-50", "x"}).error.empty());  // a double range keeps them apart
  CHECK(parse({"-t", "f32", "-r", "0", "1e-30", "x"}).error.empty());
}

TEST_CASE("onchip-hist arguments: --option=value, and '--' before file names") {
  auto p = parse({"--type=u16", "--bins=100", "--range=0", "1000", "--format=csv", "--chunk-mb=8", "x"});
  REQUIRE(p.error.empty());
  CHECK(p.opts.type == onchip_hist::sample_type::u16);
  CHECK(p.opts.bins == 100);
  CHECK(p.opts.lower == 0);
  CHECK(p.opts.upper == 1000);
  CHECK(p.opts.format == onchip_hist::output_format::csv);
  CHECK(p.opts.chunk_bytes == (std::size_t{8} << 20));
  CHECK(p.opts.inputs == std::vector<std::string>{"x"});
  CHECK(parse({"--bins=", "x"}).error == "--bins needs a bin count from 1 to 2^30, got ''");
  CHECK(parse({"--type=u12", "x"}).error == "unknown sample type 'u12' (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64)");
  p = parse({"-t", "u8", "--", "-dash.raw", "--help", "-"});
  REQUIRE(p.error.empty());
  CHECK_FALSE(p.opts.help);  // after "--", "--help" is a file name
  CHECK(p.opts.inputs == std::vector<std::string>{"-dash.raw", "--help", "-"});
  p = parse({"-t", "u32", "--help=yes"});  // help, though u32 without --range would be an error
  CHECK(p.opts.help);
  CHECK(p.error.empty());
}

TEST_CASE("onchip-hist statistics: totals, ignored, entropy, min and max bins") {
  const auto s = onchip_hist::summarize({4, 0, 4, 8}, 3);
  CHECK(s.total == 16);
  CHECK(s.ignored == 3);
  CHECK(s.entropy_bits == doctest::Approx(1.5));  // p = 1/4, 0, 1/4, 1/2
  CHECK(s.min_bin == 1);
  CHECK(s.max_bin == 3);
  CHECK(onchip_hist::summarize({0, 0}, 0).entropy_bits == 0);
  CHECK(onchip_hist::summarize({7}, 0).entropy_bits == 0);
}

TEST_CASE("onchip-hist output: CSV, JSON, table and bar chart") {
  onchip_hist::channel_result ch;
  ch.edges = {0, 0.5, 1};
  ch.counts = {3, 1};
  ch.ignored = 2;
  onchip_hist::run_info run{"f32", "a.bin", 16, 0.5, false};
  CHECK(onchip_hist::format_csv({ch}) == "channel,bin,from,to,count\n0,0,0,0.5,3\n0,1,0.5,1,1\n");
  CHECK(onchip_hist::format_json({ch}, run) ==
        "{\"type\":\"f32\",\"source\":\"a.bin\",\"bytes\":16,\"seconds\":0.5,\"gpu_seconds\":0,\"weighted\":false,"
        "\"channels\":[{"
        "\"channel\":0,\"edges\":[0,0.5,1],\"counts\":[3,1],\"total\":4,\"ignored\":2,\"entropy_bits\":0.811278,"
        "\"min_bin\":1,\"max_bin\":0}]}\n");
  const std::string table = onchip_hist::format_table({ch}, run, true);
  CHECK(table.find("count 4, ignored 2, entropy 0.8113 bits, min bin 1 (1), max bin 0 (3)") != std::string::npos);
  CHECK(table.find("f32 samples from a.bin; 16 bytes in 0.500 s: 0.00 GB/s") != std::string::npos);
  // With the histogram calls' own time on the GPU, both rates: end to end and the histogram alone.
  onchip_hist::run_info timed{"u8", "demo", 4e9, 2.0, false, 0.5};
  CHECK(onchip_hist::throughput_line(timed) ==
        "4000000000 bytes in 2.000 s: 2.00 GB/s end to end; the histogram on the GPU 0.5000 s: 8.00 GB/s");
  CHECK(onchip_hist::bar(1.0, 4) == "\u2588\u2588\u2588\u2588");
  CHECK(onchip_hist::bar(0.5, 4) == "\u2588\u2588");
  CHECK(onchip_hist::bar(1.0 / 32, 4) == "\u258f");  // one eighth of a cell
  CHECK(onchip_hist::bar(0, 4).empty());
  CHECK(onchip_hist::json_string("a\"b\\c\n") == "\"a\\\"b\\\\c\\u000a\"");
  CHECK(onchip_hist::number_text(43789.25) == "43789.25");  // weighted sums keep every digit
  CHECK(onchip_hist::number_text(0.1) == "0.1");
  CHECK(onchip_hist::number_text(1.0 / 3) == "0.3333333333333333");  // 16 digits read back exactly
  CHECK(onchip_hist::number_text(-3) == "-3");
}

TEST_CASE("onchip-hist answers bad input with a message and a non-zero exit, before touching a GPU") {
  auto [code, out] = hist("-t u16 /nonexistent/file.raw");
  CHECK(code == 1);
  CHECK(out.find("onchip-hist: cannot open input file '/nonexistent/file.raw': No such file or directory") !=
        std::string::npos);
  const std::string odd = temp_file("odd.raw", "abc");  // 3 bytes of u16
  std::tie(code, out) = hist("-t u16 " + odd);
  CHECK(code == 1);
  CHECK(out.find("has 3 bytes, not a multiple of 2") != std::string::npos);
  std::tie(code, out) = hist("-r 3 1 " + odd);
  CHECK(code == 2);
  CHECK(out.find("onchip-hist: bad range [3, 1): LO must be below HI") != std::string::npos);
  CHECK(out.find("usage: onchip-hist") != std::string::npos);
  // Every mistake in a levels file is bad input: the usage error's status, 2.
  const std::string levels = temp_file("levels.txt", "0 1 0.5\n");
  std::tie(code, out) = hist("-t u8 -l " + levels + " " + odd);
  CHECK(code == 2);
  CHECK(out.find("levels must increase, but 0.5 follows 1") != std::string::npos);
  std::tie(code, out) = hist("-t u8 -l " + temp_file("word_levels.txt", "0 x 9\n") + " " + odd);
  CHECK(code == 2);
  CHECK(out.find("'x' is not a number") != std::string::npos);
  std::tie(code, out) = hist("-t u8 -l " + temp_file("one_level.txt", "7\n") + " " + odd);
  CHECK(code == 2);
  CHECK(out.find("needs at least two levels") != std::string::npos);
  std::tie(code, out) = hist("-t u8 -l /nonexistent/levels.txt " + odd);
  CHECK(code == 2);
  CHECK(out.find("cannot open levels file '/nonexistent/levels.txt'") != std::string::npos);
  // A weights file of the wrong size names its unit: a weight, not a sample.
  const std::string four = temp_file("one_float.raw", std::string(4, '\0'));
  std::tie(code, out) = hist("-t f32 -r 0 1 -w " + odd + " " + four);
  CHECK(code == 1);
  CHECK(out.find("has 3 bytes, not a multiple of 4 (the size of one f32 weight)") != std::string::npos);
  std::tie(code, out) = hist("--help");
  CHECK(code == 0);
  CHECK(out.find("usage: onchip-hist") != std::string::npos);
}

TEST_CASE("onchip-hist refuses ranges and levels its sample type cannot hold; -h wins over bad options") {
  const auto npos = std::string::npos;
  auto p = parse({"-t", "u8", "--range", "0", "1e30", "x"});
  CHECK(p.error.find("the range of u8 samples must be whole numbers from -2^63 to 2^63 - 1") != npos);
  p = parse({"-t", "i64", "--range", "-9223372036854775808", "9223372036854775807", "x"});
  CHECK(p.error.find("whole numbers") != npos);  // 2^63 - 1 rounds up to 2^63 as a double: refused
  p = parse({"-t", "i64", "--range", "-9223372036854775808", "4611686018427387904", "x"});
  CHECK(p.error.empty());
  p = parse({"-t", "f32", "--range", "0", "inf", "x"});
  CHECK(p.error.find("LO and HI must be finite") != npos);
  for (auto args : {std::vector<const char*>{"-h", "--bogus"}, std::vector<const char*>{"--bins", "0", "--help"}}) {
    p = parse(args);
    CHECK(p.error.empty());
    CHECK(p.opts.help);
  }
  using onchip_hist::sample_type;
  CHECK(onchip_hist::check_levels({0, 1.5, 3}, sample_type::u16).find("levels of u16 samples must be whole numbers") != npos);
  CHECK(onchip_hist::check_levels({0, 1e300}, sample_type::i32).find("got 1.0000000000000001e+300") != npos);
  CHECK(onchip_hist::check_levels({0, 1.5, HUGE_VAL}, sample_type::f32).empty());
  CHECK(onchip_hist::check_levels({-5, 0, 7}, sample_type::i8).empty());

  const std::string levels = temp_file("fractional_levels.txt", "0 1.5 3\n");
  const std::string bytes = temp_file("four_bytes.raw", "abcd");
  auto [code, out] = hist("-t u8 -l " + levels + " " + bytes);
  CHECK(code == 2);
  CHECK(out.find("levels of u8 samples must be whole numbers") != npos);
  std::tie(code, out) = hist("-t u8 --channels 3 " + bytes);
  CHECK(code == 1);
  CHECK(out.find("not a multiple of 3 (the size of one pixel of 3 samples)") != npos);
  std::tie(code, out) = hist("-h --no-such-option");
  CHECK(code == 0);
  CHECK(out.find("usage: onchip-hist") != npos);
  CHECK(out.find("unknown option") == npos);
}

TEST_CASE("onchip-hist's first command: the demo on a GPU, a clear message without one") {
  const auto [code, out] = hist("--format csv --no-progress");
  if (onchip_test::gpu_available()) {
    CHECK(code == 0);
    CHECK(out.find("channel,bin,from,to,count\n0,0,-4,-3.875,") != std::string::npos);
    CHECK(out.find("0,63,3.875,4,") != std::string::npos);
  } else {
    CHECK(code == 1);
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) {
      CHECK(out.find("onchip-hist: no NVIDIA driver is installed on this machine") != std::string::npos);
    } else {
      dlclose(driver);
      const bool said = out.find("update the driver") != std::string::npos || out.find("sees no GPU") != std::string::npos;
      CHECK(said);
    }
  }
}

TEST_CASE("without a GPU, onchip-hist tells a missing driver, an old driver and no device apart") {
  using onchip_hist::no_device_message;
  CHECK(no_device_message(false, 0, 13000).find("no NVIDIA driver is installed") != std::string::npos);
  const std::string old = no_device_message(true, 12040, 13000);
  CHECK(old.find("supports CUDA 12.4, but onchip-hist was built with CUDA 13.0; update the driver") != std::string::npos);
  const std::string none = no_device_message(true, 13000, 13000);
  CHECK(none.find("no CUDA device found (the NVIDIA driver is installed but sees no GPU)") != std::string::npos);
  CHECK(none.find("update") == std::string::npos);
}
