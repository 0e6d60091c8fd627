// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Histograms: onchip against CUB on the same 1 GiB input (cub::DeviceHistogram HistogramEven / HistogramRange /
// MultiHistogramEven, cub::BlockHistogram for the block primitive), with the read ceiling measured in the same
// run. GB/s of input; "agree" compares the two histograms bin by bin.
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/device/device_histogram.cuh>

#include <cuda/std/array>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

__device__ __host__ inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

enum class dist { uniform, skewed, degenerate, normal, image, text, bank, runs, zipf };

// Values in [0, 1) following `d`, mapped to [lo, hi) and converted to T.
template <class T>
__global__ void generate(T* out, std::size_t n, dist d, double lo, double hi) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = mix(i);
    double u = (h >> 11) * (1.0 / 9007199254740992.0);
    if (d == dist::skewed) {
      u = fmin(0.999999, __ffsll(static_cast<long long>(h | (1ull << 62))) / 64.0 - 1.0 / 64.0 + u / 64.0);
    } else if (d == dist::degenerate) {
      u = 0.3;
    } else if (d == dist::image) {  // a smooth synthetic photo, 4096 pixels wide, with sensor noise
      const double x = static_cast<double>(i % 4096), y = static_cast<double>(i / 4096);
      u = 0.5 + 0.35 * sin(x / 211.0) * cos(y / 97.0) + 0.1 * sin((x + y) / 53.0) + (u - 0.5) * 0.04;
      u = fmin(fmax(u, 0.0), 0.999999);
    } else if (d == dist::text) {  // English-like letter frequencies: space, e, t, a, o, ... as ASCII codes
      constexpr char common[] = "  eeeetttaaoinshrdlcumwfgypbvk.,\n";
      const char ch = (h >> 60) < 12 ? common[(h >> 32) % (sizeof common - 1)] : static_cast<char>('a' + (h >> 40) % 26);
      u = (static_cast<unsigned char>(ch) + 0.5) / 256.0;
    } else if (d == dist::bank) {  // eight values 32 apart: on one shared-memory bank in a 256-word table
      u = ((h & 7) * 32 + 0.5) / 256.0;
    } else if (d == dist::runs) {  // runs of 4096 equal values
      u = (mix(i / 4096) >> 11) * (1.0 / 9007199254740992.0);
    } else if (d == dist::zipf) {  // Zipf(1.1) over 65536 ranks, by the inverse of the continuous power law
      const double top = pow(65537.0, -0.1) - 1.0;
      u = (floor(pow(1.0 + u * top, -10.0)) - 1.0 + 0.5) / 65536.0;
      u = fmin(u, 0.999999);
    } else if (d == dist::normal) {
      const double u2 = (mix(h) >> 11) * (1.0 / 9007199254740992.0);
      u = 0.5 + 0.02 * sqrt(-2.0 * log(fmax(u, 1e-300))) * cos(6.283185307179586 * u2);
      u = fmin(fmax(u, 0.0), 0.999999);
    }
    out[i] = static_cast<T>(lo + (hi - lo) * u);
  }
}

const char* name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::skewed: return "skewed";
    case dist::degenerate: return "degenerate";
    case dist::image: return "image";
    case dist::text: return "text";
    case dist::bank: return "8 values on one bank";
    case dist::runs: return "runs of 4096";
    case dist::zipf: return "Zipf(1.1)";
    default: return "normal(0.5, 0.02)";
  }
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else return "f64";
}

struct context {
  bench::options o;
  bench::table* t;
  void* buffer;
  std::size_t bytes;
  unsigned* scratch;
};

// One row: onchip's and the competitor's time on the same input (both fill `bins` counters, compared bin by bin),
// GB/s of `input_bytes`, and the read ceiling over the same bytes measured in the same run. `check_only`: the
// competitor (a reference where CUB cannot run) is run once, untimed, only to compare the outputs.
template <class Counter = unsigned, class Onchip, class Competitor>
void measure(context& c, const std::string& type, long long bins, const std::string& what, std::size_t input_bytes,
             std::size_t counters, Onchip&& onchip_run, Competitor&& competitor_run, bool run_competitor = true,
             std::size_t rotate = 0, bool check_only = false) {
  const std::string label = type + ", " + std::to_string(bins) + " bins, " + what;
  const double ceiling_ms = bench::read_ceiling_ms(c.o, c.buffer, input_bytes, c.scratch);
  Counter *ours = nullptr, *theirs = nullptr;
  BENCH_CHECK(cudaMalloc(&ours, counters * sizeof(Counter)));
  BENCH_CHECK(cudaMalloc(&theirs, counters * sizeof(Counter)));
  const double onchip_ms = bench::median_ms(c.o, [&] { onchip_run(ours); });
  const double gbs = static_cast<double>(input_bytes) / onchip_ms / 1e6;
  const double ceiling = static_cast<double>(input_bytes) / ceiling_ms / 1e6;
  std::string cub_gbs = "not run", ratio = "-", agree = "-";
  if (run_competitor || check_only) {
    double cub_ms = 0;
    if (run_competitor) {
      cub_ms = bench::median_ms(c.o, [&] { competitor_run(theirs); });
    } else {
      competitor_run(theirs);
      BENCH_CHECK(cudaDeviceSynchronize());
    }
    std::vector<Counter> x(counters), y(counters);
    BENCH_CHECK(cudaMemcpy(x.data(), ours, counters * sizeof(Counter), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(y.data(), theirs, counters * sizeof(Counter), cudaMemcpyDeviceToHost));
    std::rotate(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(rotate), y.end());  // theirs[i + rotate] is ours[i]
    agree = x == y ? "yes" : "NO";
    if (run_competitor) {
      const double cub = static_cast<double>(input_bytes) / cub_ms / 1e6;
      cub_gbs = bench::fixed(cub);
      ratio = bench::fixed(gbs / cub, 2);
    }
  }
  c.t->add({label, type, std::to_string(bins), what, bench::fixed(gbs), cub_gbs, bench::fixed(ceiling),
            bench::fixed(100.0 * gbs / ceiling, 1), ratio, agree});
  BENCH_CHECK(cudaFree(ours));
  BENCH_CHECK(cudaFree(theirs));
}

bool wanted(const context& c, const std::string& label) {
  return c.o.filter.empty() || label.find(c.o.filter) != std::string::npos;
}

template <class T>
T* fill(context& c, dist d, double lo, double hi) {
  T* samples = static_cast<T*>(c.buffer);
  generate<T><<<bench::sm_count() * 8, 256>>>(samples, c.bytes / sizeof(T), d, lo, hi);
  BENCH_CHECK(cudaDeviceSynchronize());
  return samples;
}

// CUB's calls, temporary storage included (allocated outside the timed region, as CUB's users do).
struct cub_temp {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class Call>
  void prepare(Call&& call) {
    BENCH_CHECK(call(nullptr, bytes));
    BENCH_CHECK(cudaMalloc(&p, bytes == 0 ? 1 : bytes));
  }
  ~cub_temp() { cudaFree(p); }
};

// Signed samples over their whole type: CUB drops negative int8 samples (README), so for 8- and 16-bit signed
// samples it histograms the same bytes as the unsigned type over [0, 2^bits) instead (the same work), and its
// bins are rotated by half the range.
template <class T, class L>
void even_case(context& c, int bins, L lo, L hi, dist d, bool run_cub = true) {
  if (!wanted(c, std::string(type_name<T>()) + ", " + std::to_string(bins) + " bins, " + name(d))) { return; }
  const std::size_t n = c.bytes / sizeof(T);
  T* samples = fill<T>(c, d, static_cast<double>(lo), static_cast<double>(hi));
  constexpr bool whole_signed = std::is_signed_v<T> && sizeof(T) <= 2;
  using U = std::conditional_t<whole_signed, std::make_unsigned_t<std::conditional_t<whole_signed, T, int>>, T>;
  const L cub_lo = whole_signed ? L(0) : lo, cub_hi = whole_signed ? static_cast<L>(hi - lo) : hi;
  cub_temp temp;
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out = nullptr) {
    return cub::DeviceHistogram::HistogramEven(t, b, reinterpret_cast<const U*>(samples), out, bins + 1, cub_lo,
                                               cub_hi, static_cast<long long>(n));
  };
  if (run_cub) { temp.prepare(cub_call); }
  measure(
      c, type_name<T>(), bins, name(d), c.bytes, bins,
      [&](unsigned* out) { BENCH_CHECK(onchip::histogram_even(samples, n, out, bins, lo, hi)); },
      [&](unsigned* out) { BENCH_CHECK(cub_call(temp.p, temp.bytes, out)); }, run_cub,
      whole_signed ? static_cast<std::size_t>(bins / 2) : 0);
}

// Bins beyond shared memory: the plan's path (the partition) against CUB where CUB runs (up to 2^20 bins), else
// checked against onchip's global atomics path; then that global path alone on the same input (every sample's
// atomic in the output: how these calls ran before the partition).
template <class T, class C = unsigned, class L>
void huge_case(context& c, int bins, L lo, L hi, dist d) {
  const std::string what = std::string(name(d)) + (sizeof(C) == 8 ? ", u64 counters" : "");
  if (!wanted(c, std::string(type_name<T>()) + ", " + std::to_string(bins) + " bins, " + what)) { return; }
  const std::size_t n = c.bytes / sizeof(T);
  T* samples = fill<T>(c, d, static_cast<double>(lo), static_cast<double>(hi));
  const bool run_cub = bins <= (1 << 20) && sizeof(C) == 4;
  cub_temp temp;
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out = nullptr) {
    return cub::DeviceHistogram::HistogramEven(t, b, samples, out, bins + 1, lo, hi, static_cast<long long>(n));
  };
  if (run_cub) { temp.prepare(cub_call); }
  auto global = [&](C* out) {
    onchip::detail::histogram_request request;
    request.path = onchip::detail::histogram_path::global_atomics;
    onchip::histogram_options options;
    options.request = &request;
    BENCH_CHECK(onchip::histogram_even(samples, n, out, bins, lo, hi, nullptr, options));
  };
  measure<C>(
      c, type_name<T>(), bins, what, c.bytes, bins,
      [&](C* out) { BENCH_CHECK(onchip::histogram_even(samples, n, out, bins, lo, hi)); },
      [&](C* out) {
        if constexpr (sizeof(C) == 4) {
          if (run_cub) {
            BENCH_CHECK(cub_call(temp.p, temp.bytes, out));
            return;
          }
        }
        global(out);
      },
      run_cub, 0, !run_cub);
  measure<C>(c, type_name<T>(), bins, what + ", global atomics", c.bytes, bins, global, [](C*) {}, false);
}

// A custom binner on bytes (the value's top six bits: 64 bins), against CUB's 64 even bins over [0, 256).
struct top_six_bits {
  ONCHIP_HOST_DEVICE int operator()(std::uint8_t v) const { return v >> 2; }
};

void custom_case(context& c, dist d) {
  const std::string what = std::string(name(d)) + ", custom binner";
  if (!wanted(c, "u8, 64 bins, " + what)) { return; }
  const std::size_t n = c.bytes;
  auto* samples = fill<std::uint8_t>(c, d, 0.0, 256.0);
  cub_temp temp;
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out = nullptr) {
    return cub::DeviceHistogram::HistogramEven(t, b, samples, out, 65, 0, 256, static_cast<long long>(n));
  };
  temp.prepare(cub_call);
  measure(
      c, "u8", 64, what, c.bytes, 64,
      [&](unsigned* out) { BENCH_CHECK(onchip::histogram(samples, n, out, 64, top_six_bits{})); },
      [&](unsigned* out) { BENCH_CHECK(cub_call(temp.p, temp.bytes, out)); });
}

enum class spacing { square_root, logarithmic, even };

// Range binning over `num_levels` levels spanning the samples' range [lo, hi): square-root spaced (finer towards
// hi), log-spaced over three decades below hi, or even. `bitmaps` false: levels the plan would give a bitmap of
// sub-cells keep the grid instead (the library without the bitmap, in the same run).
template <class T, class Level>
void range_case(context& c, int num_levels, dist d, spacing s, double lo, double hi, bool bitmaps = true) {
  const std::string levels_kind =
      s == spacing::logarithmic ? ", log-spaced levels" : s == spacing::even ? ", even levels" : "";
  const std::string what =
      std::string(name(d)) + ", range binning" + levels_kind + (bitmaps ? "" : ", grid instead of bitmap");
  if (!wanted(c, std::string(type_name<T>()) + ", " + std::to_string(num_levels - 1) + " bins, " + what)) { return; }
  const std::size_t n = c.bytes / sizeof(T);
  T* samples = fill<T>(c, d, lo, hi);
  std::vector<Level> host(num_levels);
  for (int i = 0; i < num_levels; ++i) {
    const double x = static_cast<double>(i) / (num_levels - 1);
    const double u = s == spacing::square_root ? std::sqrt(x) : s == spacing::logarithmic ? std::pow(10.0, 3.0 * (x - 1.0)) : x;
    host[i] = static_cast<Level>(lo + (hi - lo) * u);
  }
  Level* levels = nullptr;
  BENCH_CHECK(cudaMalloc(&levels, num_levels * sizeof(Level)));
  BENCH_CHECK(cudaMemcpy(levels, host.data(), num_levels * sizeof(Level), cudaMemcpyHostToDevice));
  cub_temp temp;
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out = nullptr) {
    return cub::DeviceHistogram::HistogramRange(t, b, samples, out, num_levels, levels, static_cast<long long>(n));
  };
  temp.prepare(cub_call);
  onchip::detail::histogram_request request;
  request.level_bitmaps = bitmaps;
  onchip::histogram_options options;
  options.request = &request;
  measure(
      c, type_name<T>(), num_levels - 1, what, c.bytes, num_levels - 1,
      [&](unsigned* out) { BENCH_CHECK(onchip::histogram_range(samples, n, out, levels, num_levels, nullptr, options)); },
      [&](unsigned* out) { BENCH_CHECK(cub_call(temp.p, temp.bytes, out)); });
  BENCH_CHECK(cudaFree(levels));
}

void rgba_case(context& c, dist d) {
  const std::string what = std::string(name(d)) + ", RGBA, 3 of 4 channels";
  if (!wanted(c, "u8, 768 bins, " + what)) { return; }
  const std::size_t pixels = c.bytes / 4;
  auto* samples = fill<std::uint8_t>(c, d, 0.0, 256.0);
  cub_temp temp;
  const int lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out = nullptr) {
    const cuda::std::array<unsigned*, 3> hist{out, out + 256, out + 512};
    const cuda::std::array<int, 3> num_levels{257, 257, 257}, lo{0, 0, 0}, hi{256, 256, 256};
    return cub::DeviceHistogram::MultiHistogramEven<4, 3>(t, b, samples, hist, num_levels, lo, hi,
                                                          static_cast<long long>(pixels));
  };
  temp.prepare(cub_call);
  measure(
      c, "u8", 768, what, c.bytes, 768,
      [&](unsigned* out) {
        unsigned* const hist[3] = {out, out + 256, out + 512};
        const int bins[3] = {256, 256, 256};
        BENCH_CHECK((onchip::multi_histogram_even<4, 3>(samples, pixels, hist, bins, lower, upper)));
      },
      [&](unsigned* out) { BENCH_CHECK(cub_call(temp.p, temp.bytes, out)); });
}

// Weighted f32: CUB has no weighted histogram; the reference is a plain atomicAdd kernel over the same input,
// checked against onchip, and the input is samples + weights.
__global__ void weighted_reference(const float* x, const float* w, std::size_t n, float* out, int bins) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    if (x[i] >= 0.0f && x[i] < 1.0f) { atomicAdd(out + min(bins - 1, static_cast<int>(x[i] * bins)), w[i]); }
  }
}

void weighted_case(context& c, int bins, dist d) {
  const std::string what = std::string(name(d)) + ", weighted (f32 weights)";
  if (!wanted(c, "f32, " + std::to_string(bins) + " bins, " + what)) { return; }
  const std::size_t n = c.bytes / 2 / sizeof(float);
  float* samples = fill<float>(c, d, 0.0, 1.0);
  float* weights = samples + n;
  generate<float><<<bench::sm_count() * 8, 256>>>(weights, n, dist::uniform, 0.0, 1.0);
  BENCH_CHECK(cudaDeviceSynchronize());
  measure(
      c, "f32", bins, what, c.bytes, bins,
      [&](unsigned* out) {
        BENCH_CHECK(onchip::weighted_histogram_even(samples, weights, n, reinterpret_cast<float*>(out), bins, 0.0f, 1.0f));
      },
      [&](unsigned* out) {
        BENCH_CHECK(cudaMemsetAsync(out, 0, bins * sizeof(float)));
        weighted_reference<<<bench::sm_count() * 8, 256>>>(samples, weights, n, reinterpret_cast<float*>(out), bins);
      },
      false);
}

// The block primitive in a user kernel: one 4 KiB tile of bytes per 256-thread block, each block storing its
// tile's 256 bins.
constexpr int tile_threads = 256, tile_items = 16, tile_bytes = tile_threads * tile_items;

struct tile_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    return onchip::block_histogram<256>(smem, tile_threads);
  }
};

__global__ void __launch_bounds__(tile_threads) onchip_tiles(const std::uint8_t* in, unsigned* out) {
  auto hist = onchip::carve(tile_plan{});
  // The tile's load is issued before the zeroing, so its latency overlaps it (CUB's kernel below loads first too).
  const auto v = onchip::load_vec<16, onchip::cache::stream>(in + blockIdx.x * std::size_t{tile_bytes} + threadIdx.x * 16);
  hist.reset();
#pragma unroll
  for (int i = 0; i < 16; ++i) { hist.add(v[i]); }
  hist.store(out + blockIdx.x * 256);
}

template <cub::BlockHistogramAlgorithm Algorithm>
__global__ void __launch_bounds__(tile_threads) cub_tiles(const std::uint8_t* in, unsigned* out) {
  using block_histogram = cub::BlockHistogram<std::uint8_t, tile_threads, tile_items, 256, Algorithm>;
  __shared__ typename block_histogram::TempStorage temp;
  __shared__ unsigned hist[256];
  std::uint8_t items[tile_items];
  cub::LoadDirectBlockedVectorized(static_cast<int>(threadIdx.x), const_cast<std::uint8_t*>(in) + blockIdx.x * std::size_t{tile_bytes}, items);
  block_histogram(temp).Histogram(items, hist);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += tile_threads) { out[blockIdx.x * 256 + b] = hist[b]; }
}

template <cub::BlockHistogramAlgorithm Algorithm>
void tiles_case(context& c, dist d, const char* algorithm) {
  const std::string what = std::string(name(d)) + ", block primitive, 4 KiB tile per block vs cub::BlockHistogram " + algorithm;
  if (!wanted(c, "u8, 256 bins, " + what)) { return; }
  auto* samples = fill<std::uint8_t>(c, d, 0.0, 256.0);
  const int tiles = static_cast<int>(c.bytes / tile_bytes);
  const std::size_t smem = onchip::smem_bytes(tile_plan{});
  measure(
      c, "u8", 256, what, c.bytes, static_cast<std::size_t>(tiles) * 256,
      [&](unsigned* out) { onchip_tiles<<<tiles, tile_threads, smem>>>(samples, out); },
      [&](unsigned* out) { cub_tiles<Algorithm><<<tiles, tile_threads>>>(samples, out); });
}


// Segmented histograms: f32, 256 bins per segment, against CUB's one HistogramEven call per segment (CUB has no
// segmented histogram). Many small segments and a few large ones over the same 256 MiB.
void segmented_case(context& c, int segments) {
  const std::size_t n = (std::size_t{256} << 20) / sizeof(float), per = n / segments;
  const std::string what = "uniform, " + std::to_string(segments) + " segments of " + std::to_string(per * 4 / 1024) +
                           " KiB, segmented";
  if (!wanted(c, "f32, 256 bins, " + what)) { return; }
  float* samples = fill<float>(c, dist::uniform, 0.0, 1.0);
  std::vector<long long> offsets(segments + 1);
  for (int s = 0; s <= segments; ++s) { offsets[s] = static_cast<long long>(per) * s; }
  long long* d_offsets = nullptr;
  BENCH_CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(long long)));
  BENCH_CHECK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(long long), cudaMemcpyHostToDevice));
  cub_temp temp;
  auto cub_call = [&](void* t, std::size_t& b, unsigned* out, int s) {
    return cub::DeviceHistogram::HistogramEven(t, b, samples + offsets[s], out, 257, 0.0f, 1.0f,
                                               static_cast<long long>(per));
  };
  temp.prepare([&](void* t, std::size_t& b) { return cub_call(t, b, nullptr, 0); });
  measure(
      c, "f32", 256, what, per * segments * sizeof(float), static_cast<std::size_t>(segments) * 256,
      [&](unsigned* out) {
        BENCH_CHECK(onchip::segmented_histogram_even(samples, d_offsets, segments, out, 256, 0.0f, 1.0f));
      },
      [&](unsigned* out) {
        for (int s = 0; s < segments; ++s) { BENCH_CHECK(cub_call(temp.p, temp.bytes, out + 256 * s, s)); }
      });
  BENCH_CHECK(cudaFree(d_offsets));
}

__global__ void empty_kernel() {}

// What any call costs at least, timed the same way: one launch of an empty kernel, and a memset before it.
void latency_floor(context& c, bench::table& t) {
  bench::options calls = c.o;
  calls.runs = 200;
  calls.warmups = 5;
  const double launch_us = 1000 * bench::median_ms(calls, [] { empty_kernel<<<1, 32>>>(); }, true);
  const double memset_us = 1000 * bench::median_ms(calls, [&] {
    BENCH_CHECK(cudaMemsetAsync(c.scratch, 0, sizeof(unsigned)));
    empty_kernel<<<1, 32>>>();
  }, true);
  t.add({"floor: one empty kernel launch", "-", "-", "-", bench::fixed(launch_us, 1), "-", "-", "-"});
  t.add({"floor: a memset and an empty kernel", "-", "-", "-", bench::fixed(memset_us, 1), "-", "-", "-"});
}

template <class T, class L>
void latency_case(context& c, bench::table& t, int bins, L lo, L hi) {
  for (std::size_t bytes = 4096; bytes <= c.bytes; bytes *= 4) {
    const std::string size = bytes < (1u << 20) ? std::to_string(bytes >> 10) + " KiB"
                              : bytes < (1u << 30) ? std::to_string(bytes >> 20) + " MiB"
                                                   : std::to_string(bytes >> 30) + " GiB";
    const std::string label = std::string(type_name<T>()) + ", " + std::to_string(bins) + " bins, " + size;
    if (!wanted(c, label + ", latency")) { continue; }
    const std::size_t n = bytes / sizeof(T);
    T* samples = fill<T>(c, dist::uniform, static_cast<double>(lo), static_cast<double>(hi));
    unsigned *ours = nullptr, *theirs = nullptr;
    BENCH_CHECK(cudaMalloc(&ours, bins * sizeof(unsigned)));
    BENCH_CHECK(cudaMalloc(&theirs, bins * sizeof(unsigned)));
    cub_temp temp;
    auto cub_call = [&](void* p, std::size_t& b, unsigned* out = nullptr) {
      return cub::DeviceHistogram::HistogramEven(p, b, samples, out, bins + 1, lo, hi, static_cast<long long>(n));
    };
    temp.prepare(cub_call);
    // One call between two events, the GPU idle before it: host work counts as the user sees it.
    bench::options calls = c.o;
    calls.runs = 200;
    calls.warmups = 5;
    const double onchip_us =
        1000 * bench::median_ms(calls, [&] { BENCH_CHECK(onchip::histogram_even(samples, n, ours, bins, lo, hi)); }, true);
    const double cub_us = 1000 * bench::median_ms(calls, [&] { BENCH_CHECK(cub_call(temp.p, temp.bytes, theirs)); }, true);
    std::vector<unsigned> x(bins), y(bins);
    BENCH_CHECK(cudaMemcpy(x.data(), ours, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(y.data(), theirs, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    t.add({label, type_name<T>(), std::to_string(bins), size, bench::fixed(onchip_us, 1), bench::fixed(cub_us, 1),
           bench::fixed(cub_us / onchip_us, 2), x == y ? "yes" : "NO"});
    BENCH_CHECK(cudaFree(ours));
    BENCH_CHECK(cudaFree(theirs));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t bytes = std::size_t{1} << 30;
  void* buffer = nullptr;
  unsigned* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&buffer, bytes));
  BENCH_CHECK(cudaMalloc(&scratch, sizeof(unsigned)));
  bench::table t("Histogram over 1 GiB (GB/s of input; median of " + std::to_string(o.runs) + " runs)",
                 {"case", "type", "bins", "distribution", "onchip", "CUB", "read ceiling", "onchip % of ceiling",
                  "onchip / CUB", "histograms agree"});
  context c{o, &t, buffer, bytes, scratch};
  for (dist d : {dist::uniform, dist::skewed, dist::degenerate, dist::image, dist::text, dist::bank, dist::runs}) {
    even_case<std::uint8_t>(c, 256, 0, 256, d);
  }
  for (dist d : {dist::uniform, dist::skewed, dist::text}) { even_case<std::int8_t>(c, 256, -128, 128, d); }
  even_case<std::uint8_t>(c, 16, 0, 256, dist::image);
  even_case<std::uint8_t>(c, 64, 0, 256, dist::text);
  even_case<std::uint8_t>(c, 100, 0, 200, dist::uniform);  // a quarter of the samples in no bin
  custom_case(c, dist::image);
  for (int bins : {1024, 4096}) {
    for (dist d : {dist::uniform, dist::normal, dist::zipf, dist::degenerate}) {
      even_case<std::uint16_t>(c, bins, 0, 65536, d);
    }
    for (dist d : {dist::uniform, dist::normal}) { even_case<std::int16_t>(c, bins, -32768, 32768, d); }
  }
  for (dist d : {dist::uniform, dist::normal, dist::degenerate}) { even_case<std::uint16_t>(c, 65536, 0, 65536, d); }
  for (int bins : {1024, 4096}) {
    for (dist d : {dist::uniform, dist::normal, dist::degenerate}) { even_case<float>(c, bins, 0.0f, 1.0f, d); }
  }
  for (dist d : {dist::uniform, dist::degenerate}) {
    even_case<std::int32_t>(c, 10, 0, 1000000, d);
    even_case<std::int64_t>(c, 100, 0LL, 1000000LL, d);
    even_case<double>(c, 256, 0.0, 1.0, d);
  }
  for (dist d : {dist::uniform, dist::normal}) { range_case<float, float>(c, 1025, d, spacing::square_root, 0.0, 1.0); }
  range_case<float, float>(c, 64, dist::uniform, spacing::logarithmic, 0.0, 1.0);
  for (int num_levels : {40001, 65536}) {  // levels in device memory through a bitmap, and through the grid
    for (dist d : {dist::uniform, dist::normal}) {
      for (bool bitmaps : {true, false}) {
        range_case<float, float>(c, num_levels, d, spacing::square_root, 0.0, 1.0, bitmaps);
      }
    }
  }
  for (dist d : {dist::uniform, dist::normal}) { range_case<std::uint16_t, int>(c, 257, d, spacing::even, 0.0, 65536.0); }
  rgba_case(c, dist::uniform);
  rgba_case(c, dist::image);
  weighted_case(c, 1024, dist::uniform);
  tiles_case<cub::BLOCK_HISTO_ATOMIC>(c, dist::uniform, "ATOMIC");
  tiles_case<cub::BLOCK_HISTO_SORT>(c, dist::uniform, "SORT");
  tiles_case<cub::BLOCK_HISTO_ATOMIC>(c, dist::image, "ATOMIC");
  for (int bins : {1 << 20, 1 << 22, 1 << 24}) {
    for (dist d : {dist::uniform, dist::zipf}) {
      huge_case<float>(c, bins, 0.0f, 1.0f, d);
      huge_case<std::uint32_t>(c, bins, 0LL, 4294967296LL, d);
    }
  }
  huge_case<std::uint32_t, unsigned long long>(c, 1 << 24, 0LL, 4294967296LL, dist::uniform);
  segmented_case(c, 16384);
  segmented_case(c, 8);
  t.print();
  t.save(o.out, "histogram.csv");
  bench::table latency("Histogram time per call (microseconds, median of 200 calls, each timed alone)",
                       {"case", "type", "bins", "input", "onchip us", "CUB us", "CUB / onchip", "histograms agree"});
  latency_floor(c, latency);
  latency_case<float>(c, latency, 1024, 0.0f, 1.0f);
  latency_case<std::uint8_t>(c, latency, 256, 0, 256);
  latency.print();
  latency.save(o.out, "histogram_latency.csv");
  BENCH_CHECK(cudaFree(buffer));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
