#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fails if a file under include/ or tools/ is not formatted as .clang-format says (clang-format 14, the version
# whose output the tree is kept in; other versions format some lines differently, so the test is skipped there:
# exit 77). CI installs clang-format 14.
#   check_format.sh <repository root>
set -uo pipefail
cd "$1"
tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null && "$candidate" --version | grep -q "version 14\."; then
    tool="$candidate"
    break
  fi
done
if [ -z "$tool" ]; then
  echo "check_format: clang-format 14 not found (apt-get install clang-format-14); skipped"
  exit 77
fi
bad=0
while IFS= read -r f; do
  if ! "$tool" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: $tool -i $f)"
    bad=1
  fi
done < <(git ls-files include tools 2>/dev/null | grep -E '\.(cuh|hpp|cu|cpp)$' ||
         find include tools -type f \( -name '*.cuh' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cpp' \))
[ "$bad" = 0 ] && echo "check_format: include/ and tools/ formatted as .clang-format says"
exit "$bad"
