#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Refreshes the rows of a README table of histogram cases from a results CSV of the histogram benchmark.

    scripts/maintainer/readme_table.py CSV HEADING [README]

The table is the first one after the line that starts with HEADING (e.g. "## Histogram speed (H200"); each row
keeps its case and takes onchip GB/s, CUB GB/s, % of read ceiling and onchip / CUB from the CSV row of the same
case. Rows whose case the CSV lacks are left as they are and listed on standard error; the exit status is 1 then.
"""
import csv
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    source, heading = sys.argv[1], sys.argv[2]
    readme = sys.argv[3] if len(sys.argv) == 4 else "README.md"
    rows = {r["case"]: r for r in csv.DictReader(open(source, newline=""))}
    lines = open(readme).read().split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        sys.exit(f"readme_table: no line starts with {heading!r} in {readme}")
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("| case |"))
    missing = []
    i = first + 2  # past the header and its rule
    while i < len(lines) and lines[i].startswith("|"):
        case = lines[i].split("|")[1].strip()
        r = rows.get(case)
        if r is None:
            missing.append(case)
        else:
            lines[i] = "| " + " | ".join([case, r["onchip"], r["CUB"], r["onchip % of ceiling"],
                                          r["onchip / CUB"]]) + " |"
        i += 1
    open(readme, "w").write("\n".join(lines))
    print(f"readme_table: {i - first - 2 - len(missing)} rows refreshed from {source}")
    for case in missing:
        print(f"readme_table: not in {source}: {case}", file=sys.stderr)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
