// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: a double weight into an int block histogram.
#include <onchip/histogram.cuh>
__global__ void k() {
  onchip::carver smem = onchip::dynamic_smem();
  onchip::block_histogram<8, int> h(smem);
  h.add(1, 0.5);
}
