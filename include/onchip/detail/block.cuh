// This thread's place in its block, for loops shared out over the whole block whatever its shape.
#pragma once

#include <onchip/detail/config.cuh>

#if defined(__CUDACC__)
namespace onchip::detail {

ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_rank() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
ONCHIP_DEVICE ONCHIP_FORCEINLINE int block_size() { return static_cast<int>(blockDim.x * blockDim.y * blockDim.z); }

}  // namespace onchip::detail
#endif
