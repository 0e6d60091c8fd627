// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host side of every device-wide histogram call after validation: plan it on the current device (plan.cuh, as
// the call's request asks), zero the output, and launch the planned kernel (or the byte pieces, or the partition's
// passes). A call costs one launch (two with the output's memset) and no
// host-device synchronization.
#pragma once

#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/device.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/options.cuh>
#include <onchip/detail/histogram/paths.cuh>
#include <onchip/detail/histogram/plan.cuh>
#include <onchip/detail/histogram/request.cuh>
#include <onchip/detail/histogram/validate.cuh>
#include <onchip/detail/histogram/workspace.cuh>

#if defined(__CUDACC__)
#  include <onchip/detail/histogram/kernels/bytes.cuh>
#  include <onchip/detail/histogram/kernels/carry.cuh>
#  include <onchip/detail/histogram/kernels/partition.cuh>
#  include <onchip/detail/histogram/kernels/shared.cuh>
#endif

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

namespace onchip::detail {

/// The request of a call's options (histogram_options::request), or the library's defaults.
inline const histogram_request& request_of(const histogram_options& options) {
  static constexpr histogram_request defaults{};
  return options.request != nullptr ? *options.request : defaults;
}

/// The current device, its limits, and the plan of `call` there as `request` asks, and in `fallback` the carry
/// grid's fallback plan where the plan is the carry grid. Calls of one shape in a loop (small inputs, per frame or
/// per tile) reuse this thread's last plans instead of planning again.
inline cudaError_t plan_on_current_device(const histogram_call& call, const histogram_request& request,
                                          int& device, device_limits& limits, launch_plan& plan, const char* who,
                                          launch_plan* fallback = nullptr) {
  if (cudaError_t e = current_device_limits(device, limits, who); e != cudaSuccess) { return e; }
  struct memo {
    bool valid = false;
    int device = 0;
    histogram_call call{};
    histogram_request request{};
    launch_plan plan{};
    launch_plan fallback{};  // the carry grid's: the plan without it
  };
  thread_local memo last;
  if (!last.valid || last.device != device || !same_plan_request(last.request, request) ||
      !same_call(last.call, call)) {
    const histogram_path only = request.path;
    const cuda::std::size_t cap = request.workspace_cap;
    const launch_plan p = plan_histogram(call, limits, only, cap, request.level_bitmaps);
    const launch_plan f =
        p.path == histogram_path::carry_grid
            ? plan_histogram(call, limits, histogram_path::automatic, cap, request.level_bitmaps, p.path)
            : launch_plan{};
    last = {true, device, call, request, p, f};
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
  return plan_on_current_device(call_of(job, options.accumulate), request_of(options), device, limits, plan,
                                who) == cudaSuccess &&
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

inline std::string unplanned_message(const histogram_call& call, const device_limits& d,
                                     const histogram_request& request) {
  const histogram_path forced = request.path;
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
  if constexpr (admits_bitmaps(kind_of<Job>())) {
    if (p.level_bitmap) {
      return launch_kernel<shared_kernel<Job, Smem, Threads, Blocks, Vectors, true>>(job, p, args, device, d,
                                                                                     stream, who);
    }
  }
  return launch_kernel<shared_kernel<Job, Smem, Threads, Blocks, Vectors>>(job, p, args, device, d, stream, who);
}

/// Launches the shared replicas' kernel in the plan's variant (compiled only where the job's kind admits it).
template <class Job, kernel_variant Variant>
cudaError_t launch_replicas(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                            const device_limits& d, cudaStream_t stream, const char* who) {
  constexpr kernel_shape shape = shape_v<histogram_path::shared_replicas, Job,
                                         Variant == kernel_variant::small_slices, Variant == kernel_variant::wide>;
  if constexpr (admits(histogram_path::shared_replicas, Variant, kind_of<Job>())) {
    return launch_shared<Job, typename Job::counter_t, shape.threads, shape.blocks, shape.vectors>(
        job, p, args, device, d, stream, who);
  } else {
    return invalid(who, "no kernel of this call's type serves the plan's variant of shared_replicas");
  }
}

/// Launches the shared or global path's kernel the plan chose, in the plan's variant (never the byte kernel).
template <class Job>
cudaError_t launch_counting(const Job& job, const launch_plan& p, const kernel_args& args, int device,
                            const device_limits& d, cudaStream_t stream, const char* who) {
  constexpr call_kind kind = kind_of<Job>();
  constexpr kernel_shape packed = shape_v<histogram_path::shared_packed16, Job>;
  constexpr kernel_shape mapped = shape_v<histogram_path::shared_packed16, Job, false, false, true>;
  constexpr kernel_shape global = shape_v<histogram_path::global_atomics, Job>;
  switch (p.path) {
    case histogram_path::shared_replicas:
      switch (p.variant) {
        case kernel_variant::wide:
          return launch_replicas<Job, kernel_variant::wide>(job, p, args, device, d, stream, who);
        case kernel_variant::small_slices:
          return launch_replicas<Job, kernel_variant::small_slices>(job, p, args, device, d, stream, who);
        default: return launch_replicas<Job, kernel_variant::standard>(job, p, args, device, d, stream, who);
      }
    case histogram_path::shared_packed16:
      if constexpr (admits(histogram_path::shared_packed16, kind) && admits_bitmaps(kind)) {
        if (p.level_bitmap) {
          return launch_kernel<
              shared_kernel<Job, cuda::std::uint16_t, mapped.threads, mapped.blocks, mapped.vectors, true>>(
              job, p, args, device, d, stream, who);
        }
      }
      if constexpr (admits(histogram_path::shared_packed16, kind)) {
        return launch_kernel<
            shared_kernel<Job, cuda::std::uint16_t, packed.threads, packed.blocks, packed.vectors>>(
            job, p, args, device, d, stream, who);
      }
      break;
    case histogram_path::global_atomics:
      if constexpr (admits_bitmaps(kind)) {
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
  constexpr call_kind kind = kind_of<Job>();
  constexpr kernel_shape lanes = shape_v<histogram_path::byte_lanes, Job>;
  if constexpr (admits(histogram_path::carry_grid, kind)) {
    if (p.path == histogram_path::carry_grid) {
      return launch_kernel<carry_kernel<Job, tuning::carry.threads, tuning::carry.blocks, tuning::carry.vectors>>(
          job, p, args, device, d, stream, who);
    }
  }
  if constexpr (admits(histogram_path::byte_lanes, kind)) {
    if (p.path == histogram_path::byte_lanes) {
      return launch_kernel<byte_lanes_kernel<Job, lanes.threads, lanes.blocks, lanes.vectors>>(
          job, p, args, device, d, stream, who);
    }
  }
  if constexpr (byte_lanes_only(kind)) {
    return invalid(who, std::string("no kernel of this call's type serves the path ") + path_name(p.path));
  } else {
    return launch_counting(job, p, args, device, d, stream, who);
  }
}

/// Whether the partition's scatter runs in its sm_90 shape (tuning::partition_scatter_shape) for Job on `device`:
/// only where this translation unit's kernels run code compiled for sm_90 or later (PTX of an earlier
/// architecture keeps the earlier shape, whose shared memory and grid the plan's hold too).
template <class Job>
cudaError_t scatter_since90(const launch_plan& plan, int device, const char* who, bool& since90) {
  constexpr int sample_bytes = sizeof(typename Job::sample_t);
  constexpr tuning::partition_shape shape = tuning::partition_scatter_shape(sample_bytes, 90);
  since90 = plan.threads == shape.threads && tuning::partition_scatter_sm90_only(sample_bytes, shape.threads);
  if (!since90) { return cudaSuccess; }
  int arch = 0;
  if (cudaError_t e = compiled_arch<
          partition_scatter_kernel<Job, shape.threads, tuning::partition_scatter_blocks, shape.items>>(device, who,
                                                                                                       arch);
      e != cudaSuccess) {
    return e;
  }
  since90 = arch >= 90;
  return cudaSuccess;
}

/// The partition passes' arguments over `workspace` (16-byte aligned) for chunks of the plan's size: the buckets'
/// sizes and claims, then the chunk's keys, then the table of each bucket's first key per tile.
inline partition_args partition_arguments(const partition_plan& q, int tile, unsigned char* workspace,
                                          unsigned long long* ignored) {
  const cuda::std::size_t sizes_bytes = partition_workspace_bytes(q.buckets, 0, tile) - 16;
  const cuda::std::size_t keys_bytes = partition_tiles(q.chunk_samples, tile) * tile * 2;
  return {reinterpret_cast<cuda::std::uint16_t*>(workspace + sizes_bytes),
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
}

/// One chunk's passes: the memset of the buckets' sizes and claims, the scatter (in its sm_90 shape where
/// `since90`) and the bucket pass.
template <class Job>
cudaError_t run_partition_chunk(const Job& chunk, const partition_args& args, const launch_plan& plan,
                                bool since90, int device, const device_limits& d, cudaStream_t stream,
                                const char* who) {
  constexpr int sample_bytes = sizeof(typename Job::sample_t);
  constexpr tuning::partition_shape before = tuning::partition_scatter_shape(sample_bytes, 0),
                                    after = tuning::partition_scatter_shape(sample_bytes, 90);
  const partition_plan& q = plan.partition;
  const cuda::std::size_t sizes_bytes = partition_workspace_bytes(q.buckets, 0, q.tile) - 16;
  if (cudaError_t e = cuda_call(cudaMemsetAsync(args.sizes, 0, sizes_bytes, stream), who); e != cudaSuccess) {
    return e;
  }
  const auto grid =
      static_cast<int>(std::min<cuda::std::size_t>(args.tiles, static_cast<cuda::std::size_t>(plan.grid)));
  if (cudaError_t e =
          since90
              ? launch_sized<
                    partition_scatter_kernel<Job, after.threads, tuning::partition_scatter_blocks, after.items>>(
                    grid, after.threads, plan.smem_bytes, device, d, stream, who, chunk, args)
              : launch_sized<
                    partition_scatter_kernel<Job, before.threads, tuning::partition_scatter_blocks, before.items>>(
                    grid, before.threads, plan.smem_bytes, device, d, stream, who, chunk, args);
      e != cudaSuccess) {
    return e;
  }
  return launch_sized<partition_bins_kernel<Job, tuning::partition_bins_threads, tuning::partition_bins_gather>>(
      q.bins_grid, tuning::partition_bins_threads, q.bins_smem, device, d, stream, who, chunk, args);
}

/**
 * The partition path over a validated, non-empty call, in chunks of plan.partition.chunk_samples samples, in
 * `workspace` (16-byte aligned, plan.partition.workspace_bytes - 16 bytes): per chunk, a memset of the buckets'
 * sizes and claims, the scatter and the bucket pass (kernels/partition.cuh). Where the plan says so
 * (zero_in_kernel), the first chunk overwrites every bin of the output (not cleared before).
 */
template <class Job>
cudaError_t run_partition(const Job& job, const launch_plan& plan, unsigned char* workspace,
                          unsigned long long* ignored, bool accumulate, int device, const device_limits& d,
                          cudaStream_t stream, const char* who) {
  const partition_plan& q = plan.partition;
  constexpr int sample_bytes = sizeof(typename Job::sample_t), tile = partition_tile(sample_bytes);
  if (q.tile != tile || plan.threads != tuning::partition_scatter_shape(sample_bytes, d.arch).threads) {
    return invalid(who, "the partition plan's tile does not match the samples' (a plan for another sample type)");
  }
  bool since90 = false;
  if (cudaError_t e = scatter_since90<Job>(plan, device, who, since90); e != cudaSuccess) { return e; }
  partition_args args = partition_arguments(q, tile, workspace, ignored);
  for (cuda::std::size_t first = 0; first < job.row_samples; first += q.chunk_samples) {
    Job chunk = job;
    chunk.samples = job.samples + first;
    chunk.row_samples = std::min(q.chunk_samples, job.row_samples - first);
    args.tiles = static_cast<unsigned>(partition_tiles(chunk.row_samples, tile));
    args.fresh = !accumulate && first == 0;
    args.overwrite = args.fresh && plan.zero_in_kernel;
    if (cudaError_t e = run_partition_chunk(chunk, args, plan, since90, device, d, stream, who);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
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
      return invalid(who, "the workspace holds " + std::to_string(options.workspace_bytes) +
                              " bytes but this call "
                              "needs " +
                              std::to_string(needed) + " (histogram_workspace_bytes)");
    }
    workspace = static_cast<unsigned char*>(options.workspace);
  } else {
    const cudaMemPool_t pool = workspace_pool(device);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (!request_of(options).workspace_fails) {
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
      if (!plan.ok()) { return invalid(who, unplanned_message(call, limits, request_of(options))); }
    }
  }
  if (workspace != nullptr) { workspace += (16 - reinterpret_cast<cuda::std::uintptr_t>(workspace) % 16) % 16; }
  return cudaSuccess;
}

/// One launch of a validated call: plan, zero the output (memset, or the kernel itself), launch.
template <class Job>
cudaError_t run_launch(const Job& job, const histogram_options& options, cudaStream_t stream, const char* who) {
  const histogram_call call = call_of(job, options.accumulate);
  const histogram_request& request = request_of(options);
  int device = 0;
  device_limits limits{};
  launch_plan plan{}, fallback{};
  if (cudaError_t e = plan_on_current_device(call, request, device, limits, plan, who, &fallback);
      e != cudaSuccess) {
    return e;
  }
  if (!plan.ok()) { return invalid(who, unplanned_message(call, limits, request)); }
  unsigned char* workspace = nullptr;  // the partition path's: the caller's, or `owned`, allocated here
  void* owned = nullptr;
  if (plan.path == histogram_path::partition && call.input_bytes() > 0) {
    const cudaError_t e = partition_workspace(call, options, device, limits, stream, who, plan, workspace, owned);
    if (e != cudaSuccess) { return e; }
    // Still the partition only if its workspace came (a failed allocation fell back to the global atomics).
    if (plan.path == histogram_path::partition) {
      if (request.partition_overwrite) { plan.zero_in_kernel = !options.accumulate; }
      if (request.partition_scatter_grid > 0) { plan.grid = std::min(plan.grid, request.partition_scatter_grid); }
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
    if constexpr (admits(histogram_path::partition, kind_of<Job>())) {
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
  const kernel_args args{plan.walk,      plan.replicas, plan.slices, plan.zero_in_kernel, planned_call(call, plan),
                         options.ignored};
  if (cudaError_t e = launch_planned(job, plan, args, device, limits, stream, who); e != cudaSuccess) { return e; }
  if (plan.path == histogram_path::carry_grid) {  // the fallback, for levels that crowd the grid's cells
    if (!fallback.ok()) {
      return invalid(who, unplanned_message(call, limits, request));
    }  // the plan ensures it is
    const kernel_args then{
        fallback.walk,   fallback.replicas,    fallback.slices, false, planned_call(call, fallback),
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
  if constexpr (admits(histogram_path::byte_lanes, kind_of<Job>())) {
    const cuda::std::size_t limit = request_of(options).byte_piece_bytes;
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
