// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of smem.cuh: the carver's checks, overlay bookkeeping, onchip::dynamic_smem and onchip::describe,
// and the host launch helpers for dynamic shared memory (opt-in, occupancy, extent fitting, readable errors).
#pragma once

#include <onchip/detail/check.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/smem/attribute.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstdint>
#include <nv/target>

#include <cuda_runtime_api.h>

#include <sstream>
#include <string>
#include <utility>

namespace onchip {

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::check_base() const {
#if ONCHIP_CHECKS
  const auto address = reinterpret_cast<cuda::std::uintptr_t>(base_);
  if (address % dynamic_smem_base_alignment != 0) {
    const bool leader = detail::report_leader();
    if (leader) {
      printf(
          "onchip::carver: the window starts at %p, which is not %llu-byte aligned; carvers need a base aligned "
          "to at least %llu bytes\n",
          static_cast<void*>(base_), static_cast<unsigned long long>(dynamic_smem_base_alignment),
          static_cast<unsigned long long>(dynamic_smem_base_alignment));
    }
    detail::fail_check(leader);
  }
#endif
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::check_capacity(const char* what, cuda::std::size_t n,
                                                                  cuda::std::size_t size,
                                                                  cuda::std::size_t align) const {
#if ONCHIP_CHECKS
  if (!measuring_ && state_.used > capacity_) {
    const bool leader = detail::report_leader();
    if (leader) {
      printf(
          "onchip::carver: %s of %llu objects of %llu bytes (alignment %llu) needs %llu bytes of shared memory, "
          "but the launch provided only %llu; launch with onchip::smem_bytes(plan) bytes\n",
          what, static_cast<unsigned long long>(n), static_cast<unsigned long long>(size),
          static_cast<unsigned long long>(align), static_cast<unsigned long long>(state_.used),
          static_cast<unsigned long long>(capacity_));
    }
    detail::fail_check(leader);
  }
#else
  static_cast<void>(what), static_cast<void>(n), static_cast<void>(size), static_cast<void>(align);
#endif
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::open_overlay() {
  NV_IF_TARGET(NV_IS_HOST, (if (recorder_ != nullptr) {
                 detail::record_marker(*recorder_, "overlay {", state_.used);
                 ++recorder_->depth;
               }))
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::close_overlay() {
  NV_IF_TARGET(NV_IS_HOST, (if (recorder_ != nullptr) {
                 --recorder_->depth;
                 detail::record_marker(*recorder_, "} overlay ends", state_.used);
               }))
}

#if defined(__CUDACC__)
ONCHIP_DEVICE ONCHIP_FORCEINLINE carver dynamic_smem() noexcept {
  // The one dynamic shared-memory declaration: a byte array with no alignment attribute (such attributes are
  // not reliably honoured and would raise the static alignment of every kernel in the translation unit).
  extern __shared__ unsigned char onchip_dynamic_smem_window[];
  unsigned size;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));  // not volatile: unused when checks are off
  return carver(onchip_dynamic_smem_window, size);
}
#endif

template <class Plan>
std::string describe(Plan&& plan) {
  detail::layout_recorder recorder;
  carver measure;
  measure.record_into(&recorder);
  static_cast<void>(plan(measure));
  std::ostringstream out;
  out << "offset    bytes     align  padding  array\n";
  char line[64];
  for (const auto& e : recorder.entries) {
    if (e.alignment == 0) {
      std::snprintf(line, sizeof line, "%-8llu  %-8s  %-5s  %-7s  ", static_cast<unsigned long long>(e.offset), "",
                    "", "");
    } else {
      std::snprintf(line, sizeof line, "%-8llu  %-8llu  %-5llu  %-7llu  ",
                    static_cast<unsigned long long>(e.offset), static_cast<unsigned long long>(e.bytes),
                    static_cast<unsigned long long>(e.alignment), static_cast<unsigned long long>(e.padding));
    }
    out << line << std::string(2 * static_cast<std::size_t>(e.depth), ' ') << e.what << '\n';
  }
  out << "total: " << measure.used() << " bytes of dynamic shared memory (launch with this; it covers any window "
      << "aligned to " << dynamic_smem_base_alignment << " bytes)\n";
  return out.str();
}

}  // namespace onchip

namespace onchip {

template <class Kernel>
cudaError_t prepare_dynamic_smem(Kernel* kernel, cuda::std::size_t bytes) {
  constexpr const char* who = "onchip::prepare_dynamic_smem";
  const void* entry = reinterpret_cast<const void*>(kernel);
  detail::smem_limits limits{};
  if (cudaError_t e = detail::query_smem_limits(entry, limits, who); e != cudaSuccess) { return e; }
  if (limits.static_bytes > limits.optin_bytes || bytes > limits.optin_bytes - limits.static_bytes) {
    return detail::fail(
        cudaErrorInvalidValue,
        std::string(who) + ": the kernel needs " + std::to_string(limits.static_bytes) + " bytes of static and " +
            std::to_string(bytes) + " bytes of dynamic shared memory, but device " +
            std::to_string(limits.device) + " allows " + std::to_string(limits.optin_bytes) +
            " bytes per block (so at most " +
            std::to_string(limits.optin_bytes > limits.static_bytes ? limits.optin_bytes - limits.static_bytes
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
    return detail::fail(cudaErrorInvalidValue, std::string(who) + ": block_threads must be positive, got " +
                                                   std::to_string(block_threads));
  }
  if (cudaError_t e = detail::cuda_call(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                            blocks, reinterpret_cast<const void*>(kernel), block_threads, bytes),
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
                            " bytes of dynamic shared memory) does not let " +
                            std::to_string(target_blocks_per_sm) + " blocks of " + std::to_string(block_threads) +
                            " threads stay resident per SM");
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
