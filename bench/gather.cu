// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Lookups beyond shared memory: how fast can a kernel stream 4-byte samples and, for each, read one word of a table
// at a place the sample picks? This is the least that any histogram must do per sample when what it needs to bin a
// sample (levels, or cells of a grid over them) does not fit in a block's shared memory: one load from the L1, the
// L2 or the DRAM at a data-dependent address. Measured for tables from 64 KiB to 256 MiB, with one lookup a sample,
// two dependent ones, and one lookup followed by a shared atomic into 65536 packed 16-bit counters (the counting a
// 65536-bin histogram would do, carries ignored: a bound, not a histogram). 1 GiB of uniform f32 samples, beside
// the read ceiling of the same run.
//   bench_gather [--out DIR] [--runs N] [--filter TEXT]
#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int threads = 1024, vectors_in_flight = 4;
constexpr std::size_t counter_bytes = std::size_t{65536} * 2;

// n uniform floats in [0, 1).
__global__ void generate_unit(float* d, std::size_t n) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    d[i] = static_cast<float>(bench::mix(i) >> 8) * (1.0f / 16777216.0f);
  }
}

// A table whose words are well mixed, so a chain of lookups visits random places.
__global__ void fill_table(unsigned* t, std::size_t n) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    t[i] = bench::mix(i + (1ull << 41));
  }
}

// Lookups: dependent table reads a sample (1 or 2). Count: a shared atomic into packed 16-bit counters at the last
// word read. The table's size is a power of two (mask = entries - 1).
template <int Lookups, bool Count>
__global__ void __launch_bounds__(threads) gather(const uint4* in, std::size_t n, const unsigned* __restrict__ table,
                                                  unsigned entries, unsigned* out) {
  extern __shared__ unsigned counters[];
  if constexpr (Count) {
    for (int i = threadIdx.x; i < 32768; i += threads) { counters[i] = 0; }
    __syncthreads();
  }
  const unsigned mask = entries - 1;
  const float scale = static_cast<float>(entries);
  unsigned acc = 0;
  const auto visit = [&](float x) {
    unsigned w = __float2uint_rz(x * scale) & mask;
#pragma unroll
    for (int k = 0; k < Lookups; ++k) { w = __ldg(table + ((w ^ static_cast<unsigned>(k)) & mask)); }
    if constexpr (Count) {
      atomicAdd_block(counters + (w & 0x7fffu), 1u << ((w >> 11) & 16u));
    } else {
      acc ^= w;
    }
  };
  bench::grid_vectors<threads, vectors_in_flight>(in, n, [&](const uint4& r) {
    visit(__uint_as_float(r.x));
    visit(__uint_as_float(r.y));
    visit(__uint_as_float(r.z));
    visit(__uint_as_float(r.w));
  });
  if constexpr (Count) {
    __syncthreads();
    for (int i = threadIdx.x; i < 32768; i += threads) { acc ^= counters[i]; }
  }
  if (acc == 0x9e3779b9u) { out[0] = acc; }  // keeps the work alive
}

template <int Lookups, bool Count>
double run_ms(const bench::options& o, const uint4* in, std::size_t vectors, const unsigned* table, unsigned entries,
              unsigned* out) {
  const std::size_t smem = Count ? counter_bytes : 0;
  if (Count) {
    BENCH_CHECK(cudaFuncSetAttribute(gather<Lookups, Count>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smem)));
  }
  int per_sm = 0;
  BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gather<Lookups, Count>, threads, smem));
  const int grid = bench::sm_count() * per_sm;
  return bench::median_ms(o, [&] { gather<Lookups, Count><<<grid, threads, smem>>>(in, vectors, table, entries, out); });
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB of f32
  const unsigned max_entries = 1u << 26;         // 256 MiB of table
  float* samples = nullptr;
  unsigned *table = nullptr, *out = nullptr;
  BENCH_CHECK(cudaMalloc(&samples, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&table, std::size_t{max_entries} * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&out, 64));
  const int sms = bench::sm_count();
  generate_unit<<<sms * 8, 256>>>(samples, n);
  fill_table<<<sms * 8, 256>>>(table, max_entries);
  BENCH_CHECK(cudaDeviceSynchronize());
  const auto* in = reinterpret_cast<const uint4*>(samples);
  const double ceiling = n * sizeof(float) / (bench::read_ceiling_ms(o, samples, n * sizeof(float), out) * 1e6);
  bench::table t("One data-dependent table read per f32 sample, 1 GiB of uniform samples, blocks of 1024 threads, as many as an SM holds",
                 {"table", "kernel", "GB/s", "% of read ceiling", "lookups per ns"});
  t.add({"-", "read ceiling", bench::fixed(ceiling), "100.0", "-"});
  for (unsigned log2 : {14u, 18u, 20u, 22u, 24u, 26u}) {
    const unsigned entries = 1u << log2;
    const std::string size = log2 >= 18 ? std::to_string((entries * 4u) >> 20) + " MiB" : std::to_string((entries * 4u) >> 10) + " KiB";
    const auto add = [&](const char* name, int lookups, auto run) {  // run(): median ms, timed only if wanted
      if (!o.filter.empty() && (size + ", " + name).find(o.filter) == std::string::npos) { return; }
      const double ms = run(), gbs = n * sizeof(float) / (ms * 1e6);
      t.add({size, name, bench::fixed(gbs), bench::fixed(100 * gbs / ceiling, 1),
             bench::fixed(lookups * n / (ms * 1e6), 0)});
    };
    add("one lookup", 1, [&] { return run_ms<1, false>(o, in, n / 4, table, entries, out); });
    add("two dependent lookups", 2, [&] { return run_ms<2, false>(o, in, n / 4, table, entries, out); });
    add("one lookup and a shared atomic", 1, [&] { return run_ms<1, true>(o, in, n / 4, table, entries, out); });
  }
  t.print();
  t.save(o.out, "gather.csv");
  BENCH_CHECK(cudaFree(samples));
  BENCH_CHECK(cudaFree(table));
  BENCH_CHECK(cudaFree(out));
  return 0;
}
