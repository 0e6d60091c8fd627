// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host side of every device-wide histogram call: the device's limits (queried once per device), the plan, zeroing
// the output, and launching the planned kernel. A call costs one launch (two with the output's memset) and no
// host-device synchronization.
#pragma once

#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/plan.cuh>
#include <onchip/detail/histogram/validate.cuh>
#include <onchip/detail/smem/launch.cuh>
#include <onchip/histogram.cuh>

#if defined(__CUDACC__)
#  include <onchip/detail/histogram/byte_kernels.cuh>
#  include <onchip/detail/histogram/carry_kernel.cuh>
#  include <onchip/detail/histogram/kernels.cuh>
#  include <onchip/detail/histogram/partition.cuh>
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace onchip::detail {

/// A setting of this host thread's device-wide calls: `Initial`, or the value of the innermost living object.
template <class T, T Initial, class Tag>
class thread_setting {
 public:
  explicit thread_setting(T value) : previous_(current()) { current() = value; }
  ~thread_setting() { current() = previous_; }
  thread_setting(const thread_setting&) = delete;
  thread_setting& operator=(const thread_setting&) = delete;
  static T& current() {
    thread_local T value = Initial;
    return value;
  }

 private:
  T previous_;
};

/**
 * Benchmarks and tests: while an override is alive, the device-wide histogram calls of this host thread use
 * `path` (a call that path cannot serve fails with cudaErrorInvalidValue; automatic: the plan chooses). A run-time
 * switch, so translation units that differ in it cannot disagree about any inline function.
 */
using histogram_path_override = thread_setting<histogram_path, histogram_path::automatic, struct path_setting>;
/// Tests: while alive, byte inputs of this many bytes or more run in pieces below it (byte_pieces) on this thread.
using byte_piece_override = thread_setting<cuda::std::size_t, tuning::byte_lane_max_bytes, struct piece_setting>;
/// Tests: while alive, the partition path's workspace is capped at this many bytes on this thread (more chunks).
using workspace_cap_override =
    thread_setting<cuda::std::size_t, tuning::partition_workspace_cap, struct workspace_cap_setting>;
/// Tests: while alive and true, the partition path's own workspace allocation fails on this thread (the call
/// falls back to global atomics, as it does when the device's memory pool cannot give the workspace).
using workspace_failure_override = thread_setting<bool, false, struct workspace_failure_setting>;
/// Tests: while alive and true, the partition path's first chunk overwrites the output without its memset on this
/// thread wherever the call does not accumulate, whatever the plan says.
using partition_overwrite_override = thread_setting<bool, false, struct partition_overwrite_setting>;
/// Tests: while alive and above 0, the partition path's scatter runs at most this many blocks on this thread (each
/// then takes many tiles of a small input: a direct bucket counted on through them).
using partition_scatter_grid_override = thread_setting<int, 0, struct partition_scatter_grid_setting>;
/// Tests and benchmarks: while alive and false, range binning of levels kept in device memory uses the grid
/// instead of a bitmap of sub-cells on this thread (plan_histogram's `bitmaps`).
using level_bitmap_override = thread_setting<bool, true, struct level_bitmap_setting>;

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
  d = {v[0] * 10 + v[1], v[2], static_cast<cuda::std::size_t>(v[3]), static_cast<cuda::std::size_t>(v[4]),
       static_cast<cuda::std::size_t>(v[5]), v[6], v[7], v[8]};
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
      if (cudaError_t e = cuda_call(query_device_limits(device, cache[device]), who); e != cudaSuccess) { return e; }
      known[device].store(true, std::memory_order_release);
    }
  }
  out = cache[device];
  return cudaSuccess;
}

/// The current device, its limits, and the plan of `call` there (with this thread's overrides), and in `fallback`
/// the carry grid's fallback plan where the plan is the carry grid. Calls of one shape in a loop (small inputs, per
/// frame or per tile) reuse this thread's last plans instead of planning again.
inline cudaError_t plan_on_current_device(const histogram_call& call, int& device, device_limits& limits,
                                          launch_plan& plan, const char* who, launch_plan* fallback = nullptr) {
  if (cudaError_t e = current_device_limits(device, limits, who); e != cudaSuccess) { return e; }
  struct memo {
    bool valid = false;
    int device = 0;
    histogram_call call{};
    histogram_path only = histogram_path::automatic;
    cuda::std::size_t cap = 0;
    bool bitmaps = true;
    launch_plan plan{};
    launch_plan fallback{};  // the carry grid's: the plan without it
  };
  thread_local memo last;
  const histogram_path only = histogram_path_override::current();
  const cuda::std::size_t cap = workspace_cap_override::current();
  const bool bitmaps = level_bitmap_override::current();
  if (!last.valid || last.device != device || last.only != only || last.cap != cap || last.bitmaps != bitmaps ||
      !same_call(last.call, call)) {
    const launch_plan p = plan_histogram(call, limits, only, cap, bitmaps);
    const launch_plan f = p.path == histogram_path::carry_grid
                              ? plan_histogram(call, limits, histogram_path::automatic, cap, bitmaps, p.path)
                              : launch_plan{};
    last = {true, device, call, only, cap, bitmaps, p, f};
  }
  plan = last.plan;
  if (fallback != nullptr) { *fallback = last.fallback; }
  return cudaSuccess;
}

/// Whether some path serves `job` on the current device (false when the device cannot be queried: the caller's
/// other way reports that).
template <class Job>
bool plannable(const Job& job, const histogram_options& options, const char* who) {
  int device = 0;
  device_limits limits{};
  launch_plan plan{};
  return plan_on_current_device(describe(job, options.accumulate), device, limits, plan, who) == cudaSuccess &&
         plan.ok();
}

/// Zeroes the outputs with memsets (segments: every segment's histogram).
template <class Job>
cudaError_t clear_outputs(const Job& job, cudaStream_t stream, const char* who) {
  const cuda::std::size_t copies = Job::segmented ? job.rows : 1;
  for (int a = 0; a < Job::active; ++a) {
    const auto bins = static_cast<cuda::std::size_t>(job.offset[a + 1] - job.offset[a]) * copies;
    if (cudaError_t e = cuda_call(cudaMemsetAsync(job.hist[a], 0, bins * sizeof(*job.hist[a]), stream), who);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

inline std::string unplanned_message(const histogram_call& call, const device_limits& d) {
  const histogram_path forced = histogram_path_override::current();
  if (forced != histogram_path::automatic) {
    return std::string("the forced kernel path ") + path_name(forced) + " cannot serve this call on this device";
  }
  for (int a = 0; a < call.active && call.level_bytes > 0; ++a) {
    if (call.bins[a] > max_staged_bins) {
      return "range binning takes at most " + std::to_string(max_staged_bins + 1) + " levels a channel, got " +
             std::to_string(call.bins[a] + 1);
    }
  }
  return "no kernel path serves this call on this device (" + std::to_string(d.smem_per_block_optin) +
         " bytes of shared memory a block)";
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

template <auto Kernel, class Job>
cudaError_t launch_kernel(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                          const device_limits& d, cudaStream_t stream, const char* who) {
  return launch_sized<Kernel>(p.grid, p.threads, p.smem_bytes, device, d, stream, who, job, args);
}

/// Launches shared_kernel<Job, Smem, Threads, Blocks, Vectors>, the instance counting through level bitmaps where
/// the plan gave them.
template <class Job, class Smem, int Threads, int Blocks, int Vectors>
cudaError_t launch_shared(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                          const device_limits& d, cudaStream_t stream, const char* who) {
  if constexpr (bitmappable_v<Job>) {
    if (p.level_bitmap) {
      return launch_kernel<shared_kernel<Job, Smem, Threads, Blocks, Vectors, true>>(job, p, args, device, d,
                                                                                     stream, who);
    }
  }
  return launch_kernel<shared_kernel<Job, Smem, Threads, Blocks, Vectors>>(job, p, args, device, d, stream, who);
}

/// Launches the shared or global path's kernel the plan chose (never the byte kernel).
template <class Job>
cudaError_t launch_counting(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                            const device_limits& d, cudaStream_t stream, const char* who) {
  using counter_t = typename Job::counter_t;
  constexpr kernel_shape shared = shape_v<histogram_path::shared_replicas, Job>;
  constexpr kernel_shape packed = shape_v<histogram_path::shared_packed16, Job>;
  constexpr kernel_shape global = shape_v<histogram_path::global_atomics, Job>;
  switch (p.path) {
    case histogram_path::shared_replicas:
      if constexpr (wide_job_v<Job>) {
        constexpr kernel_shape wide = shape_v<histogram_path::shared_replicas, Job, false, true>;
        if (p.threads == wide.threads) {
          return launch_shared<Job, counter_t, wide.threads, wide.blocks, wide.vectors>(job, p, args, device, d,
                                                                                        stream, who);
        }
      }
      if constexpr (Job::segmented) {
        constexpr kernel_shape small = shape_v<histogram_path::shared_replicas, Job, true>;
        if (p.threads == small.threads) {
          return launch_shared<Job, counter_t, small.threads, small.blocks, small.vectors>(job, p, args, device, d,
                                                                                           stream, who);
        }
      }
      return launch_shared<Job, counter_t, shared.threads, shared.blocks, shared.vectors>(job, p, args, device, d,
                                                                                          stream, who);
    case histogram_path::shared_packed16:
      if constexpr (packable_job_v<Job> && bitmappable_v<Job>) {
        constexpr kernel_shape mapped = shape_v<histogram_path::shared_packed16, Job, false, false, true>;
        if (p.level_bitmap) {
          return launch_kernel<
              shared_kernel<Job, cuda::std::uint16_t, mapped.threads, mapped.blocks, mapped.vectors, true>>(
              job, p, args, device, d, stream, who);
        }
      }
      if constexpr (packable_job_v<Job>) {
        return launch_kernel<shared_kernel<Job, cuda::std::uint16_t, packed.threads, packed.blocks, packed.vectors>>(
            job, p, args, device, d, stream, who);
      }
      break;
    case histogram_path::global_atomics:
      if constexpr (bitmappable_v<Job>) {
        if (p.level_bitmap) {
          return launch_kernel<global_kernel<Job, global.threads, global.blocks, global.vectors, true>>(
              job, p, args, device, d, stream, who);
        }
      }
      return launch_kernel<global_kernel<Job, global.threads, global.blocks, global.vectors>>(job, p, args, device,
                                                                                             d, stream, who);
    default: break;
  }
  return invalid(who, std::string("no kernel of this call's type serves the path ") + path_name(p.path));
}

/// Launches the planned path's kernel: one row per path of the plan's table. Byte jobs that only the byte kernel
/// counts compile no other kernel.
template <class Job>
cudaError_t launch_planned(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                           const device_limits& d, cudaStream_t stream, const char* who) {
  constexpr kernel_shape lanes = shape_v<histogram_path::byte_lanes, Job>;
  if constexpr (carry_job_v<Job>) {
    if (p.path == histogram_path::carry_grid) {
      return launch_kernel<carry_kernel<Job, tuning::carry_threads, tuning::carry_blocks, tuning::carry_vectors>>(
          job, p, args, device, d, stream, who);
    }
  }
  if constexpr (byte_kernel_job_v<Job>) {
    if (p.path == histogram_path::byte_lanes) {
      return launch_kernel<byte_lanes_kernel<Job, lanes.threads, lanes.blocks, lanes.vectors>>(job, p, args, device,
                                                                                              d, stream, who);
    }
  }
  if constexpr (byte_lanes_only_v<Job>) {
    return invalid(who, std::string("no kernel of this call's type serves the path ") + path_name(p.path));
  } else {
    return launch_counting(job, p, args, device, d, stream, who);
  }
}

/**
 * The partition path over a validated, non-empty call, in chunks of plan.partition.chunk_samples samples, in
 * `workspace` (16-byte aligned, plan.partition.workspace_bytes - 16 bytes): per chunk, a memset of the buckets'
 * sizes and claims, the scatter and the bucket pass (partition.cuh). Where the plan says so (zero_in_kernel), the
 * first chunk overwrites every bin of the output (not cleared before).
 */
template <class Job>
cudaError_t run_partition(const Job& job, const launch_plan& plan, unsigned char* workspace,
                          unsigned long long* ignored, bool accumulate, int device, const device_limits& d,
                          cudaStream_t stream, const char* who) {
  const partition_plan& q = plan.partition;
  constexpr int sample_bytes = sizeof(typename Job::sample_t), tile = partition_tile(sample_bytes);
  // The scatter's shape on this device (from sm_90 on, a shape of its own: partition_scatter_shape).
  constexpr tuning::partition_shape before = tuning::partition_scatter_shape(sample_bytes, 0),
                                    since90 = tuning::partition_scatter_shape(sample_bytes, 90);
  if (q.tile != tile || plan.threads != tuning::partition_scatter_shape(sample_bytes, d.arch).threads) {
    return invalid(who, "the partition plan's tile does not match the samples' (a plan for another sample type)");
  }
  // The sm_90 shape only where this translation unit's kernels run code compiled for sm_90 or later (PTX of an
  // earlier architecture keeps the earlier shape, whose shared memory and grid the plan's hold too).
  bool wide =
      plan.threads == since90.threads && tuning::partition_scatter_sm90_only(sample_bytes, since90.threads);
  if (wide) {
    int arch = 0;
    if (cudaError_t e = compiled_arch<
            partition_scatter_kernel<Job, since90.threads, tuning::partition_scatter_blocks, since90.items>>(
            device, who, arch);
        e != cudaSuccess) {
      return e;
    }
    wide = arch >= 90;
  }
  const cuda::std::size_t sizes_bytes = partition_workspace_bytes(q.buckets, 0, tile) - 16;
  const cuda::std::size_t keys_bytes = partition_tiles(q.chunk_samples, tile) * tile * 2;
  partition_args args{reinterpret_cast<cuda::std::uint16_t*>(workspace + sizes_bytes),
                      reinterpret_cast<cuda::std::uint16_t*>(workspace + sizes_bytes + keys_bytes),
                      reinterpret_cast<unsigned*>(workspace),
                      reinterpret_cast<unsigned*>(workspace) + q.buckets,
                      ignored,
                      q.buckets,
                      q.slice_bits,
                      0u,
                      q.item_keys,
                      q.direct,
                      false,
                      false};
  for (cuda::std::size_t first = 0; first < job.row_samples; first += q.chunk_samples) {
    Job chunk = job;
    chunk.samples = job.samples + first;
    chunk.row_samples = std::min(q.chunk_samples, job.row_samples - first);
    const cuda::std::size_t tiles = partition_tiles(chunk.row_samples, tile);
    args.tiles = static_cast<unsigned>(tiles);
    args.fresh = !accumulate && first == 0;
    args.overwrite = args.fresh && plan.zero_in_kernel;
    if (cudaError_t e = cuda_call(cudaMemsetAsync(args.sizes, 0, sizes_bytes, stream), who); e != cudaSuccess) {
      return e;
    }
    const auto grid =
        static_cast<int>(std::min<cuda::std::size_t>(tiles, static_cast<cuda::std::size_t>(plan.grid)));
    if (cudaError_t e =
            wide ? launch_sized<partition_scatter_kernel<Job, since90.threads, tuning::partition_scatter_blocks,
                                                         since90.items>>(grid, since90.threads, plan.smem_bytes,
                                                                         device, d, stream, who, chunk, args)
                 : launch_sized<partition_scatter_kernel<Job, before.threads, tuning::partition_scatter_blocks,
                                                         before.items>>(grid, before.threads, plan.smem_bytes,
                                                                        device, d, stream, who, chunk, args);
        e != cudaSuccess) {
      return e;
    }
    if (cudaError_t e = launch_sized<partition_bins_kernel<Job, tuning::partition_bins_threads,
                                                           tuning::partition_bins_gather>>(
            q.bins_grid, tuning::partition_bins_threads, q.bins_smem, device, d, stream, who, chunk, args);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

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
 * tuning::partition_workspace_cap bytes reserved between calls (the device's default pool keeps what its owner set,
 * by default nothing: it gave its memory back at every synchronization, and taking it again cost about 400 us per
 * 1 GiB call, bench/notes/). Null where the device has no memory pools or the pool cannot be made (the caller
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

/**
 * The partition path's workspace, 16-byte aligned: the caller's (options.workspace, which must hold what the plan
 * needs), or one allocated stream-ordered into `owned` (from workspace_pool, else the device's default pool).
 * Where that allocation fails, `plan` becomes the global atomics path's (every sample's atomic in the output) and
 * `workspace` stays null.
 */
inline cudaError_t partition_workspace(const histogram_call& call, const histogram_options& options, int device,
                                       const device_limits& limits, cudaStream_t stream, const char* who,
                                       launch_plan& plan, unsigned char*& workspace, void*& owned) {
  const cuda::std::size_t needed = plan.partition.workspace_bytes;
  if (options.workspace != nullptr) {
    if (options.workspace_bytes < needed) {
      return invalid(who, "the workspace holds " + std::to_string(options.workspace_bytes) + " bytes but this call "
                          "needs " + std::to_string(needed) + " (histogram_workspace_bytes)");
    }
    workspace = static_cast<unsigned char*>(options.workspace);
  } else {
    const cudaMemPool_t pool = workspace_pool(device);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (!workspace_failure_override::current()) {
      e = pool != nullptr ? cudaMallocFromPoolAsync(&owned, needed, pool, stream) : cudaErrorMemoryAllocation;
      if (e != cudaSuccess) {  // the device's default pool, where the library's has no pool or no memory
        static_cast<void>(cudaGetLastError());
        e = cudaMallocAsync(&owned, needed, stream);
      }
    }
    if (e == cudaSuccess) {
      workspace = static_cast<unsigned char*>(owned);
    } else {
      static_cast<void>(cudaGetLastError());
      plan = plan_histogram(call, limits, histogram_path::global_atomics);
      if (!plan.ok()) { return invalid(who, unplanned_message(call, limits)); }
    }
  }
  if (workspace != nullptr) { workspace += (16 - reinterpret_cast<cuda::std::uintptr_t>(workspace) % 16) % 16; }
  return cudaSuccess;
}

/// One launch of a validated call: plan, zero the output (memset, or the kernel itself), launch.
template <class Job>
cudaError_t run_launch(const Job& job, const histogram_options& options, cudaStream_t stream, const char* who) {
  const histogram_call call = describe(job, options.accumulate);
  int device = 0;
  device_limits limits{};
  launch_plan plan{}, fallback{};
  if (cudaError_t e = plan_on_current_device(call, device, limits, plan, who, &fallback); e != cudaSuccess) {
    return e;
  }
  if (!plan.ok()) { return invalid(who, unplanned_message(call, limits)); }
  unsigned char* workspace = nullptr;  // the partition path's: the caller's, or `owned`, allocated here
  void* owned = nullptr;
  if (plan.path == histogram_path::partition && call.input_bytes() > 0) {
    const cudaError_t e = partition_workspace(call, options, device, limits, stream, who, plan, workspace, owned);
    if (e != cudaSuccess) { return e; }
    // Still the partition only if its workspace came (a failed allocation fell back to the global atomics).
    if (plan.path == histogram_path::partition) {
      if (partition_overwrite_override::current()) { plan.zero_in_kernel = !options.accumulate; }
      if (partition_scatter_grid_override::current() > 0) {
        plan.grid = std::min(plan.grid, partition_scatter_grid_override::current());
      }
    }
  }
  if (options.path != nullptr) { *options.path = path_name(plan.path); }
  const bool empty = !Job::segmented && call.input_bytes() == 0;
  if (!options.accumulate && (empty || !plan.zero_in_kernel)) {
    if (cudaError_t e = clear_outputs(job, stream, who); e != cudaSuccess) {
      if (owned != nullptr) { static_cast<void>(cudaFreeAsync(owned, stream)); }
      return e;
    }
  }
  if (empty) { return succeed(); }
  if (plan.path == histogram_path::partition) {
    cudaError_t e = cudaSuccess;
    if constexpr (partition_job_v<Job>) {
      e = run_partition(job, plan, workspace, options.ignored, options.accumulate, device, limits, stream, who);
    } else {
      e = invalid(who, "no kernel of this call's type serves the path partition");
    }
    if (owned != nullptr) {  // after the passes in stream order, also when one of them failed to launch
      const cudaError_t freed = cuda_call(cudaFreeAsync(owned, stream), who);
      if (e == cudaSuccess) { e = freed; }
    }
    return e == cudaSuccess ? succeed() : e;
  }
  const kernel_args args{plan.walk, plan.replicas, plan.slices, plan.zero_in_kernel, planned_call(call, plan),
                         options.ignored};
  if (cudaError_t e = launch_planned(job, plan, args, device, limits, stream, who); e != cudaSuccess) { return e; }
  if (plan.path == histogram_path::carry_grid) {  // the fallback, for levels that crowd the grid's cells
    if (!fallback.ok()) { return invalid(who, unplanned_message(call, limits)); }  // the plan ensures it is
    const kernel_args then{fallback.walk, fallback.replicas, fallback.slices, false, planned_call(call, fallback),
                           options.ignored, carry_cell_bits(call)};
    if (cudaError_t e = launch_planned(job, fallback, then, device, limits, stream, who); e != cudaSuccess) {
      return e;
    }
  }
  return succeed();
}

/// A byte input too large for one launch of the byte kernel, as launches of byte_pieces in order (the first one
/// overwrites the output unless the call accumulates).
template <class Job>
cudaError_t run_pieces(const Job& job, histogram_options options, cudaStream_t stream, const char* who,
                       cuda::std::size_t limit) {
  const byte_pieces pieces = plan_byte_pieces(job.row_samples, Job::channels, limit);
  const auto* base = reinterpret_cast<const unsigned char*>(job.samples);
  auto launch = [&](const unsigned char* first, cuda::std::size_t row_samples, cuda::std::size_t rows) {
    Job part = job;
    part.samples = reinterpret_cast<const typename Job::sample_t*>(first);
    part.row_samples = row_samples;
    part.rows = rows;
    const cudaError_t e = run_launch(part, options, stream, who);
    options.accumulate = true;
    return e;
  };
  if (pieces.rows_per_piece > 0) {  // whole rows
    for (cuda::std::size_t r = 0; r < job.rows; r += pieces.rows_per_piece) {
      const cuda::std::size_t rows = std::min(pieces.rows_per_piece, job.rows - r);
      if (cudaError_t e = launch(base + r * job.row_stride, job.row_samples, rows); e != cudaSuccess) { return e; }
    }
    return succeed();
  }
  for (cuda::std::size_t r = 0; r < job.rows; ++r) {  // each row in pieces
    for (cuda::std::size_t s = 0; s < job.row_samples; s += pieces.piece_bytes) {
      const cuda::std::size_t n = std::min(pieces.piece_bytes, job.row_samples - s);
      if (cudaError_t e = launch(base + r * job.row_stride + s, n, 1); e != cudaSuccess) { return e; }
    }
  }
  return succeed();
}

/// Every device-wide call after validation: one launch, or byte pieces when the byte kernel could wrap a counter.
template <class Job>
cudaError_t run_job(const Job& job, const histogram_options& options, cudaStream_t stream, const char* who) {
  if constexpr (byte_kernel_job_v<Job>) {
    const cuda::std::size_t limit = byte_piece_override::current();
    if (job.row_samples * job.rows >= limit) { return run_pieces(job, options, stream, who, limit); }
  }
  return run_launch(job, options, stream, who);
}
#else
template <class Job>
cudaError_t run_job(const Job&, const histogram_options&, cudaStream_t, const char*) {
  static_assert(sizeof(Job) == 0,
                "onchip's device-wide histogram functions launch kernels: call them from a file compiled as CUDA "
                "(a .cu file, or set_source_files_properties(<file> PROPERTIES LANGUAGE CUDA) in CMake)");
  return cudaErrorInvalidValue;
}
#endif  // __CUDACC__

}  // namespace onchip::detail
