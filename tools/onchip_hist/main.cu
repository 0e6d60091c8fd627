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
#include <onchip/histogram.cuh>

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "cli.hpp"

namespace {

using namespace onchip_hist;

struct failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A failure of what the user asked for (exit status 2, like a bad option), not of the data or the machine.
struct usage_failure : failure {
  using failure::failure;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    const std::string detail = onchip::last_error_message();
    throw failure(std::string(what) + ": " + cudaGetErrorString(e) + (detail.empty() ? "" : " (" + detail + ")"));
  }
}

// An input: a file, standard input, or the demo generator.
struct source {
  std::string name;
  FILE* file = nullptr;
  bool demo = false;
  std::size_t size = 0;  // bytes, when known
};

std::size_t file_size_checked(const std::string& path, std::size_t unit, const char* what,
                              const std::string& unit_text = "one sample") {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) { throw failure("cannot open " + std::string(what) + " '" + path + "': " + std::strerror(errno)); }
  if (!S_ISREG(st.st_mode)) { throw failure(std::string(what) + " '" + path + "' is not a regular file"); }
  if (access(path.c_str(), R_OK) != 0) { throw failure("cannot read " + std::string(what) + " '" + path + "': " + std::strerror(errno)); }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size % unit != 0) {
    throw failure(std::string(what) + " '" + path + "' has " + std::to_string(size) + " bytes, not a multiple of " +
                  std::to_string(unit) + " (the size of " + unit_text + ")");
  }
  return size;
}

std::vector<double> read_levels(const std::string& path) {
  std::ifstream in(path);
  if (!in) { throw failure("cannot open levels file '" + path + "': " + std::strerror(errno)); }
  std::vector<double> levels;
  std::string word;
  while (in >> word) {
    double x = 0;
    if (!parse_number(word, x)) { throw failure("levels file '" + path + "': '" + word + "' is not a number"); }
    if (!levels.empty() && !(levels.back() < x)) {
      throw failure("levels file '" + path + "': levels must increase, but " + word + " follows " +
                    number_text(levels.back()));
    }
    levels.push_back(x);
  }
  if (levels.size() < 2) { throw failure("levels file '" + path + "' needs at least two levels"); }
  return levels;
}

// The demo: a mixture of N(-1, 0.5) (70%) and N(1.5, 0.8) (30%), mapped onto the requested type and range.
template <class T>
void demo_chunk(std::vector<unsigned char>& out, std::size_t samples, std::mt19937_64& rng, double lower,
                double upper) {
  std::normal_distribution<double> a(-1.0, 0.5), b(1.5, 0.8);
  std::uniform_real_distribution<double> pick(0.0, 1.0);
  T* p = reinterpret_cast<T*>(out.data());
  for (std::size_t i = 0; i < samples; ++i) {
    const double x = pick(rng) < 0.7 ? a(rng) : b(rng);
    const double v = lower + (upper - lower) * (x + 4.0) / 8.0;  // [-4, 4) onto [lower, upper)
    if constexpr (std::is_integral_v<T>) {
      p[i] = static_cast<T>(std::fmin(std::fmax(std::floor(v), -9.2e18), 9.2e18));
    } else {
      p[i] = static_cast<T>(v);
    }
  }
}

class progress_bar {
 public:
  progress_bar(bool on, std::size_t total) : on_(on), total_(total), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done) {
    if (!on_) { return; }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = s > 0 ? static_cast<double>(done) / s / 1e9 : 0;
    if (total_ > 0) {
      const double f = static_cast<double>(done) / static_cast<double>(total_);
      std::fprintf(stderr, "\r[%-30s] %5.1f%%  %.2f GB/s", std::string(static_cast<std::size_t>(f * 30), '#').c_str(),
                   100 * f, rate);
    } else {
      std::fprintf(stderr, "\r%.2f GB read, %.2f GB/s", static_cast<double>(done) / 1e9, rate);
    }
  }
  ~progress_bar() {
    if (on_) { std::fprintf(stderr, "\n"); }
  }

 private:
  bool on_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
};

template <class T>
using level_t = std::conditional_t<std::is_integral_v<T>, long long, double>;

using counter_t = unsigned long long;  // every count fits, whatever the input size

// Streams every source through the GPU into `active` histograms; returns them with their edges.
template <class T, int C, int A>
std::vector<channel_result> run(const options& o, std::vector<source>& sources, const std::vector<double>& levels,
                                run_info& r) {
  const int bins = levels.empty() ? o.bins : static_cast<int>(levels.size()) - 1;
  const bool weighted = !o.weights_file.empty();
  const std::size_t unit = sizeof(T) * C;
  const std::size_t chunk = std::max<std::size_t>(unit, o.chunk_bytes / unit * unit);
  double* d_levels = nullptr;
  unsigned long long* d_ignored = nullptr;
  counter_t* d_hist = nullptr;
  double* d_whist = nullptr;
  check(cudaMalloc(&d_ignored, sizeof(unsigned long long)), "cudaMalloc");  // all channels together
  check(cudaMemset(d_ignored, 0, sizeof(unsigned long long)), "cudaMemset");
  check(cudaMalloc(&d_hist, static_cast<std::size_t>(A) * bins * sizeof(counter_t)), "cudaMalloc");
  check(cudaMemset(d_hist, 0, static_cast<std::size_t>(A) * bins * sizeof(counter_t)), "cudaMemset");
  if (weighted) {
    check(cudaMalloc(&d_whist, bins * sizeof(double)), "cudaMalloc");
    check(cudaMemset(d_whist, 0, bins * sizeof(double)), "cudaMemset");
  }
  if (!levels.empty()) {
    check(cudaMalloc(&d_levels, levels.size() * sizeof(double)), "cudaMalloc");
    check(cudaMemcpy(d_levels, levels.data(), levels.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  // The zeroing above runs on the legacy default stream, which the non-blocking streams below do not wait for.
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  struct slot {
    unsigned char* pinned = nullptr;
    float* pinned_w = nullptr;
    T* device = nullptr;
    float* device_w = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
  } slots[2];
  for (auto& s : slots) {
    check(cudaMallocHost(&s.pinned, chunk), "cudaMallocHost");
    check(cudaMalloc(&s.device, chunk), "cudaMalloc");
    if (weighted) {
      check(cudaMallocHost(&s.pinned_w, chunk / sizeof(T) * sizeof(float)), "cudaMallocHost");
      check(cudaMalloc(&s.device_w, chunk / sizeof(T) * sizeof(float)), "cudaMalloc");
    }
    check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreate");
  }
  FILE* weights = weighted ? std::fopen(o.weights_file.c_str(), "rb") : nullptr;
  std::size_t total = 0;
  for (const auto& s : sources) { total += s.size; }
  progress_bar bar(o.progress == 1 || (o.progress == -1 && isatty(STDERR_FILENO)), total);
  std::mt19937_64 rng(20261129);
  std::vector<unsigned char> demo_buffer;
  const auto start = std::chrono::steady_clock::now();
  onchip::histogram_options opts;
  opts.accumulate = true;
  std::size_t done = 0;
  int next = 0;
  for (auto& src : sources) {
    std::size_t left = src.demo ? src.size : 0;
    for (;;) {
      slot& s = slots[next];
      check(cudaEventSynchronize(s.done), "cudaEventSynchronize");  // this slot's previous chunk is finished
      std::size_t n = 0;
      if (src.demo) {
        n = std::min(chunk, left);
        demo_buffer.resize(n);
        demo_chunk<T>(demo_buffer, n / sizeof(T), rng, o.lower, o.upper);
        std::memcpy(s.pinned, demo_buffer.data(), n);
        left -= n;
      } else {
        n = std::fread(s.pinned, 1, chunk, src.file);
        if (std::ferror(src.file)) { throw failure("cannot read '" + src.name + "': " + std::strerror(errno)); }
      }
      if (n == 0) { break; }
      if (n % unit != 0) {
        throw failure("'" + src.name + "' ends in a partial sample: its size is not a multiple of " +
                      std::to_string(unit) + " bytes");
      }
      const std::size_t samples = n / sizeof(T);
      if (weighted) {
        const std::size_t got = std::fread(s.pinned_w, sizeof(float), samples, weights);
        if (got != samples) { throw failure("the weights file '" + o.weights_file + "' has fewer weights than samples"); }
        check(cudaMemcpyAsync(s.device_w, s.pinned_w, samples * sizeof(float), cudaMemcpyHostToDevice, s.stream),
              "cudaMemcpyAsync");
      }
      check(cudaMemcpyAsync(s.device, s.pinned, n, cudaMemcpyHostToDevice, s.stream), "cudaMemcpyAsync");
      opts.ignored = d_ignored;
      if constexpr (C == 1) {
        if (weighted) {
          if constexpr (!std::is_floating_point_v<T>) {
            throw failure("--weights works with f32 and f64 samples");
          } else if (levels.empty()) {
            check(onchip::weighted_histogram_even(s.device, s.device_w, samples, d_whist, bins,
                                                  static_cast<level_t<T>>(o.lower), static_cast<level_t<T>>(o.upper),
                                                  s.stream, opts),
                  "onchip::weighted_histogram_even");
          } else {
            check(onchip::weighted_histogram_range(s.device, s.device_w, samples, d_whist, d_levels, bins + 1,
                                                   s.stream, opts),
                  "onchip::weighted_histogram_range");
          }
        } else if (levels.empty()) {
          check(onchip::histogram_even(s.device, samples, d_hist, bins, static_cast<level_t<T>>(o.lower),
                                       static_cast<level_t<T>>(o.upper), s.stream, opts),
                "onchip::histogram_even");
        } else {
          check(onchip::histogram_range(s.device, samples, d_hist, d_levels, bins + 1, s.stream, opts),
                "onchip::histogram_range");
        }
      } else {
        counter_t* hist[A];
        int bin_counts[A];
        level_t<T> lo[A], hi[A];
        for (int a = 0; a < A; ++a) {
          hist[a] = d_hist + static_cast<std::size_t>(a) * bins;
          bin_counts[a] = bins;
          lo[a] = static_cast<level_t<T>>(o.lower);
          hi[a] = static_cast<level_t<T>>(o.upper);
        }
        check(onchip::multi_histogram_even<C, A>(s.device, samples / C, hist, bin_counts, lo, hi, s.stream, opts),
              "onchip::multi_histogram_even");
      }
      check(cudaEventRecord(s.done, s.stream), "cudaEventRecord");
      next ^= 1;
      done += n;
      bar.update(done);
      if (src.demo && left == 0) { break; }
    }
  }
  check(cudaDeviceSynchronize(), "the histogram");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.bytes = static_cast<double>(done);
  r.weighted = weighted;
  if (weights != nullptr) { std::fclose(weights); }
  std::vector<channel_result> out(A);
  unsigned long long ignored = 0;  // reported on channel 0
  check(cudaMemcpy(&ignored, d_ignored, sizeof ignored, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int a = 0; a < A; ++a) {
    auto& ch = out[a];
    ch.channel = a;
    ch.ignored = a == 0 ? static_cast<double>(ignored) : 0.0;
    if (weighted) {
      ch.counts.resize(bins);
      check(cudaMemcpy(ch.counts.data(), d_whist, bins * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else {
      std::vector<counter_t> c(bins);
      check(cudaMemcpy(c.data(), d_hist + static_cast<std::size_t>(a) * bins, bins * sizeof(counter_t),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy");
      ch.counts.assign(c.begin(), c.end());
    }
    if (!levels.empty()) {
      ch.edges = levels;
    } else {
      for (int b = 0; b <= bins; ++b) { ch.edges.push_back(o.lower + (o.upper - o.lower) * b / bins); }
    }
  }
  for (auto& s : slots) {
    cudaFreeHost(s.pinned);
    cudaFree(s.device);
    if (weighted) {
      cudaFreeHost(s.pinned_w);
      cudaFree(s.device_w);
    }
    cudaStreamDestroy(s.stream);
    cudaEventDestroy(s.done);
  }
  cudaFree(d_hist);
  cudaFree(d_whist);
  cudaFree(d_levels);
  cudaFree(d_ignored);
  return out;
}

template <class T>
std::vector<channel_result> dispatch_channels(const options& o, std::vector<source>& sources,
                                              const std::vector<double>& levels, run_info& r) {
  if (o.channels == 1) { return run<T, 1, 1>(o, sources, levels, r); }
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (!levels.empty()) { throw failure("--levels works with one channel only"); }
    switch (o.channels * 10 + o.active) {
      case 21: return run<T, 2, 1>(o, sources, levels, r);
      case 22: return run<T, 2, 2>(o, sources, levels, r);
      case 31: return run<T, 3, 1>(o, sources, levels, r);
      case 32: return run<T, 3, 2>(o, sources, levels, r);
      case 33: return run<T, 3, 3>(o, sources, levels, r);
      case 41: return run<T, 4, 1>(o, sources, levels, r);
      case 42: return run<T, 4, 2>(o, sources, levels, r);
      case 43: return run<T, 4, 3>(o, sources, levels, r);
      default: return run<T, 4, 4>(o, sources, levels, r);
    }
  }
  throw failure("--channels works with u8 samples (RGBA and other interleaved bytes)");
}

std::vector<channel_result> dispatch(const options& o, std::vector<source>& sources, const std::vector<double>& levels,
                                     run_info& r) {
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
      const std::size_t w = file_size_checked(o.weights_file, sizeof(float), "weights file");
      if (o.inputs.end() == std::find(o.inputs.begin(), o.inputs.end(), std::string("-")) && w / sizeof(float) != samples) {
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
