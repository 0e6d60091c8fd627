// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: float weights into integer counters would silently truncate.
#include <onchip/histogram.cuh>
void f(const float* s, const float* w, unsigned* h) { onchip::weighted_histogram_even(s, w, 10, h, 4, 0.f, 1.f); }
