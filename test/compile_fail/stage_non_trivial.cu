// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: asynchronous copies move bytes, and this type's copies run code.
#include <onchip/stage.cuh>
struct counted {
  int n;
  __device__ counted(const counted& o) : n(o.n + 1) {}
};
struct plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const { return onchip::staging<counted, 2>{256}(c); }
};
__global__ void k(const counted* in, int n) {
  onchip::grid_for_each_tile(onchip::carve(plan{}), in, n, [](const onchip::staged_tile<counted>&) {});
}
