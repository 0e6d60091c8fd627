// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: a plain span does not promise the 16-byte alignment asynchronous copies need.
#include <onchip/stage.cuh>
__global__ void k(const float* in) {
  onchip::carver c = onchip::dynamic_smem();
  cuda::std::span<cuda::std::byte> bytes = c.take<cuda::std::byte>(1024);
  onchip::stage<float> st(onchip::stage_buffer<float>(bytes, c.take<cuda::std::uint64_t>(1).data()));
  st.copy(in, 10);
}
