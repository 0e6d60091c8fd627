// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host launch helpers for dynamic shared memory: opt-in, occupancy, extent fitting, readable errors.
#pragma once

#include <onchip/detail/error.cuh>
#include <onchip/smem.cuh>

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>
#include <utility>

namespace onchip::detail {

// cudaFuncSetAttribute is not thread-safe: one lock for every kernel's shared-memory attribute.
inline std::mutex& smem_attribute_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct smem_limits {
  cuda::std::size_t static_bytes;    // the kernel's static shared memory
  cuda::std::size_t optin_bytes;     // the device's per-block opt-in limit
  cuda::std::size_t current_dynamic; // the kernel's current dynamic limit
  int device;
};

inline cudaError_t query_smem_limits(const void* kernel, smem_limits& limits, const char* who) {
  if (kernel == nullptr) { return fail(cudaErrorInvalidValue, std::string(who) + ": the kernel is null"); }
  if (cudaError_t e = cuda_call(cudaGetDevice(&limits.device), who); e != cudaSuccess) { return e; }
  cudaFuncAttributes attributes{};
  if (cudaError_t e = cuda_call(cudaFuncGetAttributes(&attributes, kernel), who); e != cudaSuccess) { return e; }
  int optin = 0;
  if (cudaError_t e = cuda_call(
          cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, limits.device), who);
      e != cudaSuccess) {
    return e;
  }
  limits.static_bytes = attributes.sharedSizeBytes;
  limits.optin_bytes = static_cast<cuda::std::size_t>(optin);
  limits.current_dynamic = static_cast<cuda::std::size_t>(attributes.maxDynamicSharedSizeBytes);
  return cudaSuccess;
}

}  // namespace onchip::detail

namespace onchip {

template <class Kernel>
cudaError_t prepare_dynamic_smem(Kernel* kernel, cuda::std::size_t bytes) {
  constexpr const char* who = "onchip::prepare_dynamic_smem";
  const void* entry = reinterpret_cast<const void*>(kernel);
  detail::smem_limits limits{};
  if (cudaError_t e = detail::query_smem_limits(entry, limits, who); e != cudaSuccess) { return e; }
  if (limits.static_bytes > limits.optin_bytes || bytes > limits.optin_bytes - limits.static_bytes) {
    return detail::fail(cudaErrorInvalidValue,
                        std::string(who) + ": the kernel needs " + std::to_string(limits.static_bytes) +
                            " bytes of static and " + std::to_string(bytes) +
                            " bytes of dynamic shared memory, but device " + std::to_string(limits.device) +
                            " allows " + std::to_string(limits.optin_bytes) + " bytes per block (so at most " +
                            std::to_string(limits.optin_bytes > limits.static_bytes
                                               ? limits.optin_bytes - limits.static_bytes
                                               : 0) +
                            " dynamic); shrink the plan, e.g. with onchip::fit_extent");
  }
  std::lock_guard<std::mutex> lock(detail::smem_attribute_mutex());
  cudaFuncAttributes attributes{};
  if (cudaError_t e = detail::cuda_call(cudaFuncGetAttributes(&attributes, entry), who); e != cudaSuccess) {
    return e;
  }
  if (static_cast<cuda::std::size_t>(attributes.maxDynamicSharedSizeBytes) >= bytes) { return detail::succeed(); }
  if (cudaError_t e = detail::cuda_call(
          cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)), who);
      e != cudaSuccess) {
    return e;
  }
  return detail::succeed();
}

template <class Kernel>
cudaError_t blocks_per_sm(int* blocks, Kernel* kernel, int block_threads, cuda::std::size_t bytes) {
  constexpr const char* who = "onchip::blocks_per_sm";
  if (blocks == nullptr) { return detail::fail(cudaErrorInvalidValue, std::string(who) + ": blocks is null"); }
  *blocks = 0;
  if (kernel == nullptr) { return detail::fail(cudaErrorInvalidValue, std::string(who) + ": the kernel is null"); }
  if (block_threads < 1) {
    return detail::fail(cudaErrorInvalidValue,
                        std::string(who) + ": block_threads must be positive, got " + std::to_string(block_threads));
  }
  if (cudaError_t e = detail::cuda_call(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(kernel),
                                                        block_threads, bytes),
          who);
      e != cudaSuccess) {
    return e;
  }
  return detail::succeed();
}

template <class MakePlan, class Kernel>
cudaError_t fit_extent(cuda::std::size_t* extent, MakePlan&& make_plan, Kernel* kernel, int block_threads,
                       int target_blocks_per_sm, cuda::std::size_t max_extent) {
  constexpr const char* who = "onchip::fit_extent";
  if (extent == nullptr) { return detail::fail(cudaErrorInvalidValue, std::string(who) + ": extent is null"); }
  *extent = 0;
  if (block_threads < 1 || target_blocks_per_sm < 1) {
    return detail::fail(cudaErrorInvalidValue, std::string(who) + ": block_threads (" +
                                                   std::to_string(block_threads) + ") and target_blocks_per_sm (" +
                                                   std::to_string(target_blocks_per_sm) + ") must be positive");
  }
  const void* entry = reinterpret_cast<const void*>(kernel);
  detail::smem_limits limits{};
  if (cudaError_t e = detail::query_smem_limits(entry, limits, who); e != cudaSuccess) { return e; }
  const cuda::std::size_t available =
      limits.optin_bytes > limits.static_bytes ? limits.optin_bytes - limits.static_bytes : 0;
  // CUDA's occupancy calculator decides (cudaOccupancyAvailableDynamicSMemPerBlock is only an estimate, seen off
  // by one block either way on the H200). The calculator counts a kernel as not launchable above its current
  // dynamic limit, so the limit goes to the device maximum first, as prepare_dynamic_smem would.
  if (cudaError_t e = prepare_dynamic_smem(kernel, available); e != cudaSuccess) { return e; }
  cudaError_t query_error = cudaSuccess;
  const auto fits = [&](cuda::std::size_t n) {
    const cuda::std::size_t bytes = smem_bytes(make_plan(n));
    if (bytes > available) { return false; }
    int blocks = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, entry, block_threads, bytes);
    if (e != cudaSuccess && query_error == cudaSuccess) { query_error = e; }
    return e == cudaSuccess && blocks >= target_blocks_per_sm;
  };
  if (!fits(0)) {
    if (query_error != cudaSuccess) { return detail::cuda_call(query_error, who); }
    return detail::fail(cudaErrorInvalidValue,
                        std::string(who) + ": even extent 0 (" + std::to_string(smem_bytes(make_plan(0))) +
                            " bytes of dynamic shared memory) does not let " + std::to_string(target_blocks_per_sm) +
                            " blocks of " + std::to_string(block_threads) + " threads stay resident per SM");
  }
  // Grow until the plan stops fitting, then bisect. Invariant: fits(lo); once the loop ends, !fits(hi).
  cuda::std::size_t lo = 0;
  cuda::std::size_t hi = 1;
  for (;;) {
    if (hi > max_extent || !fits(hi)) { break; }
    lo = hi;
    if (hi == max_extent) { break; }
    hi = hi > max_extent / 2 ? max_extent : hi * 2;
  }
  if (lo != max_extent && hi <= max_extent) {
    while (hi - lo > 1) {
      const cuda::std::size_t mid = lo + (hi - lo) / 2;
      (fits(mid) ? lo : hi) = mid;
    }
  }
  if (query_error != cudaSuccess) { return detail::cuda_call(query_error, who); }
  *extent = lo;
  return detail::succeed();
}

}  // namespace onchip
