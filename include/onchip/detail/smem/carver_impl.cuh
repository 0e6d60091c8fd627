// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Definitions of the carver's checks, overlay bookkeeping, onchip::dynamic_smem and onchip::describe.
#pragma once

#include <onchip/detail/check.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstdint>
#include <nv/target>

#include <sstream>


namespace onchip {

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::check_base() const {
#if ONCHIP_CHECKS
  const auto address = reinterpret_cast<cuda::std::uintptr_t>(base_);
  if (address % dynamic_smem_base_alignment != 0) {
    const bool leader = detail::report_leader();
    if (leader) {
      printf("onchip::carver: the window starts at %p, which is not %llu-byte aligned; carvers need a base aligned "
             "to at least %llu bytes\n",
             static_cast<void*>(base_), static_cast<unsigned long long>(dynamic_smem_base_alignment),
             static_cast<unsigned long long>(dynamic_smem_base_alignment));
    }
    detail::fail_check(leader);
  }
#endif
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::check_capacity(const char* what, cuda::std::size_t n,
                                                                  cuda::std::size_t size,
                                                                  cuda::std::size_t align) const {
#if ONCHIP_CHECKS
  if (!measuring_ && state_.used > capacity_) {
    const bool leader = detail::report_leader();
    if (leader) {
      printf("onchip::carver: %s of %llu objects of %llu bytes (alignment %llu) needs %llu bytes of shared memory, "
             "but the launch provided only %llu; launch with onchip::smem_bytes(plan) bytes\n",
             what, static_cast<unsigned long long>(n), static_cast<unsigned long long>(size),
             static_cast<unsigned long long>(align), static_cast<unsigned long long>(state_.used),
             static_cast<unsigned long long>(capacity_));
    }
    detail::fail_check(leader);
  }
#else
  static_cast<void>(what), static_cast<void>(n), static_cast<void>(size), static_cast<void>(align);
#endif
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::open_overlay() {
  NV_IF_TARGET(NV_IS_HOST, (if (recorder_ != nullptr) {
    detail::record_marker(*recorder_, "overlay {", state_.used);
    ++recorder_->depth;
  }))
}

ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void carver::close_overlay() {
  NV_IF_TARGET(NV_IS_HOST, (if (recorder_ != nullptr) {
    --recorder_->depth;
    detail::record_marker(*recorder_, "} overlay ends", state_.used);
  }))
}

#if defined(__CUDACC__)
ONCHIP_DEVICE ONCHIP_FORCEINLINE carver dynamic_smem() noexcept {
  // The one dynamic shared-memory declaration: a byte array with no alignment attribute (such attributes are
  // not reliably honoured and would raise the static alignment of every kernel in the translation unit).
  extern __shared__ unsigned char onchip_dynamic_smem_window[];
  unsigned size;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));  // not volatile: unused when checks are off
  return carver(onchip_dynamic_smem_window, size);
}
#endif

template <class Plan>
std::string describe(Plan&& plan) {
  detail::layout_recorder recorder;
  carver measure;
  measure.record_into(&recorder);
  static_cast<void>(plan(measure));
  std::ostringstream out;
  out << "offset    bytes     align  padding  array\n";
  char line[64];
  for (const auto& e : recorder.entries) {
    if (e.alignment == 0) {
      std::snprintf(line, sizeof line, "%-8llu  %-8s  %-5s  %-7s  ", static_cast<unsigned long long>(e.offset), "",
                    "", "");
    } else {
      std::snprintf(line, sizeof line, "%-8llu  %-8llu  %-5llu  %-7llu  ", static_cast<unsigned long long>(e.offset),
                    static_cast<unsigned long long>(e.bytes), static_cast<unsigned long long>(e.alignment),
                    static_cast<unsigned long long>(e.padding));
    }
    out << line << std::string(2 * static_cast<std::size_t>(e.depth), ' ') << e.what << '\n';
  }
  out << "total: " << measure.used() << " bytes of dynamic shared memory (launch with this; it covers any window "
      << "aligned to " << dynamic_smem_base_alignment << " bytes)\n";
  return out.str();
}

}  // namespace onchip
