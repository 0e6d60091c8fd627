// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of block_histogram (release build, ONCHIP_CHECKS=0). The benchmark's user kernel (a 4 KiB
// tile of bytes per 256-thread block, one copy of 256 32-bit counters): one shared atomic per sample, no local
// memory, and no integer division in the zeroing or storing loops (their trip counts are not computed). And the
// premise of the automatic layout: a 32-bit integer counter's shared add is one atomic instruction, while 64-bit
// integer, float and double counters add by a compare-and-swap loop (which is why they keep warp copies).
//
// contract sass * lacks LDL|STL
// contract sass k_tile_u32 has ATOMS\.POPC\.INC\.32
// contract sass k_tile_u32 lacks MUFU|I2F|F2I|ATOMS\.CAS
// contract sass k_tile_u32 lacks \bLDS\.128|\bATOM\.|ATOMG|\bRED\b|\bRED\.
// contract sass k_add_u64 has ATOMS\.CAST\.SPIN\.64
// contract sass k_add_f64 has ATOMS\.CAST\.SPIN\.64
// contract sass k_add_f32 has ATOMS\.CAST\.SPIN\b
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cstdint>

namespace {
template <int Bins, class Counter>
struct probe_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& smem) const {
    return onchip::block_histogram<Bins, Counter>(smem, 256);
  }
};
}  // namespace

extern "C" __global__ void __launch_bounds__(256) k_tile_u32(const std::uint8_t* in, unsigned* out) {
  auto hist = onchip::carve(probe_plan<256, unsigned>{});
  const auto v = onchip::load_vec<16, onchip::cache::stream>(in + blockIdx.x * std::size_t{4096} + threadIdx.x * 16);
  hist.reset();
#pragma unroll
  for (int i = 0; i < 16; ++i) { hist.add(v[i]); }
  hist.store(out + blockIdx.x * 256);
}

extern "C" __global__ void k_add_u64(const int* bins, unsigned long long* out) {
  auto hist = onchip::carve(probe_plan<64, unsigned long long>{});
  hist.reset();
  hist.add(bins[threadIdx.x]);
  hist.flush(out);
}

extern "C" __global__ void k_add_f64(const int* bins, const double* weights, double* out) {
  auto hist = onchip::carve(probe_plan<64, double>{});
  hist.reset();
  hist.add(bins[threadIdx.x], weights[threadIdx.x]);
  hist.flush(out);
}

extern "C" __global__ void k_add_f32(const int* bins, const float* weights, float* out) {
  auto hist = onchip::carve(probe_plan<64, float>{});
  hist.reset();
  hist.add(bins[threadIdx.x], weights[threadIdx.x]);
  hist.flush(out);
}
