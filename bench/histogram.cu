// Device-wide histogram: onchip against cub::DeviceHistogram (HistogramEven) on the same 1 GiB input, with the
// read ceiling measured in the same run. GB/s of input; "agree" compares the two histograms bin by bin.
#include <onchip/histogram.cuh>

#include <cub/device/device_histogram.cuh>

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

enum class dist { uniform, skewed, degenerate, normal };

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
    default: return "normal(0.5, 0.02)";
  }
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
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

template <class T, class L>
void run_case(context& c, int bins, L lo, L hi, dist d, bool run_cub = true) {
  const std::string label = std::string(type_name<T>()) + ", " + std::to_string(bins) + " bins, " + name(d);
  if (!c.o.filter.empty() && label.find(c.o.filter) == std::string::npos) { return; }
  const std::size_t n = c.bytes / sizeof(T);
  T* samples = static_cast<T*>(c.buffer);
  generate<T><<<bench::sm_count() * 8, 256>>>(samples, n, d, static_cast<double>(lo), static_cast<double>(hi));
  BENCH_CHECK(cudaDeviceSynchronize());
  const double ceiling_ms = bench::read_ceiling_ms(c.o, c.buffer, c.bytes, c.scratch);
  unsigned* ours = nullptr;
  BENCH_CHECK(cudaMalloc(&ours, bins * sizeof(unsigned)));
  const double onchip_ms = bench::median_ms(c.o, [&] {
    BENCH_CHECK(onchip::histogram_even(samples, n, ours, bins, lo, hi));
  });
  std::string cub_gbs = "crash (not run)", ratio = "-", agree = "-";
  if (run_cub) {
    unsigned* theirs = nullptr;
    BENCH_CHECK(cudaMalloc(&theirs, bins * sizeof(unsigned)));
    std::size_t temp_bytes = 0;
    BENCH_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, theirs, bins + 1, lo, hi,
                                                    static_cast<long long>(n)));
    void* temp = nullptr;
    BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
    const double cub_ms = bench::median_ms(c.o, [&] {
      BENCH_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, theirs, bins + 1, lo, hi,
                                                      static_cast<long long>(n)));
    });
    std::vector<unsigned> a(bins), b(bins);
    BENCH_CHECK(cudaMemcpy(a.data(), ours, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(b.data(), theirs, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    agree = a == b ? "yes" : "NO";
    const double cub = static_cast<double>(c.bytes) / cub_ms / 1e6;
    cub_gbs = bench::fixed(cub);
    ratio = bench::fixed((static_cast<double>(c.bytes) / onchip_ms / 1e6) / cub, 2);
    BENCH_CHECK(cudaFree(temp));
    BENCH_CHECK(cudaFree(theirs));
  }
  const double gbs = static_cast<double>(c.bytes) / onchip_ms / 1e6;
  const double ceiling = static_cast<double>(c.bytes) / ceiling_ms / 1e6;
  c.t->add({label, bench::fixed(gbs), cub_gbs, bench::fixed(ceiling), bench::fixed(100.0 * gbs / ceiling, 1), ratio, agree});
  BENCH_CHECK(cudaFree(ours));
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t bytes = std::size_t{1} << 30;
  void* buffer = nullptr;
  unsigned* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&buffer, bytes));
  BENCH_CHECK(cudaMalloc(&scratch, sizeof(unsigned)));
  bench::table t("Device-wide histogram over 1 GiB (GB/s of input; median of " + std::to_string(o.runs) + " runs)",
                 {"case", "onchip", "CUB HistogramEven", "read ceiling", "onchip % of ceiling", "onchip / CUB",
                  "histograms agree"});
  context c{o, &t, buffer, bytes, scratch};
  for (dist d : {dist::uniform, dist::skewed, dist::degenerate}) { run_case<std::uint8_t>(c, 256, 0, 256, d); }
  for (int bins : {1024, 4096, 65536}) {
    run_case<std::uint16_t>(c, bins, 0, 65536, dist::uniform);
    run_case<std::uint16_t>(c, bins, 0, 65536, dist::degenerate);
  }
  for (int bins : {1024, 4096}) {
    for (dist d : {dist::uniform, dist::normal, dist::degenerate}) { run_case<float>(c, bins, 0.0f, 1.0f, d); }
  }
  run_case<std::int32_t>(c, 10, 0, 1000000, dist::uniform);
  run_case<std::int64_t>(c, 100, 0LL, 1000000LL, dist::uniform);
  run_case<double>(c, 256, 0.0, 1.0, dist::uniform);
  run_case<float>(c, 1 << 20, 0.0f, 1.0f, dist::uniform);
  run_case<float>(c, 1 << 22, 0.0f, 1.0f, dist::uniform, false);
  run_case<float>(c, 1 << 24, 0.0f, 1.0f, dist::uniform, false);
  run_case<std::uint32_t>(c, 1 << 24, 0LL, 4294967296LL, dist::uniform, false);
  t.print();
  t.save(o.out, "histogram.csv");
  BENCH_CHECK(cudaFree(buffer));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
