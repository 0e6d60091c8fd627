// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The shape of each path's kernel (threads, intended blocks per SM, vectors in flight) from tuning.cuh's values
// and the call's compile-time facts, so the host's plan and the kernels' template arguments agree.
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/tuning.cuh>

namespace onchip::detail {

/// One stream of integer samples binned with 32-bit products: one active channel, unweighted, not segmented (the
/// shared kernel keeps more of them in flight; the wide binning's 128-bit products leave no registers for it).
ONCHIP_HOST_DEVICE constexpr bool integer_stream(bool integer_samples, bool wide_binning, bool weighted,
                                                 bool segmented, int active) {
  return integer_samples && !wide_binning && !weighted && !segmented && active == 1;
}

/// The kernel shape of `path` for a call of `channels` interleaved channels, `active` of them counted, on a device
/// of compute capability `arch` (x 10: only the partition's scatter depends on it). The byte kernel runs every
/// interleaved layout (one active channel too) in its several-channel shape: in the one-channel shape the merge of
/// 2/1, 3/1 and 4/1 layouts spilled registers.
ONCHIP_HOST_DEVICE constexpr kernel_shape shape_of(histogram_path path, int sample_bytes, bool range_binner,
                                                   bool integer_stream, bool small_slices = false,
                                                   int channels = 1, int active = 1, bool wide = false,
                                                   bool bitmap = false, int arch = 0) {
  if (wide) {
    return {tuning::wide.threads, tuning::wide.blocks,
            range_binner ? tuning::sample_vectors(sample_bytes) : tuning::wide.vectors};
  }
  switch (path) {
    case histogram_path::byte_lanes:
      if (channels > 1) {  // members, not the objects (device code cannot refer to host-side constants)
        return {tuning::byte_lane_channels.threads, tuning::byte_lane_channels.blocks,
                tuning::byte_lane_channels.vectors};
      }
      return {tuning::byte_lanes.threads, tuning::byte_lanes.blocks, tuning::byte_lanes.vectors};
    case histogram_path::shared_replicas:
      return {small_slices ? tuning::segment_threads : tuning::shared_threads,
              small_slices ? tuning::segment_blocks
              : active > 1 ? tuning::channel_blocks
                           : tuning::shared_blocks,
              tuning::shared_vectors(sample_bytes, range_binner, integer_stream)};
    case histogram_path::shared_packed16:
      return {tuning::packed16_threads(range_binner, sample_bytes, bitmap), tuning::packed16_blocks,
              tuning::packed16_vectors};
    case histogram_path::carry_grid: return {tuning::carry.threads, tuning::carry.blocks, tuning::carry.vectors};
    case histogram_path::partition:  // the scatter's shape (the bucket pass: tuning::partition_bins_threads)
      return {tuning::partition_scatter_shape(sample_bytes, arch).threads, tuning::partition_scatter_blocks,
              tuning::partition_bins_gather};
    default: return {tuning::global_threads, tuning::global_blocks, tuning::sample_vectors(sample_bytes)};
  }
}

}  // namespace onchip::detail
