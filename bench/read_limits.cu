// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What holds a streaming read of 1 GiB below the memory's rate: the loads a kernel keeps in flight per SM, the L1
// room its shared memory leaves them, the work each vector costs between rounds of loads, and whether asking the
// L2 for a later round ahead of the loads helps. One kernel shape a row over the same buffer, beside the read
// ceiling. A second table reads the same GiB as the partition path's bucket pass reads its keys: tiles of 32 KiB,
// each split into equal runs, one block per run index reading that run of every tile in turn, so the memory
// serves short runs 32 KiB apart. Results: markdown on stdout, read_limits.csv and read_runs.csv in the output
// folder.
#include <onchip/load.cuh>

#include <string>

#include "harness.cuh"

namespace {

/// L2 prefetch of the round `Rounds` later: none; one bulk prefetch of 512 bytes per warp and vector index (sm_90);
/// one prefetch instruction per thread and vector.
enum class ahead { none, bulk, line };
/// Work per 16-byte vector: an xor; one shared atomic on a lane-owned word; a chain of 24 dependent integer
/// multiply-adds (about as long as a histogram's binning and count).
enum class work { none, atomic, chain };

__device__ __forceinline__ void prefetch_bulk(const void* p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
  static_cast<void>(p), static_cast<void>(bytes);
#endif
}

__device__ __forceinline__ void prefetch_line(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

/// Rounds of V 16-byte loads per thread over the whole grid (the library's traversal order), then the work.
template <int Threads, int V, ahead A, int Rounds, work W>
__global__ void __launch_bounds__(Threads) read_kernel(const uint4* in, std::size_t n, unsigned* out) {
  extern __shared__ unsigned words[];
  const unsigned lane = threadIdx.x % 32;
  if constexpr (W == work::atomic) {
    for (int i = threadIdx.x; i < 256 * 32; i += Threads) { words[i] = 0; }
    __syncthreads();
  }
  unsigned acc = 0;
  const std::size_t stride = std::size_t{gridDim.x} * Threads;
  std::size_t i = std::size_t{blockIdx.x} * Threads + threadIdx.x;
  for (; i + (V - 1) * stride < n; i += V * stride) {
    const std::size_t later = i + std::size_t{Rounds} * V * stride;
    if constexpr (A == ahead::bulk) {
      if (lane < V) {
        const std::size_t at = later - lane + lane * stride;  // the warp's 32 vectors of index `lane`
        if (at + 32 <= n) { prefetch_bulk(in + at, 512); }
      }
    } else if constexpr (A == ahead::line) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (later + k * stride < n) { prefetch_line(in + later + k * stride); }
      }
    }
    uint4 r[V];
#pragma unroll
    for (int k = 0; k < V; ++k) { r[k] = onchip::load<onchip::cache::stream>(in + i + k * stride); }
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if constexpr (W == work::atomic) {
        atomicAdd(&words[(r[k].x & 255u) * 32 + lane], 1u);
      } else if constexpr (W == work::chain) {
        unsigned h = r[k].x ^ acc;
#pragma unroll
        for (int j = 0; j < 6; ++j) {
          h = h * 0x9e3779b1u + r[k].y;
          h = h * 0x85ebca6bu + r[k].z;
          h = h * 0xc2b2ae35u + r[k].w;
          h = h * 0x27d4eb2fu + r[k].x;
        }
        acc = h;
      } else {
        acc ^= r[k].x ^ r[k].y ^ r[k].z ^ r[k].w;
      }
    }
  }
  for (; i < n; i += stride) { acc ^= in[i].x; }
  if constexpr (W == work::atomic) {
    __syncthreads();
    acc ^= words[threadIdx.x];
  }
  if (acc == 0x9e3779b9u) { out[0] = acc; }  // keeps the loads alive
}

/// The 32 KiB tiles runs_kernel reads of n vectors, its runs starting `shift` bytes into their slots (the last
/// tile's last run must end within the buffer).
__host__ __device__ constexpr std::size_t run_tiles(std::size_t n, int shift) { return (n - shift / 16) / 2048; }

/// The bucket pass's order: block j reads run j (Run bytes from j * Run + Shift) of every 32 KiB tile, each
/// thread V 16-byte vectors of the block's sequence of runs at a time (a run's vectors consecutive, then the next
/// tile's).
template <int Threads, int V, int Run, int Shift>
__global__ void __launch_bounds__(Threads) runs_kernel(const uint4* in, std::size_t n, unsigned* out) {
  constexpr std::size_t tile = 32768 / 16, per_run = Run / 16;  // in vectors
  static_assert(Run % 16 == 0 && Shift % 16 == 0 && Run + Shift <= 32768, "runs of whole vectors in a tile");
  const std::size_t total = run_tiles(n, Shift) * per_run;
  const std::size_t first = std::size_t{blockIdx.x} * per_run + Shift / 16;
  unsigned acc = 0;
  std::size_t g = threadIdx.x;
  for (; g + (V - 1) * Threads < total; g += V * Threads) {
    uint4 r[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const std::size_t q = g + k * Threads;
      r[k] = onchip::load<onchip::cache::stream>(in + q / per_run * tile + first + q % per_run);
    }
#pragma unroll
    for (int k = 0; k < V; ++k) { acc ^= r[k].x ^ r[k].y ^ r[k].z ^ r[k].w; }
  }
  for (; g < total; g += Threads) { acc ^= in[g / per_run * tile + first + g % per_run].x; }
  if (acc == 0x9e3779b9u) { out[0] = acc; }  // keeps the loads alive
}

struct runs_shape {
  void (*kernel)(const uint4*, std::size_t, unsigned*);
  int threads, vectors, run, shift;
};

template <int Threads, int V, int Run, int Shift = 0>
runs_shape make_runs() {
  return {runs_kernel<Threads, V, Run, Shift>, Threads, V, Run, Shift};
}

struct shape {
  void (*kernel)(const uint4*, std::size_t, unsigned*);
  int threads, blocks, vectors, smem_kib;
  std::string prefetch;
  const char* work;
};

template <int Threads, int V, ahead A = ahead::none, int Rounds = 1, work W = work::none>
shape make(int blocks, int smem_kib = 0) {
  const std::string rounds = std::to_string(Rounds) + (Rounds == 1 ? " round ahead" : " rounds ahead");
  const std::string p = A == ahead::none ? "none" : (A == ahead::bulk ? "bulk, " : "per thread, ") + rounds;
  const char* w = W == work::none ? "xor" : W == work::atomic ? "a shared atomic" : "24 dependent multiply-adds";
  return {read_kernel<Threads, V, A, Rounds, W>, Threads, blocks, V, smem_kib, p, w};
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t bytes = std::size_t{1} << 30;
  uint4* data = nullptr;
  unsigned* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&data, bytes));
  BENCH_CHECK(cudaMalloc(&scratch, sizeof(unsigned)));
  BENCH_CHECK(cudaMemset(data, 0x5a, bytes));
  const shape shapes[] = {
      // Loads in flight.
      make<256, 4>(8), make<512, 4>(2), make<512, 2>(2), make<1024, 4>(1), make<1024, 4>(2),
      // L2 prefetch ahead of the loads.
      make<256, 4, ahead::bulk>(8), make<512, 4, ahead::bulk>(2), make<512, 4, ahead::bulk, 2>(2),
      make<512, 4, ahead::line>(2), make<512, 2, ahead::bulk>(2),
      // L1 room: shared memory taken beside the loads.
      make<512, 4>(2, 33), make<512, 4>(2, 64), make<512, 4>(2, 100), make<512, 4>(2, 113), make<512, 8>(2, 113),
      make<256, 4>(8, 27),
      // Work between rounds.
      make<512, 4, ahead::none, 1, work::atomic>(2, 33), make<512, 4, ahead::none, 1, work::atomic>(2, 113),
      make<1024, 4, ahead::none, 1, work::atomic>(2, 64), make<512, 4, ahead::none, 1, work::chain>(2),
      make<512, 8, ahead::none, 1, work::chain>(2), make<1024, 4, ahead::none, 1, work::chain>(2),
  };
  bench::table t("Streaming read of 1 GiB, one kernel shape a row (GB/s; median of " + std::to_string(o.runs) +
                     " runs)",
                 {"threads x blocks an SM", "vectors a thread", "KiB of loads in flight an SM",
                  "KiB of shared memory an SM", "L2 prefetch", "work a vector", "GB/s", "read ceiling",
                  "% of ceiling"});
  for (const shape& s : shapes) {
    const std::string dims = std::to_string(s.threads) + " x " + std::to_string(s.blocks);
    const std::string label = dims + ", " + s.prefetch + ", " + s.work;
    if (!o.filter.empty() && label.find(o.filter) == std::string::npos) { continue; }
    const double ceiling_ms = bench::read_ceiling_ms(o, data, bytes, scratch);
    const int grid = bench::sm_count() * s.blocks;
    const int smem = s.smem_kib * 1024;
    BENCH_CHECK(cudaFuncSetAttribute(s.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const double ms = bench::median_ms(o, [&] { s.kernel<<<grid, s.threads, smem>>>(data, bytes / 16, scratch); });
    const double gbs = static_cast<double>(bytes) / ms / 1e6, ceiling = static_cast<double>(bytes) / ceiling_ms / 1e6;
    t.add({dims, std::to_string(s.vectors), std::to_string(s.threads * s.blocks * s.vectors * 16 / 1024),
           std::to_string(s.smem_kib * s.blocks), s.prefetch, s.work, bench::fixed(gbs), bench::fixed(ceiling),
           bench::fixed(100.0 * gbs / ceiling, 1)});
  }
  t.print();
  t.save(o.out, "read_limits.csv");

  // Runs of a tile: 1024 threads an SM (the bucket pass's block), the runs of 32 KiB / run bytes blocks in all.
  const runs_shape runs[] = {
      make_runs<1024, 4, 32>(),      make_runs<1024, 8, 32>(),     make_runs<1024, 4, 64>(),
      make_runs<1024, 8, 64>(),      make_runs<1024, 4, 64, 16>(), make_runs<1024, 8, 64, 16>(),
      make_runs<1024, 4, 128>(),     make_runs<1024, 4, 128, 16>(), make_runs<1024, 8, 128, 16>(),
      make_runs<1024, 4, 256>(),     make_runs<1024, 4, 512>(),
  };
  bench::table r("The same GiB read as short runs of 32 KiB tiles, in the bucket pass's order (GB/s of the "
                 "input; median of " + std::to_string(o.runs) + " runs)",
                 {"run bytes", "run start in its slot (bytes)", "32-byte sectors a run", "blocks",
                  "vectors a thread", "GB/s", "read ceiling", "% of ceiling"});
  for (const runs_shape& s : runs) {
    const std::string label = "runs of " + std::to_string(s.run) + ", shift " + std::to_string(s.shift);
    if (!o.filter.empty() && label.find(o.filter) == std::string::npos) { continue; }
    const double ceiling_ms = bench::read_ceiling_ms(o, data, bytes, scratch);
    const int blocks = 32768 / s.run;
    const double ms = bench::median_ms(o, [&] { s.kernel<<<blocks, s.threads>>>(data, bytes / 16, scratch); });
    const double gbs = static_cast<double>(run_tiles(bytes / 16, s.shift) * 32768) / ms / 1e6;
    const double ceiling = static_cast<double>(bytes) / ceiling_ms / 1e6;
    r.add({std::to_string(s.run), std::to_string(s.shift), std::to_string((s.run + s.shift % 32 + 31) / 32),
           std::to_string(blocks), std::to_string(s.vectors), bench::fixed(gbs), bench::fixed(ceiling),
           bench::fixed(100.0 * gbs / ceiling, 1)});
  }
  r.print();
  r.save(o.out, "read_runs.csv");
  BENCH_CHECK(cudaFree(data));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
