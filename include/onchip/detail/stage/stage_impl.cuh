// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of onchip::stage and the tile traversals (see stage.cuh for the rules they follow).
#pragma once

#include <onchip/detail/stage/copy.cuh>
#include <onchip/stage.cuh>

#if defined(__CUDACC__)
namespace onchip {

template <class T>
ONCHIP_DEVICE stage<T>::stage(const stage_buffer<T>& buffer) : buffer_(buffer) {
  if (detail::block_rank() == 0) { detail::stage_barrier_init(buffer_.barrier()); }
}

template <class T>
ONCHIP_DEVICE void stage<T>::copy(const T* src, cuda::std::size_t n) {
  detail::check_stage_copy(src, n, buffer_.capacity());
  detail::stage_refill_fence();
  data_ = detail::stage_copy(buffer_.bytes().data(), buffer_.barrier(), src, n);
  size_ = n;
}

template <class T>
ONCHIP_DEVICE cuda::std::span<T> stage<T>::wait() {
  detail::stage_wait(buffer_.barrier(), parity_);
  parity_ ^= 1;
  return cuda::std::span<T>(data_, size_);
}

template <class T>
ONCHIP_DEVICE void stage<T>::finish() {
  __syncthreads();
  if (detail::block_rank() == 0) { detail::stage_barrier_inval(buffer_.barrier()); }
  __syncthreads();
}

namespace detail {

template <class T, int Stages>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void check_stages([[maybe_unused]] const stages<T, Stages>& staged) {
#  if ONCHIP_CHECKS
  const cuda::std::size_t need = staged.tile + staged.halo.before + staged.halo.after;
  for (int s = 0; s < Stages; ++s) {
    if (staged.tile == 0 || staged.buffers[s].capacity() < need) {
      const bool leader = report_leader();
      if (leader) {
        printf(
            "onchip::for_each_tile: tiles of %llu elements with a halo of %llu + %llu, but stage %d holds %llu "
            "elements; carve the stages with onchip::staging and a positive tile\n",
            static_cast<unsigned long long>(staged.tile), static_cast<unsigned long long>(staged.halo.before),
            static_cast<unsigned long long>(staged.halo.after), s,
            static_cast<unsigned long long>(staged.buffers[s].capacity()));
      }
      fail_check(leader);
    }
  }
#  endif
}

/// Starts staging tile `t` into stage buffer `s`.
template <class T, int Stages>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void start_tile(const stages<T, Stages>& staged, int s, const T* in,
                                                 cuda::std::size_t n, cuda::std::size_t t) {
  const tile_range r = tile_at(t, staged.tile, staged.halo.before, staged.halo.after, n);
  static_cast<void>(
      stage_copy(staged.buffers[s].bytes().data(), staged.buffers[s].barrier(), in + r.first, r.count));
}

/**
 * The traversal: this block's tiles are first_tile, first_tile + step, ...; its j-th tile goes through stage
 * j % Stages, whose barrier completes phase j / Stages for it. The stage loop is unrolled so that every stage's
 * index is a constant (no local memory).
 */
template <class T, int Stages, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void for_each_tile(const stages<T, Stages>& staged, const T* in,
                                                    cuda::std::size_t n, cuda::std::size_t first_tile,
                                                    cuda::std::size_t step, F& f) {
  check_stages(staged);
  const cuda::std::size_t tiles = tile_count(n, staged.tile);
  if (block_rank() == 0) {
    ONCHIP_UNROLL for (int s = 0; s < Stages; ++s) { stage_barrier_init(staged.buffers[s].barrier()); }
  }
  __syncthreads();
  ONCHIP_UNROLL for (int s = 0; s < Stages; ++s) {
    const cuda::std::size_t t = first_tile + s * step;
    if (t < tiles) { start_tile(staged, s, in, n, t); }
  }
  cuda::std::uint32_t parity = 0;
  for (cuda::std::size_t round = first_tile; round < tiles; round += Stages * step, parity ^= 1) {
    ONCHIP_UNROLL for (int s = 0; s < Stages; ++s) {
      const cuda::std::size_t t = round + s * step;
      if (t >= tiles) { break; }
      stage_wait(staged.buffers[s].barrier(), parity);
      const tile_range r = tile_at(t, staged.tile, staged.halo.before, staged.halo.after, n);
      T* data = reinterpret_cast<T*>(landing(staged.buffers[s].bytes().data(), in + r.first));
      f(staged_tile<T>{cuda::std::span<T>(data, r.count), r.first, r.begin, r.end});
      const cuda::std::size_t next = t + Stages * step;
      if (next < tiles) {
        stage_refill_fence();
        start_tile(staged, s, in, n, next);
      }
    }
  }
  __syncthreads();
  if (block_rank() == 0) {
    ONCHIP_UNROLL for (int s = 0; s < Stages; ++s) { stage_barrier_inval(staged.buffers[s].barrier()); }
  }
  __syncthreads();
}

}  // namespace detail

template <class T, int Stages, class F>
ONCHIP_DEVICE void block_for_each_tile(const stages<T, Stages>& staged, const T* in, cuda::std::size_t n, F&& f) {
  detail::for_each_tile(staged, in, n, 0, 1, f);
}

template <class T, int Stages, class F>
ONCHIP_DEVICE void grid_for_each_tile(const stages<T, Stages>& staged, const T* in, cuda::std::size_t n, F&& f) {
  detail::for_each_tile(staged, in, n, blockIdx.x, gridDim.x, f);
}

}  // namespace onchip
#endif  // __CUDACC__
