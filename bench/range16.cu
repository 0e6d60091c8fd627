// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// 16-bit range binning (257 integer levels) through a lane-owned grid of cells: the measurement behind the
// choice of a design, side by side with the library's call and the read ceiling (1 GiB of u16, each histogram
// compared with the host's).
//   lane grid: 2^k cells over the 16-bit values, each cell one 32-bit word (the first value's counter index in the
//     low 15 bits, the value where the next index starts in the high 17), one copy per lane, so that every lane
//     reads its own bank; counters per lane too (index 0: below the first level, bins + 1: at or past the last).
//     A sample costs one shared load, one compare and one shared atomic without return, no bank conflict
//     whatever the data. Exact while no cell holds two level boundaries (true of the levels here); "with the
//     crowded test" adds the test a general kernel needs (a flag in the word, a search when it is set).
//   carry grid: the same copies per lane, but the compare folded into an addition (carry_grid_kernel): 8
//     instructions a sample. Its addresses are formed three ways: the lane's offset ORed into the masked cell or
//     index (table and counters at aligned shared addresses), or a shift and an add of the lane's base ("shift
//     and add": any place), with the shift's amount a constant or a register ("shift in a register", as for a
//     cell width chosen at run time).
//   bench_range16 [--out DIR] [--runs N] [--filter TEXT]
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int bins = 256, counters = bins + 2;
constexpr unsigned crowded = 0x4000u;

// #{i : levels[i] <= v} over num_levels ascending levels in device memory.
__device__ int at_or_below(const int* levels, int num_levels, int v) {
  int first = 0, count = num_levels;
  while (count > 0) {
    const int step = count / 2;
    if (levels[first + step] <= v) {
      first += step + 1;
      count -= step + 1;
    } else {
      count = step;
    }
  }
  return first;
}

template <int Threads, int CellsLog2>
struct lane_grid {
  static constexpr int cells = 1 << CellsLog2, shift = 16 - CellsLog2;
  static constexpr std::size_t smem = (std::size_t{cells} + counters) * 32 * 4;
};

template <int Threads, int CellsLog2, int V, bool Checked>
__global__ void __launch_bounds__(Threads) lane_grid_kernel(const uint4* in, std::size_t n, const int* levels,
                                                            unsigned* out) {
  using g = lane_grid<Threads, CellsLog2>;
  extern __shared__ unsigned smem[];
  unsigned* grid = smem;
  unsigned* count = smem + g::cells * 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < counters * 32; i += Threads) { count[i] = 0; }
  for (int c0 = warp * 32; c0 < g::cells; c0 += Threads) {
    const int c = c0 + lane, first = c << g::shift, last = first + (1 << g::shift) - 1;
    const int lo = at_or_below(levels, bins + 1, first), hi = at_or_below(levels, bins + 1, last);
    const unsigned t = hi == lo ? 65536u : static_cast<unsigned>(levels[lo]);
    const unsigned word = (t << 15) | static_cast<unsigned>(lo) | (hi - lo > 1 ? crowded : 0u);
    for (int j = 0; j < 32; ++j) { grid[(c0 + j) * 32 + lane] = __shfl_sync(~0u, word, j); }
  }
  __syncthreads();
  const unsigned grid_base = bench::shared_address(grid) + lane * 4, count_base = bench::shared_address(count) + lane * 4;
  auto add = [&](unsigned v) {
    unsigned w;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(grid_base + ((v >> g::shift) << 7)));
    unsigned index = (w & 0x3fffu) + (((v << 15) | 0x7fffu) >= w ? 1u : 0u);
    if (Checked && (w & crowded) != 0) { index = at_or_below(levels, bins + 1, static_cast<int>(v)); }
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(count_base + (index << 7)) : "memory");
  };
  bench::grid_vectors<Threads, V>(in, n, [&](const uint4& r) {
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      add(w[k] & 0xffffu);
      add(w[k] >> 16);
    }
  });
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += Threads) {
    unsigned sum = 0;
    for (int l = 0; l < 32; ++l) { sum += count[(b + 1) * 32 + (l + b) % 32]; }
    if (sum != 0) { atomicAdd(out + b, sum); }
  }
}


// Carry grid: 2^k cells of 2^C values (k + C = 16), one copy per lane. A cell's word is built so that adding the
// sample shifted left by 8 (one byte permute, which also isolates the 16-bit half) carries into the counter index
// exactly when the sample reaches the cell's boundary: word = ((first - cell) << (8 + C)) + ((2^C - s) << 8), first
// = the counter index of the cell's first value, s = the offset of the boundary inside the cell (2^C: none). Then
// index = (word + (x << 8)) >> (8 + C). Exact while no cell holds two boundaries (the host checks it per case).
template <int C>
struct carry_grid {
  static constexpr int cells = 1 << (16 - C);
  // The table and the counters at shared addresses aligned to their sizes' powers of two, so that a lane's
  // offset is ORed into the masked cell or index with one three-input logic op: the table at 32 or 64 KiB, the
  // counters at the next 64 KiB. The window is sized as if it started at 0 (it starts a little above: checked).
  static constexpr unsigned table_at = cells * 128u < 0x8000u ? 0x8000u : cells * 128u;
  static constexpr unsigned count_at = (table_at + cells * 128u + 0xffffu) & ~0xffffu;
  static constexpr std::size_t smem = count_at + std::size_t{counters} * 32 * 4;
  static constexpr std::size_t packed_smem() { return (std::size_t{cells} + counters) * 32 * 4; }  // back to back
};

/// How a carry grid kernel forms its shared addresses.
enum class carry_form {
  aligned_or,   // the lane's offset ORed into the masked cell or index (carry_grid's aligned places)
  shift_lea,    // a shift, then the lane's base added to the shifted cell or index (LEA): any place
  runtime_lea,  // the same with the shift's amount in a register, as for a cell width chosen at run time
};

template <int Threads, int C, int V, int MinBlocks, carry_form Form = carry_form::aligned_or>
__global__ void __launch_bounds__(Threads, MinBlocks) carry_grid_kernel(const uint4* in, std::size_t n,
                                                                        const int* levels, unsigned* out) {
  using g = carry_grid<C>;
  constexpr bool aligned = Form == carry_form::aligned_or;
  extern __shared__ unsigned smem[];
  const unsigned window = bench::shared_address(smem);
  unsigned* grid = aligned ? smem + (g::table_at - window) / 4 : smem;
  unsigned* count = aligned ? smem + (g::count_at - window) / 4 : smem + g::cells * 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (aligned && window > g::table_at) {
    if (threadIdx.x == 0 && blockIdx.x == 0) { printf("carry grid: the shared window starts at %u\n", window); }
    return;
  }
  for (int i = threadIdx.x; i < counters * 32; i += Threads) { count[i] = 0; }
  for (int c0 = warp * 32; c0 < g::cells; c0 += Threads) {
    const int c = c0 + lane, first = c << C, last = first + (1 << C) - 1;
    const int lo = at_or_below(levels, bins + 1, first), hi = at_or_below(levels, bins + 1, last);
    const unsigned s = hi == lo ? (1u << C) : static_cast<unsigned>(levels[lo] - first);
    const unsigned word = (static_cast<unsigned>(lo - c) << (8 + C)) + (((1u << C) - s) << 8);
    for (int j = 0; j < 32; ++j) { grid[(c0 + j) * 32 + lane] = __shfl_sync(~0u, word, j); }
  }
  __syncthreads();
  unsigned l4, c4;  // opaque to the compiler, so that each address is one shift and one three-input logic op
  asm("mov.u32 %0, %1;" : "=r"(l4) : "r"(g::table_at | (lane * 4)));
  asm("mov.u32 %0, %1;" : "=r"(c4) : "r"(g::count_at | (lane * 4)));
  constexpr unsigned cell_mask = (g::cells - 1u) << 7, index_mask = 511u << 7;
  const unsigned t_lane = bench::shared_address(grid) + lane * 4, c_lane = bench::shared_address(count) + lane * 4;
  const unsigned shift = 8u + C + static_cast<unsigned>(n >> 62);  // 8 + C, known only at run time (n < 2^62)
  auto shr = [&](unsigned v) {  // v >> (8 + C), opaque to the compiler so that it is not merged with the << 7
    unsigned r;
    if constexpr (Form == carry_form::runtime_lea) {
      asm("shr.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(shift));
    } else {
      asm("shr.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "n"(8 + C));
    }
    return r;
  };
  auto add = [&](unsigned xs) {  // xs = x << 8
    unsigned w;
    if constexpr (aligned) {
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(((xs >> (C + 1)) & cell_mask) | l4));
      asm volatile("red.shared.add.u32 [%0], 1;" ::"r"((((w + xs) >> (C + 1)) & index_mask) | c4) : "memory");
    } else {
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(t_lane + (shr(xs) << 7)));
      asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(c_lane + (shr(w + xs) << 7)) : "memory");
    }
  };
  bench::grid_vectors<Threads, V>(in, n, [&](const uint4& r) {
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      add(__byte_perm(w[k], 0, 0x4104));
      add(__byte_perm(w[k], 0, 0x4324));
    }
  });
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += Threads) {
    unsigned sum = 0;
    for (int l = 0; l < 32; ++l) { sum += count[(b + 1) * 32 + (l + b) % 32]; }
    if (sum != 0) { atomicAdd(out + b, sum); }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 29, vectors = n / 8;  // 1 GiB of u16
  std::uint16_t* in = nullptr;
  unsigned* out = nullptr;
  int* levels = nullptr;
  BENCH_CHECK(cudaMalloc(&in, n * sizeof(std::uint16_t)));
  BENCH_CHECK(cudaMalloc(&out, bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&levels, (bins + 1) * sizeof(int)));
  const int sms = bench::sm_count();
  std::vector<std::uint16_t> host(n);
  std::vector<unsigned> expected(bins), got(bins);
  std::vector<int> level(bins + 1);
  bench::table t("16-bit range binning, u16, 257 levels, 1 GiB",
                 {"levels", "distribution", "kernel", "GB/s", "% of read ceiling", "histogram agrees"});
  const char* spacings[] = {"even (multiples of 256)", "every 255 from 100"};
  const char* distributions[] = {"uniform", "normal(0.5, 0.02)", "degenerate"};
  const auto* v = reinterpret_cast<const uint4*>(in);
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i <= bins; ++i) { level[i] = s == 0 ? i * 256 : 100 + i * 255; }
    BENCH_CHECK(cudaMemcpy(levels, level.data(), level.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (int d = 0; d < 3; ++d) {
      bench::generate_u16<<<sms * 8, 256>>>(in, n, d);
      BENCH_CHECK(cudaMemcpy(host.data(), in, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
      std::fill(expected.begin(), expected.end(), 0u);
      std::vector<unsigned> values(65536, 0u);  // each value's count, then each value's count into its bin
      for (std::uint16_t x : host) { ++values[x]; }
      for (int x = 0; x < 65536; ++x) {
        const auto b = std::upper_bound(level.begin(), level.end(), x) - level.begin() - 1;
        if (b >= 0 && b < bins) { expected[b] += values[x]; }
      }
      const double ceiling = n * sizeof(std::uint16_t) / (bench::read_ceiling_ms(o, in, n * 2, out) * 1e6);
      t.add({spacings[s], distributions[d], "read ceiling", bench::fixed(ceiling), "100.0", "-"});
      auto run = [&](const std::string& name, auto launch, int calls = 1) {  // `calls` inputs read per launch()
        const std::string what = std::string(spacings[s]) + ", " + distributions[d] + ", " + name;
        if (!o.filter.empty() && what.find(o.filter) == std::string::npos) { return; }
        const double gbs = calls * n * sizeof(std::uint16_t) / (bench::median_ms(o, [&] {
                                                            BENCH_CHECK(cudaMemsetAsync(out, 0, bins * sizeof(unsigned)));
                                                            launch();
                                                          }) * 1e6);
        BENCH_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        t.add({spacings[s], distributions[d], name, bench::fixed(gbs), bench::fixed(100 * gbs / ceiling, 1),
               got == expected ? "yes" : "NO"});
      };
      auto grid_case = [&](const std::string& name, auto kernel, int threads, int blocks_per_sm, std::size_t smem) {
        BENCH_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        run(name, [&] { kernel<<<sms * blocks_per_sm, threads, smem>>>(v, vectors, levels, out); });
      };
      run("onchip::histogram_range", [&] { BENCH_CHECK(onchip::histogram_range(in, n, out, levels, bins + 1)); });
      run(
          "onchip::histogram_range, 4 calls in a row (per call)",  // the GPU kept busy from call to call
          [&] {
            for (int k = 0; k < 4; ++k) { BENCH_CHECK(onchip::histogram_range(in, n, out, levels, bins + 1)); }
          },
          4);
      grid_case("carry grid, 256 cells, 2 x 1024 threads, 2 vectors", carry_grid_kernel<1024, 8, 2, 2>, 1024, 2,
                carry_grid<8>::smem);
      grid_case("carry grid, 256 cells, 2 x 1024 threads, 4 vectors", carry_grid_kernel<1024, 8, 4, 2>, 1024, 2,
                carry_grid<8>::smem);
      grid_case("carry grid, 256 cells, 2 x 512 threads, 4 vectors", carry_grid_kernel<512, 8, 4, 2>, 512, 2,
                carry_grid<8>::smem);
      grid_case("carry grid, 256 cells, 3 x 512 threads, 4 vectors", carry_grid_kernel<512, 8, 4, 3>, 512, 3,
                carry_grid<8>::smem);
      grid_case("carry grid, 256 cells, 2 x 1024 threads, 4 vectors, shift and add",
                carry_grid_kernel<1024, 8, 4, 2, carry_form::shift_lea>, 1024, 2, carry_grid<8>::packed_smem());
      grid_case("carry grid, 256 cells, 2 x 1024 threads, 4 vectors, shift in a register",
                carry_grid_kernel<1024, 8, 4, 2, carry_form::runtime_lea>, 1024, 2, carry_grid<8>::packed_smem());
      grid_case("carry grid, 512 cells, 1 x 1024 threads, 4 vectors", carry_grid_kernel<1024, 7, 4, 1>, 1024, 1,
                carry_grid<7>::smem);
      grid_case("lane grid, 1024 cells, 1 x 1024 threads, 4 vectors", lane_grid_kernel<1024, 10, 4, false>, 1024, 1,
                lane_grid<1024, 10>::smem);
      grid_case("lane grid, 1024 cells, with the crowded test", lane_grid_kernel<1024, 10, 4, true>, 1024, 1,
                lane_grid<1024, 10>::smem);
      grid_case("lane grid, 512 cells, 2 x 512 threads, 4 vectors", lane_grid_kernel<512, 9, 4, false>, 512, 2,
                lane_grid<512, 9>::smem);
      grid_case("lane grid, 512 cells, 2 x 512 threads, with the crowded test", lane_grid_kernel<512, 9, 4, true>, 512,
                2, lane_grid<512, 9>::smem);
      grid_case("lane grid, 256 cells, 3 x 512 threads, with the crowded test", lane_grid_kernel<512, 8, 4, true>, 512,
                3, lane_grid<512, 8>::smem);
    }
  }
  t.print();
  t.save(o.out, "range16.csv");
  return 0;
}
