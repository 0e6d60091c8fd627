#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Project documents stand on their own: no paths outside the repository (the shared notes beside a checkout, tool
# manuals) and no issue numbers. Checks README.md, CONTRIBUTING.md, bench/ and docs/ documents, the scripts, and the
# headers' comments (which the API reference is made of).
root="$1"
cd "$root" || exit 1
found=$(grep -rnE '\.\./shared|shared/research|METHOD\.md|HOPPER\.md|\(issue [0-9]+\)|issues? [0-9]+\b' \
  README.md CONTRIBUTING.md bench/*.md bench/notes docs include scripts 2>/dev/null)
if [ -n "$found" ]; then
  echo "documents that point outside the project:"; echo "$found"; exit 1
fi
echo "docs_stand_alone: ok"
