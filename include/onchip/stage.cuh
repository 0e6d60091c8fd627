// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Asynchronous staging of global memory into carved shared memory: a block-wide copy completed on a
 * barrier the plan also carves, and traversals that stream a range through several stage buffers, calling the
 * user's code on each tile in shared memory while the next tiles are in flight.
 *
 * @code
 * // plan: three stages of 4096 floats, each with 3 neighbours on either side, beside a histogram
 * struct plan {
 *   int threads;
 *   ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
 *     return cuda::std::tuple{onchip::staging<float, 3>{4096, {3, 3}}(c), onchip::block_histogram<256>(c,
 * threads)};
 *   }
 * };
 * // host:   kernel<<<grid, threads, onchip::smem_bytes(plan{threads})>>>(...);
 * // device: auto carved = onchip::carve(plan{static_cast<int>(blockDim.x)});
 * //         onchip::grid_for_each_tile(cuda::std::get<0>(carved), in, n,
 * //                                    [&](const onchip::staged_tile<float>& t) { ... });
 * @endcode
 *
 * **Paths.** The copy of each tile is cut at the source's 16-byte boundaries. The body between them goes by
 * - sm_90: the bulk copy engine (`cp.async.bulk`), one instruction by one thread, completed on the stage's
 *   barrier (an mbarrier) with a byte count;
 * - sm_80 to sm_89: 16-byte `cp.async.cg` by every thread, tied to the barrier with `cp.async.mbarrier.arrive`;
 * - older GPUs: ordinary 16-byte loads and stores.
 *
 * The head and tail (under 16 bytes each) are copied with ordinary loads and stores by a few threads. The
 * elements land at the buffer's start plus the source address modulo 16, so both sides of the body are 16-byte
 * aligned whatever the source's alignment: a misaligned source never slows the whole tile. That is why a stage's
 * buffer is 16-byte aligned (its type says so: onchip::aligned_span) and holds 16 - alignof(T) bytes of slack
 * (none for 16-byte types), its size rounded up to a multiple of 16 (stage_bytes).
 *
 * **Rules.** Every thread of the block calls copy(), wait() and the traversals, in the same order.
 * - copy() starts with a `__syncthreads`: until a thread calls it, the block may still read and write the
 *   buffer's previous tile. From copy() until wait() returns, nobody touches the buffer.
 * - wait() issues no `__syncthreads` on sm_80 and later (each thread waits on the barrier); on older GPUs it is
 *   one `__syncthreads`. After it, the tile may be read and written until the next copy().
 * - The traversals issue one `__syncthreads` per tile (before its stage is filled again) and end with one, after
 *   which the stages' shared memory may serve other purposes.
 * - Sources must be aligned to `alignof(T)` and must not be written while a copy from them is in flight.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/stage/layout.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/array>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/span>
#include <cuda/std/type_traits>

#if !defined(CCCL_VERSION) || CCCL_VERSION < 2008000
#  error \
      "<onchip/stage.cuh> needs CCCL 2.8 or newer (CUDA 12.9 or newer) for libcu++'s mbarrier and bulk-copy wrappers"
#endif

namespace onchip {

/**
 * @brief The shared memory of one stage: a 16-byte-aligned buffer and its barrier word. Carve it with take_stage
 * (or staging), or build it from memory whose type promises the alignment.
 * @tparam T  element type: trivially copyable
 */
template <class T>
class stage_buffer {
  static_assert(
      cuda::std::is_trivially_copyable_v<T>,
      "onchip::stage_buffer<T>: T must be trivially copyable, because asynchronous copies move its bytes "
      "without running constructors or assignment operators");
  template <class>
  static constexpr bool always_false = false;

 public:
  /// No storage (capacity 0).
  stage_buffer() = default;

  /**
   * @brief A stage over `bytes` (16-byte aligned: its type says so) and the barrier word `barrier` (8-byte
   * aligned shared memory).
   */
  template <cuda::std::size_t Align>
  ONCHIP_HOST_DEVICE stage_buffer(aligned_span<cuda::std::byte, Align> bytes,
                                  cuda::std::uint64_t* barrier) noexcept
      : bytes_(bytes.data(), bytes.size()), barrier_(barrier), capacity_(detail::stage_capacity<T>(bytes.size())) {
    static_assert(Align >= detail::stage_granule,
                  "onchip::stage_buffer: asynchronous copies need a 16-byte-aligned buffer, and this span's type "
                  "promises less: carve it with take_aligned<16, cuda::std::byte>(...) or onchip::take_stage");
  }

  /// Not allowed: a plain span does not promise the 16-byte alignment the copies need.
  template <cuda::std::size_t Extent>
  stage_buffer(cuda::std::span<cuda::std::byte, Extent>, cuda::std::uint64_t*) {
    static_assert(always_false<cuda::std::span<cuda::std::byte, Extent>>,
                  "onchip::stage_buffer: this span's type does not promise the 16-byte alignment asynchronous "
                  "copies need: carve it with take_aligned<16, cuda::std::byte>(...) or onchip::take_stage, or "
                  "state it with onchip::assume_aligned<16>(span)");
  }

  /// The buffer.
  ONCHIP_HOST_DEVICE constexpr aligned_span<cuda::std::byte, 16> bytes() const noexcept { return bytes_; }
  /// The barrier word.
  ONCHIP_HOST_DEVICE constexpr cuda::std::uint64_t* barrier() const noexcept { return barrier_; }
  /// Elements one copy may bring, whatever the source's alignment.
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t capacity() const noexcept { return capacity_; }

 private:
  aligned_span<cuda::std::byte, 16> bytes_{};
  cuda::std::uint64_t* barrier_ = nullptr;
  cuda::std::size_t capacity_ = 0;
};

/// @cond INTERNAL
namespace detail {
// A stage's buffer: 16-byte aligned, for `capacity` elements of T from any source alignment.
template <class T>
ONCHIP_HOST_DEVICE aligned_span<cuda::std::byte, 16> take_stage_bytes(carver& c, cuda::std::size_t capacity) {
  return c.take_aligned<stage_granule, cuda::std::byte>(stage_bytes<T>(capacity));
}
}  // namespace detail
/// @endcond

/**
 * @brief Carves one stage for copies of up to `capacity` elements of `T` (a plan step: use it inside your plan).
 * Takes `stage_bytes<T>(capacity)` bytes aligned to 16, then an 8-byte barrier word.
 */
template <class T>
ONCHIP_HOST_DEVICE stage_buffer<T> take_stage(carver& c, cuda::std::size_t capacity) {
  const auto bytes = detail::take_stage_bytes<T>(c, capacity);
  return stage_buffer<T>(bytes, c.take<cuda::std::uint64_t>(1).data());
}

/// Bytes of one stage's buffer for copies of up to `capacity` elements of `T`: `capacity * sizeof(T)` plus
/// 16 - alignof(T) bytes of slack (none for 16-byte types), rounded up to a multiple of 16, so 0 elements of a
/// 4-byte type take 16 bytes and 3 take 32.
template <class T>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t stage_bytes(cuda::std::size_t capacity) noexcept {
  return detail::stage_bytes<T>(capacity);
}

/// Neighbours a tile also receives before and after the elements it owns (a stencil's radius, for example).
struct halo_width {
  /// Elements before the tile's first.
  cuda::std::size_t before = 0;
  /// Elements after the tile's last.
  cuda::std::size_t after = 0;
};

/**
 * @brief One tile in shared memory, as the traversals hand it to the user: the elements it owns and the halo
 * around them that exists (clipped at 0 and n).
 */
template <class T>
struct staged_tile {
  /// The staged elements, halo included, in shared memory: global indices [first, first + items.size()).
  cuda::std::span<T> items;
  /// Global index of items[0].
  cuda::std::size_t first;
  /// Global index of the first element the tile owns.
  cuda::std::size_t begin;
  /// One past the global index of the last element the tile owns.
  cuda::std::size_t end;
  /// The staged element of global index `i` (first <= i < first + items.size()).
  ONCHIP_HOST_DEVICE constexpr T& operator[](cuda::std::size_t i) const noexcept { return items[i - first]; }
};

/// The carved result of a staging plan: the stages and how tiles are cut.
template <class T, int Stages>
struct stages {
  /// One buffer and barrier per stage.
  cuda::std::array<stage_buffer<T>, Stages> buffers;
  /// Elements each tile owns.
  cuda::std::size_t tile;
  /// Neighbours each tile also receives.
  halo_width halo;
};

/**
 * @brief Plan of a tile traversal's shared memory: `Stages` buffers, each for a tile of `tile` elements and its
 * halo, then their barriers. Compose it with other arrays by calling it from your own plan.
 * @tparam T       element type: trivially copyable
 * @tparam Stages  buffers, 1 to 8: while the block works on one tile, `Stages - 1` more are in flight
 */
template <class T, int Stages = 2>
struct staging {
  static_assert(Stages >= 1 && Stages <= 8, "onchip::staging<T, Stages>: Stages must be between 1 and 8");
  static_assert(cuda::std::is_trivially_copyable_v<T>,
                "onchip::staging<T>: T must be trivially copyable, because asynchronous copies move its bytes "
                "without running constructors or assignment operators");
  /// Elements each tile owns.
  cuda::std::size_t tile;
  /// Neighbours each tile also receives.
  halo_width halo{};

  /// Carves the stages (all buffers first, then the barriers).
  ONCHIP_HOST_DEVICE stages<T, Stages> operator()(carver& c) const {
    stages<T, Stages> out{{}, tile, halo};
    const cuda::std::size_t capacity = tile + halo.before + halo.after;
    aligned_span<cuda::std::byte, 16> bytes[Stages];
    for (int s = 0; s < Stages; ++s) { bytes[s] = detail::take_stage_bytes<T>(c, capacity); }
    auto barriers = c.take<cuda::std::uint64_t>(Stages);
    for (int s = 0; s < Stages; ++s) { out.buffers[s] = stage_buffer<T>(bytes[s], barriers.data() + s); }
    return out;
  }
};

#if defined(__CUDACC__)
/**
 * @brief One thread's handle on a stage: block-wide asynchronous copies into it, and waiting for them. It tracks
 * the barrier's phase, so every thread of the block makes one over the same stage_buffer and calls the members
 * in the same order.
 * @code
 * onchip::stage<float> st(buffer);
 * st.copy(in + offset, count);               // starts the copy
 * ...                                        // other work while it flies
 * cuda::std::span<float> tile = st.wait();   // in shared memory
 * st.finish();                               // before the memory serves anything else
 * @endcode
 */
template <class T>
class stage {
 public:
  /// Block-wide: thread 0 makes the barrier; the first copy() publishes it.
  ONCHIP_DEVICE explicit stage(const stage_buffer<T>& buffer);
  /**
   * @brief Block-wide: a `__syncthreads`, then starts copying `src[0, n)` into the buffer.
   * @param src  global memory aligned to `alignof(T)`
   * @param n    elements, at most `capacity()` (checked in checked mode)
   */
  ONCHIP_DEVICE void copy(const T* src, cuda::std::size_t n);
  /// Block-wide: returns once the last copy has landed: its elements in shared memory.
  ONCHIP_DEVICE cuda::std::span<T> wait();
  /// Block-wide: ends the stage's barrier (two `__syncthreads`); the memory may then serve anything else.
  ONCHIP_DEVICE void finish();
  /// Elements one copy may bring.
  ONCHIP_DEVICE cuda::std::size_t capacity() const noexcept { return buffer_.capacity(); }

 private:
  stage_buffer<T> buffer_;
  T* data_ = nullptr;
  cuda::std::size_t size_ = 0;
  cuda::std::uint32_t parity_ = 0;
};

/**
 * @brief Block-wide: the block streams `in[0, n)` through the stages, tile by tile in order, calling
 * `f(const staged_tile<T>&)` from every thread on each tile while the next `Stages - 1` tiles are in flight.
 * @param staged  the carved stages (onchip::staging)
 * @param in      global memory aligned to `alignof(T)`, not written during the call
 * @param n       elements of `in`
 * @param f       called with each tile; it may read and write the tile and may call `__syncthreads`
 */
template <class T, int Stages, class F>
ONCHIP_DEVICE void block_for_each_tile(const stages<T, Stages>& staged, const T* in, cuda::std::size_t n, F&& f);

/// As block_for_each_tile, with the tiles shared out over the grid: block `b` takes tiles b, b + gridDim.x, ...
template <class T, int Stages, class F>
ONCHIP_DEVICE void grid_for_each_tile(const stages<T, Stages>& staged, const T* in, cuda::std::size_t n, F&& f);
#endif

}  // namespace onchip

#include <onchip/detail/stage/stage_impl.cuh>
