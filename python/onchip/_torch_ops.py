# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip's histograms as torch custom operators, so that torch.compile traces through onchip.histogram and
onchip.bincount without a graph break (onchip._api calls these while compiling, the library directly otherwise).
Each writes into tensors it is given, on the current stream, and returns nothing."""

from typing import Optional

import torch

from . import _api, _arrays


def _input(x: torch.Tensor, what: str):
    f = _arrays.framework_of(x, what)
    return f, _api._Input(f, x, what, f.device(x, what))


@torch.library.custom_op("onchip::histogram_even_", mutates_args=("hist", "ignored"), device_types="cuda")
def _even(x: torch.Tensor, hist: torch.Tensor, weights: Optional[torch.Tensor], offsets: Optional[torch.Tensor],
          ignored: Optional[torch.Tensor], bins: int, lower: float, upper: float, integer_bounds: bool,
          include_upper: bool, segments: int, channels: int, accumulate: bool) -> None:
    f, xin = _input(x, "x")
    win = _input(weights, "weights")[1] if weights is not None else None
    _api.call_even(f, xin, hist.data_ptr(), bins, lower, upper, integer_bounds, include_upper, win, offsets, segments,
                   channels, ignored, accumulate, f.current_stream(xin.device), xin.device)


@_even.register_fake
def _(x, hist, weights, offsets, ignored, bins, lower, upper, integer_bounds, include_upper, segments, channels,
      accumulate) -> None:
    return None


@torch.library.custom_op("onchip::histogram_range_", mutates_args=("hist", "ignored"), device_types="cuda")
def _range(x: torch.Tensor, hist: torch.Tensor, levels: torch.Tensor, weights: Optional[torch.Tensor],
           ignored: Optional[torch.Tensor], accumulate: bool) -> None:
    f, xin = _input(x, "x")
    win = _input(weights, "weights")[1] if weights is not None else None
    _api.call_range(f, xin, hist.data_ptr(), levels, levels.shape[0], win, ignored, accumulate,
                    f.current_stream(xin.device), xin.device)


@_range.register_fake
def _(x, hist, levels, weights, ignored, accumulate) -> None:
    return None


def even(x, hist, weights, offsets, ignored, bins, lower, upper, integer_bounds, include_upper, segments, channels,
         accumulate) -> None:
    torch.ops.onchip.histogram_even_(x, hist, weights, offsets, ignored, bins, lower, upper, integer_bounds,
                                     include_upper, segments, channels, accumulate)


def range_(x, hist, levels, weights, ignored, accumulate) -> None:
    torch.ops.onchip.histogram_range_(x, hist, levels, weights, ignored, accumulate)
