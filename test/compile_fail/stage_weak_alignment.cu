// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: this buffer's type promises 8-byte alignment, and asynchronous copies need 16.
#include <onchip/stage.cuh>
__global__ void k(const float* in) {
  onchip::carver c = onchip::dynamic_smem();
  auto bytes = c.take_aligned<8, cuda::std::byte>(1024);
  onchip::stage<float> st(onchip::stage_buffer<float>(bytes, c.take<cuda::std::uint64_t>(1).data()));
  st.copy(in, 10);
}
