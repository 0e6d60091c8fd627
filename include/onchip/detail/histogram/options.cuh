// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// onchip::histogram_options, the options every device-wide histogram function takes (declared in a leaf of its
// own, so the launch code needs nothing else of the public header).
#pragma once

#include <cuda/std/cstddef>

namespace onchip {

namespace detail {
struct histogram_request;
}  // namespace detail

/// Options shared by the device-wide functions.
struct histogram_options {
  /// Add into the histogram instead of overwriting it.
  bool accumulate = false;
  /// Even binning over `[lower, upper]` instead of `[lower, upper)`: the last bin also counts samples equal to
  /// `upper` (NumPy's and torch.histc's rule). Needs floating-point bounds (Level float or double; the bins are
  /// then computed in floating point as the bin_even documentation says). Range binning has no such option:
  /// give the last level as the next value above the top one (std::nextafter) for the same effect.
  bool include_upper = false;
  /// If not null, receives (added atomically) the number of samples that fell in no bin (out of range, NaN).
  unsigned long long* ignored = nullptr;
  /// Device memory of at least histogram_workspace_bytes() bytes (any 2-byte alignment) for calls that need a
  /// workspace, used stream-ordered; null: such calls allocate their own from the library's memory pool.
  void* workspace = nullptr;
  /// Bytes at `workspace`.
  cuda::std::size_t workspace_bytes = 0;
  /// If not null, receives (on the host, when the call returns) the name of the kernel path that ran:
  /// "byte_lanes", "carry_grid", "shared_replicas", "shared_packed16", "partition" or "global_atomics" (a static
  /// string). "carry_grid" counts with another path after it where the levels crowd its cells.
  const char** path = nullptr;
  /// For onchip's own tests and benchmarks, not a supported interface: how to plan and run the call beyond its
  /// arguments (null: the library's defaults).
  const detail::histogram_request* request = nullptr;
};

}  // namespace onchip
