// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The byte kernel's shape: lane-owned 32-bit counters (the counter of value v for lane l in half h of a 64 KiB
// plane at byte v * 256 + h * 128 + l * 4, one PRMT and one shared atomic per sample, as the library's byte kernel
// counts), launched in several shapes side by side with the library's call and the read ceiling (u8, 256 values,
// 1 GiB; every histogram compared with the host's). A shape is threads a block, blocks an SM, 16-byte vectors in
// flight a thread, and how many halves of counters a block spreads its warps over (two a 64 KiB plane), so that
// fewer warps share a counter word.
//   bench_byte_shapes [--out DIR] [--runs N] [--filter TEXT]
#include <onchip/histogram.cuh>

#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

/// Halves = 2 x the planes of a block; warp w counts in half HalfOf(w) (0: w % Halves, 1: (w / 4) % Halves).
template <int Threads, int V, int Halves, int HalfRule>
__global__ void __launch_bounds__(Threads) lane_owned(const uint4* in, std::size_t n, unsigned* hist) {
  extern __shared__ uint4 planes[];
  constexpr int words16 = Halves / 2 * 4096;
  for (int i = threadIdx.x; i < words16; i += Threads) { planes[i] = uint4{0, 0, 0, 0}; }
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned h = (HalfRule == 0 ? warp : warp / 4) % Halves;
  const unsigned base = bench::shared_address(planes) + h / 2 * 65536, low = h % 2 * 128 + lane * 4;
  __syncthreads();
  bench::grid_vectors<Threads, V>(in, n, [&](const uint4& r) {
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      const unsigned a = base + __byte_perm(w[k / 4], low, 0x5504u | ((k % 4) << 4));
      asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(a) : "memory");
    }
  });
  __syncthreads();
  const auto* words = reinterpret_cast<const unsigned*>(planes);
  for (int v = threadIdx.x; v < 256; v += Threads) {
    unsigned total = 0;
    for (int p = 0; p < Halves / 2; ++p) {
      for (int k = 0; k < 64; ++k) { total += words[p * 16384 + v * 64 + (k + v) % 64]; }
    }
    if (total != 0) { atomicAdd(hist + v, total); }
  }
}

enum class dist { uniform, bank, skewed, degenerate };

const char* name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::bank: return "8 values on one bank";
    case dist::skewed: return "skewed";
    default: return "degenerate";
  }
}

__global__ void generate(unsigned char* out, std::size_t n, dist d) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    const unsigned h = bench::mix(i);
    unsigned v = h & 255;                                      // uniform
    if (d == dist::bank) { v = (h & 7) * 32; }                 // eight values 32 apart
    if (d == dist::skewed) { v = __ffs(h | (1u << 31)) - 1; }  // geometric(1/2): 0 half the time, 1 a quarter...
    if (d == dist::degenerate) { v = 76; }
    out[i] = static_cast<unsigned char>(v);
  }
}

struct shape {
  std::string name;
  int threads, blocks_per_sm, smem_bytes;
  void (*kernel)(const uint4*, std::size_t, unsigned*);
};

/// A shape whose shared memory this GPU's blocks cannot have is left out (kernel null).
template <int Threads, int V, int Halves, int HalfRule = 0>
shape make(int blocks_per_sm) {
  auto* k = lane_owned<Threads, V, Halves, HalfRule>;
  constexpr int bytes = Halves / 2 * 65536;  // a 64 KiB plane holds two halves
  int device = 0, optin = 0, per_sm = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  BENCH_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  if (bytes > optin || blocks_per_sm * bytes > per_sm) { k = nullptr; }
  if (k) { BENCH_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)); }
  std::string n = std::to_string(Threads) + " x " + std::to_string(blocks_per_sm) + ", " + std::to_string(V) +
                  " vectors, " + std::to_string(Halves) + " halves" + (HalfRule ? " (warp / 4)" : "");
  return {n, Threads, blocks_per_sm, bytes, k};
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 30;
  const int sms = bench::sm_count();
  const std::vector<shape> shapes = {
      make<1024, 4, 2>(2),     // the library's shape: 16 warps a half
      make<1024, 4, 2, 1>(2),  // the same, each SM sub-partition's warps alternating between the halves
      make<512, 4, 2>(3),      // 8 warps a half, 96 KiB of loads in flight an SM
      make<512, 6, 2>(3),      // 8 warps a half, 144 KiB in flight
      make<1024, 8, 4>(1),     // 8 warps a half, 128 KiB in flight
      make<1024, 8, 2>(1),     // 16 warps a half, 128 KiB in flight, one block an SM
  };
  unsigned char* samples = nullptr;
  unsigned *hist = nullptr, *scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&samples, n));
  BENCH_CHECK(cudaMalloc(&hist, 256 * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&scratch, 64));
  bench::table t("u8, 256 values, 1 GiB: lane-owned counters in several shapes (GB/s, % of the read ceiling)",
                 {"distribution", "kernel", "GB/s", "read ceiling", "% of ceiling", "agrees"});
  std::vector<unsigned char> host(n);
  for (dist d : {dist::uniform, dist::bank, dist::skewed, dist::degenerate}) {
    if (!o.filter.empty() && std::string(name(d)).find(o.filter) == std::string::npos) { continue; }
    generate<<<sms * 8, 256>>>(samples, n, d);
    BENCH_CHECK(cudaMemcpy(host.data(), samples, n, cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> ref(256, 0);
    for (unsigned char s : host) { ++ref[s]; }
    auto run = [&](const std::string& kernel, auto&& launch) {
      const double ceiling = n / bench::read_ceiling_ms(o, samples, n, scratch) / 1e6;
      const double gbs = n / bench::median_ms(o, launch) / 1e6;
      BENCH_CHECK(cudaMemset(hist, 0, 256 * sizeof(unsigned)));
      launch();
      std::vector<unsigned> got(256);
      BENCH_CHECK(cudaMemcpy(got.data(), hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      bool agree = true;
      for (int v = 0; v < 256; ++v) { agree = agree && got[v] == ref[v]; }
      t.add({name(d), kernel, bench::fixed(gbs), bench::fixed(ceiling), bench::fixed(100.0 * gbs / ceiling, 1),
             agree ? "yes" : "NO"});
    };
    run("library: histogram_even", [&] { BENCH_CHECK(onchip::histogram_even(samples, n, hist, 256, 0, 256)); });
    for (const shape& s : shapes) {
      if (!s.kernel) { continue; }
      run(s.name, [&] {
        BENCH_CHECK(cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned)));
        const auto* vectors = reinterpret_cast<const uint4*>(samples);
        s.kernel<<<sms * s.blocks_per_sm, s.threads, s.smem_bytes>>>(vectors, n / 16, hist);
      });
    }
  }
  t.print();
  t.save(o.out, "byte_shapes.csv");
  return 0;
}
