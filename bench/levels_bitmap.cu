// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Range binning of 65536 f32 levels (256 KiB, more than a block's shared memory) through a bitmap of sub-cells
// held in shared memory: the measurement behind the next design for levels past shared memory, side by side with
// the library's call (which searches the levels in device memory) and the read ceiling; 1 GiB of f32 samples,
// levels at square roots of even steps over [0, 1], each histogram compared with the library's.
//   The map: 2^18 sub-cells over [first level, last level), a sample's sub-cell one fused multiply-add, a saturating
//   conversion and a min (non-decreasing, so a level in a lower sub-cell is below the sample, one in a higher one
//   above). Per 32 sub-cells one 8-byte entry in shared memory: a bit per sub-cell that holds a level, and the
//   number of levels in lower sub-cells (the top bit marks entries where some sub-cell holds two or more). A
//   sample's count of levels at or below it is the entry's number, a population count of its word's lower bits,
//   and, when its own sub-cell holds a level, one compare with that level read from device memory (about one
//   sample in four with 65536 levels; the L2 serves those). In a marked entry the sample searches the entry's
//   levels instead. The counters are 65536 packed 16-bit halves (128 KiB) without carry handling: exact while no
//   bin of a block passes 65535 (true of these inputs, and checked by the comparison), so this is a bound on the
//   design, not yet a histogram for every input. This is the measured prototype, kept as it ran; the library's form
//   of the structure is detail/histogram/level_bitmap.cuh (levels from the second on, a builder per block).
//   bench_levels_bitmap [--out DIR] [--runs N] [--filter TEXT]
#include <onchip/histogram.cuh>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int threads = 1024, vectors_in_flight = 4, levels_count = 65536, bins = levels_count - 1;
constexpr unsigned sub_cells = 1u << 18, entries = sub_cells / 32, crowded = 0x80000000u;
constexpr std::size_t entry_bytes = (entries + 1) * sizeof(uint2), counter_words = 32768;
constexpr std::size_t smem_bytes = entry_bytes + counter_words * 4;

struct level_map {
  float scale, offset;
};

__device__ __forceinline__ unsigned sat_cell(const level_map& m, float x) {
  unsigned c;
  asm("cvt.rzi.sat.u32.f32 %0, %1;" : "=r"(c) : "f"(fmaf(x, m.scale, m.offset)));
  return min(c, sub_cells - 1);
}

// Per level: its sub-cell's bit, the entry's level count, and the mark where a sub-cell gets a second level.
__global__ void mark_levels(const float* levels, level_map m, unsigned* bits, unsigned* counts, unsigned* marks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= levels_count) { return; }
  const unsigned c = sat_cell(m, levels[i]), bit = 1u << (c % 32);
  if (atomicOr(bits + c / 32, bit) & bit) { marks[c / 32] = crowded; }
  atomicAdd(counts + c / 32, 1u);
}

// One block: the entries, each entry's number an exclusive scan of the counts; entry `entries` is a sentinel
// holding the total.
__global__ void __launch_bounds__(1024) build_entries(const unsigned* bits, const unsigned* counts,
                                                      const unsigned* marks, uint2* out) {
  constexpr unsigned per_thread = entries / 1024;
  __shared__ unsigned sums[1024];
  unsigned local[per_thread], total = 0;
  for (unsigned k = 0; k < per_thread; ++k) {
    local[k] = total;
    total += counts[threadIdx.x * per_thread + k];
  }
  sums[threadIdx.x] = total;
  __syncthreads();
  for (unsigned d = 1; d < 1024; d *= 2) {
    const unsigned v = threadIdx.x >= d ? sums[threadIdx.x - d] : 0u;
    __syncthreads();
    sums[threadIdx.x] += v;
    __syncthreads();
  }
  const unsigned before = sums[threadIdx.x] - total;
  for (unsigned k = 0; k < per_thread; ++k) {
    const unsigned e = threadIdx.x * per_thread + k;
    out[e] = uint2{bits[e], (before + local[k]) | marks[e]};
  }
  if (threadIdx.x == 1023) { out[entries] = uint2{0u, sums[1023]}; }
}

__global__ void __launch_bounds__(threads, 1) count_bitmap(const uint4* in, std::size_t vectors,
                                                        const float* __restrict__ levels, level_map m,
                                                        const uint2* table, unsigned* out) {
  extern __shared__ uint2 smem[];
  uint2* entry = smem;
  auto* counter = reinterpret_cast<unsigned*>(smem + entries + 1);
  for (unsigned i = threadIdx.x; i <= entries; i += threads) { entry[i] = table[i]; }
  for (unsigned i = threadIdx.x; i < counter_words; i += threads) { counter[i] = 0; }
  __syncthreads();
  const auto visit = [&](float x) {
    const unsigned c = sat_cell(m, x), r = c % 32;
    const uint2 e = entry[c / 32];
    unsigned count = (e.y & ~crowded) + __popc(e.x & ((1u << r) - 1u));
    if (e.y & crowded) {  // search the entry's levels: [first, last)
      unsigned first = e.y & ~crowded, len = (entry[c / 32 + 1].y & ~crowded) - first;
      while (len > 0) {
        const unsigned half = len / 2;
        if (__ldg(levels + first + half) <= x) {
          first += half + 1;
          len -= half + 1;
        } else {
          len = half;
        }
      }
      count = first;
    } else if ((e.x >> r) & 1u) {
      count += __ldg(levels + count) <= x ? 1u : 0u;
    }
    const unsigned bin = count - 1u < unsigned{bins} ? count - 1u : unsigned{bins};  // the spare half: no bin
    atomicAdd_block(counter + bin / 2, 1u << (bin % 2 * 16));
  };
  bench::grid_vectors<threads, vectors_in_flight>(in, vectors, [&](const uint4& v) {
    visit(__uint_as_float(v.x));
    visit(__uint_as_float(v.y));
    visit(__uint_as_float(v.z));
    visit(__uint_as_float(v.w));
  });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < unsigned{bins}; b += threads) {
    const unsigned v = (counter[b / 2] >> (b % 2 * 16)) & 0xffffu;
    if (v != 0) { atomicAdd(out + b, v); }
  }
}

__global__ void generate(float* out, std::size_t n, int normal) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const unsigned long long h = bench::mix(i);
    double u = (h >> 8) * (1.0 / 16777216.0);
    if (normal) {
      const double u2 = (bench::mix(i + (1ull << 40)) >> 8) * (1.0 / 16777216.0);
      u = 0.5 + 0.02 * sqrt(-2.0 * log(fmax(u, 1e-300))) * cospi(2.0 * u2);
      u = fmin(fmax(u, 0.0), 0.999999);
    }
    out[i] = static_cast<float>(u);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 28;
  std::vector<float> host(levels_count);
  for (int i = 0; i < levels_count; ++i) { host[i] = static_cast<float>(std::sqrt(double(i) / (levels_count - 1))); }
  float *samples = nullptr, *levels = nullptr;
  unsigned *ours = nullptr, *theirs = nullptr, *work = nullptr;
  uint2* table = nullptr;
  BENCH_CHECK(cudaMalloc(&samples, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&levels, levels_count * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&ours, bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&theirs, bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&work, 3 * entries * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&table, entry_bytes));
  BENCH_CHECK(cudaMemcpy(levels, host.data(), levels_count * sizeof(float), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaFuncSetAttribute(count_bitmap, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)));
  const int sms = bench::sm_count();
  // The map as the host computes it from the first and last levels (the device would do the same).
  const level_map m{static_cast<float>(sub_cells / (double(host.back()) - host.front())),
                    static_cast<float>(-double(host.front()) * sub_cells / (double(host.back()) - host.front()))};
  const auto bitmap_call = [&] {
    BENCH_CHECK(cudaMemsetAsync(work, 0, 3 * entries * sizeof(unsigned)));
    BENCH_CHECK(cudaMemsetAsync(ours, 0, bins * sizeof(unsigned)));
    mark_levels<<<levels_count / 256, 256>>>(levels, m, work, work + entries, work + 2 * entries);
    build_entries<<<1, 1024>>>(work, work + entries, work + 2 * entries, table);
    count_bitmap<<<sms, threads, smem_bytes>>>(reinterpret_cast<const uint4*>(samples), n / 4, levels, m, table, ours);
  };
  bench::table t("Range binning of 65536 f32 levels through a bitmap of sub-cells, 1 GiB",
                 {"distribution", "kernel", "GB/s", "% of read ceiling", "histogram agrees with the library's"});
  for (int normal : {0, 1}) {
    const std::string dist = normal ? "normal(0.5, 0.02)" : "uniform";
    if (!o.filter.empty() && dist.find(o.filter) == std::string::npos) { continue; }
    generate<<<sms * 8, 256>>>(samples, n, normal);
    BENCH_CHECK(cudaDeviceSynchronize());
    const double bytes = n * sizeof(float);
    const double ceiling = bytes / (bench::read_ceiling_ms(o, samples, n * sizeof(float), work) * 1e6);
    const double library = bytes / (bench::median_ms(o, [&] {
                             BENCH_CHECK(onchip::histogram_range(samples, n, theirs, levels, levels_count));
                           }) * 1e6);
    const double bitmap = bytes / (bench::median_ms(o, bitmap_call) * 1e6);
    std::vector<unsigned> a(bins), b(bins);
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaMemcpy(a.data(), ours, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(b.data(), theirs, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    t.add({dist, "read ceiling", bench::fixed(ceiling), "100.0", "-"});
    t.add({dist, "onchip::histogram_range", bench::fixed(library), bench::fixed(100 * library / ceiling, 1), "-"});
    t.add({dist, "bitmap of 2^18 sub-cells", bench::fixed(bitmap), bench::fixed(100 * bitmap / ceiling, 1),
           a == b ? "yes" : "NO"});
  }
  t.print();
  t.save(o.out, "levels_bitmap.csv");
  for (void* p : {static_cast<void*>(samples), static_cast<void*>(levels), static_cast<void*>(ours),
                  static_cast<void*>(theirs), static_cast<void*>(work), static_cast<void*>(table)}) {
    BENCH_CHECK(cudaFree(p));
  }
  return 0;
}
