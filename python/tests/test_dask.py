# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip.dask: the graph (one partial per chunk, a tree sum) checked on the host with NumPy standing in for the
per-chunk GPU call; on a GPU, the real thing on CuPy- and NumPy-backed chunks."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import onchip.dask as odask  # noqa: E402


def numpy_block(block, weights, bins, lower, upper):
    x = np.asarray(block, dtype=np.float64).ravel()
    w = None if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    keep = np.isfinite(x)
    return np.histogram(x[keep], bins, (lower, upper), weights=None if w is None else w[keep])[0][None, :]


def numpy_values(block, weights, minlength):
    x = np.asarray(block).ravel().astype(np.int64)
    keep = (x >= 0) & (x < minlength)
    w = None if weights is None else np.asarray(weights, dtype=np.float64).ravel()[keep]
    return np.bincount(x[keep], weights=w, minlength=minlength)[None, :]


@pytest.fixture
def on_host(monkeypatch):
    monkeypatch.setattr(odask, "_count_block", numpy_block)
    monkeypatch.setattr(odask, "_count_values", numpy_values)


def test_one_partial_per_chunk_summed_in_a_tree(on_host):
    values = np.random.default_rng(0).random(100_003) * 12 - 1
    x = da.from_array(values, chunks=1000)  # 101 chunks
    hist, edges = odask.histogram(x, 10, (0, 10), split_every=2)
    assert isinstance(hist, da.Array) and hist.dtype == np.int64 and hist.shape == (10,)
    tasks = dict(hist.__dask_graph__())
    partials = [k for k in tasks if isinstance(k, tuple) and str(k[0]).startswith("onchip-histogram-")]
    assert len(partials) == 101
    np.testing.assert_array_equal(hist.compute(), np.histogram(values, 10, (0, 10))[0])
    np.testing.assert_array_equal(edges, np.linspace(0, 10, 11))


def test_any_shape_and_irregular_chunks_with_weights(on_host):
    rng = np.random.default_rng(1)
    values = rng.integers(-5, 300, (97, 61))
    weights = rng.random((97, 61))
    x = da.from_array(values, chunks=((50, 47), (20, 20, 21)))
    w = da.from_array(weights, chunks=30)  # other chunks: rechunked to x's
    hist, _ = odask.histogram(x, 256, (0, 256), weights=w)
    assert hist.dtype == np.float64
    np.testing.assert_allclose(hist.compute(), np.histogram(values, 256, (0, 256), weights=weights)[0])
    counts = odask.bincount(x, 256)
    inside = values[(values >= 0) & (values < 256)]
    np.testing.assert_array_equal(counts.compute(), np.bincount(inside, minlength=256))


def test_bad_arguments():
    x = da.zeros(10, chunks=5)
    with pytest.raises(TypeError, match="dask array"):
        odask.histogram(np.zeros(10), 4, (0, 1))
    with pytest.raises(ValueError, match="bins"):
        odask.histogram(x, 0, (0, 1))
    with pytest.raises(ValueError, match="lower below upper"):
        odask.histogram(x, 4, (1, 0))
    with pytest.raises(ValueError, match="minlength"):
        odask.bincount(x, 0)
    with pytest.raises(ValueError, match="x's shape"):
        odask.histogram(x, 4, (0, 1), weights=da.zeros(9, chunks=5))


@pytest.mark.gpu
def test_on_the_gpu_cupy_and_numpy_chunks():
    cupy = pytest.importorskip("cupy")
    values = np.random.default_rng(2).integers(0, 256, 3_000_017).astype(np.uint8)
    expected = np.bincount(values, minlength=256)
    for backing in (cupy.asarray(values), values):
        x = da.from_array(backing, chunks=1 << 18)
        hist, _ = odask.histogram(x, 256, (0, 256))
        np.testing.assert_array_equal(np.asarray(hist.compute()), expected)
        np.testing.assert_array_equal(np.asarray(odask.bincount(x, 256).compute()), expected)
