// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Arithmetic of the asynchronous stages, shared by the host (sizes) and the device (copies, tiles). All constexpr,
// so the host tests can prove it without a GPU.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/smem/layout.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace onchip::detail {

/// Alignment (and size granule) of the fast copy paths: 16-byte cp.async and the bulk copy engine.
inline constexpr cuda::std::size_t stage_granule = 16;

/// Bytes a stage keeps free before its elements: they land at the buffer's start plus the source address modulo
/// 16, which is a multiple of alignof(T), so both sides of the 16-byte body share their alignment.
template <class T>
inline constexpr cuda::std::size_t stage_slack = alignof(T) >= stage_granule ? 0 : stage_granule - alignof(T);

/// Bytes of a stage buffer that holds `capacity` elements of T from any source address aligned to alignof(T).
template <class T>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t stage_bytes(cuda::std::size_t capacity) noexcept {
  return align_up(array_bytes(capacity, sizeof(T)) + stage_slack<T>, stage_granule);
}

/// Elements of T a stage buffer of `bytes` holds from any source alignment (the inverse of stage_bytes).
template <class T>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t stage_capacity(cuda::std::size_t bytes) noexcept {
  return bytes > stage_slack<T> ? (bytes - stage_slack<T>) / sizeof(T) : 0;
}

/// Where in its stage buffer a copy from `address` puts its first byte: the source's offset from 16-byte
/// alignment, so that both sides of the copy's body are 16-byte aligned.
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t landing_offset(cuda::std::uintptr_t address) noexcept {
  return address % stage_granule;
}

/**
 * How one copy of `bytes` bytes from `address` is cut: the elements land `offset` bytes into the buffer (the
 * address modulo 16); `head` bytes up to the source's first 16-byte boundary and the `tail` after the last one
 * are copied with ordinary loads, the `body` between them (a multiple of 16, 16-byte aligned on both sides) by
 * the fast path.
 */
struct copy_split {
  cuda::std::size_t offset;
  cuda::std::size_t head;
  cuda::std::size_t body;
  cuda::std::size_t tail;
};

ONCHIP_HOST_DEVICE constexpr copy_split split_copy(cuda::std::uintptr_t address,
                                                   cuda::std::size_t bytes) noexcept {
  const cuda::std::size_t offset = landing_offset(address);
  const cuda::std::size_t to_boundary = (stage_granule - offset) % stage_granule;
  const cuda::std::size_t head = to_boundary < bytes ? to_boundary : bytes;
  const cuda::std::size_t body = (bytes - head) / stage_granule * stage_granule;
  return {offset, head, body, bytes - head - body};
}

/// Tile `t` of `n` elements cut into tiles of `tile`: it owns [begin, end) and is staged with its halo as the
/// `count` elements from `first` (the halo clipped to [0, n)).
struct tile_range {
  cuda::std::size_t first;
  cuda::std::size_t count;
  cuda::std::size_t begin;
  cuda::std::size_t end;
};

ONCHIP_HOST_DEVICE constexpr cuda::std::size_t tile_count(cuda::std::size_t n, cuda::std::size_t tile) noexcept {
  return tile == 0 ? 0 : n / tile + (n % tile != 0);
}

ONCHIP_HOST_DEVICE constexpr tile_range tile_at(cuda::std::size_t t, cuda::std::size_t tile,
                                                cuda::std::size_t before, cuda::std::size_t after,
                                                cuda::std::size_t n) noexcept {
  const cuda::std::size_t begin = t * tile;
  const cuda::std::size_t end = n - begin < tile ? n : begin + tile;
  const cuda::std::size_t first = begin < before ? 0 : begin - before;
  const cuda::std::size_t last = n - end < after ? n : end + after;
  return {first, last - first, begin, end};
}

}  // namespace onchip::detail
