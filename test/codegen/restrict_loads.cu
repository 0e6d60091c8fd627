// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Proves the codegen helper on a compiler behaviour the load helpers rely on: a `const T* __restrict__` load
// in a kernel whose output cannot alias it becomes a non-coherent (read-only path) global load.
//
// contract ptx  k_restrict has   ld\.global\.nc\.f32
// contract sass k_restrict has   LDG\.E\.CONSTANT
// contract sass k_restrict lacks LDL|STL|\bLD\.E
// contract ptx  k_plain    lacks ld\.global\.nc
// contract sass k_plain    lacks \.CONSTANT
// contract sass-count k_restrict == k_restrict_twin

extern "C" __global__ void k_restrict(const float* __restrict__ in, float* __restrict__ out) {
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

// The same kernel written again: identical code must give an identical instruction count.
extern "C" __global__ void k_restrict_twin(const float* __restrict__ in, float* __restrict__ out) {
  out[threadIdx.x] = 2.0f * in[threadIdx.x];
}

// Without restrict, the compiler must assume `out` may alias `in`: no read-only path.
extern "C" __global__ void k_plain(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x] * 2.0f; }
