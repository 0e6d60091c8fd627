// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The carver costs nothing for compile-time extents: a kernel carving its arrays through onchip::carve compiles
// to as many SASS instructions as its twin with hand-written constant offsets. With runtime extents, only the
// offset arithmetic remains, the same as the hand-written twin does. Shared arrays must stay in the shared
// window (STS/LDS, never generic ST/LD) and nothing may spill to local memory.
//
// contract sass-count k_carved == k_hand
// contract sass-count k_carved_runtime == k_hand_runtime
// contract sass k_carved lacks LDL|STL|\bST\.E|\bLD\.E
// contract sass k_carved has   STS\.128
// contract sass k_carved_runtime lacks LDL|STL|\bST\.E|\bLD\.E
// contract ptx  k_carved lacks dynamic_smem_size
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

namespace {
struct static_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto a = c.take<float, 256>();
    auto b = c.take<int, 128>();
    auto s = c.take<short, 100>();
    auto v = c.take_aligned<16, float4, 8>();
    return cuda::std::tuple{a, b, s, v};
  }
};

template <class A, class B, class S, class V>
__device__ __forceinline__ void work(const float* __restrict__ in, float* __restrict__ out, A a, B b, S s, V v) {
  const int t = threadIdx.x;
  a[t] = in[t];
  b[t % 128] = t;
  s[t % 100] = static_cast<short>(t);
  v[t % 8] = make_float4(in[t], 1.0f, 2.0f, 3.0f);
  __syncthreads();
  out[t] = a[255 - t] + static_cast<float>(b[(t * 7) % 128]) + s[(t * 3) % 100] + v[(t + 1) % 8].x;
}
}  // namespace

extern "C" __global__ void k_carved(const float* __restrict__ in, float* __restrict__ out) {
  auto [a, b, s, v] = onchip::carve(static_plan{});
  work(in, out, a.data(), b.data(), s.data(), v.data());
}

extern "C" __global__ void k_hand(const float* __restrict__ in, float* __restrict__ out) {
  extern __shared__ unsigned char hand_smem[];
  float* a = reinterpret_cast<float*>(hand_smem);
  int* b = reinterpret_cast<int*>(hand_smem + 1024);
  short* s = reinterpret_cast<short*>(hand_smem + 1536);
  float4* v = reinterpret_cast<float4*>(hand_smem + 1744);  // 1736 rounded up to 16
  work(in, out, a, b, s, v);
}

namespace {
struct runtime_plan {
  int n;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto a = c.take<float>(n);
    auto b = c.take<double>(n);
    auto v = c.take<float4>(n);
    return cuda::std::tuple{a, b, v};
  }
};

template <class A, class B, class V>
__device__ __forceinline__ void work_runtime(const float* __restrict__ in, float* __restrict__ out, int n, A a, B b,
                                             V v) {
  const int t = threadIdx.x;
  if (t < n) {
    a[t] = in[t];
    b[t] = in[t] * 2.0;
    v[t] = make_float4(in[t], 0.0f, 0.0f, 0.0f);
  }
  __syncthreads();
  if (t < n) { out[t] = a[n - 1 - t] + static_cast<float>(b[(t + 1) % n]) + v[(t + 2) % n].x; }
}
}  // namespace

extern "C" __global__ void k_carved_runtime(const float* __restrict__ in, float* __restrict__ out, int n) {
  auto [a, b, v] = onchip::carve(runtime_plan{n});
  work_runtime(in, out, n, a.data(), b.data(), v.data());
}

extern "C" __global__ void k_hand_runtime(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ unsigned char hand_smem[];
  const size_t b_at = (static_cast<size_t>(n) * 4 + 7) / 8 * 8;
  const size_t v_at = (b_at + static_cast<size_t>(n) * 8 + 15) / 16 * 16;
  work_runtime(in, out, n, reinterpret_cast<float*>(hand_smem), reinterpret_cast<double*>(hand_smem + b_at),
               reinterpret_cast<float4*>(hand_smem + v_at));
}
