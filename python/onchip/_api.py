# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip.histogram and onchip.bincount: argument checks, output allocation in the caller's framework, and one
call of the compiled library per histogram, ordered on the caller's stream."""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Sequence, Tuple

from . import _arrays
from ._arrays import FLOATING, INTEGER, Framework

SAMPLE_DTYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "float16", "bfloat16", "float32",
                 "float64")
COUNT_DTYPES = ("int32", "int64", "float32", "float64")
WEIGHT_DTYPES = ("float32", "float64")
_CHANNEL_DTYPES = ("uint8", "int8", "uint16", "int16")
_INT_LIMITS = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
               "uint32": (0, 2**32 - 1), "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}

_core_module = None


def _core():
    global _core_module
    if _core_module is None:
        from . import _core as core

        _core_module = core
    return _core_module


def _code(dtype: str) -> int:
    return _core().dtype_codes[dtype]


def _dtype_name(dtype: Any, what: str) -> str:
    """NumPy's name of a dtype given as a string, a NumPy/CuPy dtype, a torch dtype or a Python type."""
    if dtype is int:
        return "int64"
    if dtype is float:
        return "float64"
    name = getattr(dtype, "name", None) if not isinstance(dtype, str) else dtype
    if name is None:
        name = str(dtype)
    name = str(name).replace("torch.", "")
    aliases = {"long": "int64", "int": "int32", "float": "float32", "double": "float64", "half": "float16"}
    name = aliases.get(name, name)
    if name not in _arrays.ITEMSIZE:
        raise TypeError(f"{what}: unknown dtype {dtype!r}")
    return name


class _Input:
    """The samples as the library reads them: a pointer, rows of samples, and a row stride."""

    def __init__(self, f: Framework, x: Any, what: str, device: int) -> None:
        self.f, self.x, self.shape = f, x, f.shape(x)
        self.dtype = f.dtype_name(x)
        self.device = device
        self.itemsize = _arrays.ITEMSIZE.get(self.dtype, 1)
        self.size = math.prod(self.shape)
        strides = f.strides(x)
        self.contiguous = _contiguous(self.shape, strides, self.itemsize)
        self.rows, self.row_samples, self.row_stride = 1, self.size, self.size * self.itemsize
        if not self.contiguous and self.size > 0:
            # A 2-D region: the last dimensions contiguous, the first one strided (a crop, a padded pitch).
            inner = math.prod(self.shape[1:])
            if len(self.shape) >= 2 and _contiguous(self.shape[1:], strides[1:], self.itemsize) and \
                    strides[0] >= inner * self.itemsize:
                self.rows, self.row_samples, self.row_stride = self.shape[0], inner, strides[0]
            else:
                raise ValueError(f"{what} is not contiguous and not rows of contiguous samples (strides "
                                 f"{tuple(strides)} bytes for shape {self.shape}): make a contiguous copy first "
                                 f"({what}.contiguous() in torch, cupy.ascontiguousarray({what}) in CuPy)")

    @property
    def pointer(self) -> int:
        return self.f.pointer(self.x)


def _contiguous(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent == 0:
            return True
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _resolve(x: Any, what: str) -> Tuple[Framework, Any, Any]:
    try:
        return _arrays.framework_of(x, what), x, None
    except LookupError:
        return _arrays.view_foreign(x, what)


def _same(f: Framework, a: Any, what: str, device: int) -> None:
    if not f.owns(a):
        raise TypeError(f"{what} must be a {f.name} array like x, got {type(a).__name__}")
    d = f.device(a, what)
    if d != device:
        raise ValueError(f"{what} is on GPU {d} but x is on GPU {device}: put both on one device")


def _weights(f: Framework, weights: Any, xin: "_Input", device: int) -> "_Input":
    w = weights if f.owns(weights) else _resolve(weights, "weights")[1]
    _same(f, w, "weights", device)
    win = _Input(f, w, "weights", device)
    if win.dtype not in WEIGHT_DTYPES:
        raise TypeError(f"weights have dtype {win.dtype}; use float32 or float64")
    if win.shape != xin.shape:
        raise ValueError(f"weights have shape {win.shape}, x has {xin.shape}: give one weight per sample")
    if not (win.contiguous and xin.contiguous):
        raise ValueError("weighted histograms need contiguous x and weights: make contiguous copies first")
    return win


def _bins_count(bins: Any, what: str = "bins") -> int:
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        extra = ""
        if what == "bins" and isinstance(bins, (list, tuple)) or hasattr(bins, "__array_interface__"):
            extra = (" or a 1-D GPU array of edges in x's framework (host edges would need a copy the host waits "
                     "for: make them with e.g. torch.tensor(edges, device=x.device) or cupy.asarray(edges))")
        raise TypeError(f"{what} must be an int{extra}, got {type(bins).__name__}")
    if bins < 1 or bins > 2**30:
        raise ValueError(f"{what} must be between 1 and 2**30, got {bins}")
    return int(bins)


def _bounds(range: Any) -> Tuple[float, float]:
    """(lower, upper) from a range argument other than 'auto'."""
    if range is None:
        raise ValueError("range is required with an integer bins: finding it from the data takes a min and a max "
                         "that the host would have to wait for. Pass range=(lower, upper), or range='auto' to "
                         "accept that synchronization")
    if isinstance(range, str):
        raise ValueError(f"range must be (lower, upper) or 'auto', got {range!r}")
    try:
        lower, upper = range
        lower, upper = float(lower), float(upper)
    except (TypeError, ValueError):
        raise TypeError(f"range must be a pair of numbers (lower, upper), got {range!r}") from None
    if not (math.isfinite(lower) and math.isfinite(upper)):
        raise ValueError(f"range must be finite, got ({lower}, {upper})")
    if not lower < upper:
        raise ValueError(f"range: lower must be below upper, got ({lower}, {upper})")
    return lower, upper


def _data_bounds(f: Framework, x: Any) -> Tuple[float, float]:
    """range='auto': x's min and max, which the host waits for (NumPy's rule for an empty or constant x)."""
    if math.prod(f.shape(x)) == 0:
        return 0.0, 1.0
    lower, upper = float(x.min()), float(x.max())
    if not (math.isfinite(lower) and math.isfinite(upper)):
        raise ValueError(f"range='auto': the data's range [{lower}, {upper}] is not finite; pass range=")
    return (lower - 0.5, upper + 0.5) if lower == upper else (lower, upper)


def _count_dtype(dtype: Any, out: Any, f: Framework, kernel: str, weighted: bool) -> str:
    name = None if dtype is None else _dtype_name(dtype, "dtype")
    if name is None and out is not None:
        name = f.dtype_name(out)
    name = name or kernel
    if name not in COUNT_DTYPES:
        raise TypeError(f"dtype: counts can be {', '.join(COUNT_DTYPES)}, got {name}")
    if weighted and name in INTEGER:
        raise TypeError(f"dtype: weighted counts are sums of weights; use float32 or float64, not {name}")
    return name


class _Output:
    """Where the kernel writes (its counter type), and how that reaches `out` (directly, or by a cast)."""

    def __init__(self, f: Framework, shape: Tuple[int, ...], kernel: str, dtype: str, out: Any, accumulate: bool,
                 device: int) -> None:
        self.f, self.out, self.accumulate = f, out, accumulate
        if out is not None:
            _same(f, out, "out", device)
            if f.shape(out) != tuple(shape):
                raise ValueError(f"out has shape {f.shape(out)}, the histogram needs {tuple(shape)}")
            if f.dtype_name(out) != dtype:
                raise TypeError(f"out has dtype {f.dtype_name(out)}, the call asks for {dtype}")
            size = _arrays.ITEMSIZE[dtype]
            direct = dtype == kernel and _contiguous(shape, f.strides(out), size)
        else:
            direct = dtype == kernel
        self.direct = direct
        self.target = out if direct and out is not None else f.empty(shape, kernel, device)
        self.kernel_accumulates = accumulate and direct

    def result(self, dtype: str) -> Any:
        """The histogram once the kernel ran: its own array, `out` (filled or added into), or a converted copy."""
        if self.direct:
            return self.target
        if self.out is not None:
            self.f.copy_into(self.out, self.target, self.accumulate)
            return self.out
        return self.f.cast(self.target, dtype)


def _results(back: Any, *arrays: Any):
    """The results, as arrays of the producer of x where it was neither torch nor CuPy."""
    if back is not None:
        arrays = tuple(back(a) for a in arrays)
    return arrays if len(arrays) > 1 else arrays[0]


def histogram(x: Any, bins: Any = 10, range: Any = None, *, weights: Any = None, out: Any = None, dtype: Any = None,
              accumulate: bool = False, axis: Optional[int] = None, offsets: Any = None, channels: Optional[int] = None,
              return_ignored: bool = False, stream: Any = None):
    """Histogram of GPU array `x`, NumPy's way: returns ``(hist, bin_edges)`` (and the number of samples in no bin
    with ``return_ignored=True``), arrays of x's framework on x's device, computed on the caller's stream without
    waiting for it.

    bins: an int (equal bins over ``range``) or a 1-D GPU array of increasing edges (same framework and device).
    range: ``(lower, upper)``, required with an int ``bins``; ``'auto'`` takes x's min and max (the host waits).
    The last bin includes its upper edge; samples outside and NaN are ignored.
    weights: float32/float64, x's shape; each sample adds its weight (counts then have the weights' dtype).
    out, dtype, accumulate: where to write, the count dtype (int64 by default; int32, float32, float64), and
    whether to add into ``out``.
    axis=-1: one histogram per row of the last axis, shape ``x.shape[:-1] + (bins,)`` (even bins).
    offsets: int64 GPU array of ``segments + 1`` offsets into 1-D x: one histogram per segment (even bins).
    channels: C for interleaved (..., C) 8/16-bit data: one histogram per channel, shape ``(C, bins)``.
    stream: a torch/CuPy stream, an object with ``__cuda_stream__`` or a raw handle; default: the framework's
    current stream.
    """
    # What can be checked without the arrays first, so that a mistake is named before any device work.
    per_row = axis is not None
    if per_row and (isinstance(axis, bool) or not isinstance(axis, numbers.Integral)):
        raise TypeError(f"axis must be None or -1, got {axis!r}")
    forms = [name for name, given in (("axis", per_row), ("offsets", offsets is not None),
                                      ("channels", channels is not None)) if given]
    if len(forms) > 1:
        raise ValueError(f"{' and '.join(forms)} cannot be combined: choose one")
    if weights is not None and forms:
        raise ValueError(f"weights cannot be combined with {forms[0]}: weighted histograms are 1-D")
    if channels is not None and (isinstance(channels, bool) or not isinstance(channels, numbers.Integral) or
                                 not 1 <= channels <= 4):
        raise ValueError(f"channels must be 1 to 4, got {channels!r}")
    if dtype is not None:
        _dtype_name(dtype, "dtype")
    if accumulate and out is None:
        raise ValueError("accumulate=True adds into an existing histogram: pass it as out=")
    even = not hasattr(bins, "shape")
    bounds = None  # (lower, upper) of even bins; None for range='auto' until x is known
    if even:
        nbins = _bins_count(bins)
        if not (isinstance(range, str) and range == "auto"):
            bounds = _bounds(range)
    elif forms:
        raise ValueError(f"{forms[0]} takes even bins (an int bins and a range), not an array of edges")

    f, x, back = _resolve(x, "x")
    device = f.device(x, "x")
    with _arrays.stream_scope(f, stream, device):  # the arrays made below, ordered with the kernel on `stream`
        return _histogram(f, x, back, device, bins, bounds, weights, out, dtype, accumulate, axis, offsets, channels,
                          return_ignored, stream, per_row, forms, even, nbins if even else 0)


def _histogram(f, x, back, device, bins, bounds, weights, out, dtype, accumulate, axis, offsets, channels,
               return_ignored, stream, per_row, forms, even, nbins):
    xin = _Input(f, x, "x", device)
    if xin.dtype not in SAMPLE_DTYPES:
        raise TypeError(f"x has dtype {xin.dtype}; onchip histograms take {', '.join(SAMPLE_DTYPES)}")
    if per_row and axis not in (-1, len(xin.shape) - 1):
        raise ValueError(f"axis={axis}: per-row histograms run along the last axis (-1); move yours last first "
                         f"(x.movedim({axis}, -1).contiguous() in torch, cupy.moveaxis in CuPy)")
    if per_row and len(xin.shape) < 2:
        raise ValueError("axis=-1 makes one histogram per row: x needs at least 2 dimensions")
    if even:
        lower, upper = bounds if bounds is not None else _data_bounds(f, x)
    else:
        bins = bins if f.owns(bins) else _resolve(bins, "bins")[1]
        _same(f, bins, "bins", device)
        edge_shape = f.shape(bins)
        if len(edge_shape) != 1 or edge_shape[0] < 2:
            raise ValueError(f"bins as edges must be a 1-D array of at least 2 values, got shape {edge_shape}")
        if f.dtype_name(bins) not in SAMPLE_DTYPES:
            raise TypeError(f"bins as edges must be numbers, got dtype {f.dtype_name(bins)}")
        nbins = edge_shape[0] - 1

    win = None
    if weights is not None:  # (not with axis, offsets or channels: refused above)
        win = _weights(f, weights, xin, device)
    kernel = win.dtype if win is not None else "int64"
    count = _count_dtype(dtype, out, f, kernel, win is not None)

    segments, offsets_in, rows_shape = 0, None, ()
    if per_row:
        if not xin.contiguous:
            raise ValueError("axis=-1 needs contiguous rows: make a contiguous copy of x first")
        segments = math.prod(xin.shape[:-1])
        if segments > 2**31 - 1:
            raise ValueError(f"axis=-1: at most 2**31 - 1 rows, got {segments}")
        rows_shape = tuple(xin.shape[:-1])
        offsets_in = f.row_offsets(segments, xin.shape[-1], device)
    elif offsets is not None:
        _same(f, offsets, "offsets", device)
        oshape = f.shape(offsets)
        if len(oshape) != 1 or oshape[0] < 1:
            raise ValueError(f"offsets must be a 1-D array of segments + 1 values, got shape {oshape}")
        if len(xin.shape) != 1 or not xin.contiguous:
            raise ValueError("offsets index into a 1-D contiguous x")
        if f.dtype_name(offsets) not in INTEGER:
            raise TypeError(f"offsets must be integers, got {f.dtype_name(offsets)}")
        offsets_in = offsets if f.dtype_name(offsets) == "int64" and _contiguous(
            oshape, f.strides(offsets), 8) else (offsets.to(f.dtypes["int64"]).contiguous() if f.name == "torch"
                                                 else f.cupy.ascontiguousarray(offsets, dtype="int64"))
        segments = oshape[0] - 1
        if segments > 2**31 - 1:
            raise ValueError(f"offsets: at most 2**31 - 1 segments, got {segments}")
        rows_shape = (segments,)
    nchannels = 1
    if channels is not None:
        if xin.dtype not in _CHANNEL_DTYPES:
            raise TypeError(f"channels= takes 8- and 16-bit integer samples, got {xin.dtype}")
        if not xin.shape or xin.shape[-1] != channels or not xin.contiguous:
            raise ValueError(f"channels={channels} needs contiguous x of shape (..., {channels}), got {xin.shape}")
        nchannels = int(channels)
        rows_shape = (nchannels,)

    shape = rows_shape + (nbins,)
    o = _Output(f, shape, kernel, count, out, accumulate, device)
    ignored = f.zeros((1,), "int64", device) if return_ignored else None
    s = None if f.name == "torch" and _compiling(f) else _arrays.stream_of(f, stream, device)
    if even:
        integer_bounds = False
        include_upper = True
        if xin.dtype in ("uint16", "int16") and lower.is_integer() and upper.is_integer() and \
                upper > _INT_LIMITS[xin.dtype][1] and lower >= -2**31 and upper < 2**31:
            integer_bounds, include_upper = True, False  # exact 16-bit binning, as upper is no sample value
        _launch_even(f, xin, o, nbins, lower, upper, integer_bounds, include_upper, win, offsets_in, segments,
                     nchannels, ignored, s, device)
        edges = f.linspace(lower, upper, nbins + 1, xin.dtype if xin.dtype in FLOATING else "float64", device)
    else:
        level = "float32" if xin.dtype in ("float16", "bfloat16", "float32") else "float64"
        levels = f.levels(bins, level, upper_included=True)
        _launch_range(f, xin, o, levels, nbins + 1, win, ignored, s, device)
        edges = bins
    hist = o.result(count)
    return _results(back, hist, edges, f.scalar_view(ignored)) if return_ignored else _results(back, hist, edges)


def bincount(x: Any, minlength: Optional[int] = None, *, weights: Any = None, out: Any = None, dtype: Any = None,
             accumulate: bool = False, return_ignored: bool = False, stream: Any = None):
    """Counts of each value 0 .. minlength - 1 in integer GPU array `x` (any shape), NumPy's bincount without its
    host synchronization: ``minlength`` is required and is the output's length; values outside ``[0, minlength)``
    are ignored (counted with ``return_ignored=True``). weights: float32/float64 of x's shape, summed per value."""
    if minlength is None:
        raise ValueError("minlength is required: it is the output's length (taking it from the data's maximum "
                         "would make the host wait for the GPU)")
    nbins = _bins_count(minlength, "minlength")
    if dtype is not None:
        _dtype_name(dtype, "dtype")
    if accumulate and out is None:
        raise ValueError("accumulate=True adds into an existing histogram: pass it as out=")
    f, x, back = _resolve(x, "x")
    device = f.device(x, "x")
    with _arrays.stream_scope(f, stream, device):
        return _bincount(f, x, back, device, nbins, weights, out, dtype, accumulate, return_ignored, stream)


def _bincount(f, x, back, device, nbins, weights, out, dtype, accumulate, return_ignored, stream):
    xin = _Input(f, x, "x", device)
    if xin.dtype not in INTEGER or xin.dtype == "uint64":
        raise TypeError(f"x has dtype {xin.dtype}; bincount counts integers "
                        f"({', '.join(d for d in SAMPLE_DTYPES if d in INTEGER)})")
    win = _weights(f, weights, xin, device) if weights is not None else None
    kernel = win.dtype if win is not None else "int64"
    count = _count_dtype(dtype, out, f, kernel, win is not None)
    o = _Output(f, (nbins,), kernel, count, out, accumulate, device)
    ignored = f.zeros((1,), "int64", device) if return_ignored else None
    s = None if f.name == "torch" and _compiling(f) else _arrays.stream_of(f, stream, device)
    integer_bounds = xin.dtype in ("uint16", "int16") and win is None
    _launch_even(f, xin, o, nbins, 0.0, float(nbins), integer_bounds, False, win, None, 0, 1, ignored, s, device)
    hist = o.result(count)
    return _results(back, hist, f.scalar_view(ignored)) if return_ignored else _results(back, hist)


def _launch_even(f, xin, o, bins, lower, upper, integer_bounds, include_upper, win, offsets, segments, channels,
                 ignored, stream, device):
    if f.name == "torch" and _compiling(f):
        f.ops.even(xin.x, o.target, win.x if win is not None else None, offsets, ignored, bins, lower, upper,
                        integer_bounds, include_upper, segments, channels, o.kernel_accumulates)
        return
    call_even(f, xin, f.pointer(o.target), bins, lower, upper, integer_bounds, include_upper, win, offsets, segments,
              channels, ignored, o.kernel_accumulates, stream, device)


def call_even(f, xin, hist, bins, lower, upper, integer_bounds, include_upper, win, offsets, segments, channels,
              ignored, accumulate, stream, device):
    """One even-bins call of the compiled library (device pointers from the arrays)."""
    row_samples = xin.row_samples if channels == 1 else xin.size // channels
    _core().histogram_even(
        xin.pointer, _code(xin.dtype), row_samples, xin.rows if channels == 1 else 1, xin.row_stride, hist, bins,
        lower, upper, integer_bounds, include_upper, win.pointer if win is not None else 0,
        _code(win.dtype) if win is not None else _code("float64"), f.pointer(offsets) if offsets is not None else 0,
        segments, channels, f.pointer(ignored) if ignored is not None else 0, accumulate, stream, device)


def _launch_range(f, xin, o, levels, num_levels, win, ignored, stream, device):
    if f.name == "torch" and _compiling(f):
        f.ops.range_(xin.x, o.target, levels, win.x if win is not None else None, ignored, o.kernel_accumulates)
        return
    call_range(f, xin, f.pointer(o.target), levels, num_levels, win, ignored, o.kernel_accumulates, stream, device)


def call_range(f, xin, hist, levels, num_levels, win, ignored, accumulate, stream, device):
    """One call with bins between levels (device pointers from the arrays)."""
    _core().histogram_range(
        xin.pointer, _code(xin.dtype), xin.row_samples, xin.rows, xin.row_stride, hist, f.pointer(levels),
        num_levels, win.pointer if win is not None else 0, _code(win.dtype) if win is not None else _code("float64"),
        f.pointer(ignored) if ignored is not None else 0, accumulate, stream, device)


def _compiling(f: Framework) -> bool:
    """Whether torch.compile is tracing (then the launch goes through onchip's torch operators)."""
    compiler = getattr(f.torch, "compiler", None)
    return bool(f.ops is not None and compiler is not None and compiler.is_compiling())
