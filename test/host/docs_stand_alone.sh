#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Project documents speak of the project alone: no paths outside the repository, no tool manuals, no issue numbers.
# Checks README.md, CONTRIBUTING.md, bench/ and docs/ documents, the scripts, and the headers' comments (which the
# API reference is made of); nor do they speak of how the work was organized (machines lent, sessions, device time).
root="$1"
cd "$root" || exit 1
found=$(grep -rnE '\.\./shared|shared/research|METHOD\.md|HOPPER\.md|device tool|\(issue [0-9]+\)|issues? [0-9]+\b|was lent|being lent|device time|the session' \
  README.md CONTRIBUTING.md bench/*.md bench/notes docs include scripts 2>/dev/null)
if [ -n "$found" ]; then
  echo "documents that point outside the project:"; echo "$found"; exit 1
fi
echo "docs_stand_alone: ok"
