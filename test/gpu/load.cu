// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The load helpers on the device: every policy returns the bytes in memory for every type; traversals visit
// every index exactly once at every alignment; tile loads fill oob_default past the end. Inputs sit flush
// against the end of their allocation, so compute-sanitizer memcheck catches any read past the end.
#include <onchip/load.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

struct rgb {  // 12 bytes, 4-byte aligned: split into three 4-byte loads
  float r, g, b;
};
struct alignas(16) wide {  // 32 bytes: two 16-byte loads
  unsigned w[8];
};

template <class T>
__device__ __host__ bool same_bytes(const T& a, const T& b) {
  const auto* x = reinterpret_cast<const unsigned char*>(&a);
  const auto* y = reinterpret_cast<const unsigned char*>(&b);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    if (x[i] != y[i]) { return false; }
  }
  return true;
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  auto* bytes = reinterpret_cast<unsigned char*>(v.data());
  for (std::size_t i = 0; i < n * sizeof(T); ++i) { bytes[i] = static_cast<unsigned char>(rng()); }
  return v;
}

// A device copy of `host` placed so that it ends exactly where its allocation ends, after `offset` elements.
template <class T>
struct flush_input {
  onchip_test::device_buffer<T> buffer;
  const T* data;
  flush_input(const std::vector<T>& host, std::size_t offset) : buffer(offset + host.size() + (host.empty() ? 1 : 0)) {
    data = buffer.data() + offset;
    if (!host.empty()) {
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(buffer.data() + offset, host.data(), host.size() * sizeof(T),
                                     cudaMemcpyHostToDevice));
    }
  }
};

template <class Policy, class T>
__global__ void load_each(const T* in, std::size_t n, T* out) {
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = onchip::load<Policy>(in + i); }
}

template <int N, class Policy, class T>
__global__ void load_vectors(const T* in, std::size_t vectors, T* out) {
  const std::size_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < vectors) {
    const onchip::vec<T, N> x = onchip::load_vec<N, Policy>(in + v * N);
    for (int j = 0; j < N; ++j) { out[v * N + j] = x[j]; }
  }
}

template <class Policy, class T>
void check_policy_values() {
  const std::size_t n = 1000;
  const auto host = random_values<T>(n, 7 + sizeof(T));
  flush_input<T> in(host, 0);
  onchip_test::device_buffer<T> out(n);
  load_each<Policy><<<(n + 127) / 128, 128>>>(in.data, n, out.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<T> got(n);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) { REQUIRE(same_bytes(got[i], host[i])); }
}

template <int N, class Policy, class T>
void check_vector_values() {
  const std::size_t vectors = 333;
  const auto host = random_values<T>(vectors * N, 11 + N);
  flush_input<T> in(host, 0);
  onchip_test::device_buffer<T> out(vectors * N);
  load_vectors<N, Policy><<<(vectors + 63) / 64, 64>>>(in.data, vectors, out.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<T> got(vectors * N);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < got.size(); ++i) { REQUIRE(same_bytes(got[i], host[i])); }
}

template <class Policy>
void check_policy_all_types() {
  check_policy_values<Policy, unsigned char>();
  check_policy_values<Policy, unsigned short>();
  check_policy_values<Policy, float>();
  check_policy_values<Policy, double>();
  check_policy_values<Policy, float4>();
  check_policy_values<Policy, rgb>();
  check_policy_values<Policy, wide>();
  check_vector_values<4, Policy, unsigned char>();
  check_vector_values<8, Policy, unsigned char>();
  check_vector_values<16, Policy, unsigned char>();
  check_vector_values<2, Policy, float>();
  check_vector_values<4, Policy, float>();
  check_vector_values<2, Policy, double>();
}

// Traversals: count visits per index and compare each value with a plain load of the same element.
struct visit_log {
  unsigned* visits;
  unsigned* wrong;
};

template <int Items, class T>
__global__ void traverse_grid(const T* in, std::size_t n, visit_log log) {
  onchip::grid_for_each<Items>(in, n, [&](T v, std::size_t i) {
    atomicAdd(&log.visits[i], 1u);
    if (!same_bytes(v, in[i])) { atomicAdd(log.wrong, 1u); }
  });
}

template <int Items, class T>
__global__ void traverse_grid_vec(const T* in, std::size_t n, visit_log log) {
  constexpr int per = onchip::items_per_16b<T>;
  onchip::grid_for_each_vec<Items>(
      in, n,
      [&](const onchip::vec<T, per>& v, std::size_t first) {
        if (reinterpret_cast<std::uintptr_t>(in + first) % 16 != 0) { atomicAdd(log.wrong, 1000u); }
        for (int j = 0; j < per; ++j) {
          atomicAdd(&log.visits[first + j], 1u);
          if (!same_bytes(v[j], in[first + j])) { atomicAdd(log.wrong, 1u); }
        }
      },
      [&](T v, std::size_t i) {
        atomicAdd(&log.visits[i], 1u);
        if (!same_bytes(v, in[i])) { atomicAdd(log.wrong, 1u); }
      });
}

// Each block traverses its own slice [b * slice, b * slice + len(b)).
template <int Items, class T>
__global__ void traverse_blocks(const T* in, std::size_t n, std::size_t slice, visit_log log) {
  const std::size_t begin = blockIdx.x * slice;
  if (begin >= n) { return; }
  const std::size_t len = n - begin < slice ? n - begin : slice;
  onchip::block_for_each<Items>(in + begin, len, [&](T v, std::size_t i) {
    atomicAdd(&log.visits[begin + i], 1u);
    if (!same_bytes(v, in[begin + i])) { atomicAdd(log.wrong, 1u); }
  });
}

enum class traversal { grid, grid_vec, blocks };

template <int Items, class T>
void check_traversal(traversal kind) {
  // Under compute-sanitizer (ONCHIP_SANITIZER set) the largest size is left out: it is slow there, and the ends
  // of the smaller inputs already sit flush against their allocations.
  const bool sanitizer = std::getenv("ONCHIP_SANITIZER") != nullptr;
  const std::size_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 4097, sanitizer ? 4099 : (std::size_t{1} << 20) + 13};
  const int offsets = sizeof(T) <= 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 3;
  const dim3 shapes[][2] = {{dim3(1), dim3(32)}, {dim3(3), dim3(96)}, {dim3(132), dim3(256)}, {dim3(5), dim3(1024)}};
  for (std::size_t n : sizes) {
    const auto host = random_values<T>(n, static_cast<unsigned>(n + sizeof(T)));
    onchip_test::device_buffer<unsigned> visits(n + 1), wrong(1);
    for (int offset = 0; offset < offsets; ++offset) {
      flush_input<T> in(host, static_cast<std::size_t>(offset));
      for (const auto& shape : shapes) {
        const dim3 grid = shape[0];
        dim3 block = shape[1];
        // A block as large as the kernel's registers allow (1024 threads do not fit every instantiation).
        cudaFuncAttributes attributes{};
        if (kind == traversal::grid) {
          ONCHIP_CUDA_REQUIRE(cudaFuncGetAttributes(&attributes, traverse_grid<Items, T>));
        } else if (kind == traversal::blocks) {
          ONCHIP_CUDA_REQUIRE(cudaFuncGetAttributes(&attributes, traverse_blocks<Items, T>));
        } else {
          attributes.maxThreadsPerBlock = 512;
        }
        block.x = std::min<unsigned>(block.x, static_cast<unsigned>(attributes.maxThreadsPerBlock));
        INFO("n " << n << ", element offset " << offset << ", grid " << grid.x << " x " << block.x
                  << ", items per thread " << Items << ", element size " << sizeof(T));
        ONCHIP_CUDA_REQUIRE(cudaMemset(visits.data(), 0, visits.bytes()));
        ONCHIP_CUDA_REQUIRE(cudaMemset(wrong.data(), 0, wrong.bytes()));
        const visit_log log{visits.data(), wrong.data()};
        if (kind == traversal::grid) {
          traverse_grid<Items><<<grid, block>>>(in.data, n, log);
        } else if (kind == traversal::grid_vec) {
          if constexpr (onchip::items_per_16b<T> > 0) {
            traverse_grid_vec<Items><<<grid, block>>>(in.data, n, log);
          }
        } else {
          const std::size_t slice = (n + grid.x - 1) / grid.x + 5;  // odd slice lengths and offsets
          traverse_blocks<Items><<<grid, block>>>(in.data, n, slice, log);
        }
        ONCHIP_CUDA_REQUIRE(cudaGetLastError());
        std::vector<unsigned> counts(n + 1);
        unsigned bad = 0;
        ONCHIP_CUDA_REQUIRE(cudaMemcpy(counts.data(), visits.data(), visits.bytes(), cudaMemcpyDeviceToHost));
        ONCHIP_CUDA_REQUIRE(cudaMemcpy(&bad, wrong.data(), sizeof bad, cudaMemcpyDeviceToHost));
        REQUIRE(bad == 0);
        std::size_t not_once = 0;
        for (std::size_t i = 0; i < n; ++i) { not_once += counts[i] != 1; }
        REQUIRE(not_once == 0);
        REQUIRE(counts[n] == 0);
      }
    }
  }
}

// Tiles: each thread writes its items at t * Items + i; the host knows where each came from.
template <int Items, class Arr, class T>
__global__ void tile_kernel(const T* in, std::size_t valid, T oob, T* out) {
  T items[Items];
  onchip::load_tile<Items, Arr, onchip::cache::readonly>(in, valid, items, oob);
  for (int i = 0; i < Items; ++i) { out[threadIdx.x * Items + i] = items[i]; }
}

template <class Arr>
std::size_t source_index(std::size_t t, int i, int items, std::size_t threads) {
  if constexpr (std::is_same_v<Arr, onchip::arrangement::blocked>) {
    return t * items + i;
  } else if constexpr (std::is_same_v<Arr, onchip::arrangement::striped>) {
    return t + i * threads;
  } else {
    return (t / 32) * 32 * items + t % 32 + 32 * i;
  }
}

template <int Items, class Arr, class T>
void check_tile() {
  const std::size_t threads = 128, tile = threads * Items;
  T oob;
  std::memset(&oob, 0xAB, sizeof oob);
  const int offsets = sizeof(T) <= 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 3;
  for (std::size_t valid : {std::size_t{0}, std::size_t{1}, std::size_t{Items - 1}, tile / 2 + 3, tile - 1, tile}) {
    const auto host = random_values<T>(valid, static_cast<unsigned>(valid * 3 + Items));
    for (int offset = 0; offset < offsets; ++offset) {
      INFO("items " << Items << ", valid " << valid << ", offset " << offset << ", size " << sizeof(T));
      flush_input<T> in(host, static_cast<std::size_t>(offset));
      onchip_test::device_buffer<T> out(tile);
      tile_kernel<Items, Arr><<<1, threads>>>(in.data, valid, oob, out.data());
      ONCHIP_CUDA_REQUIRE(cudaGetLastError());
      std::vector<T> got(tile);
      ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), tile * sizeof(T), cudaMemcpyDeviceToHost));
      for (std::size_t t = 0; t < threads; ++t) {
        for (int i = 0; i < Items; ++i) {
          const std::size_t src = source_index<Arr>(t, i, Items, threads);
          REQUIRE(same_bytes(got[t * Items + i], src < valid ? host[src] : oob));
        }
      }
    }
  }
}

template <class Arr>
void check_tiles_for() {
  check_tile<1, Arr, float>();
  check_tile<4, Arr, unsigned char>();
  check_tile<16, Arr, unsigned char>();
  check_tile<3, Arr, unsigned short>();
  check_tile<8, Arr, float>();
  check_tile<2, Arr, double>();
  check_tile<5, Arr, rgb>();
}

struct view_args {
  onchip::readonly_view<float> view;
  float* out;
};
__global__ void view_kernel(view_args a) {
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.view.size() / 4) {
    const auto v = a.view.load_vec<4>(4 * i);
    a.out[i] = a.view[4 * i + 3] + v[0];
  }
}

}  // namespace

ONCHIP_GPU_TEST_CASE("every cache policy loads the bytes in memory, for 1 to 32-byte types and vectors") {
  check_policy_all_types<onchip::cache::normal>();
  check_policy_all_types<onchip::cache::readonly>();
  check_policy_all_types<onchip::cache::stream>();
  check_policy_all_types<onchip::cache::last_use>();
  check_policy_all_types<onchip::cache::no_allocate>();
  check_policy_all_types<onchip::cache::evict_last>();
}

ONCHIP_GPU_TEST_CASE("grid_for_each visits every index once at every alignment and grid shape") {
  check_traversal<4, unsigned char>(traversal::grid);
  check_traversal<4, float>(traversal::grid);
  check_traversal<1, double>(traversal::grid);
  check_traversal<16, unsigned short>(traversal::grid);
  check_traversal<4, rgb>(traversal::grid);
}

ONCHIP_GPU_TEST_CASE("grid_for_each_vec hands whole aligned vectors and peels the rest") {
  check_traversal<8, unsigned char>(traversal::grid_vec);
  check_traversal<2, float>(traversal::grid_vec);
}

ONCHIP_GPU_TEST_CASE("block_for_each covers each block's own slice once") {
  check_traversal<4, unsigned char>(traversal::blocks);
  check_traversal<4, double>(traversal::blocks);
}

ONCHIP_GPU_TEST_CASE("load_tile fills oob_default past the end in every arrangement") {
  check_tiles_for<onchip::arrangement::blocked>();
  check_tiles_for<onchip::arrangement::striped>();
  check_tiles_for<onchip::arrangement::warp_striped>();
}

ONCHIP_GPU_TEST_CASE("readonly_view inside a struct parameter reads its elements") {
  const std::size_t n = 4096;
  std::vector<float> host(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& x : host) { x = uniform(rng); }
  flush_input<float> in(host, 0);
  onchip_test::device_buffer<float> out(n / 4);
  view_kernel<<<(n / 4 + 127) / 128, 128>>>(view_args{{in.data, n}, out.data()});
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<float> got(n / 4);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), out.data(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n / 4; ++i) { REQUIRE(same_bytes(got[i], host[4 * i + 3] + host[4 * i])); }
}
