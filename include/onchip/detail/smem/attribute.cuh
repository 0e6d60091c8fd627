// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernel's and device's shared-memory limits, and the one lock that every cudaFuncSetAttribute of a dynamic
// shared-memory size takes (it is not thread-safe).
#pragma once

#include <onchip/detail/error.cuh>

#include <cuda/std/cstddef>

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

namespace onchip::detail {

// cudaFuncSetAttribute is not thread-safe: one lock for every kernel's shared-memory attribute.
inline std::mutex& smem_attribute_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct smem_limits {
  cuda::std::size_t static_bytes;     // the kernel's static shared memory
  cuda::std::size_t optin_bytes;      // the device's per-block opt-in limit
  cuda::std::size_t current_dynamic;  // the kernel's current dynamic limit
  int device;
};

inline cudaError_t query_smem_limits(const void* kernel, smem_limits& limits, const char* who) {
  if (kernel == nullptr) { return fail(cudaErrorInvalidValue, std::string(who) + ": the kernel is null"); }
  if (cudaError_t e = cuda_call(cudaGetDevice(&limits.device), who); e != cudaSuccess) { return e; }
  cudaFuncAttributes attributes{};
  if (cudaError_t e = cuda_call(cudaFuncGetAttributes(&attributes, kernel), who); e != cudaSuccess) { return e; }
  int optin = 0;
  if (cudaError_t e =
          cuda_call(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, limits.device), who);
      e != cudaSuccess) {
    return e;
  }
  limits.static_bytes = attributes.sharedSizeBytes;
  limits.optin_bytes = static_cast<cuda::std::size_t>(optin);
  limits.current_dynamic = static_cast<cuda::std::size_t>(attributes.maxDynamicSharedSizeBytes);
  return cudaSuccess;
}

}  // namespace onchip::detail
