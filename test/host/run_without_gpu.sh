#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# scripts/run on a machine without a GPU: says so on standard error before configuring or building anything, exits
# 1, and writes nothing to standard output; run from another folder. Skipped (77) where there is a GPU.
set -u
root="$1"
if ls /dev/nvidia[0-9]* >/dev/null 2>&1 || { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  exit 77
fi
dir=$(mktemp -d); cd "$dir" || exit 1
# cmake, ninja and nvcc stand-ins that leave a mark: scripts/run must not reach any of them.
mkdir tools
for t in cmake ninja nvcc; do printf '#!/bin/sh\ntouch "%s/built"\n' "$dir" >"tools/$t"; chmod +x "tools/$t"; done
PATH="$dir/tools:$PATH" "$root/scripts/run" -t u8 data.bin >out.txt 2>err.txt
rc=$?
fail() { echo "run_without_gpu: $1"; echo "stdout:"; cat out.txt; echo "stderr:"; cat err.txt; exit 1; }
[ "$rc" = 1 ] || fail "exit status $rc, expected 1"
[ ! -s out.txt ] || fail "standard output is not empty"
grep -q "onchip-hist: no NVIDIA GPU on this machine" err.txt || fail "the no-GPU sentence is missing"
[ ! -e built ] || fail "it configured or built before saying there is no GPU"
echo "run_without_gpu: ok (exit 1 before any build, stdout empty)"
