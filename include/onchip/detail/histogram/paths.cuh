// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which kernel path may serve which kind of call, stated once. A call's kind is what its types fix (sample and
// counter types, channels, binner, weights, segments); admits() is the rule over it, used both by the host's plan
// (plan.cuh's serves() adds the rules on sizes) and by the launch code, which compiles a path's kernels only for
// the kinds it admits (kind_of<Job>(), job.cuh).
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/tuning.cuh>

namespace onchip::detail {

/// What a call's types fix, as far as the choice of kernel cares.
struct call_kind {
  int sample_bytes = 4;
  bool byte_samples = false;  // 1-byte integers, unweighted: the byte kernel counts values and bins each once
  bool integer_samples = false;
  bool wide_integer_binning = false;  // integers binned evenly over a range past 32-bit products
  int channels = 1;
  int active = 1;
  int level_bytes = 0;  // range binners: bytes of one level (else 0)
  int table_bytes = 0;  // 16-bit range binning: a table from every sample value to its bin
  bool weighted = false;
  int counter_bytes = 4;
  bool counter_takes_packed16 = false;  // 32-bit integer counters (packed 16-bit shared counters carry into them)
  bool segmented = false;
};

/// The kind of a call described at run time.
ONCHIP_HOST_DEVICE constexpr call_kind kind_of(const histogram_call& c) {
  return {c.sample_bytes,
          c.byte_samples,
          c.integer_samples,
          c.wide_integer_binning,
          c.channels,
          c.active,
          c.level_bytes,
          c.table_bytes,
          c.weighted,
          c.counter_bytes,
          c.counter_takes_packed16,
          c.segments > 0};
}

/// Bytes that only the byte kernel counts: one plane of counters (one or two active channels), which every GPU
/// can give a block, so no other kernel is compiled for them.
ONCHIP_HOST_DEVICE constexpr bool byte_lanes_only(const call_kind& k) {
  return k.byte_samples && !k.segmented && tuning::byte_lane_planes(k.active) == 1;
}

/// Whether `path`'s kernels can count calls of kind `k` (whatever their sizes: plan.cuh's serves() adds those).
ONCHIP_HOST_DEVICE constexpr bool admits(histogram_path path, const call_kind& k) {
  const bool one_stream = k.active == 1 && !k.weighted && !k.segmented;
  switch (path) {
    case histogram_path::byte_lanes: return k.byte_samples && !k.weighted && !k.segmented;
    case histogram_path::shared_packed16: return !byte_lanes_only(k) && one_stream && k.counter_takes_packed16;
    case histogram_path::carry_grid: return k.table_bytes > 0 && one_stream;
    case histogram_path::partition:
      return !k.byte_samples && k.channels == 1 && one_stream && k.level_bytes == 0 && k.table_bytes == 0;
    case histogram_path::shared_replicas:
    case histogram_path::global_atomics: return !byte_lanes_only(k);
    default: return false;
  }
}

/// Calls whose shared replicas may run as one wide block (tuning::wide_min_copies): one channel of 2-byte samples,
/// unweighted, even or custom binning, not segmented.
ONCHIP_HOST_DEVICE constexpr bool wide_candidate(const call_kind& k) {
  return k.sample_bytes == 2 && k.active == 1 && !k.weighted && k.level_bytes == 0 && !k.segmented;
}

/// Range binning of one channel of 4-byte samples between 4-byte levels, unweighted, not segmented: its loop over
/// the level grid is bound by shared-memory bank traffic (the cells' loads and the atomics), so it runs as one
/// wide block wherever that holds more copies.
ONCHIP_HOST_DEVICE constexpr bool wide_range_candidate(const call_kind& k) {
  return k.sample_bytes == 4 && k.level_bytes == 4 && k.channels == 1 && k.active == 1 && !k.weighted &&
         !k.segmented;
}

/// Whether `variant` of `path`'s kernel exists for calls of kind `k`.
ONCHIP_HOST_DEVICE constexpr bool admits(histogram_path path, kernel_variant variant, const call_kind& k) {
  if (!admits(path, k)) { return false; }
  switch (variant) {
    case kernel_variant::standard: return true;
    case kernel_variant::wide:
      return path == histogram_path::shared_replicas && (wide_candidate(k) || wide_range_candidate(k));
    case kernel_variant::small_slices: return path == histogram_path::shared_replicas && k.segmented;
    default: return false;
  }
}

/// Whether calls of kind `k` may count through level bitmaps (range binners: each kernel then has an instance
/// reading the levels' bitmap beside the one reading their grid).
ONCHIP_HOST_DEVICE constexpr bool admits_bitmaps(const call_kind& k) { return k.level_bytes > 0; }

}  // namespace onchip::detail
