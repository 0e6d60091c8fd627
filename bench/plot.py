#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Plots bench/results/histogram.csv (written by bench_histogram): throughput against bin count, one panel per
distribution, onchip (filled) and CUB (hollow) per sample type, and the read ceiling measured in the same run.

    python3 bench/plot.py [--csv bench/results/histogram.csv] [--out bench/results/histogram.png]
"""
import argparse
import csv
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def gpu_name(args):
    """The GPU's short name: --gpu, else the first field of gpu.txt beside the CSV (bench/run writes it)."""
    if args.gpu:
        return args.gpu
    try:
        with open(os.path.join(os.path.dirname(args.csv) or ".", "gpu.txt")) as f:
            return f.read().split(",")[0].replace("NVIDIA ", "").strip() or "GPU"
    except OSError:
        return "GPU"


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", default="bench/results/histogram.csv")
    parser.add_argument("--out", default="bench/results/histogram.png")
    parser.add_argument("--gpu", default=None, help="the GPU's name for the axis (default: gpu.txt beside the CSV)")
    args = parser.parse_args()
    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    panels = ["uniform", "normal(0.5, 0.02)", "degenerate", "skewed / image / text"]
    panel_of = {"skewed": 3, "image": 3, "text": 3}
    colors = {"u8": "tab:blue", "u16": "tab:orange", "f32": "tab:green", "i32": "tab:red", "i64": "tab:purple",
              "f64": "tab:brown", "u32": "tab:olive"}
    fig, axes = plt.subplots(1, len(panels), figsize=(20, 5.5), sharey=True)
    ceiling = statistics.median(number(r["read ceiling"]) for r in rows)
    seen = set()
    for r in rows:
        distribution = r["distribution"]
        if any(kind in distribution for kind in ("block primitive", "weighted", "RGBA", "segmented", "global atomics")):
            continue
        base = next((p for p in ("normal(0.5, 0.02)", "uniform", "degenerate", "skewed", "image", "text")
                     if distribution.startswith(p)), None)
        index = panel_of.get(base, panels.index(base) if base in panels else None)
        if index is None:
            continue
        ax = axes[index]
        bins, color = number(r["bins"]), colors.get(r["type"], "black")
        marker = "s" if "range" in distribution else "o"
        ours, theirs = number(r["onchip"]), number(r["CUB"])
        label = r["type"] + (" range" if "range" in distribution else "")
        ax.scatter([bins], [ours], color=color, marker=marker, s=50,
                   label=f"onchip {label}" if (index, label, "o") not in seen else None)
        seen.add((index, label, "o"))
        if theirs is not None:
            ax.scatter([bins], [theirs], facecolors="none", edgecolors=color, marker=marker, s=50,
                       label=f"CUB {label}" if (index, label, "c") not in seen else None)
            seen.add((index, label, "c"))
            ax.plot([bins, bins], [theirs, ours], color=color, alpha=0.3)
    for ax, title in zip(axes, panels):
        ax.axhline(ceiling, color="gray", linestyle="--", label=f"read ceiling ({ceiling:.0f} GB/s)")
        ax.set_xscale("log", base=2)
        ax.set_title(title)
        ax.set_xlabel("bins")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="center right")
    axes[0].set_ylabel(f"GB/s of input (1 GiB, {gpu_name(args)})")
    fig.suptitle("onchip device-wide histogram vs CUB DeviceHistogram (filled: onchip, hollow: CUB)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
