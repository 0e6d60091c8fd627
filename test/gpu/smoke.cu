// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// End-to-end proof of the GPU test path: a kernel runs, writes, and the host checks what it wrote.
#include <onchip/onchip.cuh>

#include <vector>

#include "support/onchip_test.hpp"

namespace {
__global__ void iota_squares(unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = i * i + 7u; }
}
}  // namespace

ONCHIP_GPU_TEST_CASE("a kernel launch writes every element the host expects") {
  const unsigned n = 100003;  // not a multiple of the block size
  onchip_test::device_buffer<unsigned> out(n);
  ONCHIP_CUDA_REQUIRE(cudaMemset(out.data(), 0xff, out.bytes()));
  iota_squares<<<(n + 255) / 256, 256>>>(out.data(), n);
  ONCHIP_CUDA_REQUIRE(cudaGetLastError());
  std::vector<unsigned> host(n);
  ONCHIP_CUDA_REQUIRE(cudaMemcpy(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned i = 0; i < n; ++i) { wrong += host[i] != i * i + 7u; }
  CHECK(wrong == 0);
}
