// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// This thread's place in its block, for loops shared out over the whole block whatever its shape, and reductions
// over a warp.
#pragma once

#include <onchip/detail/config.cuh>

#if defined(__CUDACC__)
namespace onchip::detail {

ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_size() {
  return static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}

/// The least of the warp's 32 values (every lane of the warp calls it and gets it).
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned warp_min(unsigned v) {
#  pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    const unsigned other = __shfl_xor_sync(0xffffffffu, v, d);
    v = other < v ? other : v;
  }
  return v;
}

/// The inclusive prefix sum of `v` over the lanes of a (whole) warp; `lane`: this thread's.
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned warp_inclusive_sum(unsigned v, int lane) {
#  pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const unsigned below = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) { v += below; }
  }
  return v;
}

/// The sum of the warp's 32 values, modulo 2^32 (every lane of the warp calls it and gets it).
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned warp_sum(unsigned v) {
#  pragma unroll
  for (int d = 16; d > 0; d /= 2) { v += __shfl_xor_sync(0xffffffffu, v, d); }
  return v;
}

}  // namespace onchip::detail
#endif
