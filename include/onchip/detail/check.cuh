// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-side check failures shared by every onchip component (ONCHIP_CHECKS).
#pragma once

#include <onchip/detail/config.cuh>

#include <nv/target>

#include <cstdio>
#include <cstdlib>

namespace onchip::detail {

// A failed check: print on the host and abort; on the device, print from the block's first thread, then trap.
ONCHIP_HOST_DEVICE inline bool report_leader() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;),
                    (return true;))
}

// Ends the program after a failed check. On the device the block's first thread raises a device-side assertion,
// which makes the runtime flush the message printed before it (a plain trap can lose it) and report
// cudaErrorAssert; the other threads give it a head start, then trap in case that thread never gets here.
[[noreturn]] ONCHIP_HOST_DEVICE inline void fail_check([[maybe_unused]] bool leader) {
#if defined(__CUDA_ARCH__)
  if (leader) {
#  if defined(__GNUC__) && !defined(__clang__)
    __assert_fail("onchip check failed (see the message above)", __FILE__, __LINE__, "onchip");
#  endif
  } else {
#  if __CUDA_ARCH__ >= 700
    for (int i = 0; i < 50; ++i) { __nanosleep(1000000); }
#  endif
  }
  __trap();
  __builtin_unreachable();
#else
  std::fflush(nullptr);
  std::abort();
#endif
}

// Checked mode: an address promised to be aligned to `align` bytes is (null, a measuring carver's, passes).
ONCHIP_HOST_DEVICE inline void check_span_alignment([[maybe_unused]] const void* p,
                                                    [[maybe_unused]] unsigned long long align) {
#if ONCHIP_CHECKS
  const auto address = reinterpret_cast<unsigned long long>(p);
  if (address % align != 0) {
    const bool leader = report_leader();
    if (leader) {
      printf("onchip::aligned_span: address %p is not aligned to the %llu bytes its type promises\n", p, align);
    }
    fail_check(leader);
  }
#endif
}

}  // namespace onchip::detail
