# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Histogram equalization of a CuPy image: histogram, cumulative distribution, lookup table, all on the GPU."""
import cupy as cp

import onchip


def equalize(image: cp.ndarray) -> cp.ndarray:
    hist, _ = onchip.histogram(image, 256, (0, 256))    # CuPy in, CuPy out, on CuPy's current stream
    cdf = hist.cumsum()
    first = cdf[cdf > 0][0]
    lut = cp.clip(cp.rint((cdf - first) * 255.0 / cp.maximum(cdf[-1] - first, 1)), 0, 255).astype(cp.uint8)
    return lut[image]


def main():
    rng = cp.random.default_rng(0)
    dark = (rng.random((2048, 2048)) ** 3 * 90).astype(cp.uint8)   # a dark, low-contrast image
    bright = equalize(dark)
    before = onchip.bincount(dark, 256)
    after = onchip.bincount(bright, 256)
    assert int(after.sum()) == dark.size and int(before.sum()) == dark.size
    assert int(bright.max()) == 255 and int(bright.mean()) > int(dark.mean())
    print(f"mean {float(dark.mean()):.1f} -> {float(bright.mean()):.1f}; "
          f"grey levels in use {int((before > 0).sum())} -> {int((after > 0).sum())}")


if __name__ == "__main__":
    main()
