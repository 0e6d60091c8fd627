// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The block-wide asynchronous copy behind onchip::stage and the tile traversals: one barrier word per stage, the
// copy cut into a peeled head and tail (ordinary loads and stores) and a 16-byte body, whose path the target
// picks: sm_90 the bulk copy engine (one instruction, completed on the barrier with a byte count), sm_80-89
// 16-byte cp.async by every thread (tied to the barrier by cp.async.mbarrier.arrive), older GPUs ordinary 16-byte
// loads and stores. Device code only.
#pragma once

#include <onchip/detail/block.cuh>
#include <onchip/detail/check.cuh>
#include <onchip/detail/config.cuh>
#include <onchip/detail/stage/layout.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <nv/target>

#include <cstdio>

#if defined(__CUDACC__)
#  include <cuda/ptx>

namespace onchip::detail {

/// The unsigned type of `Bytes` (1, 2, 4, 8 or 16) bytes that copies a peeled head or tail.
template <cuda::std::size_t Bytes>
using copy_unit_t = cuda::std::conditional_t<
    Bytes == 1, cuda::std::uint8_t,
    cuda::std::conditional_t<
        Bytes == 2, cuda::std::uint16_t,
        cuda::std::conditional_t<Bytes == 4, cuda::std::uint32_t,
                                 cuda::std::conditional_t<Bytes == 8, cuda::std::uint64_t, uint4>>>>;

/// Thread 0 makes the stage's barrier, expecting one arrival per thread of the block; a __syncthreads must follow
/// before any thread uses it.
ONCHIP_DEVICE ONCHIP_FORCEINLINE void stage_barrier_init([[maybe_unused]] cuda::std::uint64_t* barrier) {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (cuda::ptx::mbarrier_init(barrier, static_cast<unsigned>(block_size()));))
  // The bulk copy engine (the async proxy) completes transactions on it: make the initialized word visible there.
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);))
}

/// Thread 0 ends the barrier's life, once every thread has finished waiting on it (a __syncthreads before this).
ONCHIP_DEVICE ONCHIP_FORCEINLINE void stage_barrier_inval([[maybe_unused]] cuda::std::uint64_t* barrier) {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(
                                                    static_cast<unsigned>(__cvta_generic_to_shared(barrier)))
                                                : "memory");))
}

/// Every thread: returns once the copy that the barrier's phase of this parity tracks has landed.
ONCHIP_DEVICE ONCHIP_FORCEINLINE void stage_wait([[maybe_unused]] cuda::std::uint64_t* barrier,
                                                 [[maybe_unused]] cuda::std::uint32_t parity) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90, (while (!cuda::ptx::mbarrier_try_wait_parity(barrier, parity)){}),
      (NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (while (!cuda::ptx::mbarrier_test_wait_parity(barrier, parity)){}),
                         (__syncthreads();))))
}

/// Every thread, before a buffer is filled again: the block has finished with its contents. On sm_90 each thread
/// first orders its own ordinary accesses to shared memory before the bulk copy engine's writes.
ONCHIP_DEVICE ONCHIP_FORCEINLINE void stage_refill_fence() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);))
  __syncthreads();
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE void cp_async_16([[maybe_unused]] void* dst, [[maybe_unused]] const void* src) {
  // libcu++ wraps the bulk copies but not this one (sm_80+): 16 bytes, cached in L2 only.
  NV_IF_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                                                    static_cast<unsigned>(__cvta_generic_to_shared(dst))),
                                                "l"(__cvta_generic_to_global(src))
                                                : "memory");))
}

/// The 16-byte body by every thread: cp.async on sm_80+, ordinary loads and stores before.
ONCHIP_DEVICE ONCHIP_FORCEINLINE void copy_body_by_threads(cuda::std::byte* dst, const cuda::std::byte* src,
                                                           cuda::std::size_t bytes) {
  const auto threads = static_cast<cuda::std::size_t>(block_size());
  for (auto c = static_cast<cuda::std::size_t>(block_rank()); c < bytes / stage_granule; c += threads) {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (cp_async_16(dst + c * stage_granule, src + c * stage_granule);),
                      (*reinterpret_cast<uint4*>(dst + c * stage_granule) =
                           *reinterpret_cast<const uint4*>(src + c * stage_granule);))
  }
}

template <class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void check_stage_copy([[maybe_unused]] const T* src,
                                                       [[maybe_unused]] cuda::std::size_t n,
                                                       [[maybe_unused]] cuda::std::size_t capacity) {
#  if ONCHIP_CHECKS
  const bool misaligned = reinterpret_cast<cuda::std::uintptr_t>(src) % alignof(T) != 0;
  if (n > capacity || misaligned) {
    const bool leader = report_leader();
    if (leader) {
      printf("onchip::stage: a copy of %llu elements of %llu bytes from %p into a stage of %llu elements: %s\n",
             static_cast<unsigned long long>(n), static_cast<unsigned long long>(sizeof(T)),
             static_cast<const void*>(src), static_cast<unsigned long long>(capacity),
             misaligned ? "the source is not aligned to alignof(T)" : "more elements than the stage holds");
    }
    fail_check(leader);
  }
#  endif
}

/// Where a copy from `src` puts its first element in `buffer` (landing_offset).
ONCHIP_DEVICE ONCHIP_FORCEINLINE cuda::std::byte* landing(cuda::std::byte* buffer, const void* src) {
  return buffer + landing_offset(reinterpret_cast<cuda::std::uintptr_t>(src));
}

/**
 * Every thread of the block: starts copying src[0, n) into `buffer` (whose contents the block has finished with)
 * and arrives on `barrier`; returns where the elements will be. The phase completes when they have landed.
 */
template <class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE T* stage_copy(cuda::std::byte* buffer, cuda::std::uint64_t* barrier, const T* src,
                                               cuda::std::size_t n) {
  constexpr cuda::std::size_t unit = alignof(T) < stage_granule ? alignof(T) : stage_granule;
  using unit_t = copy_unit_t<unit>;
  const copy_split split = split_copy(reinterpret_cast<cuda::std::uintptr_t>(src), n * sizeof(T));
  cuda::std::byte* const dst = landing(buffer, src);
  const auto* const from = reinterpret_cast<const cuda::std::byte*>(src);
  const int rank = block_rank();
  const auto threads = static_cast<cuda::std::size_t>(block_size());
  // The peeled head and tail: at most 15 bytes each, one unit per thread.
  const cuda::std::size_t head_units = split.head / unit;
  const cuda::std::size_t edge_units = head_units + split.tail / unit;
  for (auto u = static_cast<cuda::std::size_t>(rank); u < edge_units; u += threads) {
    const cuda::std::size_t at = u < head_units ? u * unit : split.head + split.body + (u - head_units) * unit;
    *reinterpret_cast<unit_t*>(dst + at) = *reinterpret_cast<const unit_t*>(from + at);
  }
  cuda::std::byte* const body_dst = dst + split.head;
  const cuda::std::byte* const body_src = from + split.head;
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (
          if (rank == 0 && split.body > 0) {
            // One arrival that also announces the bytes, then one bulk copy that completes them on the barrier.
            static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                                   cuda::ptx::space_shared, barrier,
                                                                   static_cast<cuda::std::uint32_t>(split.body)));
            cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, body_dst, body_src,
                                     static_cast<cuda::std::uint32_t>(split.body), barrier);
          } else { static_cast<void>(cuda::ptx::mbarrier_arrive(barrier)); }),
      (copy_body_by_threads(body_dst, body_src, split.body);
       // sm_80+: the barrier's phase also waits for this thread's cp.async copies, then for its arrival.
       NV_IF_TARGET(NV_PROVIDES_SM_80, (cuda::ptx::cp_async_mbarrier_arrive(barrier);
                                        static_cast<void>(cuda::ptx::mbarrier_arrive(barrier));))))
  return reinterpret_cast<T*>(dst);
}

}  // namespace onchip::detail
#endif  // __CUDACC__
