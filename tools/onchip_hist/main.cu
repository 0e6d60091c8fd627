// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief onchip-hist: histograms of files (or standard input) on the GPU with onchip's device-wide histogram.
 *
 * Inputs are read in chunks into two pinned buffers, each copied and histogrammed on its own stream while the
 * next chunk is read, so files larger than GPU memory stream through at the disk or PCIe limit. With no input it
 * histograms a built-in demo data set (64 Mi f32 samples from a mixture of two normal distributions).
 *
 *   onchip-hist                                   # the demo
 *   onchip-hist -t u8 image.raw                   # 256 bins over [0, 256)
 *   onchip-hist -t f32 -b 100 -r 0 1 -f csv a.bin b.bin
 *   onchip-hist -t u8 --channels 4 --active 3 rgba.raw
 */
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "stream.cuh"

namespace {

using namespace onchip_hist;

std::size_t file_size_checked(const std::string& path, std::size_t unit, const char* what,
                              const std::string& unit_text = "one sample") {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw failure("cannot open " + std::string(what) + " '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) { throw failure(std::string(what) + " '" + path + "' is not a regular file"); }
  if (access(path.c_str(), R_OK) != 0) {
    throw failure("cannot read " + std::string(what) + " '" + path + "': " + std::strerror(errno));
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size % unit != 0) {
    throw failure(std::string(what) + " '" + path + "' has " + std::to_string(size) +
                  " bytes, not a multiple of " + std::to_string(unit) + " (the size of " + unit_text + ")");
  }
  return size;
}

std::vector<double> read_levels(const std::string& path) {
  std::ifstream in(path);
  if (!in) { throw usage_failure("cannot open levels file '" + path + "': " + std::strerror(errno)); }
  std::vector<double> levels;
  std::string word;
  while (in >> word) {
    double x = 0;
    if (!parse_number(word, x)) {
      throw usage_failure("levels file '" + path + "': '" + word + "' is not a number");
    }
    if (!levels.empty() && !(levels.back() < x)) {
      throw usage_failure("levels file '" + path + "': levels must increase, but " + word + " follows " +
                          number_text(levels.back()));
    }
    levels.push_back(x);
  }
  if (levels.size() < 2) { throw usage_failure("levels file '" + path + "' needs at least two levels"); }
  return levels;
}

std::vector<channel_result> dispatch(const options& o, std::vector<source>& sources,
                                     const std::vector<double>& levels, run_info& r) {
  switch (o.type) {
    case sample_type::u8: return dispatch_channels<std::uint8_t>(o, sources, levels, r);
    case sample_type::i8: return dispatch_channels<std::int8_t>(o, sources, levels, r);
    case sample_type::u16: return dispatch_channels<std::uint16_t>(o, sources, levels, r);
    case sample_type::i16: return dispatch_channels<std::int16_t>(o, sources, levels, r);
    case sample_type::u32: return dispatch_channels<std::uint32_t>(o, sources, levels, r);
    case sample_type::i32: return dispatch_channels<std::int32_t>(o, sources, levels, r);
    case sample_type::u64: return dispatch_channels<std::uint64_t>(o, sources, levels, r);
    case sample_type::i64: return dispatch_channels<std::int64_t>(o, sources, levels, r);
    case sample_type::f32: return dispatch_channels<float>(o, sources, levels, r);
    default: return dispatch_channels<double>(o, sources, levels, r);
  }
}

}  // namespace

// Which of the no-GPU cases this is: the driver library missing, older than the runtime, or without devices.
std::string no_device() {
  int driver = 0, runtime = 0;
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda != nullptr) {
    cudaDriverGetVersion(&driver);
    dlclose(libcuda);
  }
  cudaRuntimeGetVersion(&runtime);
  return onchip_hist::no_device_message(libcuda != nullptr, driver, runtime);
}

int main(int argc, char** argv) {
  const parsed p = parse(argc, argv);
  if (!p.error.empty()) {
    std::fprintf(stderr, "onchip-hist: %s\n%s", p.error.c_str(), usage());
    return 2;
  }
  if (p.opts.help) {
    std::fputs(usage(), stdout);
    return 0;
  }
  const options& o = p.opts;
  std::vector<source> sources;
  try {
    const std::size_t unit = info(o.type).bytes * static_cast<std::size_t>(o.channels);
    std::size_t samples = 0;
    for (const auto& name : o.inputs) {
      source s;
      s.name = name == "-" ? "stdin" : name;
      if (name == "-") {
        s.file = stdin;
      } else {
        s.size = file_size_checked(name, unit, "input file", unit_name(o.channels));
        samples += s.size / info(o.type).bytes;
        s.file = std::fopen(name.c_str(), "rb");
        if (s.file == nullptr) { throw failure("cannot open input file '" + name + "': " + std::strerror(errno)); }
      }
      sources.push_back(s);
    }
    if (sources.empty()) {
      source s;
      s.name = "demo";
      s.demo = true;
      s.size = (std::size_t{64} << 20) / info(o.type).bytes * info(o.type).bytes;  // 64 MiB
      sources.push_back(s);
    }
    if (!o.weights_file.empty()) {
      const std::size_t w = file_size_checked(o.weights_file, sizeof(float), "weights file", "one f32 weight");
      if (o.inputs.end() == std::find(o.inputs.begin(), o.inputs.end(), std::string("-")) &&
          w / sizeof(float) != samples) {
        throw failure("the weights file '" + o.weights_file + "' holds " + std::to_string(w / sizeof(float)) +
                      " weights for " + std::to_string(samples) + " samples");
      }
    }
    const std::vector<double> levels = o.levels_file.empty() ? std::vector<double>{} : read_levels(o.levels_file);
    if (const std::string bad = check_levels(levels, o.type); !bad.empty()) {
      throw usage_failure("levels file '" + o.levels_file + "': " + bad);
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::fprintf(stderr, "%s\n", no_device().c_str());
      return 1;
    }
    run_info r;
    r.type = info(o.type).name;
    for (const auto& s : sources) { r.source += (r.source.empty() ? "" : ", ") + s.name; }
    if (sources.front().demo) { r.source = "the built-in demo (a mixture of two normal distributions)"; }
    const auto result = dispatch(o, sources, levels, r);
    for (auto& s : sources) {
      if (s.file != nullptr && s.file != stdin) { std::fclose(s.file); }
    }
    if (o.format == output_format::csv) {
      std::fputs(format_csv(result).c_str(), stdout);
      std::fprintf(stderr, "onchip-hist: %s\n", throughput_line(r).c_str());
    } else if (o.format == output_format::json) {
      std::fputs(format_json(result, r).c_str(), stdout);
    } else {
      std::fputs(format_table(result, r, o.chart).c_str(), stdout);
    }
  } catch (const usage_failure& f) {
    std::fprintf(stderr, "onchip-hist: %s\n", f.what());
    return 2;
  } catch (const failure& f) {
    std::fprintf(stderr, "onchip-hist: %s\n", f.what());
    return 1;
  }
  return 0;
}
