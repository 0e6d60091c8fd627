// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// 65536 bins of u16 samples in packed 16-bit shared counters (128 KiB, one block of 1024 threads per SM): ways of
// keeping the counts exact, measured side by side with the library's call and the read ceiling (1 GiB, each
// histogram compared with the host's). The bin is the sample's bits in every kernel here.
//   returning atomics: a vector's adds issued back to back, their old words tested for a full half once (the
//     library's scheme);
//   no carry test: adds without return, nothing tested; exact only while no counter passes 65535 in a block (true
//     of the uniform and normal inputs here, not of the degenerate one): what the carries cost;
//   drained chunks: adds without return in chunks of K samples a block; after each chunk's barrier every half of
//     at least T moves to the output (T - 1 + K <= 65535, so no half ever wraps); "next chunk in flight" issues
//     the next chunk's loads before the drain.
//   bench_packed_counters [--out DIR] [--runs N] [--filter TEXT]
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>

#include <cstdint>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int threads = 1024;
constexpr int words = 32768;  // 65536 packed 16-bit counters

// The library's streaming load, as its kernels read samples.
__device__ __forceinline__ uint4 load_stream(const uint4* p) { return onchip::load<onchip::cache::stream>(p); }

__device__ __forceinline__ unsigned sample_of(const uint4& v, int k) {
  const unsigned w = k < 2 ? v.x : k < 4 ? v.y : k < 6 ? v.z : v.w;
  return k % 2 ? w >> 16 : w & 0xffffu;
}

__device__ __forceinline__ void zero(unsigned* w) {
  for (int i = threadIdx.x; i < words; i += threads) { w[i] = 0; }
  __syncthreads();
}

__device__ __forceinline__ void flush(const unsigned* w, unsigned* out) {
  __syncthreads();
  for (int i = threadIdx.x; i < words; i += threads) {
    const unsigned q = w[i];
    if (q & 0xffffu) { atomicAdd(out + 2 * i, q & 0xffffu); }
    if (q >> 16) { atomicAdd(out + 2 * i + 1, q >> 16); }
  }
}

template <int V>
__device__ __forceinline__ void add_without_return(unsigned base, const uint4 (&r)[V]) {
#pragma unroll
  for (int j = 0; j < V; ++j) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const unsigned b = sample_of(r[j], k);
      asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(base + (b >> 1) * 4), "r"(1u + (b & 1u) * 0xffffu) : "memory");
    }
  }
}

// Returning atomics, four at a time, then one test of the four old words; a full half's wrap carries into the
// output (and, for a low half, takes back the carry into the high half, or credits 65535 if that wrapped too).
template <int V>
__global__ void __launch_bounds__(threads, 1) returning(const uint4* in, std::size_t n, unsigned* out) {
  extern __shared__ unsigned w[];
  zero(w);
  bench::grid_vectors<threads, V>(in, n, [&](const uint4& v) {
#pragma unroll
    for (int h = 0; h < 8; h += 4) {
      unsigned b[4], old[4];
      bool any = false;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        b[k] = sample_of(v, h + k);
        old[k] = atomicAdd_block(w + (b[k] >> 1), 1u + (b[k] & 1u) * 0xffffu);
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) { any |= ((old[k] >> (16 * (b[k] & 1u))) & 0xffffu) == 0xffffu; }
      if (any) {
        for (int k = 0; k < 4; ++k) {
          if (((old[k] >> (16 * (b[k] & 1u))) & 0xffffu) != 0xffffu) { continue; }
          atomicAdd(out + b[k], 65536u);
          if ((b[k] & 1u) == 0) { atomicAdd(out + b[k] + 1, (old[k] >> 16) == 0xffffu ? 65535u : ~0u); }
        }
      }
    }
  });
  flush(w, out);
}

template <int V>
__global__ void __launch_bounds__(threads, 1) no_carry_test(const uint4* in, std::size_t n, unsigned* out) {
  extern __shared__ unsigned w[];
  zero(w);
  const unsigned base = bench::shared_address(w);
  bench::grid_vectors<threads, V>(in, n, [&](const uint4& v) {
    const uint4 one[1] = {v};
    add_without_return<1>(base, one);
  });
  flush(w, out);
}

// Moves every half holding at least T (Mask: the bits of T and above, in both halves) to the output.
template <unsigned Mask>
__device__ __forceinline__ void drain(unsigned* w, unsigned* out) {
#pragma unroll
  for (int k = 0; k < words / 4 / threads; ++k) {
    const int i = (k * threads + threadIdx.x) * 4;
    uint4 q;  // relaxed loads: other threads' adds land meanwhile
    asm volatile("ld.relaxed.cta.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w)
                 : "r"(bench::shared_address(w + i))
                 : "memory");
    if (((q.x | q.y | q.z | q.w) & Mask) == 0) { continue; }
    const unsigned v[4] = {q.x, q.y, q.z, q.w};
    for (int m = 0; m < 4; ++m) {
      unsigned take = 0;
      if (v[m] & Mask & 0xffffu) {
        take += v[m] & 0xffffu;
        atomicAdd(out + 2 * (i + m), v[m] & 0xffffu);
      }
      if ((v[m] >> 16) & Mask & 0xffffu) {
        take += v[m] & 0xffff0000u;
        atomicAdd(out + 2 * (i + m) + 1, v[m] >> 16);
      }
      if (take != 0) { atomicSub(w + i + m, take); }
    }
  }
}

template <int V, unsigned Mask, bool NextInFlight>
__global__ void __launch_bounds__(threads, 1) drained(const uint4* in, std::size_t n, unsigned* out) {
  constexpr unsigned least = (Mask & 0xffffu) & (0u - (Mask & 0xffffu));
  static_assert(least - 1 + V * 8 * threads <= 65535, "a chunk could wrap a half: fewer vectors or a lower T");
  extern __shared__ unsigned w[];
  zero(w);
  const unsigned base = bench::shared_address(w);
  const std::size_t chunk = std::size_t{V} * threads, chunks = n / chunk;
  auto load = [&](uint4(&r)[V], std::size_t c) {
#pragma unroll
    for (int j = 0; j < V; ++j) { r[j] = load_stream(in + c * chunk + j * threads + threadIdx.x); }
  };
  if constexpr (!NextInFlight) {
    for (std::size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
      uint4 r[V];
      load(r, c);
      __syncthreads();
      drain<Mask>(w, out);
      add_without_return<V>(base, r);
    }
  } else {
    uint4 a[V], b[V];
    std::size_t c = blockIdx.x;
    if (c < chunks) { load(a, c); }
    for (; c < chunks; c += 2 * gridDim.x) {
      if (c + gridDim.x < chunks) { load(b, c + gridDim.x); }
      __syncthreads();
      drain<Mask>(w, out);
      add_without_return<V>(base, a);
      if (c + gridDim.x >= chunks) { break; }
      if (c + 2 * gridDim.x < chunks) { load(a, c + 2 * gridDim.x); }
      __syncthreads();
      drain<Mask>(w, out);
      add_without_return<V>(base, b);
    }
  }
  __syncthreads();
  drain<Mask>(w, out);  // the tail: fewer than one chunk over the whole grid
  for (std::size_t i = chunks * chunk + std::size_t{blockIdx.x} * threads + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * threads) {
    const uint4 r[1] = {load_stream(in + i)};
    add_without_return<1>(base, r);
  }
  flush(w, out);
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 29, vectors = n / 8;  // 1 GiB of u16
  std::uint16_t* in = nullptr;
  unsigned* out = nullptr;
  BENCH_CHECK(cudaMalloc(&in, n * sizeof(std::uint16_t)));
  BENCH_CHECK(cudaMalloc(&out, 65536 * sizeof(unsigned)));
  const int sms = bench::sm_count(), smem = words * sizeof(unsigned);
  auto allow = [&](auto kernel) {
    BENCH_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  };
  allow(returning<4>);
  allow(no_carry_test<4>);
  allow(drained<4, 0x80008000u, false>);
  allow(drained<6, 0xc000c000u, false>);
  allow(drained<7, 0xe000e000u, false>);
  allow(drained<4, 0x80008000u, true>);
  allow(drained<6, 0xc000c000u, true>);
  std::vector<std::uint16_t> host(n);
  std::vector<unsigned> expected(65536), got(65536);
  bench::table t("Packed 16-bit counters, u16, 65536 bins, 1 GiB",
                 {"distribution", "kernel", "GB/s", "% of read ceiling", "histogram agrees"});
  const char* distributions[] = {"uniform", "normal(0.5, 0.02)", "degenerate"};
  const auto* v = reinterpret_cast<const uint4*>(in);
  for (int d = 0; d < 3; ++d) {
    bench::generate_u16<<<sms * 8, 256>>>(in, n, d);
    BENCH_CHECK(cudaMemcpy(host.data(), in, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
    std::fill(expected.begin(), expected.end(), 0u);
    for (std::uint16_t x : host) { ++expected[x]; }
    const double ceiling = n * sizeof(std::uint16_t) / (bench::read_ceiling_ms(o, in, n * 2, out) * 1e6);
    t.add({distributions[d], "read ceiling", bench::fixed(ceiling), "100.0", "-"});
    auto run = [&](const std::string& name, auto launch) {
      if (!o.filter.empty() && (std::string(distributions[d]) + ", " + name).find(o.filter) == std::string::npos) {
        return;
      }
      const double gbs = n * sizeof(std::uint16_t) / (bench::median_ms(o, [&] {
                                                          BENCH_CHECK(cudaMemsetAsync(out, 0, 65536 * sizeof(unsigned)));
                                                          launch();
                                                        }) * 1e6);
      BENCH_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
      t.add({distributions[d], name, bench::fixed(gbs), bench::fixed(100 * gbs / ceiling, 1),
             got == expected ? "yes" : "NO"});
    };
    run("onchip::histogram_even", [&] { BENCH_CHECK(onchip::histogram_even(in, n, out, 65536, 0, 65536)); });
    run("returning atomics, 4 vectors", [&] { returning<4><<<sms, threads, smem>>>(v, vectors, out); });
    run("no carry test, 4 vectors", [&] { no_carry_test<4><<<sms, threads, smem>>>(v, vectors, out); });
    run("drained chunks of 4 vectors, T = 2^15",
        [&] { drained<4, 0x80008000u, false><<<sms, threads, smem>>>(v, vectors, out); });
    run("drained chunks of 6 vectors, T = 2^14",
        [&] { drained<6, 0xc000c000u, false><<<sms, threads, smem>>>(v, vectors, out); });
    run("drained chunks of 7 vectors, T = 2^13",
        [&] { drained<7, 0xe000e000u, false><<<sms, threads, smem>>>(v, vectors, out); });
    run("drained chunks of 4 vectors, next chunk in flight",
        [&] { drained<4, 0x80008000u, true><<<sms, threads, smem>>>(v, vectors, out); });
    run("drained chunks of 6 vectors, next chunk in flight",
        [&] { drained<6, 0xc000c000u, true><<<sms, threads, smem>>>(v, vectors, out); });
  }
  t.print();
  t.save(o.out, "packed_counters.csv");
  return 0;
}
