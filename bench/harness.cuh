// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The benchmark harness shared by onchip's benchmarks: CUDA-event timing (warm-ups, then the median of many
// runs), results as a markdown table on stdout and CSV files in an output folder.
#pragma once

#include <cuda_runtime.h>
#include <onchip/load.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench: %s failed: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
#define BENCH_CHECK(call) ::bench::check((call), #call)

struct options {
  std::string out = "bench/results";
  int warmups = 3;
  int runs = 15;
  std::string filter;  // run only cases whose name contains this
};

inline options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") {
      o.out = value();
    } else if (a == "--runs") {
      o.runs = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--warmups") {
      o.warmups = std::max(0, std::atoi(value().c_str()));
    } else if (a == "--filter") {
      o.filter = value();
    } else {
      std::fprintf(stderr, "usage: %s [--out DIR] [--runs N] [--warmups N] [--filter TEXT]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

/// Median milliseconds of `launch()` (which enqueues work on the default stream), timed with CUDA events. With
/// `idle`, the GPU is idle before each timed launch, so host work in the launch (queries, extra launches) counts.
template <class Launch>
double median_ms(const options& o, Launch&& launch, bool idle = false) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < o.warmups; ++i) { launch(); }
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int i = 0; i < o.runs; ++i) {
    if (idle) { BENCH_CHECK(cudaDeviceSynchronize()); }
    BENCH_CHECK(cudaEventRecord(start));
    launch();
    BENCH_CHECK(cudaEventRecord(stop));
    BENCH_CHECK(cudaEventSynchronize(stop));
    BENCH_CHECK(cudaGetLastError());
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// A results table: printed as markdown, saved as CSV.
class table {
 public:
  table(std::string name, std::vector<std::string> columns) : name_(std::move(name)), columns_(std::move(columns)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print() const {
    std::printf("\n### %s\n\n|", name_.c_str());
    for (const auto& c : columns_) { std::printf(" %s |", c.c_str()); }
    std::printf("\n|");
    for (std::size_t i = 0; i < columns_.size(); ++i) { std::printf("---|"); }
    std::printf("\n");
    for (const auto& r : rows_) {
      std::printf("|");
      for (const auto& c : r) { std::printf(" %s |", c.c_str()); }
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  /// Writes the table to dir/file, creating dir first; a file that cannot be written ends the run with an error
  /// (a run whose results vanish would otherwise look complete).
  void save(const std::string& dir, const std::string& file) const {
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    std::ofstream csv(dir + "/" + file);
    for (std::size_t i = 0; i < columns_.size(); ++i) { csv << (i ? "," : "") << quoted(columns_[i]); }
    csv << "\n";
    for (const auto& r : rows_) {
      for (std::size_t i = 0; i < r.size(); ++i) { csv << (i ? "," : "") << quoted(r[i]); }
      csv << "\n";
    }
    csv.flush();  // a file that did not open stays failed through the writes
    if (!csv) {
      std::fprintf(stderr, "bench: cannot write %s/%s%s%s\n", dir.c_str(), file.c_str(), made ? ": " : "",
                   made ? made.message().c_str() : "");
      std::exit(1);
    }
  }

 private:
  // A CSV field: quoted when it holds a comma or a quote (RFC 4180).
  static std::string quoted(const std::string& field) {
    if (field.find_first_of(",\"") == std::string::npos) { return field; }
    std::string out = "\"";
    for (char c : field) { out += c == '"' ? std::string("\"\"") : std::string(1, c); }
    return out + "\"";
  }
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

inline std::string fixed(double v, int digits = 0) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

inline int sm_count() {
  int device = 0, sms = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// The shared-window address of `p` (a pointer into shared memory), for inline PTX.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The memory-read ceiling: a hand-tuned kernel that reads `bytes` (a multiple of 16, 16-byte aligned) as uint4,
/// 256 threads x 8 blocks per SM, four loads in flight per thread.
static __global__ void __launch_bounds__(256) read_ceiling_kernel(const uint4* __restrict__ in, std::size_t n, unsigned* out) {
  unsigned acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n; i += stride) { acc ^= in[i].x ^ in[i].y ^ in[i].z ^ in[i].w; }
  if (acc == 0x9e3779b9u) { out[0] = acc; }  // keeps the loads alive
}

/// Adds `value` from every thread of the block into `*out`: warp shuffles, one shared slot per warp, one atomic.
template <class Acc>
__device__ void block_add(Acc value, Acc* out) {
  __shared__ Acc warp_sums[32];
  for (int o = 16; o > 0; o /= 2) { value += __shfl_down_sync(0xffffffffu, value, o); }
  if (threadIdx.x % 32 == 0) { warp_sums[threadIdx.x / 32] = value; }
  __syncthreads();
  if (threadIdx.x < 32) {
    value = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : Acc(0);
    for (int o = 16; o > 0; o /= 2) { value += __shfl_down_sync(0xffffffffu, value, o); }
    if (threadIdx.x == 0) { atomicAdd(out, value); }
  }
}

/// Every 16-byte vector of `in` (n of them) over the whole grid of Threads-thread blocks, V streaming loads (the
/// library's cache::stream, as its kernels read samples) in flight per thread: visit(vector).
template <int Threads, int V, class Visit>
__device__ __forceinline__ void grid_vectors(const uint4* in, std::size_t n, Visit&& visit) {
  const std::size_t stride = std::size_t{gridDim.x} * Threads;
  for (std::size_t i = std::size_t{blockIdx.x} * Threads + threadIdx.x; i < n; i += V * stride) {
    uint4 r[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      r[j] = i + j * stride < n ? onchip::load<onchip::cache::stream>(in + i + j * stride) : uint4{};
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (i + j * stride >= n) { break; }
      visit(r[j]);
    }
  }
}

/// A well-mixed 32-bit hash of `i` (splitmix64's finalizer).
__device__ inline unsigned mix(unsigned long long i) {
  unsigned long long x = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29, x *= 0x94d049bb133111ebull, x ^= x >> 32;
  return static_cast<unsigned>(x);
}

/// n u16 samples: 0 uniform, 1 normal(0.5, 0.02) of the range, 2 one value (12345).
static __global__ void generate_u16(std::uint16_t* d, std::size_t n, int distribution) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const unsigned h = mix(i);
    int v = 12345;
    if (distribution == 0) { v = static_cast<int>(h & 0xffffu); }
    if (distribution == 1) {
      const float u1 = ((h >> 8) + 1) * (1.0f / 16777217.0f), u2 = (mix(i + (1ull << 40)) >> 8) * (1.0f / 16777216.0f);
      const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
      v = min(max(static_cast<int>((0.5f + 0.02f * z) * 65536.0f), 0), 65535);
    }
    d[i] = static_cast<std::uint16_t>(v);
  }
}

/// Median milliseconds of the read ceiling over `bytes` at `data`.
inline double read_ceiling_ms(const options& o, const void* data, std::size_t bytes, unsigned* scratch) {
  const int grid = sm_count() * 8;
  return median_ms(o, [&] {
    read_ceiling_kernel<<<grid, 256>>>(static_cast<const uint4*>(data), bytes / 16, scratch);
  });
}

}  // namespace bench
