// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The carver on the device: random plans carve aligned, disjoint arrays inside the launched window that hold
// what is written to them; launch helpers size and admit large plans; checked mode traps with a message.
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/carve_mix.hpp"
#include "support/onchip_test.hpp"

namespace {

using carve_mix::carved;
using carve_mix::request;

struct window_report {
  unsigned long long base;  // generic address of the window's start
  unsigned size;            // %dynamic_smem_size
  unsigned errors;          // bytes that did not read back what was written
};

// Runs the plan, reports the arrays, then every thread writes a pattern into its share of every array's bytes
// and, after a barrier, checks its share of every array again: overlapping arrays would overwrite each other.
template <int StaticPad>
__global__ void carve_random(const request* requests, int n, carved* out, window_report* report) {
  __shared__ unsigned char static_pad[StaticPad > 0 ? StaticPad : 1];  // moves the dynamic window
  if (threadIdx.x == 0) { static_pad[0] = 1; }
  carved arrays[carve_mix::max_requests];
  onchip::carve(carve_mix::plan{requests, n, arrays});
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) { out[i] = arrays[i]; }
    onchip::carver window = onchip::dynamic_smem();
    report->base = reinterpret_cast<unsigned long long>(window.take<unsigned char>(0).data());
    report->size = static_cast<unsigned>(window.capacity());
  }
  for (int i = 0; i < n; ++i) {
    auto* bytes = reinterpret_cast<unsigned char*>(arrays[i].address);
    for (std::size_t b = threadIdx.x; b < arrays[i].bytes; b += blockDim.x) {
      bytes[b] = static_cast<unsigned char>(i * 31 + b * 7 + blockIdx.x);
    }
  }
  __syncthreads();
  unsigned errors = 0;
  for (int i = 0; i < n; ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(arrays[i].address);
    for (std::size_t b = threadIdx.x; b < arrays[i].bytes; b += blockDim.x) {
      errors += bytes[b] != static_cast<unsigned char>(i * 31 + b * 7 + blockIdx.x);
    }
  }
  if (errors != 0) { atomicAdd(&report->errors, errors); }
  if (threadIdx.x == 0 && static_pad[0] != 1) { atomicAdd(&report->errors, 1u); }
}

template <int StaticPad>
void run_random_plans(unsigned seed, int trials) {
  INFO("seed " << seed << ", static shared pad " << StaticPad);
  std::mt19937 rng(seed);
  onchip_test::device_buffer<request> d_requests(carve_mix::max_requests);
  onchip_test::device_buffer<carved> d_out(carve_mix::max_requests);
  onchip_test::device_buffer<window_report> d_report(1);
  ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(carve_random<StaticPad>, 64 * 1024));
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<request> reqs(1 + rng() % carve_mix::max_requests);
    for (auto& r : reqs) {
      r.type = static_cast<int>(rng() % carve_mix::type_count);
      r.align_log2 = static_cast<int>(rng() % 3 == 0 ? rng() % carve_mix::align_count : rng() % 5);
      r.count = rng() % 6 == 0 ? 0u : rng() % 400;
    }
    const int n = static_cast<int>(reqs.size());
    const std::size_t bytes = onchip::smem_bytes(carve_mix::plan{reqs.data(), n, nullptr});
    INFO("trial " << trial << ", " << n << " arrays, " << bytes << " bytes");
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(d_requests.data(), reqs.data(), n * sizeof(request), cudaMemcpyHostToDevice));
    ONCHIP_CUDA_REQUIRE(cudaMemset(d_report.data(), 0, sizeof(window_report)));
    carve_random<StaticPad><<<3, 128, bytes>>>(d_requests.data(), n, d_out.data(), d_report.data());
    ONCHIP_CUDA_REQUIRE(cudaGetLastError());
    std::vector<carved> out(n);
    window_report report{};
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(out.data(), d_out.data(), n * sizeof(carved), cudaMemcpyDeviceToHost));
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(&report, d_report.data(), sizeof report, cudaMemcpyDeviceToHost));
    REQUIRE(report.errors == 0);
    REQUIRE(report.size == bytes);
    REQUIRE(report.base % onchip::dynamic_smem_base_alignment == 0);
    for (int i = 0; i < n; ++i) {
      INFO("array " << i);
      REQUIRE(out[i].address % out[i].alignment == 0);
      REQUIRE(out[i].address >= report.base);
      REQUIRE(out[i].address + out[i].bytes <= report.base + bytes);
      if (i > 0) { REQUIRE(out[i].address >= out[i - 1].address + out[i - 1].bytes); }
    }
  }
}

struct guide_plan {
  int misaligned;  // 1: the floats follow 127 shorts, the guide's broken &array0[127]
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto array0 = c.take<short>(128 - misaligned);
    auto array1 = c.take<float>(64);
    auto array2 = c.take<int>(256);
    return cuda::std::tuple{array0, array1, array2};
  }
};

__global__ void guide_kernel(guide_plan plan, long long* offsets, int* values) {
  auto [array0, array1, array2] = onchip::carve(plan);
  const int t = threadIdx.x;
  if (t < static_cast<int>(array0.size())) { array0[t] = static_cast<short>(-t); }
  if (t < 64) { array1[t] = 0.5f * t; }
  array2[t] = 3 * t;
  __syncthreads();
  if (t == 0) {
    const auto* base = reinterpret_cast<const char*>(array0.data());
    offsets[0] = reinterpret_cast<const char*>(array1.data()) - base;
    offsets[1] = reinterpret_cast<const char*>(array2.data()) - base;
  }
  const int u = 255 - t;
  values[t] = (u < static_cast<int>(array0.size()) ? array0[u] : 0) + (u < 64 ? static_cast<int>(2 * array1[u]) : 0) +
              array2[u];
}

template <int Variant>
__global__ void big_kernel(unsigned n, unsigned* out) {
  auto words = onchip::carve([n] __device__(onchip::carver& c) { return c.take<unsigned>(n); });
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) { words[i] = i * 2654435761u; }
  __syncthreads();
  unsigned bad = 0;
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) { bad += words[(i + 977) % n] != ((i + 977) % n) * 2654435761u; }
  atomicAdd(out, bad);
}

struct floats_plan {
  std::size_t n;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const { return c.take<float>(n); }
};

__global__ void occupancy_kernel(std::size_t n, float* out) {
  auto f = onchip::carve(floats_plan{n});
  if (threadIdx.x < n) { f[threadIdx.x] = 1.0f; }
  __syncthreads();
  if (threadIdx.x == 0 && n > 0) { out[blockIdx.x] = f[0]; }
}

}  // namespace

ONCHIP_GPU_TEST_CASE("random plans carve aligned, disjoint arrays inside the launched window") {
  run_random_plans<0>(1001, 150);
  run_random_plans<4>(1002, 100);
  run_random_plans<40>(1003, 100);
  run_random_plans<1000>(1004, 100);
}

ONCHIP_GPU_TEST_CASE("the Programming Guide's arrays, aligned and misaligned variants") {
  for (int misaligned : {0, 1}) {
    INFO("misaligned variant: " << misaligned);
    const guide_plan plan{misaligned};
    onchip_test::device_buffer<long long> offsets(2);
    onchip_test::device_buffer<int> values(256);
    guide_kernel<<<1, 256, onchip::smem_bytes(plan)>>>(plan, offsets.data(), values.data());
    ONCHIP_CUDA_REQUIRE(cudaGetLastError());
    long long off[2];
    std::vector<int> got(256);
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(off, offsets.data(), sizeof off, cudaMemcpyDeviceToHost));
    ONCHIP_CUDA_REQUIRE(cudaMemcpy(got.data(), values.data(), 256 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(off[0] == 256);  // 128 shorts, or 127 shorts (254 bytes) rounded up to the float alignment
    CHECK(off[1] == 512);
    const int shorts = 128 - misaligned;
    for (int u = 0; u < 256; ++u) {
      const int expected = (u < shorts ? -u : 0) + (u < 64 ? u : 0) + 3 * u;
      REQUIRE(got[255 - u] == expected);
    }
  }
}

ONCHIP_GPU_TEST_CASE("a 200 KB plan fails to launch without prepare_dynamic_smem and works with it") {
  const unsigned n = 200 * 1024 / sizeof(unsigned);
  const std::size_t bytes = onchip::smem_bytes([n](onchip::carver& c) { return c.take<unsigned>(n); });
  REQUIRE(bytes == 200 * 1024);
  onchip_test::device_buffer<unsigned> bad(1);
  ONCHIP_CUDA_REQUIRE(cudaMemset(bad.data(), 0, sizeof(unsigned)));

  big_kernel<0><<<1, 512, bytes>>>(n, bad.data());  // never prepared
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(big_kernel<1>, bytes));
  ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(big_kernel<1>, bytes));  // idempotent
  ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(big_kernel<1>, 1024));   // never lowers the limit
  cudaFuncAttributes attributes{};
  ONCHIP_CUDA_REQUIRE(cudaFuncGetAttributes(&attributes, big_kernel<1>));
  CHECK(attributes.maxDynamicSharedSizeBytes == static_cast<int>(bytes));
  big_kernel<1><<<132, 512, bytes>>>(n, bad.data());
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  unsigned mismatches = 1;
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(&mismatches, bad.data(), sizeof mismatches, cudaMemcpyDeviceToHost));
  CHECK(mismatches == 0);
}

ONCHIP_GPU_TEST_CASE("prepare_dynamic_smem rejects requests past the opt-in limit with a readable message") {
  int optin = 0;
  ONCHIP_CUDA_REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const cudaError_t e = onchip::prepare_dynamic_smem(big_kernel<2>, static_cast<std::size_t>(optin) + 1);
  CHECK(e == cudaErrorInvalidValue);
  const std::string message = onchip::last_error_message();
  INFO(message);
  CHECK(message.find("static") != std::string::npos);
  CHECK(message.find(std::to_string(optin + 1) + " bytes of dynamic") != std::string::npos);
  CHECK(message.find("allows " + std::to_string(optin)) != std::string::npos);
  // Exactly the limit (no static shared memory in this kernel) is fine.
  ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(big_kernel<2>, static_cast<std::size_t>(optin)));
  CHECK(std::string(onchip::last_error_message()).empty());
  void (*null_kernel)(unsigned, unsigned*) = nullptr;
  CHECK(onchip::prepare_dynamic_smem(null_kernel, 16) == cudaErrorInvalidValue);
}

ONCHIP_GPU_TEST_CASE("prepare_dynamic_smem from many threads keeps the largest request") {
  std::vector<std::thread> threads;
  std::vector<cudaError_t> results(16, cudaErrorUnknown);
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([i, &results] {
      results[i] = onchip::prepare_dynamic_smem(big_kernel<3>, 60 * 1024 + 1024 * static_cast<std::size_t>(i));
    });
  }
  for (auto& t : threads) { t.join(); }
  for (auto r : results) { CHECK(r == cudaSuccess); }
  cudaFuncAttributes attributes{};
  ONCHIP_CUDA_REQUIRE(cudaFuncGetAttributes(&attributes, big_kernel<3>));
  CHECK(attributes.maxDynamicSharedSizeBytes == 60 * 1024 + 15 * 1024);
}

ONCHIP_GPU_TEST_CASE("fit_extent finds the largest extent that keeps the target occupancy") {
  const int threads = 256;
  for (int target : {1, 2, 3, 5}) {
    INFO("target blocks per SM " << target);
    std::size_t n = 0;
    ONCHIP_CUDA_REQUIRE(onchip::fit_extent(&n, [](std::size_t e) { return floats_plan{e}; }, occupancy_kernel,
                                           threads, target));
    const std::size_t fitted = onchip::smem_bytes(floats_plan{n});
    const std::size_t next = onchip::smem_bytes(floats_plan{n + 1});
    ONCHIP_CUDA_REQUIRE(onchip::prepare_dynamic_smem(occupancy_kernel, std::min<std::size_t>(next, 227 * 1024)));
    int blocks = 0;
    ONCHIP_CUDA_REQUIRE(onchip::blocks_per_sm(&blocks, occupancy_kernel, threads, fitted));
    CHECK(blocks >= target);
    const cudaError_t e = onchip::blocks_per_sm(&blocks, occupancy_kernel, threads, next);
    CHECK((e != cudaSuccess || blocks < target));
    // And a kernel launched with it runs.
    onchip_test::device_buffer<float> out(132);
    occupancy_kernel<<<132, threads, fitted>>>(n, out.data());
    ONCHIP_CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  int unprepared = -1;  // does the calculator look at the kernel's dynamic limit? (informational)
  ONCHIP_CUDA_REQUIRE(onchip::blocks_per_sm(&unprepared, big_kernel<4>, threads, 100 * 1024));
  MESSAGE("blocks per SM at 100 KB for a kernel never prepared: " << unprepared);
  std::size_t n = 7;
  CHECK(onchip::fit_extent(&n, [](std::size_t e) { return floats_plan{e + 300000}; }, occupancy_kernel, threads, 1) ==
        cudaErrorInvalidValue);
  CHECK(n == 0);
  CHECK(std::string(onchip::last_error_message()).find("even extent 0") != std::string::npos);
  int blocks = 3;
  CHECK(onchip::blocks_per_sm(&blocks, occupancy_kernel, 0, 0) == cudaErrorInvalidValue);
  CHECK(blocks == 0);
}

ONCHIP_GPU_TEST_CASE("checked mode: a launch with too few bytes traps with what was asked and provided") {
  const auto probe = onchip_test::run_check_probe("capacity");
  const int status = probe.first;
  const std::string& output = probe.second;
  INFO(output);
  CHECK(status != 0);
  CHECK(output.find("onchip::carver: take of 1000 objects of 4 bytes (alignment 4) needs 4016 bytes") !=
        std::string::npos);
  CHECK(output.find("the launch provided only 4000") != std::string::npos);
  CHECK(output.find("probe: kernel failed:") != std::string::npos);
}
