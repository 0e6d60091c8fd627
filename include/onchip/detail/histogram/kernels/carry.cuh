// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// 16-bit range binning through a carry grid (the carry_grid path). The 16-bit values are cut into cells of
// 2^cell_bits values (256 or 512 cells); each cell has one 32-bit word built from the levels so that a sample's
// counter index is its cell's word plus its bits shifted left by 8, shifted right by 8 + cell_bits: the addition
// carries into the index exactly at the one level inside the cell (value_table_binners::carry_word). Every lane
// has its own column of the table and its own 32-bit counter of each index (index 0: below the first level,
// bins + 1: at or past the last), so a warp's loads and atomics touch 32 banks whatever the data. A sample is a
// byte permute, a shift and a multiply-add for the cell's address, one conflict-free shared load, the add, a
// shift and a multiply-add for the counter's address, and one shared atomic without return: 8 instructions in
// the SASS for sm_90 (an instruction contract checks the permute, the load and the atomic, and that the loop has
// no 16- or 64-bit shared loads, no returning shared adds and no high multiplies).
//
// Levels that crowd a cell (two boundaries inside it, or a repeated one) cannot be counted so: every block of this
// kernel then returns at once, and the next path of the plan, launched after it with
// kernel_args::carry_fallback_bits, counts instead (its blocks return at once otherwise). Both decide with the
// same test of the levels (value_table_binners::block_crowds).
//
// A lane's counter takes at most 1/32 of its block's samples: the plan keeps inputs below 2^37 samples
// (tuning::carry_max_samples).
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstdint>

namespace onchip::detail {

#if defined(__CUDACC__)
/// This thread's view of the carry grid: its lane's column of the table and its lane's counters.
struct carry_lanes {
  unsigned table;     // shared-window address of cell 0's word; cell c's at table + c * 128
  unsigned counters;  // and of index 0's counter; index i's at counters + i * 128
  unsigned shift;     // 8 + cell bits

  /// Counts a sample whose 16 bits, shifted left by 8, are `xs`: a shift and an add for each address.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void count(unsigned xs) const {
    unsigned word;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(word) : "r"(table + ((xs >> shift) << 7)));
    shared_red(counters + (((word + xs) >> shift) << 7), 1u);
  }
};

/// This thread's view of the table and counters the carry grid's layout carves, for cells of 2^cell_bits values.
ONCHIP_DEVICE ONCHIP_FORCEINLINE carry_lanes lanes_of(const shared_spans& spans, int cell_bits) {
  const unsigned lane_bytes = (threadIdx.x % 32) * 4u;
  return {static_cast<unsigned>(__cvta_generic_to_shared(spans.table)) + lane_bytes,
          static_cast<unsigned>(__cvta_generic_to_shared(spans.counters)) + lane_bytes,
          8u + static_cast<unsigned>(cell_bits)};
}

/// The counting loop: the two samples of each 32-bit word of a vector, each put 8 bits up by one PRMT.
template <int Vectors, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_carries(const Job job, const kernel_args& a,
                                                    const carry_lanes& lanes) {
  using sample_t = typename Job::sample_t;
  walk_samples<Vectors>(
      job, a,
      [&](const vec<sample_t, 8>& items, cuda::std::size_t) {
        const uint4& v = reinterpret_cast<const uint4&>(items);
        const unsigned w[4] = {v.x, v.y, v.z, v.w};
#  pragma unroll
        for (int k = 0; k < 4; ++k) {
          lanes.count(__byte_perm(w[k], 0, 0x4104));  // {0, low byte, high byte, 0} of the first sample
          lanes.count(__byte_perm(w[k], 0, 0x4324));  // and of the second
        }
      },
      [&](sample_t s, cuda::std::size_t) {
        lanes.count(static_cast<unsigned>(static_cast<cuda::std::uint16_t>(s)) << 8);
      },
      no_slices{});
}

/// The carry grid's kernel (see the top of this file).
template <class Job, int Threads, int MinBlocks, int Vectors>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    carry_kernel(Job job, kernel_args a) {
  static_assert(admits(histogram_path::carry_grid, kind_of<Job>()),
                "carry_kernel: 16-bit range binning of one channel, unweighted");
  const histogram_call call = typed_call<Job>(a.call);
  const shared_spans spans = onchip::carve(layout_of(histogram_path::carry_grid, call, 1));
  const int bins = job.binners.bins[0], cell_bits = carry_cell_bits(call), cells = 65536 >> cell_bits;
  job.binners.check_levels();
  if (job.binners.block_crowds(cell_bits)) { return; }  // the fallback launched after this kernel counts
  auto* const table = reinterpret_cast<unsigned*>(spans.table);
  auto* const counters = reinterpret_cast<unsigned*>(spans.counters);
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int i = block_rank(); i < (bins + 2) * 32; i += block_size()) { counters[i] = 0; }
  // Each lane makes one slot's word; the warp then writes the 32 slots' columns, a row of 32 banks at a time.
  for (int first = block_rank() - lane; first < cells; first += block_size()) {  // whole warps (cells % 32 == 0)
    const unsigned word = job.binners.carry_word(first + lane, cell_bits);
    ONCHIP_NO_UNROLL
    for (int j = 0; j < 32; ++j) { table[(first + j) * 32 + lane] = __shfl_sync(0xffffffffu, word, j); }
  }
  __syncthreads();
  count_carries<tuning::device_vectors(Vectors, tuning::shared_pre_hopper_vectors)>(job, a,
                                                                                    lanes_of(spans, cell_bits));
  __syncthreads();
  // One thread per index sums its 32 lanes' words (from a different bank in each lane of a warp).
  unsigned long long ignored = 0;
  for (int i = block_rank(); i < bins + 2; i += block_size()) {
    unsigned long long sum = 0;
    for (int l = 0; l < 32; ++l) { sum += counters[i * 32 + (l + i) % 32]; }
    if (i == 0 || i == bins + 1) {
      ignored += sum;
    } else if (sum != 0) {
      atomic_add<false>(job.hist[0] + (i - 1), static_cast<typename Job::counter_t>(sum));
    }
  }
  add_ignored(ignored, a.ignored);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
