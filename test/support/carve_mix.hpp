// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Plans built at run time from a list of (element type, alignment, count) requests, for host and GPU tests that
// try many layouts. Element types of 1, 2, 4, 8 and 16 bytes; alignments 1 to 1024.
#pragma once

#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace carve_mix {

inline constexpr int type_count = 5;   // sizes 1, 2, 4, 8, 16
inline constexpr int align_count = 11; // 1 << 0 .. 1 << 10
inline constexpr int max_requests = 12;

struct request {
  int type;        // index: element of 1 << type bytes
  int align_log2;  // take_aligned<1 << align_log2>
  unsigned count;
};

/// One carved array, as offsets from the window start.
struct carved {
  cuda::std::uintptr_t address;
  cuda::std::size_t bytes;
  cuda::std::size_t alignment;  // what the array must be aligned to
};

template <int Type>
struct element_of;
template <> struct element_of<0> { using type = unsigned char; };
template <> struct element_of<1> { using type = short; };
template <> struct element_of<2> { using type = float; };
template <> struct element_of<3> { using type = double; };
template <> struct element_of<4> { using type = float4; };

template <int Type, int AlignLog2>
ONCHIP_HOST_DEVICE carved take_one(onchip::carver& c, unsigned count) {
  using T = typename element_of<Type>::type;
  constexpr cuda::std::size_t align = cuda::std::size_t{1} << AlignLog2;
  auto s = c.take_aligned<align, T>(count);
  return carved{reinterpret_cast<cuda::std::uintptr_t>(s.data()), s.size_bytes(),
                align > alignof(T) ? align : alignof(T)};
}

template <int Type, int AlignLog2 = 0>
ONCHIP_HOST_DEVICE carved take_dispatch_align(onchip::carver& c, int align_log2, unsigned count) {
  if constexpr (AlignLog2 + 1 < align_count) {
    if (align_log2 != AlignLog2) { return take_dispatch_align<Type, AlignLog2 + 1>(c, align_log2, count); }
  }
  return take_one<Type, AlignLog2>(c, count);
}

template <int Type = 0>
ONCHIP_HOST_DEVICE carved take_dispatch(onchip::carver& c, const request& r) {
  if constexpr (Type + 1 < type_count) {
    if (r.type != Type) { return take_dispatch<Type + 1>(c, r); }
  }
  return take_dispatch_align<Type>(c, r.align_log2, r.count);
}

/// A plan taking `requests` in order, reporting each array into `out` (may be null).
struct plan {
  const request* requests;
  int n;
  carved* out;
  ONCHIP_HOST_DEVICE int operator()(onchip::carver& c) const {
    for (int i = 0; i < n; ++i) {
      const carved a = take_dispatch(c, requests[i]);
      if (out != nullptr) { out[i] = a; }
    }
    return n;
  }
};

/// Reference: the natural layout from a window aligned to `base_align`, each array at the next multiple of its
/// alignment. Returns the end offset; fills offsets.
inline cuda::std::size_t natural_layout(const request* r, int n, cuda::std::size_t* offsets) {
  cuda::std::size_t at = 0;
  for (int i = 0; i < n; ++i) {
    const cuda::std::size_t size = cuda::std::size_t{1} << r[i].type;
    cuda::std::size_t align = cuda::std::size_t{1} << r[i].align_log2;
    if (align < size) { align = size; }
    at = (at + align - 1) / align * align;
    offsets[i] = at;
    at += size * r[i].count;
  }
  return at;
}

}  // namespace carve_mix
