// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of the histogram's counting loops (release build, ONCHIP_CHECKS=0; histogram_instances.cu
// checks every kernel the device API instantiates for local memory): nothing in local memory, the byte path's
// counting loop made of one PRMT
// (the counter's address) and one shared atomic without return per sample: no shared loads or stores, no global
// atomics; 16-bit samples binned in 32-bit integer arithmetic (a high multiply, no floating point); and range
// binning through the level grid in the samples' own arithmetic (f32 in float, 16-bit integers with integer levels
// by a subtraction and a shift, no floating point), reading the cell's word from shared memory, and over a grid of
// quiet cells one 64-bit shared load of the cell (not split to mask it) and no level read; 16-bit samples
// between integer levels through the table of every value's bin: one 16-bit shared load per sample, no arithmetic;
// the packed 16-bit counters' loop over 65536 bins of the whole type: the position is the sample's bits, no
// multiply; 16-bit range binning in packed counters: the same loop, no table read; range binning through a
// bitmap of the levels' sub-cells in packed counters: per sample one 64-bit shared load of its entry, a population
// count, and its sub-cell's level in a predicated load through the read-only cache (no branch around it, so a
// batch's loads are in flight together); 16-bit range binning through the carry grid: per sample one byte
// permute, one shared load of its cell's word and one shared atomic without return, no multiply, and the whole
// kernel in its launch bounds without local memory.
//
// contract sass * lacks LDL|STL
// contract sass k_byte_loop lacks \bRED\b|\bRED\.|ATOMG|\bATOM\.|\bLDS|\bSTS
// contract sass k_byte_loop has ATOMS\.POPC\.INC\.32 RZ, \[R[0-9]+\+UR(Z|[0-9]+)\]
// contract sass k_byte_loop has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, 0x55[0-3]4,
// contract sass k_byte_loop has LDG\.E\.EF\.128\.CONSTANT
// contract sass k_rgba_loop lacks \bRED\b|\bRED\.|ATOMG|\bATOM\.|\bLDS|\bSTS
// contract sass k_rgba_loop has ATOMS\.POPC\.INC\.32 RZ, \[R[0-9]+\+UR(Z|[0-9]+)\]
// contract sass k_rgba_loop has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, 0x55[0-3]4,
// contract sass k_u16_loop has IMAD\.HI\.U32
// contract sass k_u16_loop has ATOMS\.POPC\.INC\.32
// contract sass k_u16_loop lacks I2F|F2I|DMUL|DFMA|DADD
// contract sass k_packed_whole_loop has ATOMS\.ADD R[0-9]+, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_packed_whole_loop has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, R[0-9]+(\.reuse)?, RZ
// contract sass k_packed_whole_loop lacks IMAD\.HI|I2F|F2I|FMUL|DMUL|\bLDS|\bSTS
// contract sass k_packed_lean_loop has IMAD\.HI\.U32
// contract sass k_packed_lean_loop has ATOMS\.ADD R[0-9]+, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_packed_lean_loop lacks I2F|F2I|FMUL|DMUL|\bLDS|\bSTS
// contract sass k_folded_u16 has ATOMS\.ADD R[0-9]+, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_folded_u16 has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, R[0-9]+(\.reuse)?, RZ
// contract sass k_folded_u16 lacks IMAD\.HI|I2F|F2I|FMUL|DMUL|LDS\.U16
// contract sass k_range_f32 has \bLDS\b
// contract sass k_range_f32 lacks DMUL|DFMA|DADD|F2F\.F64
// contract sass k_range_u16 has \bLDS\b
// contract sass k_range_u16 lacks I2F|F2I|FMUL|FADD|DMUL
// contract sass k_range_quiet_loop has LDS\.64
// contract sass k_range_quiet_loop has ATOMS\.POPC\.INC\.32
// contract sass k_range_quiet_loop lacks LDS\.U16|\bLD\.E|DMUL|DFMA|F2F\.F64
// contract sass k_range_bitmap_loop has @!?P[0-9]+ LDG\.E\.CONSTANT
// contract sass k_range_bitmap_loop has LDS\.64
// contract sass k_range_bitmap_loop has \bPOPC\b
// contract sass k_range_bitmap_loop has ATOMS\.ADD R[0-9]+, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_range_bitmap_loop lacks DMUL|DFMA|F2F\.F64|LDS\.U16
// contract sass k_carry_loop has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, 0x4(104|324), RZ
// contract sass k_carry_loop has \bLDS R[0-9]+, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_carry_loop has ATOMS\.POPC\.INC\.32 RZ, \[R[0-9]+(\+UR(Z|[0-9]+))?\]
// contract sass k_carry_loop lacks IMAD\.HI|I2F|F2I|LDS\.U16|\bLDS\.64|ATOMS\.ADD
// contract sass k_table_u16_loop has LDS\.U16
// contract sass k_table_u16_loop has ATOMS\.POPC\.INC\.32
// contract sass k_table_u16_loop lacks I2F|F2I|FMUL|FADD|IMAD\.HI|\bLDS\.64
#include <onchip/histogram.cuh>

#include <cstdint>

namespace {
template <int C, int A>
using byte_job = onchip::detail::histogram_job<C, A, std::uint8_t, onchip::detail::no_weights,
                                               onchip::detail::plain_binners<A, onchip::bin_identity>, unsigned>;

// The byte kernel's counting phase alone (the library's own function), over counters it does not zero.
template <int C, int A>
__device__ void byte_loop(const byte_job<C, A>& job, const onchip::detail::kernel_args& a) {
  using onchip::detail::histogram_path;
  unsigned char* planes = onchip::carve(onchip::detail::layout_of(histogram_path::byte_lanes, a.call, 1)).counters;
  const unsigned lane = threadIdx.x % 32;
  const auto base = static_cast<unsigned>(__cvta_generic_to_shared(planes));
  onchip::detail::count_bytes<4>(job, a, onchip::detail::byte_lanes<A>{base, lane * 4, 128 + lane * 4});
}
using u16_job = onchip::detail::histogram_job<1, 1, std::uint16_t, onchip::detail::no_weights,
                                              onchip::detail::plain_binners<1, onchip::detail::lean_even<int>>,
                                              unsigned>;
}  // namespace

extern "C" __global__ void __launch_bounds__(512, 3) k_byte_loop(byte_job<1, 1> job, onchip::detail::kernel_args a) {
  byte_loop(job, a);
}

// RGBA with three active channels: each channel's plane is a uniform register of the address, no extra instruction.
extern "C" __global__ void __launch_bounds__(1024, 1) k_rgba_loop(byte_job<4, 3> job, onchip::detail::kernel_args a) {
  byte_loop(job, a);
}

// One channel of 16-bit samples in the shared replicas with lean binning (the library's own function, flush
// included): a sample is a subtraction, one high multiply, a min and one shared atomic, no floating point.
extern "C" __global__ void __launch_bounds__(512, 2) k_u16_loop(u16_job job, onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  const auto spans = onchip::carve(layout_of(histogram_path::shared_replicas, a.call, a.replicas));
  const shared_counters<unsigned, u16_job> counters{reinterpret_cast<unsigned*>(spans.counters), a.replicas,
                                                    job.total_bins()};
  count_replicas<6>(job, a, job.binners, counters);
}

// One sample binned through the grid the library carves beside the staged levels (the staging itself runs once
// per block and is not part of these contracts).
template <class S, class L>
__device__ void range_bin(const onchip::detail::range_binners<1, L>& b, const onchip::detail::kernel_args& a,
                          const S* in, int* out) {
  using namespace onchip::detail;
  const auto s = onchip::carve(layout_of(histogram_path::global_atomics, a.call, 0));
  gridded_range<S, L> g;
  g.levels = reinterpret_cast<const L*>(s.levels[0]);
  g.cells = reinterpret_cast<const level_cell<L>*>(s.cells[0]);
  g.bins = b.bins[0];
  g.first = g.levels[0];
  g.last = g.levels[g.bins];
  g.map = cell_map<S, L>::over(g.first, g.last, s.cell_count[0]);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = g(in[i]);
}

extern "C" __global__ void __launch_bounds__(512, 2) k_range_f32(onchip::detail::range_binners<1, float> b,
                                                                 onchip::detail::kernel_args a, const float* in,
                                                                 int* out) {
  range_bin(b, a, in, out);
}

extern "C" __global__ void __launch_bounds__(512, 2) k_range_u16(onchip::detail::range_binners<1, int> b,
                                                                 onchip::detail::kernel_args a,
                                                                 const std::uint16_t* in, int* out) {
  range_bin(b, a, in, out);
}

using table_job = onchip::detail::histogram_job<1, 1, std::uint16_t, onchip::detail::no_weights,
                                                onchip::detail::value_table_binners<std::uint16_t, int>, unsigned>;

// The shared replicas' counting loop (the library's own function) over a value table already staged.
extern "C" __global__ void __launch_bounds__(1024, 1) k_table_u16_loop(table_job job, onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  const auto spans = onchip::carve(layout_of(histogram_path::shared_replicas, a.call, a.replicas));
  const shared_counters<unsigned, table_job> counters{reinterpret_cast<unsigned*>(spans.counters), a.replicas,
                                                      job.total_bins()};
  const value_table_binners<std::uint16_t, int>::staged binners{
      {{reinterpret_cast<const std::uint16_t*>(spans.table)}}};
  count_replicas<6>(job, a, binners, counters);
}

using range_job = onchip::detail::histogram_job<1, 1, float, onchip::detail::no_weights,
                                                onchip::detail::range_binners<1, float>, unsigned>;

// The shared replicas' counting loop (the library's own function) over a grid of quiet cells already staged (what
// staged::quiet_binners returns): per sample its cell in one 64-bit shared load and one shared atomic, no search.
extern "C" __global__ void __launch_bounds__(512, 2) k_range_quiet_loop(range_job job, onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  const auto spans = onchip::carve(layout_of(histogram_path::shared_replicas, a.call, a.replicas));
  const shared_counters<unsigned, range_job> counters{reinterpret_cast<unsigned*>(spans.counters), a.replicas,
                                                      job.total_bins()};
  const float* levels = reinterpret_cast<const float*>(spans.levels[0]);
  range_binners<1, float>::quiet_staged<float> binners{};
  binners.binner[0] = {reinterpret_cast<const level_cell<float>*>(spans.cells[0]),
                       cell_map<float, float>::over(levels[0], levels[job.total_bins()], spans.cell_count[0]),
                       levels[0], levels[job.total_bins()]};
  count_replicas<4>(job, a, binners, counters);
}

// Range binning through a bitmap in packed counters (the library's own function, with binners as stage() makes
// them for levels left in device memory; the entries after the counters, as the layout does not place them).
extern "C" __global__ void __launch_bounds__(1024, 1) k_range_bitmap_loop(range_job job,
                                                                          onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  extern __shared__ unsigned words[];
  const float* levels = job.binners.levels[0];
  const int bins = job.total_bins();
  range_binners<1, float>::bitmap_staged<float> binners{};
  binners.binner[0] = {levels, reinterpret_cast<const bitmap_entry*>(words + 32770),
                       cell_map<float, float>::over(levels[0], levels[bins], tuning::bitmap_sub_cells), levels[0],
                       levels[bins]};
  count_packed<4>(job, a, binners, words);
}

// The packed 16-bit counters' loop over 65536 bins of the whole type (the library's own function, with the
// position function count_packed picks): the position is the sample's bits (no multiply, no floating point), a
// vector's adds are returning shared atomics tested by a byte permute with a register selector, nothing in local
// memory.
extern "C" __global__ void __launch_bounds__(1024, 1) k_packed_whole_loop(u16_job job,
                                                                          onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  extern __shared__ unsigned words[];
  count_packed_by<4>(job, a, sample_bits<std::uint16_t>{}, words, 65536u,
                     [](unsigned p) { return static_cast<int>(p); });
}

// The same loop with the lean binning (65536 bins not from 0): a high multiply per sample.
extern "C" __global__ void __launch_bounds__(1024, 1) k_packed_lean_loop(u16_job job,
                                                                         onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  extern __shared__ unsigned words[];
  const auto& binner = job.binners[0];
  const auto bins = static_cast<unsigned>(job.total_bins());
  count_packed_by<4>(job, a, [&](std::uint16_t v) { return static_cast<unsigned>(binner(v)); }, words, bins + 1,
                     [bins](unsigned p) { return p < bins ? static_cast<int>(p) : -1; });
}

// 16-bit range binning in packed counters (the library's own function): every value counted at the sample's bits
// as above, no table read, no multiply; then the values folded into bins.
extern "C" __global__ void __launch_bounds__(1024, 1) k_folded_u16(table_job job, onchip::detail::kernel_args a) {
  extern __shared__ unsigned words[];
  onchip::detail::count_folded<4, 1024>(job, a, words);
}

// 16-bit range binning through the carry grid: the counting loop (the library's own function) over a table and
// counters it does not build, in the kernel's launch bounds; and the whole kernel as the device API launches it.
extern "C" __global__ void __launch_bounds__(1024, 2) k_carry_loop(table_job job, onchip::detail::kernel_args a) {
  using namespace onchip::detail;
  const auto spans = onchip::carve(layout_of(histogram_path::carry_grid, a.call, 1));
  count_carries<4>(job, a, lanes_of(spans, carry_cell_bits(a.call)));
}
template __global__ void onchip::detail::carry_kernel<table_job, 1024, 2, 4>(table_job, onchip::detail::kernel_args);
