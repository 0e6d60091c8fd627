// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Layout arithmetic shared by the carver's host (measuring) and device evaluations. All constexpr, so the host
// tests can prove it without a GPU.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/limits>

namespace onchip::detail {

/// Alignment CUDA guarantees for the start of the dynamic shared-memory window (see smem.cuh).
inline constexpr cuda::std::size_t smem_base_alignment = 16;

ONCHIP_HOST_DEVICE constexpr bool is_pow2(cuda::std::size_t x) noexcept { return x != 0 && (x & (x - 1)) == 0; }

/// The alignment a take_aligned<Align, T> guarantees: the larger of Align and alignof(T).
template <cuda::std::size_t Align, class T>
inline constexpr cuda::std::size_t max_align = Align > alignof(T) ? Align : alignof(T);

ONCHIP_HOST_DEVICE constexpr cuda::std::size_t align_up(cuda::std::size_t x, cuda::std::size_t align) noexcept {
  return (x + align - 1) & ~(align - 1);
}

/// Bytes of `n` objects of `size` bytes, saturated so that an absurd request reads as "does not fit".
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t array_bytes(cuda::std::size_t n, cuda::std::size_t size) noexcept {
  constexpr cuda::std::size_t max = cuda::std::numeric_limits<cuda::std::size_t>::max() / 2;
  return n > max / size ? max : n * size;
}

/**
 * Where the carver stands. Positions are byte offsets from the window's start. `anchor` is a position whose
 * address is known to be aligned to `anchor_align` (>= 16): offsets relative to it can be aligned up to
 * `anchor_align` by arithmetic alone, which folds to constants when extents are static. A stronger alignment
 * moves the anchor ("rebase"): the device rounds the real address; the host, measuring, adds the worst case.
 * Host and device run the same sequence of rebases, and between two of them identical arithmetic, so the host's
 * `used` is never below the device's.
 */
struct carve_state {
  cuda::std::size_t used = 0;
  cuda::std::size_t anchor = 0;
  cuda::std::size_t anchor_align = smem_base_alignment;
};

/// Position of the next object aligned to `align` (<= state.anchor_align).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t aligned_position(const carve_state& s,
                                                                cuda::std::size_t align) noexcept {
  return s.anchor + align_up(s.used - s.anchor, align);
}

/// Worst-case padding a rebase to `align` (> s.anchor_align) costs when the address of the anchor is only known
/// to be aligned to s.anchor_align: first up to the anchor's alignment, then at most align - anchor_align more.
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t worst_rebase_padding(const carve_state& s,
                                                                    cuda::std::size_t align) noexcept {
  return aligned_position(s, s.anchor_align) - s.used + (align - s.anchor_align);
}

/// Merges the ends of overlay alternatives. When no alternative rebased, they share the starting anchor and the
/// furthest end is exact. Otherwise their anchors differ between host and device, so the state restarts at a
/// 16-byte boundary, which both evaluations can compute (positions are equal modulo 16 to addresses).
ONCHIP_HOST_DEVICE constexpr carve_state merge_overlay(const carve_state& start, cuda::std::size_t furthest,
                                                       bool any_rebased) noexcept {
  if (!any_rebased) { return carve_state{furthest, start.anchor, start.anchor_align}; }
  const cuda::std::size_t end = align_up(furthest, smem_base_alignment);
  return carve_state{end, end, smem_base_alignment};
}

}  // namespace onchip::detail
