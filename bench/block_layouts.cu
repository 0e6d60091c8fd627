// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Layouts of a block's shared-memory byte histogram, measured side by side: each 256-thread block counts its own
// 4 KiB tile of u8 samples into 256 bins and stores them (1 GiB of tiles), as the block primitive's benchmark
// does, against cub::BlockHistogram (atomic algorithm) and a kernel of the same shape that only loads the tile and
// stores 256 words (no layout can beat it), and two bounds for layouts of one copy (one_copy_bound). Then blocks
// that count 256 KiB each (a stream per block), with 256 and 16 bins. Every histogram is compared with CUB's (the
// bounds are not histograms). This is what chose block_histogram's automatic layout.
//   bench_block_layouts [--out DIR] [--runs N] [--filter TEXT]
#include <onchip/load.cuh>

#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int threads = 256, items = 16, tile = threads * items;

__device__ __forceinline__ uint4 load_tile(const std::uint8_t* in, std::size_t tile_index) {
  const auto v = onchip::load_vec<16, onchip::cache::stream>(in + tile_index * tile + threadIdx.x * 16);
  return reinterpret_cast<const uint4&>(v);
}

__device__ __forceinline__ unsigned byte_of(const uint4& v, int i) {
  const unsigned w = i < 4 ? v.x : i < 8 ? v.y : i < 12 ? v.z : v.w;
  return (w >> (8 * (i & 3))) & 0xffu;
}

// The same shape with no histogram: load the tile, store 256 words.
__global__ void __launch_bounds__(threads) read_only(const std::uint8_t* in, unsigned* out) {
  const uint4 v = load_tile(in, blockIdx.x);
  out[blockIdx.x * 256 + threadIdx.x] = v.x ^ v.y ^ v.z ^ v.w;
}

__global__ void __launch_bounds__(threads) cub_atomic(const std::uint8_t* in, unsigned* out) {
  using histogram = cub::BlockHistogram<std::uint8_t, threads, items, 256, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ typename histogram::TempStorage temp;
  __shared__ unsigned hist[256];
  std::uint8_t samples[items];
  cub::LoadDirectBlockedVectorized(static_cast<int>(threadIdx.x),
                                   const_cast<std::uint8_t*>(in) + blockIdx.x * std::size_t{tile}, samples);
  histogram(temp).Histogram(samples, hist);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = hist[threadIdx.x];
}

// Bounds for any layout of one shared copy, not histograms: Count = false, what every such kernel does besides its
// atomics (the tile's load first, a word zeroed per thread, a barrier, a plain store of its own word from the tile,
// a barrier, the store of 256 words); Count = true, the same with the sixteen atomics a thread, each on a word that
// the sample picks among the eight of its lane's bank (value % 8 x 32 + lane), so no warp's atomic meets a bank
// conflict whatever the data.
template <bool Count>
__global__ void __launch_bounds__(threads) one_copy_bound(const std::uint8_t* in, unsigned* out) {
  __shared__ unsigned s[256];
  const uint4 v = load_tile(in, blockIdx.x);
  s[threadIdx.x] = 0;
  __syncthreads();
  if constexpr (Count) {
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      atomicAdd_block(s + (byte_of(v, i) % 8) * 32 + lane, 1u);
    }
  } else {
    s[threadIdx.x] = v.x ^ v.y ^ v.z ^ v.w;
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}

// Copies laid out one after another, warp w on copy w % Copies (Copies = 1: one copy). LoadFirst: the tile's load
// is issued before the zeroing.
template <int Copies, bool LoadFirst>
__global__ void __launch_bounds__(threads) warp_copies(const std::uint8_t* in, unsigned* out) {
  __shared__ unsigned s[256 * Copies];
  uint4 v{};
  if (LoadFirst) {
    v = load_tile(in, blockIdx.x);
  }
  for (int i = threadIdx.x; i < 256 * Copies; i += threads) {
    s[i] = 0;
  }
  __syncthreads();
  if (!LoadFirst) {
    v = load_tile(in, blockIdx.x);
  }
  unsigned* mine = s + (threadIdx.x / 32) % Copies * 256;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    atomicAdd_block(mine + byte_of(v, i), 1u);
  }
  __syncthreads();
  unsigned sum = 0;
#pragma unroll
  for (int r = 0; r < Copies; ++r) {
    sum += s[r * 256 + threadIdx.x];
  }
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}

// Interleaved copies: bin b of copy r at word b * Copies + r, lane l on copy l % Copies (fewer bank conflicts
// inside a warp).
template <int Copies>
__global__ void __launch_bounds__(threads) interleaved_copies(const std::uint8_t* in, unsigned* out) {
  __shared__ unsigned s[256 * Copies];
  const uint4 v = load_tile(in, blockIdx.x);
  for (int i = threadIdx.x; i < 256 * Copies; i += threads) {
    s[i] = 0;
  }
  __syncthreads();
  unsigned* mine = s + threadIdx.x % Copies;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    atomicAdd_block(mine + byte_of(v, i) * Copies, 1u);
  }
  __syncthreads();
  unsigned sum = 0;
#pragma unroll
  for (int r = 0; r < Copies; ++r) {
    sum += s[threadIdx.x * Copies + ((r + threadIdx.x) & (Copies - 1))];
  }
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}

// Lane-owned 8-bit counters: lane l's counter of bin b is byte b % 4 of word (b / 4) * 32 + l (no two lanes of a
// warp on one bank). Checked: returning atomics, a byte that wrapped gives its 256 (and the carries it caused in
// the bytes above) to a 32-bit counter per bin; each atomic tested as it returns, or 16 issued and tested once.
// Unchecked: atomics without return, exact only while a lane's byte stays below 256 (8 warps x 16 samples here).
enum class lane_check { none, each, batched };

template <lane_check Check>
__global__ void __launch_bounds__(threads) lane_bytes(const std::uint8_t* in, unsigned* out) {
  __shared__ __align__(16) unsigned s[64 * 32];
  __shared__ int carried[256];
  const int t = threadIdx.x;
  const uint4 v = load_tile(in, blockIdx.x);
  reinterpret_cast<uint4*>(s)[t] = make_uint4(0, 0, 0, 0);
  reinterpret_cast<uint4*>(s)[t + 256] = make_uint4(0, 0, 0, 0);
  carried[t] = 0;
  __syncthreads();
  const unsigned base = bench::shared_address(s) + (t & 31) * 4;
  auto wrapped = [](unsigned b, unsigned old) { return ((old >> ((b & 3) * 8)) & 0xffu) == 0xffu; };
  auto settle = [&](unsigned b, unsigned old) {  // credits of an add that wrapped its byte
    const unsigned after = old + (1u << ((b & 3) * 8));
    for (unsigned j = b & 3; j < 4; ++j) {
      const int change = static_cast<int>((after >> (8 * j)) & 0xffu) - static_cast<int>((old >> (8 * j)) & 0xffu);
      const int credit = (j == (b & 3) ? 1 : 0) - change;
      if (credit != 0) {
        atomicAdd_block(carried + ((b & ~3u) + j), credit);
      }
    }
  };
  if constexpr (Check == lane_check::none) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned b = byte_of(v, i);
      asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(base + (b >> 2) * 128), "r"(1u << ((b & 3) * 8))
                   : "memory");
    }
  } else if constexpr (Check == lane_check::each) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned b = byte_of(v, i);
      unsigned old;
      asm volatile("atom.shared.add.u32 %0, [%1], %2;"
                   : "=r"(old)
                   : "r"(base + (b >> 2) * 128), "r"(1u << ((b & 3) * 8))
                   : "memory");
      if (wrapped(b, old)) {
        settle(b, old);
      }
    }
  } else {
    unsigned old[items];
    bool any = false;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned b = byte_of(v, i);
      asm volatile("atom.shared.add.u32 %0, [%1], %2;"
                   : "=r"(old[i])
                   : "r"(base + (b >> 2) * 128), "r"(1u << ((b & 3) * 8))
                   : "memory");
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      any = any || wrapped(byte_of(v, i), old[i]);
    }
    if (any) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        if (wrapped(byte_of(v, i), old[i])) {
          settle(byte_of(v, i), old[i]);
        }
      }
    }
  }
  __syncthreads();
  // Thread t sums row t / 4 (4 bins) over 8 lanes, rotated so a warp's reads hit 32 banks; 4 threads add up.
  const int row = t >> 2, quarter = t & 3;
  unsigned even = 0, odd = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const unsigned w = s[row * 32 + quarter * 8 + ((i + row) & 7)];
    even += w & 0x00ff00ffu;
    odd += (w >> 8) & 0x00ff00ffu;
  }
  for (int o = 1; o <= 2; o *= 2) {
    even += __shfl_xor_sync(0xffffffffu, even, o);
    odd += __shfl_xor_sync(0xffffffffu, odd, o);
  }
  const unsigned count = quarter == 0   ? even & 0xffffu
                         : quarter == 1 ? odd & 0xffffu
                         : quarter == 2 ? even >> 16
                                        : odd >> 16;
  out[blockIdx.x * 256 + t] = count + static_cast<unsigned>(carried[t]);
}

// A stream per block: Tiles tiles counted into 256 >> Shift bins, Copies copies one after another.
template <int Copies, int Tiles, int Shift>
__global__ void __launch_bounds__(threads) stream_copies(const std::uint8_t* in, unsigned* out) {
  constexpr int bins = 256 >> Shift;
  __shared__ unsigned s[bins * Copies];
  uint4 v = load_tile(in, std::size_t{blockIdx.x} * Tiles);
  for (int i = threadIdx.x; i < bins * Copies; i += threads) {
    s[i] = 0;
  }
  __syncthreads();
  unsigned* mine = s + (threadIdx.x / 32) % Copies * bins;
  for (int k = 0; k < Tiles; ++k) {
    const uint4 next = k + 1 < Tiles ? load_tile(in, std::size_t{blockIdx.x} * Tiles + k + 1) : v;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      atomicAdd_block(mine + (byte_of(v, i) >> Shift), 1u);
    }
    v = next;
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += threads) {
    unsigned sum = 0;
    for (int r = 0; r < Copies; ++r) {
      sum += s[r * bins + b];
    }
    out[blockIdx.x * 256 + b] = sum;
  }
}

// Sums of consecutive groups of `per` tile histograms, bins folded by `shift` (the streams' reference from CUB's
// per-tile histograms).
std::vector<unsigned> fold(const std::vector<unsigned>& tiles, int per, int shift) {
  std::vector<unsigned> out(tiles.size() / per, 0);
  for (std::size_t t = 0; t < tiles.size() / 256; ++t) {
    for (int b = 0; b < 256; ++b) {
      out[t / per * 256 + (b >> shift)] += tiles[t * 256 + b];
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t bytes = std::size_t{1} << 30, tiles = bytes / tile, words = tiles * 256;
  std::vector<std::uint8_t> host(bytes);
  std::uint8_t* in = nullptr;
  unsigned *out = nullptr, *reference = nullptr;
  BENCH_CHECK(cudaMalloc(&in, bytes));
  BENCH_CHECK(cudaMalloc(&out, words * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&reference, words * sizeof(unsigned)));
  std::vector<unsigned> got(words), cub_tiles(words);
  bench::table t(
      "Block histogram layouts: 256 threads, u8, 1 GiB",
      {"distribution", "layout", "GB/s", "% of the same-shape read", "/ CUB ATOMIC", "histograms agree"});
  const char* distributions[] = {"uniform", "image", "degenerate"};
  for (int d = 0; d < 3; ++d) {
    std::uint64_t x = 0x9e3779b97f4a7c15ull + d;
    for (std::size_t i = 0; i < bytes; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      host[i] = d == 0   ? static_cast<std::uint8_t>(x)
                : d == 1 ? static_cast<std::uint8_t>(
                               128 + 60 * std::sin(static_cast<double>(i % 1000003) * 0.0007) + (x & 15))
                         : std::uint8_t{77};
    }
    BENCH_CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    cub_atomic<<<static_cast<unsigned>(tiles), threads>>>(in, reference);
    BENCH_CHECK(cudaMemcpy(cub_tiles.data(), reference, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
    double read_gbs = 0, cub_gbs = 0;
    auto run = [&](const std::string& name, auto launch, int per, int shift, bool checked) {
      if (!o.filter.empty() && (std::string(distributions[d]) + ", " + name).find(o.filter) == std::string::npos) {
        return;
      }
      BENCH_CHECK(cudaMemset(out, 0, words * sizeof(unsigned)));
      const double gbs = bytes / (bench::median_ms(o, launch) * 1e6);
      std::string agree = "-";
      if (checked) {
        BENCH_CHECK(cudaMemcpy(got.data(), out, words / per * sizeof(unsigned), cudaMemcpyDeviceToHost));
        got.resize(words / per);
        agree = got == (per == 1 && shift == 0 ? cub_tiles : fold(cub_tiles, per, shift)) ? "yes" : "NO";
        got.resize(words);
      }
      if (name == "same-shape read") {
        read_gbs = gbs;
      }
      if (name == "cub::BlockHistogram ATOMIC") {
        cub_gbs = gbs;
      }
      t.add({distributions[d], name, bench::fixed(gbs), read_gbs > 0 ? bench::fixed(100 * gbs / read_gbs, 1) : "-",
             cub_gbs > 0 ? bench::fixed(gbs / cub_gbs, 2) : "-", agree});
    };
    const unsigned grid = static_cast<unsigned>(tiles);
    run(
        "same-shape read", [&] { read_only<<<grid, threads>>>(in, out); }, 1, 0, false);
    run(
        "cub::BlockHistogram ATOMIC", [&] { cub_atomic<<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "bound: zeroed, stored, two barriers, no count", [&] { one_copy_bound<false><<<grid, threads>>>(in, out); },
        1, 0, false);
    run(
        "bound: one copy, atomics without bank conflicts", [&] { one_copy_bound<true><<<grid, threads>>>(in, out); },
        1, 0, false);
    run(
        "8 warp copies, load after zeroing", [&] { warp_copies<8, false><<<grid, threads>>>(in, out); }, 1, 0,
        true);
    run(
        "8 warp copies, load first", [&] { warp_copies<8, true><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "one copy, load first", [&] { warp_copies<1, true><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "2 interleaved copies", [&] { interleaved_copies<2><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "4 interleaved copies", [&] { interleaved_copies<4><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "8 interleaved copies", [&] { interleaved_copies<8><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "lane-owned bytes, unchecked", [&] { lane_bytes<lane_check::none><<<grid, threads>>>(in, out); }, 1, 0,
        true);
    run(
        "lane-owned bytes, each atomic tested", [&] { lane_bytes<lane_check::each><<<grid, threads>>>(in, out); },
        1, 0, true);
    run(
        "lane-owned bytes, 16 tested at once",
        [&] { lane_bytes<lane_check::batched><<<grid, threads>>>(in, out); }, 1, 0, true);
    run(
        "16 bins, one copy", [&] { stream_copies<1, 1, 4><<<grid, threads>>>(in, out); }, 1, 4, true);
    run(
        "16 bins, 8 warp copies", [&] { stream_copies<8, 1, 4><<<grid, threads>>>(in, out); }, 1, 4, true);
    run(
        "256 KiB per block, one copy", [&] { stream_copies<1, 64, 0><<<grid / 64, threads>>>(in, out); }, 64, 0,
        true);
    run(
        "256 KiB per block, 8 warp copies", [&] { stream_copies<8, 64, 0><<<grid / 64, threads>>>(in, out); }, 64,
        0, true);
    run(
        "256 KiB per block, 16 bins, one copy", [&] { stream_copies<1, 64, 4><<<grid / 64, threads>>>(in, out); },
        64, 4, true);
    run(
        "256 KiB per block, 16 bins, 8 warp copies",
        [&] { stream_copies<8, 64, 4><<<grid / 64, threads>>>(in, out); }, 64, 4, true);
  }
  t.print();
  t.save(o.out, "block_layouts.csv");
  BENCH_CHECK(cudaFree(in));
  BENCH_CHECK(cudaFree(out));
  BENCH_CHECK(cudaFree(reference));
  return 0;
}
