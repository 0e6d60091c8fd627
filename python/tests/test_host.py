# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What can be checked without a GPU: the import, the signatures, the errors for bad arguments, and the way the
arguments become library calls (through a NumPy stand-in for a GPU framework that records the calls)."""
import inspect
import math

import numpy as np
import pytest

import onchip
from onchip import _api, _arrays


def test_import_and_signatures():
    assert callable(onchip.histogram) and callable(onchip.bincount)
    h = inspect.signature(onchip.histogram).parameters
    assert list(h)[:3] == ["x", "bins", "range"]
    for name in ("weights", "out", "dtype", "accumulate", "axis", "offsets", "channels", "return_ignored", "stream"):
        assert h[name].kind is inspect.Parameter.KEYWORD_ONLY, name
    b = inspect.signature(onchip.bincount).parameters
    assert list(b)[:2] == ["x", "minlength"]
    assert "int64" in onchip.COUNT_DTYPES and "bfloat16" in onchip.SAMPLE_DTYPES
    assert isinstance(onchip.architectures(), str) and onchip.architectures()


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(bins=0, range=(0, 1)), ValueError, "bins must be between 1 and 2**30"),
    (dict(bins=2**30 + 1, range=(0, 1)), ValueError, "bins must be between"),
    (dict(bins=2.5, range=(0, 1)), TypeError, "bins must be an int"),
    (dict(bins=[0.0, 1.0, 2.0]), TypeError, "GPU array of edges"),
    (dict(bins=10), ValueError, "range='auto'"),
    (dict(bins=10, range=(1, 1)), ValueError, "lower must be below upper"),
    (dict(bins=10, range=(2, 1)), ValueError, "lower must be below upper"),
    (dict(bins=10, range=(0, math.nan)), ValueError, "range must be finite"),
    (dict(bins=10, range=(0, math.inf)), ValueError, "range must be finite"),
    (dict(bins=10, range="data"), ValueError, "'auto'"),
    (dict(bins=10, range=(0, 1), channels=5), ValueError, "channels must be 1 to 4"),
    (dict(bins=10, range=(0, 1), axis=-1, channels=3), ValueError, "cannot be combined"),
    (dict(bins=10, range=(0, 1), axis=-1, weights=np.ones(4)), ValueError, "weights cannot be combined"),
    (dict(bins=10, range=(0, 1), accumulate=True), ValueError, "pass it as out="),
    (dict(bins=10, range=(0, 1), dtype="complex64"), TypeError, "unknown dtype"),
    (dict(bins=10, range=(0, 1), axis="last"), TypeError, "axis must be None or -1"),
    (dict(bins=10, range=(0, 1)), TypeError, "host (NumPy) array"),
])
def test_histogram_rejects_bad_arguments_with_a_message(kwargs, error, words):
    with pytest.raises(error, match=words.replace("*", r"\*").replace("(", r"\(").replace(")", r"\)")):
        onchip.histogram(np.arange(4, dtype=np.float32), **kwargs)


def test_histogram_rejects_what_is_no_gpu_array():
    with pytest.raises(TypeError, match="expected a GPU array"):
        onchip.histogram([1, 2, 3], 10, (0, 4))
    with pytest.raises(TypeError, match="expected a GPU array"):
        onchip.histogram(3.0, 10, (0, 4))


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(), ValueError, "minlength is required"),
    (dict(minlength=0), ValueError, "minlength must be between 1"),
    (dict(minlength=True), TypeError, "minlength must be an int"),
    (dict(minlength=4, accumulate=True), ValueError, "pass it as out="),
    (dict(minlength=4), TypeError, "host \\(NumPy\\) array"),
])
def test_bincount_rejects_bad_arguments_with_a_message(kwargs, error, words):
    with pytest.raises(error, match=words):
        onchip.bincount(np.arange(4), **kwargs)


# A stand-in for a GPU framework over NumPy arrays: what the histogram functions would ask of the library.
class NumpyFramework(_arrays.Framework):
    name = "numpy-standin"

    def owns(self, x):
        return isinstance(x, np.ndarray)

    def dtype_name(self, x):
        return str(x.dtype)

    def device(self, x, what):
        return 0

    def pointer(self, x):
        return x.__array_interface__["data"][0]

    def strides(self, x):
        return tuple(x.strides)

    def current_stream(self, device):
        return 1234

    def empty(self, shape, dtype, device):
        return np.zeros(shape, dtype=dtype)

    zeros = empty

    def linspace(self, lower, upper, num, dtype, device):
        return np.linspace(lower, upper, num).astype(dtype)

    def row_offsets(self, rows, row_samples, device):
        return np.arange(rows + 1, dtype=np.int64) * row_samples

    def levels(self, edges, dtype, upper_included):
        levels = np.array(edges, dtype=dtype)
        if upper_included:
            levels[-1] = np.nextafter(levels[-1], np.inf)
        return levels

    def copy_into(self, out, src, accumulate):
        out[...] = out + src if accumulate else src

    def cast(self, a, dtype):
        return a.astype(dtype)


class Recorder:
    dtype_codes = {name: i for i, name in enumerate(onchip.SAMPLE_DTYPES)}

    def __init__(self):
        self.calls = []

    def histogram_even(self, *args):
        self.calls.append(("even", args))

    def histogram_range(self, *args):
        self.calls.append(("range", args))


EVEN_ARGS = ["samples", "sample_dtype", "row_samples", "rows", "row_stride_bytes", "hist", "bins", "lower", "upper",
             "integer_bounds", "include_upper", "weights", "weight_dtype", "offsets", "segments", "channels",
             "ignored", "accumulate", "stream", "device"]


@pytest.fixture
def recorded(monkeypatch):
    recorder = Recorder()
    fw = NumpyFramework()
    monkeypatch.setattr(_api, "_core", lambda: recorder)
    monkeypatch.setattr(_arrays, "framework_of", lambda x, what="x": fw)
    return recorder


def last_even(recorder):
    kind, args = recorder.calls[-1]
    assert kind == "even"
    return dict(zip(EVEN_ARGS, args))


def test_a_padded_2d_view_is_read_as_rows_with_a_stride(recorded):
    base = np.zeros((5, 16), dtype=np.float32)
    view = base[:, 1:12]  # 11 samples a row, rows 64 bytes apart, starting 4 bytes in
    hist, edges = onchip.histogram(view, 8, (0, 1))
    c = last_even(recorded)
    assert (c["rows"], c["row_samples"], c["row_stride_bytes"]) == (5, 11, 64)
    assert c["samples"] == base.__array_interface__["data"][0] + 4
    assert c["include_upper"] and not c["integer_bounds"] and c["stream"] == 1234
    assert hist.shape == (8,) and hist.dtype == np.int64
    assert edges.dtype == np.float32 and edges.shape == (9,)


def test_other_layouts_are_refused_with_how_to_fix(recorded):
    with pytest.raises(ValueError, match="contiguous"):
        onchip.histogram(np.zeros((8, 8), np.float32)[:, ::2], 4, (0, 1))
    with pytest.raises(ValueError, match="contiguous"):
        onchip.histogram(np.zeros((8, 8), np.float32).T, 4, (0, 1))


def test_rows_become_segments_of_one_call(recorded):
    x = np.zeros((3, 4, 10), dtype=np.uint8)
    hist, _ = onchip.histogram(x, 16, (0, 256), axis=-1)
    c = last_even(recorded)
    assert c["segments"] == 12 and hist.shape == (3, 4, 16)


def test_16_bit_integers_bin_exactly_with_integer_bounds_when_upper_is_no_sample(recorded):
    onchip.histogram(np.zeros(10, np.uint16), 256, (0, 65536))
    assert last_even(recorded)["integer_bounds"] and not last_even(recorded)["include_upper"]
    onchip.histogram(np.zeros(10, np.uint16), 256, (0, 65535))  # 65535 is a sample value: NumPy's last edge
    assert not last_even(recorded)["integer_bounds"] and last_even(recorded)["include_upper"]
    onchip.histogram(np.zeros(10, np.int32), 256, (0, 2**40))
    assert not last_even(recorded)["integer_bounds"]


def test_channels_weights_and_counts(recorded):
    rgb = np.zeros((4, 5, 3), dtype=np.uint8)
    hist, _ = onchip.histogram(rgb, 256, (0, 256), channels=3)
    c = last_even(recorded)
    assert c["channels"] == 3 and c["row_samples"] == 20 and hist.shape == (3, 256)
    with pytest.raises(TypeError, match="8- and 16-bit"):
        onchip.histogram(np.zeros((4, 3), np.float32), 4, (0, 1), channels=3)
    w = np.ones(10, np.float32)
    hist, _ = onchip.histogram(np.zeros(10, np.float32), 4, (0, 1), weights=w)
    assert hist.dtype == np.float32 and last_even(recorded)["weights"] == w.__array_interface__["data"][0]
    with pytest.raises(TypeError, match="weighted counts"):
        onchip.histogram(np.zeros(10, np.float32), 4, (0, 1), weights=w, dtype="int64")
    with pytest.raises(ValueError, match="one weight per sample"):
        onchip.histogram(np.zeros(10, np.float32), 4, (0, 1), weights=np.ones(9, np.float32))
    hist, _ = onchip.histogram(np.zeros(10, np.float32), 4, (0, 1), dtype="int32")
    assert hist.dtype == np.int32


def test_out_must_match(recorded):
    x = np.zeros(10, np.float32)
    with pytest.raises(ValueError, match="shape"):
        onchip.histogram(x, 4, (0, 1), out=np.zeros(5, np.int64))
    with pytest.raises(TypeError, match="dtype"):
        onchip.histogram(x, 4, (0, 1), out=np.zeros(4, np.int64), dtype="int32")
    out = np.zeros(4, np.int64)
    hist, _ = onchip.histogram(x, 4, (0, 1), out=out, accumulate=True)
    assert hist is out and last_even(recorded)["accumulate"] and last_even(recorded)["hist"] == \
        out.__array_interface__["data"][0]


def test_edges_get_their_top_raised_for_numpy_last_bin(recorded):
    edges = np.array([0.0, 0.5, 2.0], dtype=np.float64)
    hist, back = onchip.histogram(np.zeros(10, np.float32), edges)
    kind, args = recorded.calls[-1]
    assert kind == "range" and args[7] == 3 and hist.shape == (2,) and back is edges


def test_bincount_bounds(recorded):
    onchip.bincount(np.zeros(10, np.int64), 64)
    c = last_even(recorded)
    assert (c["bins"], c["lower"], c["upper"], c["include_upper"]) == (64, 0.0, 64.0, False)
    with pytest.raises(TypeError, match="bincount counts integers"):
        onchip.bincount(np.zeros(10, np.float32), 4)


def test_an_explicit_stream_orders_the_calls_arrays_too(recorded, monkeypatch):
    entered = []

    class Scope:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            entered.append(self.handle)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(NumpyFramework, "stream_scope", lambda self, handle, device: Scope(handle), raising=False)
    onchip.histogram(np.zeros(10, np.float32), 4, (0, 1), stream=77)
    assert entered == [77] and last_even(recorded)["stream"] == 77
    onchip.bincount(np.zeros(10, np.int32), 4)
    assert entered == [77] and last_even(recorded)["stream"] == 1234  # the framework's current stream
    with pytest.raises(TypeError, match="stream"):
        onchip.bincount(np.zeros(10, np.int32), 4, stream=True)


def test_examples_and_benchmark_compile(tmp_path):
    import pathlib
    import py_compile

    root = pathlib.Path(__file__).resolve().parents[1]
    scripts = sorted(root.glob("examples/*.py")) + sorted(root.glob("bench/*.py"))
    assert len(scripts) >= 5
    for script in scripts:
        py_compile.compile(str(script), doraise=True, cfile=str(tmp_path / (script.stem + ".pyc")))
