// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of the device API's calls on bytes of one or two active channels (release build,
// ONCHIP_CHECKS=0): they compile the byte kernel and no other (its one 64 KiB plane fits every GPU, so the plan
// has no other path for them), and nothing in local memory, interleaved channels with one active (2/1, 3/1, 4/1)
// included (they run in the several-channel shape: in the one-channel shape the merge spilled).
//
// contract sass * lacks LDL|STL
// contract ptx * has \.entry _ZN6onchip6detail17byte_lanes_kernel
#include <onchip/histogram.cuh>

#include <cstdint>

void instantiate(const std::uint8_t* u8, const std::int8_t* i8, unsigned* h, unsigned long long* h64,
                 const float* lv) {
  onchip::histogram_even(u8, 10, h, 256, 0, 256);
  onchip::histogram_even(i8, 10, h, 100, -50, 50);
  onchip::histogram_even(u8, 10, h64, 1000000, -1000000000000LL, 1000000000000LL);  // levels beyond int32
  onchip::histogram_range(u8, 10, h, lv, 17);
  onchip::histogram(u8, 10, h, 256, onchip::bin_identity{});
  unsigned* h2[2] = {h, h};
  int bins[2] = {256, 16}, lo[2] = {0, 0}, hi[2] = {256, 256};
  onchip::multi_histogram_even<2, 2>(u8, 10, h2, bins, lo, hi);
  unsigned* h1[1] = {h};
  int bins1[1] = {256}, lo1[1] = {0}, hi1[1] = {256};
  onchip::multi_histogram_even<2, 1>(u8, 10, h1, bins1, lo1, hi1);
  onchip::multi_histogram_even<3, 1>(u8, 10, h1, bins1, lo1, hi1);
  onchip::multi_histogram_even<4, 1>(u8, 10, h1, bins1, lo1, hi1);
}
