# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip histograms of dask arrays: one onchip call per chunk, on the GPU of the worker that holds it, and a tree
sum of the chunks' 64-bit partial histograms (dask's own ``da.histogram`` pattern, with onchip as the block
function).

CuPy-backed chunks (``dask.array`` over ``cupy``, e.g. on ``dask_cuda.LocalCUDACluster`` workers) are counted where
they are. NumPy-backed chunks are first copied to the worker's GPU (``cupy.asarray``): that copy over the host's
bus, not the histogram, then sets the speed. Each partial comes back to the host as 8 bytes per bin, so the reduction runs on any worker, with or without a GPU.
Workers need onchip and CuPy."""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

__all__ = ["histogram", "bincount"]


def _on_gpu(block: Any) -> Any:
    import cupy

    return block if isinstance(block, cupy.ndarray) else cupy.asarray(block)


def _to_host(a: Any) -> np.ndarray:
    get = getattr(a, "get", None)
    return np.asarray(get() if get is not None else a.cpu().numpy())


def _on_gpu_with_weights(block, weights):
    """The chunk, flat, on this worker's GPU, and the keyword arguments of its weights (float64 sums)."""
    x = _on_gpu(block).ravel()
    return x, ({} if weights is None else {"weights": _on_gpu(weights).ravel(), "dtype": "float64"})


def _count_block(block, weights, bins, lower, upper):
    """One chunk's histogram on this worker's GPU, as a (1, bins) host array."""
    import onchip

    x, kwargs = _on_gpu_with_weights(block, weights)
    return _to_host(onchip.histogram(x, bins, (lower, upper), **kwargs)[0])[None, :]


def _count_values(block, weights, minlength):
    """One chunk's counts of 0 .. minlength - 1, as a (1, minlength) host array."""
    import onchip

    x, kwargs = _on_gpu_with_weights(block, weights)
    return _to_host(onchip.bincount(x, minlength, **kwargs))[None, :]


def _partials(x, weights, name: str, fn, args: tuple, width: int, dtype) -> Any:
    import dask.array as da
    from dask.base import tokenize
    from dask.core import flatten
    from dask.highlevelgraph import HighLevelGraph

    if not isinstance(x, da.Array):
        raise TypeError(f"x must be a dask array, got {type(x).__name__} (for other arrays use onchip.{name})")
    keys = list(flatten(x.__dask_keys__()))
    deps = [x]
    if weights is not None:
        if not isinstance(weights, da.Array) or weights.shape != x.shape:
            raise ValueError("weights must be a dask array of x's shape")
        weights = weights.rechunk(x.chunks)
        wkeys = list(flatten(weights.__dask_keys__()))
        deps.append(weights)
    else:
        wkeys = [None] * len(keys)
    out = f"onchip-{name}-" + tokenize(x, weights, name, args)
    graph = {(out, i, 0): (fn, k, w) + args for i, (k, w) in enumerate(zip(keys, wkeys))}
    hlg = HighLevelGraph.from_collections(out, graph, dependencies=deps)
    return da.Array(hlg, out, ((1,) * len(keys), (width,)), dtype=dtype, meta=np.empty((0, 0), dtype=dtype))


def histogram(x: Any, bins: int, range: Tuple[float, float], *, weights: Any = None,
              split_every: Optional[int] = None) -> Tuple[Any, np.ndarray]:
    """Histogram of dask array `x` (any shape and chunks) in `bins` equal bins over `range` (required), NumPy's
    rules (the last bin holds its upper edge): ``(hist, bin_edges)``, `hist` a lazy dask array of int64 counts
    (float64 with `weights`, a dask array of x's shape and chunks), `bin_edges` a NumPy array. `split_every`: the
    reduction tree's fan-in (dask's default, 4, when None)."""
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins must be a positive int, got {bins!r}")
    try:
        lower, upper = (float(v) for v in range)
    except (TypeError, ValueError):
        raise TypeError(f"range must be a pair of numbers (lower, upper), got {range!r}") from None
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise ValueError(f"range must be finite with lower below upper, got ({lower}, {upper})")
    dtype = np.float64 if weights is not None else np.int64
    parts = _partials(x, weights, "histogram", _count_block, (bins, lower, upper), bins, dtype)
    return parts.sum(axis=0, split_every=split_every, dtype=dtype), np.linspace(lower, upper, bins + 1)


def bincount(x: Any, minlength: int, *, weights: Any = None, split_every: Optional[int] = None) -> Any:
    """Counts of the values 0 .. minlength - 1 of integer dask array `x` (`minlength` required; values outside are
    ignored): a lazy dask array of int64 counts (float64 with `weights`)."""
    if isinstance(minlength, bool) or not isinstance(minlength, int) or minlength < 1:
        raise ValueError(f"minlength must be a positive int, got {minlength!r}")
    dtype = np.float64 if weights is not None else np.int64
    parts = _partials(x, weights, "bincount", _count_values, (minlength,), minlength, dtype)
    return parts.sum(axis=0, split_every=split_every, dtype=dtype)
