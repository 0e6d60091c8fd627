# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""onchip's Python histograms side by side with the C++ call, torch, CuPy and the GPU's read ceiling, in one run on
one GPU. Prints a Markdown table and writes it as CSV (and a plot where matplotlib is installed).

    python python/bench/bench.py [--size-gib 1] [--csv results.csv] [--plot results.png]

GB/s is input bytes per second (samples only); times are medians of CUDA-event timings over back-to-back calls,
so a call's time includes its host-side cost wherever that is the longer part."""
import argparse
import csv
import statistics

import cupy
import numpy as np
import torch

import onchip
from onchip import _api, _arrays

READ_KERNEL = cupy.RawKernel(r"""
extern "C" __global__ void read_all(const int4* __restrict__ p, long long n, int* out) {
  int acc = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    int4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) out[0] = acc;  // keeps the loads
}
""", "read_all")


def timed(fn, reps=7, inner=10):
    """Median seconds per call of fn (CUDA events around `inner` back-to-back calls, `reps` times)."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3 / inner)
    return statistics.median(times)


def read_ceiling(x):
    flat = x.view(torch.uint8).view(-1)
    vectors = flat.numel() // 16
    c = cupy.asarray(flat[: vectors * 16])
    out = cupy.zeros(1, dtype=cupy.int32)
    sms = torch.cuda.get_device_properties(0).multi_processor_count

    def run():
        with cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            READ_KERNEL((sms * 8,), (512,), (c, cupy.int64(vectors), out))

    return timed(run)


def cpp_call(x, bins, lower, upper):
    """The library's own call through the extension, with its output allocated once: no Python layer."""
    f = _arrays.framework_of(x)
    xin = _api._Input(f, x, "x", x.device.index or 0)
    hist = torch.empty(bins, dtype=torch.int64, device=x.device)
    stream = torch.cuda.current_stream().cuda_stream
    integer = xin.dtype in ("uint16", "int16") and upper > 65535
    return lambda: _api.call_even(f, xin, hist.data_ptr(), bins, float(lower), float(upper), integer, not integer,
                                  None, None, 0, 1, None, False, stream, xin.device)


def cccl_even(x, bins, lower, upper):
    """cuda.compute.histogram_even (PyPI cuda-cccl, CUB from Python), its object and temporary storage made once."""
    import cuda.compute as cc

    hist = cupy.empty(bins, dtype=cupy.int32)
    levels = np.array([bins + 1], np.int32)
    lo, hi = np.array([lower]), np.array([upper])
    call = cc.make_histogram_even(d_samples=x, d_histogram=hist, h_num_output_levels=levels, h_lower_level=lo,
                                  h_upper_level=hi, num_samples=x.size)
    kwargs = dict(d_samples=x, d_histogram=hist, h_num_output_levels=levels, h_lower_level=lo, h_upper_level=hi,
                  num_samples=x.size)
    temp = cupy.empty(max(call(temp_storage=None, **kwargs), 1), dtype=cupy.uint8)
    stream = torch.cuda.current_stream().cuda_stream

    def run():
        call(temp_storage=temp, stream=stream, **kwargs)

    return run


def attempt(fn):
    try:
        return timed(fn)
    except Exception as e:  # an unsupported case of a competitor is reported, not fatal
        return f"unsupported ({type(e).__name__})"


def attempt_made(make):
    """attempt() of the callable that `make` returns (making it may fail too: not installed, unsupported)."""
    try:
        fn = make()
    except Exception as e:
        return f"unsupported ({type(e).__name__})"
    return attempt(fn)


def row(rows, case, nbytes, entries):
    record = {"case": case}
    for name, t in entries.items():
        record[name] = t if isinstance(t, str) else nbytes / t / 1e9
    rows.append(record)
    print({k: (round(v) if isinstance(v, float) else v) for k, v in record.items()}, flush=True)
    return record


def print_table(records, number):
    """A Markdown table of `records` (dicts; a column per key, in order of appearance); returns the columns."""
    columns = []
    for r in records:
        columns += [c for c in r if c not in columns]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in records:
        print("| " + " | ".join(r[c] if isinstance(r.get(c), str) else (number(r[c]) if c in r else "-")
                                for c in columns) + " |")
    return columns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-gib", type=float, default=1.0)
    ap.add_argument("--csv", default="python_bench.csv")
    ap.add_argument("--plot", default=None)
    args = ap.parse_args()
    n = int(args.size_gib * (1 << 30))
    gen = torch.Generator(device="cuda").manual_seed(1)
    rows = []

    u8 = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda", generator=gen)
    ceiling = read_ceiling(u8)
    cu8 = cupy.asarray(u8)
    row(rows, "uint8, 256 bins", n, {
        "read ceiling": ceiling,
        "onchip (Python)": timed(lambda: onchip.histogram(u8, 256, (0, 256))),
        "onchip bincount (Python)": timed(lambda: onchip.bincount(u8, 256)),
        "C++ call": timed(cpp_call(u8, 256, 0, 256)),
        "torch.bincount": attempt(lambda: torch.bincount(u8, minlength=256)),
        "torch.histc": attempt(lambda: torch.histc(u8, 256, 0, 256)),
        "cupy.bincount": attempt(lambda: cupy.bincount(cu8, minlength=256)),
        "cuda.compute": attempt_made(lambda: cccl_even(cu8, 256, np.int32(0), np.int32(256))),
    })
    del cu8

    f32 = torch.rand(n // 4, device="cuda", generator=gen)
    cf32 = cupy.asarray(f32)
    row(rows, "float32, 1024 bins", n, {
        "read ceiling": ceiling,
        "onchip (Python)": timed(lambda: onchip.histogram(f32, 1024, (0, 1))),
        "C++ call": timed(cpp_call(f32, 1024, 0.0, 1.0)),
        "torch.histc": attempt(lambda: torch.histc(f32, 1024, 0, 1)),
        "cupy.histogram": attempt(lambda: cupy.histogram(cf32, 1024, (0, 1))),
        "cuda.compute": attempt_made(lambda: cccl_even(cf32, 1024, np.float32(0), np.float32(1))),
    })
    del cf32
    for dt in (torch.bfloat16, torch.float16):
        h = torch.rand(n // 2, device="cuda", generator=gen).to(dt)
        row(rows, f"{str(dt).replace('torch.', '')}, 1024 bins", n, {
            "read ceiling": ceiling,
            "onchip (Python)": timed(lambda: onchip.histogram(h, 1024, (0, 1))),
            "C++ call": timed(cpp_call(h, 1024, 0.0, 1.0)),
            "torch.histc": attempt(lambda: torch.histc(h, 1024, 0, 1)),
        })
        del h
    del f32

    rows_n, width = 16384, 4096
    batch = u8[: rows_n * width].view(rows_n, width)
    base = (torch.arange(rows_n, device="cuda", dtype=torch.int64) * 256).view(-1, 1)
    ones = torch.ones(rows_n * width, dtype=torch.int64, device="cuda")

    def torch_scatter():
        out = torch.zeros(rows_n * 256, dtype=torch.int64, device="cuda")
        out.scatter_add_(0, (base + batch.long()).view(-1), ones)
        return out

    def torch_bincount_rows():
        return torch.bincount((base + batch.long()).view(-1), minlength=rows_n * 256)

    row(rows, "batched: 16384 rows x 4 KiB uint8, 256 bins", rows_n * width, {
        "read ceiling": ceiling,
        "onchip (Python)": timed(lambda: onchip.histogram(batch, 256, (0, 256), axis=-1)),
        "torch scatter_add_": timed(torch_scatter),
        "torch.bincount of row * 256 + x": timed(torch_bincount_rows),
    })
    del base, ones, batch

    latency = []
    moe_ids = {}
    for experts in (64, 256):
        ids = torch.randint(0, experts, (1 << 20,), dtype=torch.int64, device="cuda", generator=gen)
        moe_ids[experts] = ids
        latency.append({"case": f"MoE counts: 1M int64 ids, {experts} experts", **{
            k: f"{v * 1e6:.1f} us" for k, v in {
                "onchip.bincount": timed(lambda: onchip.bincount(ids, experts), inner=50),
                "torch.bincount": timed(lambda: torch.bincount(ids, minlength=experts), inner=50),
            }.items()}})

    for size in (4096, 65536, 1 << 20):
        x = u8[:size]
        xf = torch.rand(size // 4, device="cuda", generator=gen)
        latency.append({"case": f"per call, uint8 256 bins, {size // 1024} KiB", **{
            k: f"{v * 1e6:.1f} us" for k, v in {
                "onchip.histogram": timed(lambda: onchip.histogram(x, 256, (0, 256)), inner=100),
                "onchip.bincount": timed(lambda: onchip.bincount(x, 256), inner=100),
                "C++ call": timed(cpp_call(x, 256, 0, 256), inner=100),
                "torch.bincount": timed(lambda: torch.bincount(x, minlength=256), inner=100),
                "torch.histc": timed(lambda: torch.histc(xf, 256, 0, 1), inner=100),
            }.items()}})
        latency.append({"case": f"per call, float32 1024 bins, {size // 1024} KiB", **{
            k: f"{v * 1e6:.1f} us" for k, v in {
                "onchip.histogram": timed(lambda: onchip.histogram(xf, 1024, (0, 1)), inner=100),
                "C++ call": timed(cpp_call(xf, 1024, 0.0, 1.0), inner=100),
                "torch.histc": timed(lambda: torch.histc(xf, 1024, 0, 1), inner=100),
            }.items()}})

    # Last, as a failed capture may leave the stream unusable for a while: which MoE counting a CUDA graph takes.
    for r, (experts, ids) in zip([r for r in latency if r["case"].startswith("MoE")], moe_ids.items()):
        for name, fn in (("onchip.bincount", lambda: onchip.bincount(ids, experts)),
                         ("torch.bincount", lambda: torch.bincount(ids, minlength=experts))):
            g = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(g):
                    fn()
                r[name] += ", captured"
            except Exception as e:
                r[name] += f", not capturable ({type(e).__name__})"
                torch.cuda.synchronize()

    print(f"GPU: {torch.cuda.get_device_name(0)}; input {args.size_gib:g} GiB; GB/s of input (median of 7)")
    columns = print_table(rows, lambda v: f"{v:.0f}")
    print()
    print_table(latency, str)
    with open(args.csv, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=sorted({k for r in rows + latency for k in r}, key=lambda k: k != "case"))
        w.writeheader()
        for r in rows + latency:
            w.writerow({k: (f"{v:.1f}" if isinstance(v, float) else v) for k, v in r.items()})
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib: no plot")
            return
        names = [c for c in columns if c != "case"]
        fig, ax = plt.subplots(figsize=(10, 4.5))
        width_bar = 0.8 / len(names)
        for i, name in enumerate(names):
            values = [r[name] if isinstance(r.get(name), float) else 0 for r in rows]
            ax.bar(np.arange(len(rows)) + i * width_bar, values, width_bar, label=name)
        ax.set_xticks(np.arange(len(rows)) + 0.4 - width_bar / 2, [r["case"] for r in rows], fontsize=7)
        ax.set_ylabel("GB/s of input")
        ax.set_title(f"onchip from Python, {torch.cuda.get_device_name(0)}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
