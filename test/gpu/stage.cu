// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Asynchronous staging on the device: block-wide copies into a carved stage and the tile traversals, against the
// input as the host holds it, for element types of 1 to 16 bytes, every source alignment, sizes around the copy
// granule, 1 to 4 stages, halos, grid-stride and per-block traversals, 1-D and 2-D blocks, tiles written in place
// (refilled afterwards), and a block_histogram carved beside the stages.
#include <onchip/histogram.cuh>
#include <onchip/stage.cuh>

#include <cuda/std/tuple>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

struct alignas(16) u128 {
  std::uint32_t w[4];
};
struct u96 {  // 12 bytes aligned to 4: elements straddle 16-byte boundaries
  std::uint32_t w[3];
};

template <class T>
__host__ __device__ std::uint64_t value_of(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<std::uint64_t>(v);
  } else {
    std::uint64_t s = 0;
    for (std::uint32_t w : v.w) { s = s * 1000003u + w; }
    return s;
  }
}

/// Bytes of `n` elements whose first lies `offset` bytes past a 256-byte-aligned allocation that ends right
/// after the last (so memcheck catches a read past the end).
template <class T>
struct flush_source {
  onchip_test::device_buffer<unsigned char> buffer;
  std::vector<T> host;
  const T* data = nullptr;
  flush_source(std::size_t n, std::size_t offset, unsigned seed) : buffer(offset + n * sizeof(T) + (n == 0)), host(n) {
    std::mt19937 rng(seed);
    std::vector<unsigned char> bytes(n * sizeof(T));
    for (auto& b : bytes) { b = static_cast<unsigned char>(rng()); }
    if (n > 0) { std::memcpy(host.data(), bytes.data(), bytes.size()); }
    data = reinterpret_cast<const T*>(buffer.data() + offset);
    if (n > 0) {
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(buffer.data() + offset, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    }
  }
};

std::vector<std::size_t> test_sizes() {
  const bool sanitizer = std::getenv("ONCHIP_SANITIZER") != nullptr;  // big inputs take minutes there
  std::vector<std::size_t> sizes{0, 1, 15, 16, 17, 1000, 4099};  // 4099 x 12 bytes needs the shared-memory opt-in
  if (!sanitizer) { sizes.push_back(200003); }
  return sizes;
}

template <class T>
struct one_stage {
  std::size_t capacity;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    c.take<char>(1);  // the stage does not start the window
    return onchip::take_stage<T>(c, capacity);
  }
};

// Every block copies a[0, na) then b[0, nb) through one stage, scribbling over the first tile in between.
template <class T>
__global__ void copy_twice(const T* a, std::size_t na, const T* b, std::size_t nb, T* out) {
  onchip::stage<T> st(onchip::carve(one_stage<T>{na > nb ? na : nb}));
  const auto rank = static_cast<std::size_t>(threadIdx.x + blockDim.x * threadIdx.y);
  const auto threads = static_cast<std::size_t>(blockDim.x * blockDim.y);
  st.copy(a, na);
  const cuda::std::span<T> ta = st.wait();
  for (std::size_t i = rank; i < ta.size(); i += threads) { out[(blockIdx.x * 2) * na + i] = ta[i]; }
  __syncthreads();
  for (std::size_t i = rank; i < ta.size(); i += threads) { std::memset(&ta[i], 0xA5, sizeof(T)); }
  st.copy(b, nb);
  const cuda::std::span<T> tb = st.wait();
  for (std::size_t i = rank; i < tb.size(); i += threads) { out[(blockIdx.x * 2 + 1) * na + i] = tb[i]; }
  st.finish();
}

template <class T>
void check_copies() {
  CAPTURE(sizeof(T));
  for (std::size_t n : test_sizes()) {
    if (n > 20000) { continue; }  // one stage holds the whole copy
    for (std::size_t offset = 0; offset < 16; offset += alignof(T)) {
      CAPTURE(n);
      CAPTURE(offset);
      flush_source<T> a(n, offset, static_cast<unsigned>(n * 16 + offset));
      flush_source<T> b(n, (offset + 4 * alignof(T)) % 16, static_cast<unsigned>(n * 16 + offset + 7));
      const int blocks = 3;
      onchip_test::device_buffer<T> out(2 * blocks * n + 1);
      const std::size_t smem = onchip::smem_bytes(one_stage<T>{n});
      ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(copy_twice<T>, smem));
      for (dim3 block : {dim3(128), dim3(32, 3)}) {
        // Poisoned first, so a span shorter than the copy leaves bytes that fail the comparison below.
        ONCHIP_CUDA_REQUIRE(cudaMemset(out.data(), 0x5a, out.bytes()));
        copy_twice<<<blocks, block, smem>>>(a.data, n, b.data, n, out.data());
        ONCHIP_CUDA_REQUIRE(cudaGetLastError());
        ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
        std::vector<T> got(2 * blocks * n);
        if (n > 0) {
          ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
        }
        std::size_t wrong = 0;
        for (int k = 0; k < blocks; ++k) {
          for (std::size_t i = 0; i < n; ++i) {
            wrong += std::memcmp(&got[(2 * k) * n + i], &a.host[i], sizeof(T)) != 0;
            wrong += std::memcmp(&got[(2 * k + 1) * n + i], &b.host[i], sizeof(T)) != 0;
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}

template <class T, int Stages>
struct tile_plan {
  std::size_t tile;
  onchip::halo_width halo;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    c.take<short>(3);
    return onchip::staging<T, Stages>{tile, halo}(c);
  }
};

// out[i] = a hash of the staged window [i - before, i + after] (clipped); visits[i] counts the tiles owning i.
// Each tile is then overwritten in place, so the next fill of its stage must replace what threads wrote.
template <class T, int Stages, bool Grid>
__global__ void tile_windows(const T* in, std::size_t n, std::size_t slice, tile_plan<T, Stages> plan,
                             std::uint64_t* out, unsigned* visits) {
  const auto staged = onchip::carve(plan);
  const auto rank = static_cast<std::size_t>(threadIdx.x + blockDim.x * threadIdx.y);
  const auto threads = static_cast<std::size_t>(blockDim.x * blockDim.y);
  const std::size_t base = Grid ? 0 : blockIdx.x * slice;  // per-block: this block's own slice
  if (!Grid && base >= n) { return; }  // the whole block: no tile for it
  const std::size_t count = Grid ? n : (n - base < slice ? n - base : slice);
  auto visit = [&](const onchip::staged_tile<T>& t) {
    for (std::size_t i = t.begin + rank; i < t.end; i += threads) {
      const std::size_t lo = i >= plan.halo.before ? i - plan.halo.before : 0;
      const std::size_t hi = count - i > plan.halo.after ? i + plan.halo.after + 1 : count;
      std::uint64_t h = 0;
      for (std::size_t j = lo; j < hi; ++j) { h = h * 31 + value_of(t[j]); }
      out[base + i] = h;
      atomicAdd(&visits[base + i], 1u);
    }
    __syncthreads();
    for (std::size_t i = rank; i < t.items.size(); i += threads) { std::memset(&t.items[i], 0x5A, sizeof(T)); }
  };
  if constexpr (Grid) {
    onchip::grid_for_each_tile(staged, in, count, visit);
  } else {
    onchip::block_for_each_tile(staged, in + base, count, visit);
  }
}

template <class T>
std::vector<std::uint64_t> window_hashes(const std::vector<T>& in, std::size_t slice, std::size_t before,
                                         std::size_t after) {
  std::vector<std::uint64_t> out(in.size());
  for (std::size_t base = 0; base < in.size(); base += slice) {
    const std::size_t count = in.size() - base < slice ? in.size() - base : slice;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t lo = i >= before ? i - before : 0;
      const std::size_t hi = count - i > after ? i + after + 1 : count;
      std::uint64_t h = 0;
      for (std::size_t j = lo; j < hi; ++j) { h = h * 31 + value_of(in[base + j]); }
      out[base + i] = h;
    }
  }
  return out;
}

template <class T, int Stages, bool Grid>
void check_tiles(std::size_t tile, onchip::halo_width halo, dim3 grid, dim3 block) {
  CAPTURE(sizeof(T));
  CAPTURE(Stages);
  CAPTURE(Grid);
  CAPTURE(tile);
  CAPTURE(halo.before);
  CAPTURE(halo.after);
  for (std::size_t n : test_sizes()) {
    if (tile < 8 && n > 5000) { continue; }
    for (std::size_t offset = 0; offset < 16; offset += alignof(T)) {
      CAPTURE(n);
      CAPTURE(offset);
      flush_source<T> in(n, offset, static_cast<unsigned>(n + offset * 977 + tile));
      const std::size_t slice = Grid ? (n > 0 ? n : 1) : (n / grid.x + 1);  // per-block slices cover [0, n)
      onchip_test::device_buffer<std::uint64_t> out(n + 1);
      onchip_test::device_buffer<unsigned> visits(n + 1);
      ONCHIP_CUDA_REQUIRE(cudaMemset(visits.data(), 0, (n + 1) * sizeof(unsigned)));
      const tile_plan<T, Stages> plan{tile, halo};
      tile_windows<T, Stages, Grid><<<grid, block, onchip::smem_bytes(plan)>>>(in.data, n, slice, plan, out.data(),
                                                                               visits.data());
      ONCHIP_CUDA_REQUIRE(cudaGetLastError());
      ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<std::uint64_t> got(n);
      std::vector<unsigned> seen(n);
      if (n > 0) {
        ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
        ONCHIP_CUDA_REQUIRE(cudaMemcpy(seen.data(), visits.data(), n * sizeof(unsigned), cudaMemcpyDeviceToHost));
      }
      const auto want = window_hashes(in.host, slice, halo.before, halo.after);
      std::size_t wrong = 0, not_once = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wrong += got[i] != want[i];
        not_once += seen[i] != 1;
      }
      CHECK(wrong == 0);
      CHECK(not_once == 0);
    }
  }
}

struct hist_plan {
  int threads;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto staged = onchip::staging<unsigned char, 3>{5000, {}}(c);
    auto hist = onchip::block_histogram<256>(c, threads);
    return cuda::std::tuple{staged, hist};
  }
};

__global__ void staged_histogram(const unsigned char* in, std::size_t n, unsigned* global) {
  auto carved = onchip::carve(hist_plan{static_cast<int>(blockDim.x)});
  auto& hist = cuda::std::get<1>(carved);
  hist.reset();
  onchip::grid_for_each_tile(cuda::std::get<0>(carved), in, n, [&](const onchip::staged_tile<unsigned char>& t) {
    for (std::size_t i = threadIdx.x; i < t.items.size(); i += blockDim.x) { hist.add(t.items[i]); }
  });
  hist.flush(global);
}

}  // namespace

ONCHIP_GPU_TEST_CASE("a stage copies 1- to 16-byte elements from every alignment, twice, through one barrier") {
  check_copies<std::uint8_t>();
  check_copies<std::uint16_t>();
  check_copies<std::uint32_t>();
  check_copies<std::uint64_t>();
  check_copies<u96>();
  check_copies<u128>();
}

ONCHIP_GPU_TEST_CASE("grid_for_each_tile hands every tile once with its halo, 1 to 4 stages") {
  check_tiles<std::uint8_t, 3, true>(4096, {3, 3}, dim3(7), dim3(256));
  check_tiles<std::uint8_t, 2, true>(1, {0, 0}, dim3(5), dim3(64));
  check_tiles<std::uint16_t, 4, true>(1000, {1, 0}, dim3(132), dim3(128));
  check_tiles<std::uint32_t, 2, true>(777, {0, 5}, dim3(3), dim3(96));
  check_tiles<std::uint32_t, 1, true>(300, {2, 2}, dim3(4), dim3(32));
  check_tiles<std::uint64_t, 3, true>(513, {4, 4}, dim3(9), dim3(32, 4));
  check_tiles<u96, 2, true>(100, {1, 1}, dim3(6), dim3(128));
  check_tiles<u128, 4, true>(64, {2, 7}, dim3(11), dim3(64));
}

ONCHIP_GPU_TEST_CASE("block_for_each_tile walks each block's own slice in order") {
  check_tiles<std::uint8_t, 4, false>(1024, {2, 2}, dim3(5), dim3(128));
  check_tiles<std::int16_t, 2, false>(333, {0, 1}, dim3(3), dim3(32, 2));
  check_tiles<u128, 3, false>(50, {3, 0}, dim3(8), dim3(64));
}

ONCHIP_GPU_TEST_CASE("a block_histogram carved beside the stages counts every staged byte") {
  for (std::size_t n : test_sizes()) {
    for (std::size_t offset : {std::size_t{0}, std::size_t{5}, std::size_t{15}}) {
      CAPTURE(n);
      CAPTURE(offset);
      flush_source<unsigned char> in(n, offset, static_cast<unsigned>(n + offset));
      onchip_test::device_buffer<unsigned> hist(256);
      ONCHIP_CUDA_REQUIRE(cudaMemset(hist.data(), 0, 256 * sizeof(unsigned)));
      const int threads = 256;
      staged_histogram<<<4, threads, onchip::smem_bytes(hist_plan{threads})>>>(in.data, n, hist.data());
      ONCHIP_CUDA_REQUIRE(cudaGetLastError());
      ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<unsigned> got(256), want(256, 0);
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), hist.data(), 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      for (unsigned char v : in.host) { ++want[v]; }
      CHECK(got == want);
    }
  }
}
