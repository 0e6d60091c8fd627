// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device a histogram call runs on: its limits (queried once per device), and its kernels' launch with the
// dynamic shared memory they need (the opt-in attribute set once per kernel and device, under the lock that every
// dynamic shared-memory attribute of onchip takes).
#pragma once

#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/smem/attribute.cuh>

#include <cuda/std/cstddef>

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>

namespace onchip::detail {

inline constexpr int max_cached_devices = 64;
/// Dynamic shared memory every device allows a kernel without opting in.
inline constexpr cuda::std::size_t default_dynamic_smem = 48 * 1024;

inline cudaError_t query_device_limits(int device, device_limits& d) {
  const cudaDeviceAttr attributes[] = {
      cudaDevAttrComputeCapabilityMajor,       cudaDevAttrComputeCapabilityMinor,
      cudaDevAttrMultiProcessorCount,          cudaDevAttrMaxSharedMemoryPerMultiprocessor,
      cudaDevAttrMaxSharedMemoryPerBlockOptin, cudaDevAttrReservedSharedMemoryPerBlock,
      cudaDevAttrMaxThreadsPerMultiProcessor,  cudaDevAttrMaxBlocksPerMultiprocessor,
      cudaDevAttrMaxRegistersPerMultiprocessor};
  int v[sizeof attributes / sizeof attributes[0]] = {};
  for (unsigned i = 0; i < sizeof attributes / sizeof attributes[0]; ++i) {
    if (cudaError_t e = cudaDeviceGetAttribute(&v[i], attributes[i], device); e != cudaSuccess) { return e; }
  }
  d = {v[0] * 10 + v[1],
       v[2],
       static_cast<cuda::std::size_t>(v[3]),
       static_cast<cuda::std::size_t>(v[4]),
       static_cast<cuda::std::size_t>(v[5]),
       v[6],
       v[7],
       v[8]};
  return cudaSuccess;
}

/// The current device and its limits, queried once per device (thread-safe; later calls read a cache).
inline cudaError_t current_device_limits(int& device, device_limits& out, const char* who) {
  if (cudaError_t e = cuda_call(cudaGetDevice(&device), who); e != cudaSuccess) { return e; }
  if (device < 0 || device >= max_cached_devices) { return cuda_call(query_device_limits(device, out), who); }
  static std::atomic<bool> known[max_cached_devices];
  static device_limits cache[max_cached_devices];
  if (!known[device].load(std::memory_order_acquire)) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    if (!known[device].load(std::memory_order_relaxed)) {
      if (cudaError_t e = cuda_call(query_device_limits(device, cache[device]), who); e != cudaSuccess) {
        return e;
      }
      known[device].store(true, std::memory_order_release);
    }
  }
  out = cache[device];
  return cudaSuccess;
}

#if defined(__CUDACC__)
/// Lets `Kernel` use the device's whole opt-in shared memory, once per device (cudaFuncSetAttribute is slow and
/// not thread-safe).
template <auto Kernel>
cudaError_t allow_dynamic_smem(int device, const device_limits& d, const char* who) {
  static std::atomic<bool> done[max_cached_devices];
  const bool cached = device >= 0 && device < max_cached_devices;
  if (cached && done[device].load(std::memory_order_acquire)) { return cudaSuccess; }
  std::lock_guard<std::mutex> lock(smem_attribute_mutex());
  if (cudaError_t e = cuda_call(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(d.smem_per_block_optin)),
                                who);
      e != cudaSuccess) {
    return e;
  }
  if (cached) { done[device].store(true, std::memory_order_release); }
  return cudaSuccess;
}

/// The virtual architecture (x 10, as device_limits::arch) that `Kernel`'s code on `device` was compiled from:
/// below the device's own where the device runs this translation unit's PTX for an earlier one. Once per device.
template <auto Kernel>
cudaError_t compiled_arch(int device, const char* who, int& arch) {
  static std::atomic<int> known[max_cached_devices];
  const bool cached = device >= 0 && device < max_cached_devices;
  if (cached && (arch = known[device].load(std::memory_order_acquire)) != 0) { return cudaSuccess; }
  cudaFuncAttributes a{};
  if (cudaError_t e = cuda_call(cudaFuncGetAttributes(&a, Kernel), who); e != cudaSuccess) { return e; }
  arch = a.ptxVersion;
  if (cached) { known[device].store(arch, std::memory_order_release); }
  return cudaSuccess;
}

/// Launches `Kernel` as `grid` blocks of `threads` threads with `smem` bytes of dynamic shared memory.
template <auto Kernel, class... Args>
cudaError_t launch_sized(int grid, int threads, cuda::std::size_t smem, int device, const device_limits& d,
                         cudaStream_t stream, const char* who, const Args&... args) {
  if (smem > default_dynamic_smem) {
    if (cudaError_t e = allow_dynamic_smem<Kernel>(device, d, who); e != cudaSuccess) { return e; }
  }
  Kernel<<<grid, threads, smem, stream>>>(args...);
  return cuda_call(cudaGetLastError(), who);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
