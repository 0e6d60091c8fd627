// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of the partition path's kernels (release build, ONCHIP_CHECKS=0), f32 samples in even
// bins: nothing in local memory; the scatter ranks each sample with one returning shared atomic (or counts a
// sample of its direct bucket with one shared atomic without return), writes a tile's keys as 16-byte vectors and
// the table's 16-bit offsets, and takes no returning global atomic but one compare-and-swap at the block's end (no
// room reserved: each tile's keys have their own place; its global reductions are the per-bucket sizes and the
// direct bucket's counters, at the block's end; the swap claims a bucket whose bins the block stores); the bucket
// pass gathers the keys as 16-byte vectors and counts each with one shared atomic without return, then adds its
// counters into the output with plain stores or global reductions; where runs are short it asks the L2 for the
// next round's runs (a prefetch to L2, CCTL.E.PF2 in the SASS). Neither kernel has a full fence (MEMBAR.SC): a
// __threadfence() in the kernel made ptxas turn every global reduction into a returning atomic.
//
// contract sass * lacks LDL|STL
// contract sass k_scatter has ATOMS\.(ADD|POPC\.INC\.32) R[0-9]+,
// contract sass k_scatter has ATOMS\.POPC\.INC\.32 RZ,
// contract sass k_scatter has REDG?\.E\.ADD
// contract sass k_scatter has STG\.E\.128
// contract sass k_scatter has STG\.E\.U16
// contract sass k_scatter has LDG\.E\.EF\.CONSTANT
// contract sass k_scatter lacks ATOMG\.E\.(ADD|OR|INC)
// contract sass k_scatter has ATOMG\.E\.CAS
// contract sass * lacks MEMBAR\.SC
// contract sass k_bins has ATOMS\.POPC\.INC\.32 RZ,
// contract sass k_bins has LDG\.E\.128\.CONSTANT
// contract sass k_bins has REDG?\.E\.ADD
// contract sass k_bins lacks ATOMG\.E\.(ADD|OR|INC)|LDS\.U16
// contract sass k_bins has CCTL\.E\.PF2
#include <onchip/histogram.cuh>

namespace {
using f32_job = onchip::detail::histogram_job<1, 1, float, onchip::detail::no_weights,
                                              onchip::detail::plain_binners<1, onchip::bin_even<float>>, unsigned>;
namespace tuning = onchip::detail::tuning;
// The scatter's shape for the architecture compiled for (a probe is compiled for the device only).
constexpr tuning::partition_shape shape = tuning::partition_scatter_shape(sizeof(float), __CUDA_ARCH__ / 10);
}  // namespace

extern "C" __global__ void __launch_bounds__(shape.threads, tuning::partition_scatter_blocks)
    k_scatter(f32_job job, onchip::detail::partition_args p) {
  onchip::detail::partition_scatter<shape.threads, shape.items>(job, p);
}

extern "C" __global__ void __launch_bounds__(tuning::partition_bins_threads, 1)
    k_bins(f32_job job, onchip::detail::partition_args p) {
  onchip::detail::partition_bins<tuning::partition_bins_threads, tuning::partition_bins_gather>(job, p);
}
