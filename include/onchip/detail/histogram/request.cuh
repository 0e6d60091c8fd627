// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a device-wide histogram call is planned and run beyond its arguments: the library's defaults, or what
// onchip's own tests and benchmarks ask for (a forced kernel path, smaller limits, a failing workspace). It is a
// value passed down from the entry point with the call's options (histogram_options::request), never global state,
// and never a macro (two translation units built with different values would break the one-definition rule).
#pragma once

#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/tuning.cuh>

#include <cuda/std/cstddef>

namespace onchip::detail {

struct histogram_request {
  /// The kernel path to use (automatic: the plan chooses); a call that path cannot serve fails with
  /// cudaErrorInvalidValue and a message.
  histogram_path path = histogram_path::automatic;
  /// Byte inputs of this many bytes or more run as several launches below it (byte_pieces).
  cuda::std::size_t byte_piece_bytes = tuning::byte_lane_max_bytes;
  /// The partition path's workspace is capped at this many bytes (more, smaller chunks below the default).
  cuda::std::size_t workspace_cap = tuning::partition_workspace_cap;
  /// The partition path's own workspace allocation fails (the call falls back to global atomics, as it does when
  /// the device's memory pool cannot give the workspace).
  bool workspace_fails = false;
  /// The partition path's first chunk overwrites the output without its memset wherever the call does not
  /// accumulate, whatever the plan says.
  bool partition_overwrite = false;
  /// Above 0: the partition path's scatter runs at most this many blocks (each then takes many tiles).
  int partition_scatter_grid = 0;
  /// False: range binning of levels kept in device memory uses the grid instead of a bitmap of sub-cells
  /// (plan_histogram's `bitmaps`).
  bool level_bitmaps = true;
};

/// Whether two requests plan alike (the plan depends on these fields only).
ONCHIP_HOST_DEVICE constexpr bool same_plan_request(const histogram_request& a, const histogram_request& b) {
  return a.path == b.path && a.workspace_cap == b.workspace_cap && a.level_bitmaps == b.level_bitmaps;
}

}  // namespace onchip::detail
