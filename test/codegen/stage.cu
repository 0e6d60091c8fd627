// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of the asynchronous stages: on sm_90 the body of a copy goes by the bulk copy engine,
// completed on an mbarrier with a byte count; on sm_80 by 16-byte cp.async (L2 only) tied to the mbarrier; and
// the stage loops of the tile traversals (stage indices unrolled) hold nothing in local memory.
//
// contract sass * lacks LDL|STL
// contract@90 ptx  k_copy_f32 has cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes
// contract@90 ptx  k_copy_f32 has mbarrier\.arrive\.expect_tx\.release\.cta\.shared::cta\.b64
// contract@90 ptx  k_copy_f32 has mbarrier\.try_wait\.parity
// contract@90 sass k_copy_f32 has UBLKCP\.S\.G
// contract@90 sass k_copy_f32 has SYNCS\.PHASECHK
// contract@90 sass k_copy_f32 lacks LDGSTS
// contract@90 sass k_tiles_u8_s4 has UBLKCP\.S\.G
// contract@90 sass k_tiles_f64_halo has UBLKCP\.S\.G
// contract@80 ptx  k_copy_f32 has cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16;
// contract@80 ptx  k_copy_f32 has cp\.async\.mbarrier\.arrive\.b64
// contract@80 ptx  k_copy_f32 lacks cp\.async\.bulk
// contract@80 sass k_copy_f32 has LDGSTS\.E\.BYPASS\.128
// contract@80 sass k_tiles_u8_s4 has LDGSTS\.E\.BYPASS\.128
// contract@80 sass k_tiles_f64_halo has LDGSTS\.E\.BYPASS\.128
#include <onchip/stage.cuh>

struct copy_plan {
  std::size_t capacity;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const { return onchip::take_stage<float>(c, capacity); }
};

extern "C" __global__ void k_copy_f32(const float* in, std::size_t n, float* out) {
  onchip::stage<float> st(onchip::carve(copy_plan{n}));
  st.copy(in, n);
  const cuda::std::span<float> tile = st.wait();
  for (std::size_t i = threadIdx.x; i < tile.size(); i += blockDim.x) { out[i] = tile[i]; }
  st.finish();
}

template <class T, int Stages>
struct tile_plan {
  std::size_t tile;
  onchip::halo_width halo;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const { return onchip::staging<T, Stages>{tile, halo}(c); }
};

extern "C" __global__ void k_tiles_u8_s4(const unsigned char* in, std::size_t n, unsigned* out) {
  unsigned sum = 0;
  onchip::grid_for_each_tile(onchip::carve(tile_plan<unsigned char, 4>{16384, {}}), in, n,
                             [&](const onchip::staged_tile<unsigned char>& t) {
                               for (std::size_t i = threadIdx.x; i < t.items.size(); i += blockDim.x) {
                                 sum += t.items[i];
                               }
                             });
  atomicAdd(out, sum);
}

extern "C" __global__ void k_tiles_f64_halo(const double* in, std::size_t n, double* out) {
  onchip::grid_for_each_tile(onchip::carve(tile_plan<double, 3>{2048, {2, 2}}), in, n,
                             [&](const onchip::staged_tile<double>& t) {
                               for (std::size_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
                                 const std::size_t lo = i >= 2 ? i - 2 : 0, hi = n - i > 2 ? i + 3 : n;
                                 double s = 0;
                                 for (std::size_t j = lo; j < hi; ++j) { s += t[j]; }
                                 out[i] = s;
                               }
                             });
}
