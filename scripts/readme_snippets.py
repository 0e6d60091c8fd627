#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Keeps the code snippets of README.md and docs/*.md equal to the example programs they quote.

A snippet is a line `<!-- snippet: examples/FILE.cu#TAG -->` followed by a ```cpp block; its text is the region
between `// example-begin TAG` and `// example-end TAG` in that file.

    scripts/readme_snippets.py --check   # exit 1 and name the stale snippets (a test)
    scripts/readme_snippets.py --write   # rewrite the snippets from the examples

Also checks that every relative link in those documents names a file or folder of the repository, and that
README.md stays user documentation of at most 300 lines (guides and history belong in docs/).
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


README_LINES = 300
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)#\s]+)(?:#[^)]*)?\)")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    documents = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    stale, broken, count = [], [], 0

    def replace(m):
        nonlocal count
        count += 1
        want = region(m.group("file"), m.group("tag"))
        if m.group("body") != want:
            stale.append(f"{m.group('file')}#{m.group('tag')}")
        if mode != "--write":
            return m.group(0)
        return f"<!-- snippet: {m.group('file')}#{m.group('tag')} -->\n```cpp\n{want}```"

    for doc in documents:
        text = doc.read_text()
        updated = MARK.sub(replace, text)
        if mode == "--write" and updated != text:
            doc.write_text(updated)
        for link in LINK.findall(text):
            if not (doc.parent / link).exists():
                broken.append(f"{doc.relative_to(ROOT)}: {link}")
    if count == 0:
        sys.exit("readme_snippets: the documents quote no snippets")
    lines = (ROOT / "README.md").read_text().count("\n")
    if lines > README_LINES:
        sys.exit(f"readme_snippets: README.md has {lines} lines, more than {README_LINES}: move guides to docs/")
    if broken:
        sys.exit("readme_snippets: links to nothing: " + ", ".join(broken))
    if mode == "--write":
        print(f"readme_snippets: {count} snippets, {len(stale)} rewritten")
    elif stale:
        sys.exit("readme_snippets: stale snippets (run scripts/readme_snippets.py --write): " + ", ".join(stale))
    else:
        print(f"readme_snippets: {count} snippets match their examples; every relative link resolves; README.md "
              f"{(ROOT / 'README.md').read_text().count(chr(10))} lines")


if __name__ == "__main__":
    main()
