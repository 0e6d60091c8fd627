// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sample types x counter types through histogram_even, against the host reference, at 7, 256 and 1000 bins (the
// plan picks the byte, shared, packed 16-bit or wide kernels from these). Each translation unit checks one pair,
// HIST_MATRIX_SAMPLE into HIST_MATRIX_COUNTER (test/gpu/CMakeLists.txt writes a unit per pair, so that a build on
// several cores compiles them side by side; the pairs and why they cover every kernel family are listed there).
#include "histogram_common.cuh"

#if !defined(HIST_MATRIX_SAMPLE) || !defined(HIST_MATRIX_COUNTER)
#  error "define HIST_MATRIX_SAMPLE and HIST_MATRIX_COUNTER (a sample type and a counter type)"
#endif

#define HIST_MATRIX_STR2(x) #x
#define HIST_MATRIX_STR(x) HIST_MATRIX_STR2(x)

ONCHIP_GPU_TEST_CASE("histogram_even: " HIST_MATRIX_STR(HIST_MATRIX_SAMPLE) " samples into " HIST_MATRIX_STR(
    HIST_MATRIX_COUNTER) " counters") {
  using S = HIST_MATRIX_SAMPLE;
  using C = HIST_MATRIX_COUNTER;
  const auto [lo, hi] = hist_test::level_bounds<S>();
  for (int bins : {7, 256, 1000}) {
    INFO("bins " << bins);
    const auto host = hist_test::make_samples<S>((std::size_t{1} << 16) + 3, static_cast<double>(lo),
                                                 static_cast<double>(hi), hist_test::distribution::uniform, bins);
    hist_test::check_even<C>(host, bins, lo, hi, sizeof(S) < 16 ? sizeof(S) : 0);  // misaligned by one element
  }
}
