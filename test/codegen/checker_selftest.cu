// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checker must report broken contracts: every contract below is false, and ctest expects the checker to
// say that none of the three held (see CMakeLists.txt), so a checker that passes everything fails this test.
//
// contract ptx  k_store lacks st\.global
// contract sass k_store has   LDG\.E\.CONSTANT
// contract sass-count k_store == k_store_twice

extern "C" __global__ void k_store(int* out) { out[threadIdx.x] = 1; }
extern "C" __global__ void k_store_twice(int* out) {
  out[threadIdx.x] = 1;
  out[threadIdx.x + 1000] = 2;
}
