// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions behind onchip/load.cuh.
#pragma once

#include <onchip/detail/check.cuh>
#include <onchip/detail/load/ptx.cuh>
#include <onchip/load.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip::detail {

/// Traversals start their vector body on this boundary: one cache line, so that each warp's 512-byte run of
/// 16-byte loads covers exactly four lines (a body merely 16-byte aligned touches five, measured 4-6% slower on
/// the H200).
inline constexpr cuda::std::size_t body_alignment = 128;

/// How a traversal splits `n` elements of `size` bytes starting at `address`: `head` elements up to the first
/// `boundary`-byte boundary, `vectors` whole 16-byte vectors, then `tail` elements. No vectors when the element
/// type does not pack into 16 bytes or the address is not even aligned to the element (then everything is head).
struct vector_split {
  cuda::std::size_t head;
  cuda::std::size_t vectors;
  cuda::std::size_t tail;
};

ONCHIP_HOST_DEVICE constexpr vector_split split_for_vectors(cuda::std::uintptr_t address, cuda::std::size_t n,
                                                            cuda::std::size_t size,
                                                            cuda::std::size_t boundary = body_alignment) noexcept {
  if (size == 0 || size > 16 || 16 % size != 0 || address % size != 0) { return {n, 0, 0}; }
  const cuda::std::size_t to_boundary = ((boundary - address % boundary) % boundary) / size;
  const cuda::std::size_t head = to_boundary < n ? to_boundary : n;
  const cuda::std::size_t per_vector = 16 / size;
  const cuda::std::size_t vectors = (n - head) / per_vector;
  return {head, vectors, n - head - vectors * per_vector};
}

/// Widest vector (16, 8 or 4 bytes; 0 = none) that thread segments of `segment_bytes` bytes starting at
/// `address` can be read with, for elements of `size` bytes.
ONCHIP_HOST_DEVICE constexpr int blocked_vector_bytes(cuda::std::uintptr_t address,
                                                      cuda::std::size_t segment_bytes,
                                                      cuda::std::size_t size) noexcept {
  for (int width = 16; width >= 4; width /= 2) {
    const auto w = static_cast<cuda::std::size_t>(width);
    if (w >= size && w % size == 0 && segment_bytes % w == 0 && address % w == 0) { return width; }
  }
  return 0;
}

/// Whether vectors of `width` bytes tile a thread segment of `items` elements of `size` bytes.
ONCHIP_HOST_DEVICE constexpr bool blocked_vectors_fit(int width, cuda::std::size_t size, int items) noexcept {
  if (width == 0) { return false; }
  const auto w = static_cast<cuda::std::size_t>(width);
  return w % size == 0 && (size * static_cast<cuda::std::size_t>(items)) % w == 0;
}

template <class T>
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t load_piece_bytes() {
  return alignof(T) < 16 ? alignof(T) : 16;
}

#if defined(__CUDACC__)
// One piece of `Bytes` at `p`, stored into `out`.
template <class Policy, cuda::std::size_t Bytes>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_piece(const void* p, void* out) {
  // memcpy (folded into register moves) rather than type-punned stores, which alias rules would not allow.
  using ld = ptx_load<Policy>;
  if constexpr (Bytes == 1) {
    const auto v = static_cast<unsigned char>(ld::b1(p));
    memcpy(out, &v, 1);
  } else if constexpr (Bytes == 2) {
    const auto v = static_cast<unsigned short>(ld::b2(p));
    memcpy(out, &v, 2);
  } else if constexpr (Bytes == 4) {
    const unsigned v = ld::b4(p);
    memcpy(out, &v, 4);
  } else if constexpr (Bytes == 8) {
    const unsigned long long v = ld::b8(p);
    memcpy(out, &v, 8);
  } else {
    static_assert(Bytes == 16, "onchip: load pieces are 1, 2, 4, 8 or 16 bytes");
    const words4 v = ld::b16(p);
    memcpy(out, &v, 16);
  }
}

// Loads an object of `Bytes` bytes aligned to `Align` into the storage at `out` (same size and alignment), in
// pieces as wide as the alignment allows.
template <class Policy, cuda::std::size_t Bytes, cuda::std::size_t Align>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_bytes(const void* p, void* out) {
  constexpr cuda::std::size_t piece = Align < 16 ? Align : 16;
  static_assert(Bytes % piece == 0, "onchip: object size must be a multiple of its alignment");
#  pragma unroll
  for (cuda::std::size_t at = 0; at < Bytes; at += piece) {
    load_piece<Policy, piece>(static_cast<const unsigned char*>(p) + at, static_cast<unsigned char*>(out) + at);
  }
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE void check_alignment(const void* p, cuda::std::size_t align, const char* who) {
#  if ONCHIP_CHECKS
  if (reinterpret_cast<cuda::std::uintptr_t>(p) % align != 0) {
    printf("%s: address %p is not aligned to %llu bytes (thread %u of block %u)\n", who, p,
           static_cast<unsigned long long>(align), threadIdx.x, blockIdx.x);
    fail_check(true);
  }
#  else
  static_cast<void>(p), static_cast<void>(align), static_cast<void>(who);
#  endif
}

/// No second array beside a traversal's input (for_each_vectors).
struct no_companion {};

// The traversal shared by grid_for_each(_vec) and block_for_each(_vec): this thread is `rank` of `count`. With a
// companion `w` (elements of T's size at `in`'s alignment modulo 16, e.g. a histogram's weights), each round also
// loads w's vectors at the same indices, beside in's and before either is used, and the callables get them after
// in's: on_vector(v, w_vector, index), on_item(value, w_value, index).
template <int ItemsPerThread, class Policy, class T, class FV, class FI, class W = no_companion>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void for_each_vectors(const T* __restrict__ in, cuda::std::size_t n,
                                                       cuda::std::size_t rank, cuda::std::size_t count,
                                                       FV&& on_vector, FI&& on_item,
                                                       [[maybe_unused]] const W* __restrict__ w = nullptr) {
  static_assert(ItemsPerThread >= 1, "onchip traversals: ItemsPerThread must be at least 1");
  constexpr bool paired = !cuda::std::is_same_v<W, no_companion>;
  constexpr int per_vector = items_per_16b<T>;
  const vector_split split = per_vector == 0
                                 ? vector_split{n, 0, 0}
                                 : split_for_vectors(reinterpret_cast<cuda::std::uintptr_t>(in), n, sizeof(T));
  // Head (also everything, for types that do not pack into vectors), guarded.
  for (cuda::std::size_t i = rank; i < split.head; i += count) {
    if constexpr (paired) {
      on_item(onchip::load<Policy>(in + i), onchip::load<Policy>(w + i), i);
    } else {
      on_item(onchip::load<Policy>(in + i), i);
    }
  }
  if constexpr (per_vector > 0) {
    using vector = vec<T, per_vector>;
    using companion = cuda::std::conditional_t<paired, vec<W, per_vector>, no_companion>;
    const T* body = in + split.head;
    [[maybe_unused]] const W* beside = w + (paired ? split.head : 0);
    const cuda::std::size_t nv = split.vectors;
    cuda::std::size_t v = rank;
    // Whole rounds: ItemsPerThread vectors in flight, each load coalesced across the threads.
    for (; v + (ItemsPerThread - 1) * count < nv; v += ItemsPerThread * count) {
      vector items[ItemsPerThread];
      [[maybe_unused]] companion others[paired ? ItemsPerThread : 1];
#  pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k) {
        load_bytes<Policy, 16, 16>(body + (v + k * count) * per_vector, &items[k]);
        if constexpr (paired) { load_bytes<Policy, 16, 16>(beside + (v + k * count) * per_vector, &others[k]); }
      }
#  pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k) {
        if constexpr (paired) {
          on_vector(static_cast<const vector&>(items[k]), static_cast<const companion&>(others[k]),
                    split.head + (v + k * count) * per_vector);
        } else {
          on_vector(static_cast<const vector&>(items[k]), split.head + (v + k * count) * per_vector);
        }
      }
    }
    // The last, partial round.
#  pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) {
      const cuda::std::size_t at = v + k * count;
      if (at < nv) {
        vector item;
        load_bytes<Policy, 16, 16>(body + at * per_vector, &item);
        if constexpr (paired) {
          companion other;
          load_bytes<Policy, 16, 16>(beside + at * per_vector, &other);
          on_vector(static_cast<const vector&>(item), static_cast<const companion&>(other),
                    split.head + at * per_vector);
        } else {
          on_vector(static_cast<const vector&>(item), split.head + at * per_vector);
        }
      }
    }
    const cuda::std::size_t tail_start = split.head + nv * per_vector;
    for (cuda::std::size_t i = tail_start + rank; i < n; i += count) {
      if constexpr (paired) {
        on_item(onchip::load<Policy>(in + i), onchip::load<Policy>(w + i), i);
      } else {
        on_item(onchip::load<Policy>(in + i), i);
      }
    }
  }
}

template <class F>
struct unpack_vector {
  F& f;
  template <class V>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void operator()(const V& v, cuda::std::size_t first) const {
#  pragma unroll
    for (int j = 0; j < V::size; ++j) { f(v[j], first + j); }
  }
};

ONCHIP_DEVICE ONCHIP_FORCEINLINE cuda::std::size_t grid_rank() {
  return static_cast<cuda::std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
ONCHIP_DEVICE ONCHIP_FORCEINLINE cuda::std::size_t grid_threads() {
  return static_cast<cuda::std::size_t>(gridDim.x) * blockDim.x;
}

// blocked tile: thread segment at `segment` with `count` valid items (0..ItemsPerThread), vectors of Width bytes.
template <int Width, int ItemsPerThread, class Policy, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_blocked_segment(const T* __restrict__ segment, cuda::std::size_t count,
                                                           T (&items)[ItemsPerThread], T oob_default) {
  constexpr bool vectors = blocked_vectors_fit(Width, sizeof(T), ItemsPerThread);
  if constexpr (!vectors) {
#  pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) {
      items[i] = static_cast<cuda::std::size_t>(i) < count ? onchip::load<Policy>(segment + i) : oob_default;
    }
  } else {
    constexpr int per = Width / static_cast<int>(sizeof(T));
    using vector = vec<T, per>;
#  pragma unroll
    for (int c = 0; c < ItemsPerThread / per; ++c) {
      if (static_cast<cuda::std::size_t>((c + 1) * per) <= count) {
        vector v;
        load_bytes<Policy, Width, Width>(segment + c * per, &v);
#  pragma unroll
        for (int j = 0; j < per; ++j) { items[c * per + j] = v[j]; }
      } else {
#  pragma unroll
        for (int j = 0; j < per; ++j) {
          const int i = c * per + j;
          items[i] = static_cast<cuda::std::size_t>(i) < count ? onchip::load<Policy>(segment + i) : oob_default;
        }
      }
    }
  }
}
#endif  // __CUDACC__

}  // namespace onchip::detail

#if defined(__CUDACC__)
namespace onchip {

namespace detail {
ONCHIP_DETAIL_PTX_LOAD(cache::normal, "", : "memory")
ONCHIP_DETAIL_PTX_LOAD(cache::readonly, ".nc", :)  // no clobbers
ONCHIP_DETAIL_PTX_LOAD(cache::stream, ".cs.nc", :)
ONCHIP_DETAIL_PTX_LOAD(cache::last_use, ".lu", : "memory")
ONCHIP_DETAIL_PTX_LOAD(cache::no_allocate, ".L1::no_allocate", : "memory")
ONCHIP_DETAIL_PTX_LOAD(cache::evict_last, ".L1::evict_last", : "memory")
}  // namespace detail

template <class Policy, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE T load(const T* __restrict__ p) {
  static_assert(cuda::std::is_trivially_copyable_v<T>,
                "onchip::load<Policy>(const T*): T must be trivially copyable (the load copies its bytes)");
  static_assert(!cuda::std::is_volatile_v<T>, "onchip::load: T must not be volatile");
  using U = cuda::std::remove_cv_t<T>;
  union storage {
    U value;
    unsigned char bytes[sizeof(U)];
    ONCHIP_DEVICE storage() {}
  } out;
  detail::load_bytes<Policy, sizeof(U), detail::load_piece_bytes<U>()>(p, &out);
  return out.value;
}

template <int N, class Policy, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE vec<T, N> load_vec(const T* __restrict__ p) {
  constexpr cuda::std::size_t bytes = N * sizeof(T);
  static_assert(bytes == 4 || bytes == 8 || bytes == 16,
                "onchip::load_vec<N>(const T*): N * sizeof(T) must be 4, 8 or 16 bytes (one vector load)");
  static_assert(cuda::std::is_trivially_copyable_v<T>, "onchip::load_vec: T must be trivially copyable");
  detail::check_alignment(p, bytes, "onchip::load_vec");
  vec<T, N> out;
  detail::load_bytes<Policy, bytes, bytes>(p, &out);
  return out;
}

template <int ItemsPerThread, class Arrangement, class Policy, class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_tile(const T* __restrict__ in, cuda::std::size_t valid,
                                                T (&items)[ItemsPerThread], T oob_default) {
  static_assert(ItemsPerThread >= 1, "onchip::load_tile: ItemsPerThread must be at least 1");
  const cuda::std::size_t t = threadIdx.x;
  if constexpr (cuda::std::is_same_v<Arrangement, arrangement::blocked>) {
    const cuda::std::size_t first = t * ItemsPerThread;
    const cuda::std::size_t count =
        valid > first ? (valid - first < ItemsPerThread ? valid - first : ItemsPerThread) : 0;
    const T* segment = in + first;
    constexpr cuda::std::size_t segment_bytes = sizeof(T) * ItemsPerThread;
    // Every thread's segment has the alignment of `in` modulo the segment size, so one width serves the block.
    switch (detail::blocked_vector_bytes(reinterpret_cast<cuda::std::uintptr_t>(in), segment_bytes, sizeof(T))) {
      case 16: detail::load_blocked_segment<16, ItemsPerThread, Policy>(segment, count, items, oob_default); break;
      case 8: detail::load_blocked_segment<8, ItemsPerThread, Policy>(segment, count, items, oob_default); break;
      case 4: detail::load_blocked_segment<4, ItemsPerThread, Policy>(segment, count, items, oob_default); break;
      default: detail::load_blocked_segment<0, ItemsPerThread, Policy>(segment, count, items, oob_default); break;
    }
  } else {
    static_assert(cuda::std::is_same_v<Arrangement, arrangement::striped> ||
                      cuda::std::is_same_v<Arrangement, arrangement::warp_striped>,
                  "onchip::load_tile: Arrangement must be arrangement::blocked, striped or warp_striped");
    cuda::std::size_t first, step;
    if constexpr (cuda::std::is_same_v<Arrangement, arrangement::striped>) {
      first = t, step = blockDim.x;
    } else {
      first = (t / 32) * 32 * ItemsPerThread + t % 32, step = 32;
    }
#  pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i) {
      const cuda::std::size_t at = first + i * step;
      items[i] = at < valid ? load<Policy>(in + at) : oob_default;
    }
  }
}

template <int ItemsPerThread, class Policy, class T, class FV, class FI>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void grid_for_each_vec(const T* __restrict__ in, cuda::std::size_t n,
                                                        FV&& on_vector, FI&& on_item) {
  detail::for_each_vectors<ItemsPerThread, Policy>(in, n, detail::grid_rank(), detail::grid_threads(), on_vector,
                                                   on_item);
}

template <int ItemsPerThread, class Policy, class T, class FV, class FI>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_for_each_vec(const T* __restrict__ in, cuda::std::size_t n,
                                                         FV&& on_vector, FI&& on_item) {
  detail::for_each_vectors<ItemsPerThread, Policy>(in, n, threadIdx.x, blockDim.x, on_vector, on_item);
}

template <int ItemsPerThread, class Policy, class T, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void grid_for_each(const T* __restrict__ in, cuda::std::size_t n, F&& f) {
  grid_for_each_vec<ItemsPerThread, Policy>(in, n, detail::unpack_vector<F>{f}, f);
}

template <int ItemsPerThread, class Policy, class T, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void block_for_each(const T* __restrict__ in, cuda::std::size_t n, F&& f) {
  block_for_each_vec<ItemsPerThread, Policy>(in, n, detail::unpack_vector<F>{f}, f);
}

template <class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE T readonly_view<T>::operator[](cuda::std::size_t i) const {
  const T* __restrict__ p = data_;
  return load<cache::readonly>(p + i);
}

template <class T>
template <int N>
ONCHIP_DEVICE ONCHIP_FORCEINLINE vec<T, N> readonly_view<T>::load_vec(cuda::std::size_t i) const {
  const T* __restrict__ p = data_;
  return onchip::load_vec<N, cache::readonly>(p + i);
}

}  // namespace onchip
#endif  // __CUDACC__
