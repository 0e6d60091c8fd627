// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The load instructions behind onchip's cache policies: always `ld.global` (never generic), one asm per policy
// and width. Policies whose data may change during the kernel carry a "memory" clobber so the compiler keeps
// them ordered with the thread's own stores; the non-coherent ones (data read-only for the kernel) do not, which
// leaves the compiler free to schedule them.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstdint>

namespace onchip::detail {

/// Raw bits of one 16-byte load.
struct words4 {
  unsigned x, y, z, w;
};

template <class Policy>
struct ptx_load;

#define ONCHIP_DETAIL_PTX_LOAD(POLICY, QUAL, ...)                                  \
  template <>                                                                      \
  struct ptx_load<POLICY> {                                                        \
    static ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned b1(const void* p) {           \
      unsigned r;                                                                  \
      asm("ld.global" QUAL ".u8 %0, [%1];" : "=r"(r) : "l"(p)__VA_ARGS__);         \
      return r;                                                                    \
    }                                                                              \
    static ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned b2(const void* p) {           \
      unsigned r;                                                                  \
      asm("ld.global" QUAL ".u16 %0, [%1];" : "=r"(r) : "l"(p)__VA_ARGS__);        \
      return r;                                                                    \
    }                                                                              \
    static ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned b4(const void* p) {           \
      unsigned r;                                                                  \
      asm("ld.global" QUAL ".b32 %0, [%1];" : "=r"(r) : "l"(p)__VA_ARGS__);        \
      return r;                                                                    \
    }                                                                              \
    static ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long b8(const void* p) { \
      unsigned long long r;                                                        \
      asm("ld.global" QUAL ".b64 %0, [%1];" : "=l"(r) : "l"(p)__VA_ARGS__);        \
      return r;                                                                    \
    }                                                                              \
    static ONCHIP_DEVICE ONCHIP_FORCEINLINE words4 b16(const void* p) {            \
      words4 r;                                                                    \
      asm("ld.global" QUAL ".v4.b32 {%0, %1, %2, %3}, [%4];"                       \
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)                             \
          : "l"(p)__VA_ARGS__);                                                    \
      return r;                                                                    \
    }                                                                              \
  };

}  // namespace onchip::detail
