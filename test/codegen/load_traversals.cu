// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of the traversals and tile loads: 16-byte loads in the body, nothing in local memory
// for ItemsPerThread up to 16, and readonly_view keeping ld.global.nc inside a struct parameter (where a plain
// pointer member loses it: the negative control).
//
// contract sass * lacks LDL|STL|\bLD\.E
// contract sass k_grid_f32 has LDG\.E\.EF\.128\.CONSTANT
// contract sass k_grid_f32_ipt16 has LDG\.E\.EF\.128\.CONSTANT
// contract sass k_grid_u8_vec has LDG\.E\.EF\.128\.CONSTANT
// contract sass k_block_f64 has LDG\.E\.EF\.128\.CONSTANT
// contract sass k_tile_blocked_f32 has LDG\.E\.128\.CONSTANT
// contract sass k_tile_blocked_f64_ipt16 has LDG\.E\.128\.CONSTANT
// contract sass k_tile_blocked_u8 has LDG\.E\.128
// contract sass k_tile_striped_f32 has LDG\.E\.CONSTANT
// contract sass k_view has LDG\.E\.CONSTANT
// contract ptx  k_view has ld\.global\.nc
// contract sass k_plain_member lacks CONSTANT
#include <onchip/load.cuh>

extern "C" __global__ void k_grid_f32(const float* in, std::size_t n, float* out) {
  float sum = 0;
  onchip::grid_for_each<4>(in, n, [&](float v, std::size_t) { sum += v; });
  atomicAdd(out, sum);
}

extern "C" __global__ void k_grid_f32_ipt16(const float* in, std::size_t n, float* out) {
  float sum = 0;
  onchip::grid_for_each<16>(in, n, [&](float v, std::size_t i) { sum += v * static_cast<float>(i & 7); });
  atomicAdd(out, sum);
}

extern "C" __global__ void k_grid_u8_vec(const unsigned char* in, std::size_t n, unsigned* out) {
  unsigned sum = 0;
  onchip::grid_for_each_vec<8>(
      in, n,
      [&](const onchip::vec<unsigned char, 16>& v, std::size_t) {
        for (int j = 0; j < 16; ++j) { sum += v[j]; }
      },
      [&](unsigned char v, std::size_t) { sum += v; });
  atomicAdd(out, sum);
}

extern "C" __global__ void k_block_f64(const double* in, std::size_t n, double* out) {
  double sum = 0;
  onchip::block_for_each<4>(in + blockIdx.x * n, n, [&](double v, std::size_t) { sum += v; });
  atomicAdd(out, sum);
}

template <int Items, class Arr, class T>
__device__ void tile_sum(const T* in, std::size_t valid, T* out) {
  T items[Items];
  onchip::load_tile<Items, Arr, onchip::cache::readonly>(in, valid, items, T(0));
  T s = 0;
  for (int i = 0; i < Items; ++i) { s += items[i]; }
  out[threadIdx.x] = s;
}

extern "C" __global__ void k_tile_blocked_f32(const float* in, std::size_t valid, float* out) {
  tile_sum<8, onchip::arrangement::blocked>(in, valid, out);
}
extern "C" __global__ void k_tile_blocked_f64_ipt16(const double* in, std::size_t valid, double* out) {
  tile_sum<16, onchip::arrangement::blocked>(in, valid, out);
}
extern "C" __global__ void k_tile_blocked_u8(const unsigned char* in, std::size_t valid, unsigned char* out) {
  tile_sum<16, onchip::arrangement::blocked>(in, valid, out);
}
extern "C" __global__ void k_tile_striped_f32(const float* in, std::size_t valid, float* out) {
  tile_sum<4, onchip::arrangement::striped>(in, valid, out);
}

struct view_params {
  onchip::readonly_view<float> table;
  float* out;
};
extern "C" __global__ void k_view(view_params p) { p.out[threadIdx.x] = p.table[threadIdx.x * 3]; }

struct plain_params {
  const float* __restrict__ table;  // restrict on a member is ignored
  float* __restrict__ out;
};
extern "C" __global__ void k_plain_member(plain_params p) { p.out[threadIdx.x] = p.table[threadIdx.x * 3]; }
