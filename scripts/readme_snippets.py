#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Keeps README.md's code snippets equal to the example programs they quote.

A snippet is a line `<!-- snippet: examples/FILE.cu#TAG -->` followed by a ```cpp block; its text is the region
between `// example-begin TAG` and `// example-end TAG` in that file.

    scripts/readme_snippets.py --check   # exit 1 and show the first difference when a snippet is stale (a test)
    scripts/readme_snippets.py --write   # rewrite the snippets from the examples
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = re.compile(r"<!-- snippet: (?P<file>[^#]+)#(?P<tag>[\w-]+) -->\n```cpp\n(?P<body>.*?)```", re.S)


def region(file, tag):
    text = (ROOT / file).read_text()
    begin, end = f"// example-begin {tag}\n", f"// example-end {tag}"
    if begin not in text or end not in text:
        sys.exit(f"readme_snippets: {file} has no region '{tag}'")
    start = text.index(begin) + len(begin)
    return text[start:text.rindex("\n", 0, text.index(end)) + 1]  # whole lines, without the end marker's indent


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    readme = (ROOT / "README.md").read_text()
    stale, count = [], 0

    def replace(m):
        nonlocal count
        count += 1
        want = region(m.group("file"), m.group("tag"))
        if m.group("body") != want:
            stale.append(f"{m.group('file')}#{m.group('tag')}")
        if mode != "--write":
            return m.group(0)
        return f"<!-- snippet: {m.group('file')}#{m.group('tag')} -->\n```cpp\n{want}```"

    updated = MARK.sub(replace, readme)
    if count == 0:
        sys.exit("readme_snippets: README.md quotes no snippets")
    if mode == "--write":
        (ROOT / "README.md").write_text(updated)
        print(f"readme_snippets: {count} snippets, {len(stale)} rewritten")
    elif stale:
        sys.exit("readme_snippets: stale README snippets (run scripts/readme_snippets.py --write): " + ", ".join(stale))
    else:
        print(f"readme_snippets: {count} snippets match their examples")


if __name__ == "__main__":
    main()
