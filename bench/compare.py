#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares two runs of a benchmark table (CSV files written by bench_histogram) case by case.

    bench/compare.py BEFORE.csv AFTER.csv [--column onchip] [--lower-is-better]

Prints a markdown table: case, the column in each run, and the change in percent (positive: the second run is
faster). Cases present in only one run are listed with a dash.
"""
import argparse
import csv
import re


def load(path, column):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {row["case"]: row.get(column, "") for row in rows}, [row["case"] for row in rows]


NUMBER = re.compile(r"[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?")


def number(text):
    return float(text) if NUMBER.fullmatch(text or "") else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--column", default="onchip")
    parser.add_argument("--lower-is-better", action="store_true", help="times rather than rates")
    args = parser.parse_args()
    before, order = load(args.before, args.column)
    after, order_after = load(args.after, args.column)
    order += [case for case in order_after if case not in before]
    print(f"| case | before ({args.column}) | after ({args.column}) | change |")
    print("|---|---|---|---|")
    for case in order:
        a, b = number(before.get(case, "")), number(after.get(case, ""))
        if a is None or b is None or a == 0 or b == 0:
            change = "-"
        else:
            gain = (a / b - 1) if args.lower_is_better else (b / a - 1)
            change = f"{100 * gain:+.1f}%"
        print(f"| {case} | {before.get(case, '-')} | {after.get(case, '-')} | {change} |")


if __name__ == "__main__":
    main()
