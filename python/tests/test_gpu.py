# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""On the GPU: every sample dtype, bin count and form against NumPy on the host (exact integer counts), with torch
and CuPy arrays; edges, NaN, out-of-range samples, empty and odd inputs, misaligned slices; streams, CUDA graphs,
torch.compile and other DLPack producers."""
import numpy as np
import pytest

import onchip

pytestmark = pytest.mark.gpu


class Torch:
    name = "torch"

    def __init__(self):
        import torch

        self.t = torch
        self.dtypes = {"bfloat16": torch.bfloat16}

    def put(self, a, dtype=None):
        if dtype == "bfloat16":
            return self.t.from_numpy(np.asarray(a, np.float32)).to("cuda").to(self.t.bfloat16)
        if dtype is not None:
            a = np.asarray(a).astype(dtype)
        return self.t.from_numpy(np.ascontiguousarray(a)).to("cuda")

    def get(self, a):
        if a.dtype == self.t.bfloat16:
            a = a.float()
        return a.cpu().numpy()

    def sync(self):
        self.t.cuda.synchronize()


class CuPy:
    name = "cupy"

    def __init__(self):
        import cupy

        self.c = cupy

    def put(self, a, dtype=None):
        if dtype == "bfloat16":
            pytest.skip("CuPy has no bfloat16 arrays")
        return self.c.asarray(np.asarray(a) if dtype is None else np.asarray(a).astype(dtype))

    def get(self, a):
        return self.c.asnumpy(a)

    def sync(self):
        self.c.cuda.get_current_stream().synchronize()


@pytest.fixture(params=["torch", "cupy"], scope="module")
def xp(request):
    pytest.importorskip(request.param)
    return Torch() if request.param == "torch" else CuPy()


INT_DTYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "int64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]


def samples(dtype, n, seed, lower, upper):
    """Values that land exactly on bin edges as often as inside bins (multiples of 1/8 for floats), the upper
    edge, and out-of-range values; NaN and infinities for floats."""
    rng = np.random.default_rng(seed)
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        lo, hi = max(int(lower) - 3, info.min), min(int(upper) + 3, info.max)
        return rng.integers(lo, hi, n, endpoint=True).astype(dtype)
    x = rng.integers(int(lower * 8) - 24, int(upper * 8) + 24, n, endpoint=True) / 8.0
    if n > 10:
        x[rng.integers(0, n, 3)] = np.nan
        x[rng.integers(0, n, 2)] = np.inf
        x[rng.integers(0, n, 2)] = -np.inf
        x[rng.integers(0, n, 5)] = upper
    return x.astype(np.float32 if dtype == "bfloat16" else dtype)


def numpy_histogram(x, bins, range_=None, weights=None):
    x = np.asarray(x, dtype=np.float64)
    keep = np.isfinite(x)
    w = None if weights is None else np.asarray(weights, np.float64)[keep]
    return np.histogram(x[keep], bins=bins, range=range_, weights=w)[0]


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES)
@pytest.mark.parametrize("bins", [1, 7, 64, 256, 1024, 65536])
def test_even_bins_match_numpy(xp, dtype, bins):
    if dtype in ("uint8", "int8"):
        lower, upper = (0, 256) if dtype == "uint8" else (-128, 128)
    else:
        lower, upper = (-16, 48) if dtype not in ("uint16", "uint32") else (0, 64)
    if dtype in ("float16", "bfloat16") and bins > 1024:
        pytest.skip("half-precision samples in 2^16 bins of 1/1024: below their resolution")
    host = samples(dtype, 100_003, bins, lower, upper)
    x = xp.put(host, dtype)
    hist, edges = onchip.histogram(x, bins, (lower, upper))
    expected = numpy_histogram(xp.get(x), bins, (lower, upper))  # the values as the device holds them
    got = xp.get(hist)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(xp.get(edges).astype(np.float64), np.linspace(lower, upper, bins + 1),
                               rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-6)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float32", "float64", "float16"])
def test_range_bins_match_numpy_with_the_last_edge_included(xp, dtype):
    edges_host = np.array([-10, -2.5, 0, 0.25, 1, 7, 12, 13, 40], dtype=np.float64)
    if dtype in ("uint8",):
        edges_host = np.array([0, 1, 2, 10, 100, 200, 255], dtype=np.float64)
    host = samples(dtype, 50_001, 3, edges_host[0], edges_host[-1])
    if dtype in INT_DTYPES:
        host[::97] = int(edges_host[-1])  # the last edge itself
    x = xp.put(host, dtype)
    edges = xp.put(edges_host)
    hist, back = onchip.histogram(x, edges)
    np.testing.assert_array_equal(xp.get(hist), numpy_histogram(host, edges_host))
    assert back is edges
    np.testing.assert_array_equal(xp.get(edges), edges_host)  # the caller's edges are untouched


@pytest.mark.parametrize("n", [0, 1, 2, 3, 31, 33, 4095, 65537])
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_sizes_and_misaligned_slices(xp, n, offset):
    host = samples("float32", n + offset + 2, n, 0, 4)
    x = xp.put(host)[offset:offset + n]
    hist, _ = onchip.histogram(x, 32, (0, 4))
    np.testing.assert_array_equal(xp.get(hist), numpy_histogram(host[offset:offset + n], 32, (0, 4)))
    b = xp.put(samples("uint16", n + offset, n, 0, 100))[offset:]
    np.testing.assert_array_equal(xp.get(onchip.bincount(b, 100)),
                                  np.bincount(xp.get(b)[xp.get(b) < 100], minlength=100))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16", "int16", "int32", "uint32", "int64"])
def test_bincount_matches_numpy_and_counts_the_rest_as_ignored(xp, dtype):
    host = samples(dtype, 200_001, 9, 0, 250)
    x = xp.put(host)
    hist, ignored = onchip.bincount(x, 250, return_ignored=True)
    h = host.astype(np.int64)
    inside = (h >= 0) & (h < 250)
    np.testing.assert_array_equal(xp.get(hist), np.bincount(h[inside], minlength=250))
    assert int(xp.get(ignored)) == int((~inside).sum())


def test_ignored_counts_nan_infinities_and_outside(xp):
    host = samples("float32", 10_000, 1, 0, 1)
    hist, _, ignored = onchip.histogram(xp.put(host), 10, (0, 1), return_ignored=True)
    counted = np.isfinite(host) & (host >= 0) & (host <= 1)
    assert int(xp.get(ignored)) == int((~counted).sum()) and int(xp.get(hist).sum()) == int(counted.sum())


@pytest.mark.parametrize("wdtype", ["float32", "float64"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_weights(xp, dtype, wdtype):
    host = samples(dtype, 30_011, 5, 0, 16)
    w = np.random.default_rng(2).random(host.shape[0]).astype(wdtype)
    hist, _ = onchip.histogram(xp.put(host), 16, (0, 16), weights=xp.put(w))
    got = xp.get(hist)
    assert got.dtype == np.dtype(wdtype)
    np.testing.assert_allclose(got, numpy_histogram(host, 16, (0, 16), w), rtol=1e-4 if wdtype == "float32" else 1e-10)
    edges = xp.put(np.array([0, 1, 4, 9, 16], np.float64))
    hist, _ = onchip.histogram(xp.put(host), edges, weights=xp.put(w))
    np.testing.assert_allclose(xp.get(hist), numpy_histogram(host, [0, 1, 4, 9, 16], None, w),
                               rtol=1e-4 if wdtype == "float32" else 1e-10)
    wb = onchip.bincount(xp.put(samples("int32", 1000, 1, 0, 10)), 10, weights=xp.put(w[:1000]))
    h = samples("int32", 1000, 1, 0, 10)
    keep = (h >= 0) & (h < 10)
    np.testing.assert_allclose(xp.get(wb), np.bincount(h[keep], weights=w[:1000][keep], minlength=10), rtol=1e-4)


def test_per_row_histograms_and_ragged_segments(xp):
    host = samples("uint8", 16 * 4096, 4, 0, 256).reshape(4, 4, 4096)
    hist, _ = onchip.histogram(xp.put(host), 256, (0, 256), axis=-1)
    got = xp.get(hist)
    assert got.shape == (4, 4, 256)
    for i in range(4):
        for j in range(4):
            np.testing.assert_array_equal(got[i, j], np.bincount(host[i, j], minlength=256))
    flat = samples("float32", 10_000, 6, 0, 1)
    offsets = np.array([0, 0, 5, 1000, 1000, 9999, 10_000], np.int64)
    hist, _ = onchip.histogram(xp.put(flat), 20, (0, 1), offsets=xp.put(offsets))
    got = xp.get(hist)
    for s in range(len(offsets) - 1):
        np.testing.assert_array_equal(got[s], numpy_histogram(flat[offsets[s]:offsets[s + 1]], 20, (0, 1)))


@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
@pytest.mark.parametrize("channels", [2, 3, 4])
def test_interleaved_channels(xp, dtype, channels):
    top = 256 if dtype == "uint8" else 4096
    host = samples(dtype, 64 * 33 * channels, channels, 0, top - 4).reshape(64, 33, channels)
    hist, _ = onchip.histogram(xp.put(host), 128, (0, top), channels=channels)
    got = xp.get(hist)
    for c in range(channels):
        np.testing.assert_array_equal(got[c], numpy_histogram(host[..., c].ravel(), 128, (0, top)))


def test_a_strided_region_is_read_in_place(xp):
    host = samples("float32", 300 * 64, 8, 0, 1).reshape(300, 64)
    x = xp.put(host)[10:250, 3:50]
    hist, _ = onchip.histogram(x, 50, (0, 1))
    np.testing.assert_array_equal(xp.get(hist), numpy_histogram(host[10:250, 3:50].ravel(), 50, (0, 1)))


@pytest.mark.parametrize("count", ["int32", "int64", "float32", "float64"])
def test_count_dtypes_out_and_accumulate(xp, count):
    host = samples("int16", 10_000, 3, -100, 100)
    x = xp.put(host)
    expected = numpy_histogram(host, 40, (-100, 100))
    hist, _ = onchip.histogram(x, 40, (-100, 100), dtype=count)
    assert xp.get(hist).dtype == np.dtype(count)
    np.testing.assert_array_equal(xp.get(hist), expected)
    out = xp.put(np.ones(40, count))
    onchip.histogram(x, 40, (-100, 100), out=out, accumulate=True)
    np.testing.assert_array_equal(xp.get(out), expected + 1)
    onchip.histogram(x, 40, (-100, 100), out=out)
    np.testing.assert_array_equal(xp.get(out), expected)


def test_16_bit_integers_over_their_whole_range(xp):
    host = samples("uint16", 300_007, 1, 0, 65535)
    for bins in (1, 256, 1000, 65536):
        hist, _ = onchip.histogram(xp.put(host), bins, (0, 65536))
        np.testing.assert_array_equal(xp.get(hist), numpy_histogram(host, bins, (0, 65536)))
    signed = samples("int16", 300_007, 2, -32768, 32767)
    hist, _ = onchip.histogram(xp.put(signed), 4096, (-32768, 32768))
    np.testing.assert_array_equal(xp.get(hist), numpy_histogram(signed, 4096, (-32768, 32768)))


def test_bins_beyond_shared_memory(xp):
    host = np.random.default_rng(11).random(3_000_017).astype(np.float32)
    hist, _ = onchip.histogram(xp.put(host), 1 << 20, (0, 1))
    np.testing.assert_array_equal(xp.get(hist), numpy_histogram(host, 1 << 20, (0, 1)))


def test_bad_input_names_the_argument(xp):
    x = xp.put(np.zeros(10, np.float32))
    with pytest.raises(TypeError, match="x has dtype bool"):
        onchip.histogram(xp.put(np.zeros(4, bool)), 4, (0, 1))
    with pytest.raises(ValueError, match="out has shape"):
        onchip.histogram(x, 4, (0, 1), out=xp.put(np.zeros(5, np.int64)))
    with pytest.raises(TypeError, match="out has dtype"):
        onchip.histogram(x, 4, (0, 1), out=xp.put(np.zeros(4, np.int32)), dtype="int64")
    with pytest.raises(ValueError, match="at least 2 values"):
        onchip.histogram(x, xp.put(np.zeros(1)))
    with pytest.raises(ValueError, match="65536|levels"):
        onchip.histogram(x, xp.put(np.arange(70_000, dtype=np.float64)))
    with pytest.raises(ValueError, match="axis=0"):
        onchip.histogram(xp.put(np.zeros((4, 4), np.float32)), 4, (0, 1), axis=0)
    with pytest.raises(TypeError, match="weights have dtype"):
        onchip.histogram(x, 4, (0, 1), weights=xp.put(np.zeros(10, np.int32)))
    with pytest.raises(ValueError, match="range='auto'"):
        onchip.histogram(x, 4)
    hist, edges = onchip.histogram(xp.put(np.array([2.0, 3.0, 5.0], np.float32)), 3, "auto")
    np.testing.assert_array_equal(xp.get(hist), [1, 1, 1])


def test_host_tensors_are_refused_with_how_to_move_them():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="cpu device.*cuda"):
        onchip.histogram(torch.zeros(10), 4, (0, 1))
    x = torch.zeros(10, device="cuda")
    with pytest.raises(TypeError, match="out is on the cpu"):
        onchip.histogram(x, 4, (0, 1), out=torch.zeros(4, dtype=torch.int64))


def test_a_non_default_stream_orders_the_work():
    torch = pytest.importorskip("torch")
    s = torch.cuda.Stream()
    host = samples("uint8", 1 << 22, 1, 0, 256)
    with torch.cuda.stream(s):
        x = torch.from_numpy(host).to("cuda", non_blocking=False)
        hist = onchip.bincount(x, 256)
    s.synchronize()
    np.testing.assert_array_equal(hist.cpu().numpy(), np.bincount(host, minlength=256))
    explicit = torch.cuda.Stream()
    explicit.wait_stream(torch.cuda.current_stream())
    hist2 = torch.empty(256, dtype=torch.int64, device="cuda")
    onchip.bincount(x, 256, out=hist2, stream=explicit)
    explicit.synchronize()
    np.testing.assert_array_equal(hist2.cpu().numpy(), np.bincount(host, minlength=256))


def test_cuda_graph_capture_and_replay():
    torch = pytest.importorskip("torch")
    ids = torch.randint(0, 64, (1 << 20,), dtype=torch.int64, device="cuda")
    counts = torch.zeros(64, dtype=torch.int64, device="cuda")
    values = torch.rand(1 << 20, device="cuda")
    hist = torch.zeros(100, dtype=torch.int64, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up outside the capture
        onchip.bincount(ids, 64, out=counts)
        onchip.histogram(values, 100, (0, 1), out=hist)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        onchip.bincount(ids, 64, out=counts)
        onchip.histogram(values, 100, (0, 1), out=hist)
    for _ in range(3):
        ids.copy_(torch.randint(0, 64, ids.shape, device="cuda"))
        values.copy_(torch.rand(values.shape, device="cuda"))
        graph.replay()
        torch.cuda.synchronize()
        np.testing.assert_array_equal(counts.cpu().numpy(), np.bincount(ids.cpu().numpy(), minlength=64))
        np.testing.assert_array_equal(hist.cpu().numpy(), numpy_histogram(values.cpu().numpy(), 100, (0, 1)))


def test_torch_compile_fullgraph():
    torch = pytest.importorskip("torch")

    @torch.compile(fullgraph=True)
    def routing(logits, values):
        experts = logits.argmax(dim=-1)
        counts = onchip.bincount(experts, 8)
        hist, edges = onchip.histogram(values, 16, (0, 1))
        return counts * 2, hist, edges

    logits = torch.randn(4096, 8, device="cuda")
    values = torch.rand(10_000, device="cuda")
    counts, hist, edges = routing(logits, values)
    np.testing.assert_array_equal(counts.cpu().numpy(),
                                  2 * np.bincount(logits.argmax(-1).cpu().numpy(), minlength=8))
    np.testing.assert_array_equal(hist.cpu().numpy(), numpy_histogram(values.cpu().numpy(), 16, (0, 1)))
    assert edges.shape == (17,)


def test_other_dlpack_producers_get_their_own_arrays_back():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        pytest.skip("JAX sees no GPU")
    host = samples("int32", 10_000, 2, 0, 50)
    x = jax.device_put(jnp.asarray(host), gpu)
    hist = onchip.bincount(x, 50)
    assert type(hist).__module__.split(".")[0] in ("jax", "jaxlib")
    h = host.astype(np.int64)
    np.testing.assert_array_equal(np.asarray(hist), np.bincount(h[(h >= 0) & (h < 50)], minlength=50))


def test_numba_device_arrays():
    numba_cuda = pytest.importorskip("numba.cuda")
    host = samples("uint8", 5000, 3, 0, 256)
    d = numba_cuda.to_device(host)
    hist = onchip.bincount(d, 256)
    np.testing.assert_array_equal(np.asarray(hist.copy_to_host() if hasattr(hist, "copy_to_host") else hist),
                                  np.bincount(host, minlength=256))


def test_past_4_gib_with_int64_counts():
    torch = pytest.importorskip("torch")
    n = (1 << 32) + (1 << 29)  # 4.5 GiB of bytes, all in one bin
    free, _ = torch.cuda.mem_get_info()
    if free < n + (1 << 30):
        pytest.skip("needs 5.5 GiB of free GPU memory")
    x = torch.full((n,), 7, dtype=torch.uint8, device="cuda")
    hist = onchip.bincount(x, 256)
    assert int(hist[7]) == n and int(hist.sum()) == n
    del x


def test_distributed_helpers_on_a_one_rank_group():
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    import onchip.distributed

    if not dist.is_available() or not dist.is_nccl_available():
        pytest.skip("torch without NCCL")
    with pytest.raises(RuntimeError, match="process group"):
        onchip.distributed.bincount(torch.zeros(4, dtype=torch.int64, device="cuda"), 4)
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    try:
        ids = torch.randint(0, 64, (1 << 20,), dtype=torch.int64, device="cuda")
        counts = onchip.distributed.bincount(ids, 64)
        assert torch.equal(counts, torch.bincount(ids, minlength=64))
        values = torch.rand(1 << 20, device="cuda")
        hist, edges, work = onchip.distributed.histogram(values, 32, (0, 1), async_op=True)
        work.wait()
        np.testing.assert_array_equal(hist.cpu().numpy(), numpy_histogram(values.cpu().numpy(), 32, (0, 1)))
        out = torch.zeros(64, dtype=torch.int64, device="cuda")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            onchip.distributed.bincount(ids, 64, out=out)  # warm-up outside the capture
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # the step with its all-reduce, captured: no host synchronization inside
            onchip.distributed.bincount(ids, 64, out=out)
        ids.copy_(torch.randint(0, 64, ids.shape, device="cuda"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, torch.bincount(ids, minlength=64))
    finally:
        dist.destroy_process_group()
