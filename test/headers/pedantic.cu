// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A consumer compiled with strict warnings (-Wall -Wextra -Wpedantic -Wshadow -Wconversion through nvcc's host
// compiler): the test fails on any warning that names a file of include/onchip/.
#include <onchip/onchip.cuh>

#include <cstdint>

struct plan {
  int n;
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    auto hist = onchip::block_histogram<256>(c, 256);
    auto tile = c.take_aligned<16, float>(static_cast<cuda::std::size_t>(n));
    return cuda::std::tuple{hist, tile};
  }
};

__global__ void kernel(const std::uint8_t* in, std::size_t n, unsigned* out) {
  auto [hist, tile] = onchip::carve(plan{256});
  static_cast<void>(tile);
  hist.reset();
  onchip::block_for_each(in, n, [&](std::uint8_t v, std::size_t) { hist.add(v); });
  hist.flush(out);
}

void calls(const std::uint8_t* u8, const float* f32, const float* w, const double* levels, const int* offsets,
           unsigned* h, double* hd) {
  onchip::histogram_even(u8, 10, h, 256, 0, 256);
  onchip::histogram_even(f32, 10, h, 1000, 0.0f, 1.0f);
  onchip::histogram_range(f32, 10, h, levels, 5);
  onchip::weighted_histogram_even(f32, w, 10, hd, 100, 0.0f, 1.0f);
  onchip::segmented_histogram_even(u8, offsets, 3, h, 16, 0, 256);
  unsigned* const three[3] = {h, h, h};
  const int bins[3] = {256, 256, 256}, lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
  onchip::multi_histogram_even<4, 3>(u8, 10, three, bins, lower, upper);
  kernel<<<1, 256, onchip::smem_bytes(plan{256})>>>(u8, 10, h);
}
