// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Must not compile: a device-wide histogram call from a translation unit the host compiler builds alone (no
// kernels can be launched from it) stops with a sentence saying so, not a link error.
#include <onchip/histogram.cuh>
void f(const float* s, unsigned* h) { onchip::histogram_even(s, 10, h, 4, 0.f, 1.f); }
