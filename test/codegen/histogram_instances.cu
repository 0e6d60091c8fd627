// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contract of every histogram kernel the device API instantiates (release build, ONCHIP_CHECKS=0):
// nothing in local memory, on any path (bytes, several channels, shared replicas, 16-bit shared counters, global
// atomics, range levels, 16-bit value tables and the carry grid, weights, segments). ONCHIP_PROBE_PART picks a
// part of the calls (one or two), so that the parts compile side by side and none takes minutes.
//
// contract sass * lacks LDL|STL
#include <onchip/histogram.cuh>

#include <cstdint>

#ifndef ONCHIP_PROBE_PART
#  error "compile with -DONCHIP_PROBE_PART=0 to 9"
#endif

void instantiate(const std::uint8_t* u8, const std::int8_t* i8, const int* offsets, const std::uint16_t* u16,
                 const float* f32, const int* i32, const long long* i64, const double* f64, unsigned* h,
                 unsigned long long* h64, float* hf, const float* lv) {
  unsigned* hs[3] = {h, h, h};
  int bins[3] = {256, 256, 256};
#if ONCHIP_PROBE_PART == 0
  onchip::histogram_even(u16, 10, h, 1024, 0, 65536);
#elif ONCHIP_PROBE_PART == 1
  onchip::histogram(u16, 10, h, 65536, onchip::bin_identity{});
#elif ONCHIP_PROBE_PART == 2
  onchip::histogram_even(i32, 10, h64, 10, 0, 1000);
  onchip::histogram_even(i32, 10, h64, 1024, -(1LL << 40), 1LL << 40);  // the wide integer binning, 64-bit counters
#elif ONCHIP_PROBE_PART == 3
  onchip::histogram_even(f32, 10, h, 1024, 0.f, 1.f);
  onchip::histogram_range(f32, 10, h, lv, 1025);
#elif ONCHIP_PROBE_PART == 4
  float flo[3] = {0, 0, 0}, fhi[3] = {1, 1, 1};
  onchip::weighted_histogram_even(f32, f32, 10, hf, 1024, 0.f, 1.f);
  onchip::multi_histogram_even<3, 3>(f32, 10, hs, bins, flo, fhi);
#elif ONCHIP_PROBE_PART == 5
  onchip::histogram_even(i64, 10, h, 100, 0LL, 1000000LL);
  onchip::histogram_even(f64, 10, h, 256, 0.0, 1.0);
#elif ONCHIP_PROBE_PART == 6  // bytes the byte kernel does not count alone (histogram_bytes.cu: those it does)
  int lo[3] = {0, 0, 0}, hi[3] = {256, 256, 256};
  onchip::multi_histogram_even<4, 3>(u8, 10, hs, bins, lo, hi);
#elif ONCHIP_PROBE_PART == 7
  onchip::segmented_histogram_even(u8, offsets, 4, h, 256, 0, 256);
#elif ONCHIP_PROBE_PART == 8
  onchip::histogram_range(u16, 10, h, i32, 257);  // the carry grid, the value table, and staged levels
#else
  onchip::histogram_range(u16, 10, h64, i32, 257);  // the carry grid into 64-bit counters
#endif
  static_cast<void>(hs), static_cast<void>(bins);
  static_cast<void>(u8), static_cast<void>(i8), static_cast<void>(offsets), static_cast<void>(u16);
  static_cast<void>(f32), static_cast<void>(i32), static_cast<void>(i64), static_cast<void>(f64);
  static_cast<void>(h), static_cast<void>(h64), static_cast<void>(hf), static_cast<void>(lv);
}
