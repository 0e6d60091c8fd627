// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief `__restrict__` load helpers whose instructions are a contract: cache-policy loads, alignment-chosen
 * vector loads, tile loads with vectorized partial tiles, and cooperative traversals with peeled heads and tails.
 *
 * Every helper emits a `.global` load with the policy's qualifiers (checked on PTX and SASS in CI), whatever the
 * compiler could or could not prove about the pointer.
 */
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip {

/**
 * @brief Cache policies: pass one as the `Policy` template argument of the load helpers.
 *
 * Measured on the H200 (sm_90, 1 GiB streams): all policies stream from HBM at the same ~4.5 TB/s; they differ
 * in what they leave in the caches for other data.
 */
namespace cache {
/// `ld.global` (SASS `LDG.E`): the default caching. Coherent, ordered with the thread's own stores.
struct normal {};
/// `ld.global.nc` (SASS `LDG.E...CONSTANT`): the non-coherent read-only path. The data must not be written by
/// anyone while the kernel runs. On sm_80+ it buys no bandwidth by itself (H200: within 1% of normal), but it
/// frees the compiler to reorder and merge loads.
struct readonly {};
/// `ld.global.cs.nc` (SASS `LDG.E.EF...`): evict-first streaming for data read once and not written during the
/// kernel. Leaves L2 to reused data: a 1 GiB stream beside a reused 32 MiB table ran 13% faster (0.626 vs
/// 0.722 ms on the H200). The default for onchip's traversals of one-touch input.
struct stream {};
/// `ld.global.lu` (SASS `LDG.E.LU`): last use; the line will not be needed again. Bypasses L1: do not use for
/// data reused in L1 (an L1-resident gather ran 15x slower on the H200).
struct last_use {};
/// `ld.global.L1::no_allocate` (SASS `LDG.E.NA`): do not allocate in L1. Same caveat as last_use.
struct no_allocate {};
/// `ld.global.L1::evict_last` (SASS `LDG.E.EL`): keep in L1 as long as possible, for small tables read often.
struct evict_last {};
}  // namespace cache

/// Element arrangements for load_tile (as CUB BlockLoad's direct arrangements).
namespace arrangement {
/// Thread `t` holds items `t * ItemsPerThread + i`: contiguous per thread, loaded as 16-byte vectors when aligned.
struct blocked {};
/// Thread `t` holds items `t + i * blockDim.x`: each load instruction is coalesced across the block.
struct striped {};
/// Warp `w` holds a contiguous run of `32 * ItemsPerThread` items; lane `l` holds `run + l + 32 * i`.
struct warp_striped {};
}  // namespace arrangement

/**
 * @brief `N` values of `T` stored together and aligned to their total size, as one vector load reads them.
 * @tparam T  element type
 * @tparam N  element count; `N * sizeof(T)` must be 4, 8 or 16 for load_vec
 */
template <class T, int N>
struct alignas(N * sizeof(T)) vec {
  static_assert(N > 0 && (N & (N - 1)) == 0, "onchip::vec<T, N>: N must be a power of two");
  /// The values, first at the lowest address.
  T items[N];
  /// Number of values.
  static constexpr int size = N;
  /// Value `i`.
  ONCHIP_HOST_DEVICE constexpr T& operator[](int i) noexcept { return items[i]; }
  /// Value `i`.
  ONCHIP_HOST_DEVICE constexpr const T& operator[](int i) const noexcept { return items[i]; }
};

/// Values of `T` in one 16-byte vector (0 when `T` cannot be packed into 16-byte vectors).
template <class T>
inline constexpr int items_per_16b = (sizeof(T) <= 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T))
                                         ? static_cast<int>(16 / sizeof(T))
                                         : 0;

#if defined(__CUDACC__)
/**
 * @brief Loads one `T` from global memory with `Policy`.
 * @tparam Policy  a type from onchip::cache
 * @tparam T       trivially copyable; 1, 2, 4, 8 and 16-byte types take one instruction, larger or less aligned
 *                 ones are split into the widest pieces their alignment allows
 * @param p        a global-memory address aligned to `alignof(T)`
 */
template <class Policy = cache::normal, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE T load(const T* __restrict__ p);

/**
 * @brief Loads `N` consecutive values of `T` as one 4-, 8- or 16-byte vector load.
 * @param p  a global-memory address aligned to `N * sizeof(T)` (checked in checked mode)
 */
template <int N, class Policy = cache::normal, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE vec<T, N> load_vec(const T* __restrict__ p);

/**
 * @brief Block-cooperative load of one tile of `blockDim.x * ItemsPerThread` items starting at `in`, of which the
 * first `valid` exist. Call from every thread of the block.
 *
 * `blocked` uses 16-byte (else 8- or 4-byte) vector loads whenever the addresses allow, also in a partial tile:
 * whole vectors for the in-bounds part, guarded loads for the rest. Items at or past `valid` get `oob_default`,
 * and nothing at or past `in + valid` is read.
 * @tparam ItemsPerThread  items per thread
 * @tparam Arrangement     arrangement::blocked, arrangement::striped or arrangement::warp_striped
 * @tparam Policy          a type from onchip::cache
 */
template <int ItemsPerThread, class Arrangement = arrangement::blocked, class Policy = cache::normal, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_tile(const T* __restrict__ in, cuda::std::size_t valid,
                                                T (&items)[ItemsPerThread], T oob_default);

/**
 * @brief The whole grid visits `in[0, n)`: `f(value, index)` exactly once per element. Call from every thread.
 *
 * A head up to the first 128-byte boundary is peeled so the body runs on 16-byte loads of whole cache lines,
 * `ItemsPerThread` of them in flight per thread, coalesced across the grid; the tail is guarded. Types that do not
 * pack into 16 bytes take one load per element.
 * @tparam ItemsPerThread  16-byte vectors each thread keeps in flight (register cost: 16 bytes each)
 * @tparam Policy          a type from onchip::cache (default: stream, for one-touch input)
 */
template <int ItemsPerThread = 4, class Policy = cache::stream, class T, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void grid_for_each(const T* __restrict__ in, cuda::std::size_t n, F&& f);

/// As grid_for_each, by the threads of this block alone over `in[0, n)` (for example the block's own tile).
template <int ItemsPerThread = 4, class Policy = cache::stream, class T, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_for_each(const T* __restrict__ in, cuda::std::size_t n, F&& f);

/**
 * @brief The vector form of grid_for_each, for code that unpacks whole vectors itself (e.g. bytes):
 * `on_vector(const vec<T, items_per_16b<T>>& v, index_of_v0)` for each aligned 16-byte vector of the body, and
 * `on_item(value, index)` for each element of the peeled head and guarded tail. Every element is seen once.
 */
template <int ItemsPerThread = 4, class Policy = cache::stream, class T, class FV, class FI>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void grid_for_each_vec(const T* __restrict__ in, cuda::std::size_t n,
                                                        FV&& on_vector, FI&& on_item);

/// As grid_for_each_vec, by the threads of this block alone.
template <int ItemsPerThread = 4, class Policy = cache::stream, class T, class FV, class FI>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_for_each_vec(const T* __restrict__ in, cuda::std::size_t n,
                                                         FV&& on_vector, FI&& on_item);
#endif

/**
 * @brief A trivially copyable read-only view (pointer + size) that keeps its `ld.global.nc` loads when it travels
 * inside a struct kernel parameter, where a `__restrict__` member would be ignored.
 *
 * Only for data nobody writes while the kernel runs.
 */
template <class T>
class readonly_view {
 public:
  /// An empty view.
  readonly_view() = default;
  /// Views `size` elements at `data`.
  ONCHIP_HOST_DEVICE constexpr readonly_view(const T* data, cuda::std::size_t size) noexcept
      : data_(data), size_(size) {}
  /// The first element's address.
  ONCHIP_HOST_DEVICE constexpr const T* data() const noexcept { return data_; }
  /// Number of elements.
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t size() const noexcept { return size_; }
#if defined(__CUDACC__)
  /// Element `i`, through `ld.global.nc`.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE T operator[](cuda::std::size_t i) const;
  /// `N` elements from `i` as one vector load; `data() + i` must be aligned to `N * sizeof(T)`.
  template <int N>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE vec<T, N> load_vec(cuda::std::size_t i) const;
#endif

 private:
  const T* data_ = nullptr;
  cuda::std::size_t size_ = 0;
};

}  // namespace onchip

#include <onchip/detail/load/load_impl.cuh>
