// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Streaming sum over 1 GiB: onchip::grid_for_each against the hand-tuned read-ceiling kernel and
// cub::DeviceReduce::Sum, for u8, u16, f32 and f64, with the input offset from 16-byte alignment by every legal
// amount. Results: markdown on stdout, loads.csv in the output folder.
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

template <class T>
struct sum_type {
  using type = unsigned long long;
};
template <>
struct sum_type<float> {
  using type = double;  // atomicAdd on double; per-thread partials stay float below
};
template <>
struct sum_type<double> {
  using type = double;
};

// Per-thread partial sums: 32 bits hold a thread's share of 1 GiB of u8 or u16 (a few thousand elements).
template <class T>
using thread_acc = std::conditional_t<std::is_integral_v<T>, unsigned, T>;

template <class T>
__global__ void __launch_bounds__(256) onchip_sum_t(const T* in, std::size_t n, typename sum_type<T>::type* out) {
  thread_acc<T> sum = 0;
  onchip::grid_for_each<4>(in, n, [&](T v, std::size_t) { sum += static_cast<thread_acc<T>>(v); });
  bench::block_add(static_cast<typename sum_type<T>::type>(sum), out);
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else return "f64";
}

template <class T>
void fill(unsigned char* base, std::size_t bytes) {
  // Values that keep integer sums exact and float sums well conditioned.
  std::vector<T> host(bytes / sizeof(T));
  for (std::size_t i = 0; i < host.size(); ++i) { host[i] = static_cast<T>((i * 2654435761u >> 7) % 100); }
  BENCH_CHECK(cudaMemcpy(base, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
void run_type(const bench::options& o, bench::table& t, unsigned char* base, std::size_t bytes, unsigned* scratch) {
  using S = typename sum_type<T>::type;
  fill<T>(base, bytes);
  const double ceiling_ms = bench::read_ceiling_ms(o, base, bytes, scratch);  // measured beside each type
  S* d_sum = nullptr;
  BENCH_CHECK(cudaMalloc(&d_sum, 2 * sizeof(S)));
  int blocks_per_sm = 0;
  BENCH_CHECK(onchip::blocks_per_sm(&blocks_per_sm, onchip_sum_t<T>, 256, 0));
  const int grid = bench::sm_count() * blocks_per_sm;
  for (std::size_t offset = 0; offset < 16; offset += sizeof(T)) {
    const std::string name = std::string(type_name<T>()) + " +" + std::to_string(offset) + "B";
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos) { continue; }
    const T* in = reinterpret_cast<const T*>(base + offset);
    const std::size_t n = (bytes - 16) / sizeof(T);
    const double input_bytes = static_cast<double>(n * sizeof(T));
    const double onchip_ms = bench::median_ms(o, [&] {
      BENCH_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(S)));
      onchip_sum_t<T><<<grid, 256>>>(in, n, d_sum);
    });
    S ours{};
    BENCH_CHECK(cudaMemcpy(&ours, d_sum, sizeof(S), cudaMemcpyDeviceToHost));
    std::size_t temp_bytes = 0;
    BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, d_sum + 1, static_cast<long long>(n)));
    void* temp = nullptr;
    BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
    const double cub_ms = bench::median_ms(o, [&] {
      BENCH_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, d_sum + 1, static_cast<long long>(n)));
    });
    BENCH_CHECK(cudaFree(temp));
    S theirs{};
    BENCH_CHECK(cudaMemcpy(&theirs, d_sum + 1, sizeof(S), cudaMemcpyDeviceToHost));
    const double rel = std::fabs(static_cast<double>(ours) - static_cast<double>(theirs)) /
                       std::fmax(1.0, std::fabs(static_cast<double>(theirs)));
    const bool agree = std::is_integral_v<T> ? ours == theirs : rel < 1e-5;
    const double gbs = input_bytes / onchip_ms / 1e6, cub_gbs = input_bytes / cub_ms / 1e6;
    const double ceiling_gbs = static_cast<double>(bytes) / ceiling_ms / 1e6;
    t.add({type_name<T>(), std::to_string(offset), bench::fixed(gbs), bench::fixed(cub_gbs), bench::fixed(ceiling_gbs),
           bench::fixed(100.0 * gbs / ceiling_gbs, 1), bench::fixed(gbs / cub_gbs, 2), agree ? "yes" : "NO"});
  }
  BENCH_CHECK(cudaFree(d_sum));
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t bytes = std::size_t{1} << 30;
  unsigned char* base = nullptr;
  unsigned* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&base, bytes));
  BENCH_CHECK(cudaMalloc(&scratch, sizeof(unsigned)));
  bench::table t("Streaming sum over 1 GiB (GB/s of input; median of " + std::to_string(o.runs) + " runs)",
                 {"type", "offset (bytes)", "onchip grid_for_each", "cub::DeviceReduce::Sum", "read ceiling",
                  "onchip % of ceiling", "onchip / CUB", "sums agree"});
  run_type<std::uint8_t>(o, t, base, bytes, scratch);
  run_type<std::uint16_t>(o, t, base, bytes, scratch);
  run_type<float>(o, t, base, bytes, scratch);
  run_type<double>(o, t, base, bytes, scratch);
  t.print();
  t.save(o.out, "loads.csv");
  BENCH_CHECK(cudaFree(base));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
