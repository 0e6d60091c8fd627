// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: shared memory starts uninitialized, so no constructor would run for this type.
#include <onchip/smem.cuh>
struct counted {
  int n = 0;
};
__global__ void k() { onchip::dynamic_smem().take<counted>(4); }
