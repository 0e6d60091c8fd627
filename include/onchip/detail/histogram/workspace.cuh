// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The library's memory pool for the partition path's workspaces, one per device: created on first use, kept
// between calls, destroyed on request (histogram_release_workspace).
#pragma once

#include <onchip/detail/histogram/device.cuh>
#include <onchip/detail/histogram/tuning.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>

namespace onchip::detail {

/// The library's memory pools by device (workspace_pool), and the lock their creation and release take.
struct workspace_pools {
  std::mutex mutex;
  cudaMemPool_t pool[max_cached_devices] = {};
  bool tried[max_cached_devices] = {};
  static workspace_pools& get() {
    static workspace_pools pools;
    return pools;
  }
};

/**
 * The library's memory pool on `device` for the partition path's workspaces, created on first use: it keeps up to
 * tuning::partition_workspace_cap bytes reserved between calls (the device's default pool keeps what its owner
 * set, by default nothing: it gave its memory back at every synchronization, and taking it again cost about 400 us
 * per 1 GiB call, bench/notes/). Null where the device has no memory pools or the pool cannot be made (the caller
 * then allocates from the device's default pool), and null without `create` where no call has made it yet.
 */
inline cudaMemPool_t workspace_pool(int device, bool create = true) {
  if (device < 0 || device >= max_cached_devices) { return nullptr; }
  workspace_pools& pools = workspace_pools::get();
  std::lock_guard<std::mutex> lock(pools.mutex);
  if (!pools.tried[device] && create) {
    pools.tried[device] = true;
    int supported = 0;
    cudaMemPool_t pool = nullptr;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    std::uint64_t keep = tuning::partition_workspace_cap;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && supported &&
        cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess) {
        pools.pool[device] = pool;
      } else {
        static_cast<void>(cudaMemPoolDestroy(pool));
      }
    }
    static_cast<void>(cudaGetLastError());  // a failed query or creation is not this call's error
  }
  return pools.pool[device];
}

/// Destroys the library's pool on `device` (its memory goes back once the work that uses it is done) and forgets
/// it: the next call that needs a workspace makes a new one.
inline cudaError_t release_workspace_pool(int device) {
  if (device < 0 || device >= max_cached_devices) { return cudaSuccess; }
  workspace_pools& pools = workspace_pools::get();
  std::lock_guard<std::mutex> lock(pools.mutex);
  const cudaMemPool_t pool = pools.pool[device];
  pools.pool[device] = nullptr;
  pools.tried[device] = false;
  return pool != nullptr ? cudaMemPoolDestroy(pool) : cudaSuccess;
}

}  // namespace onchip::detail
