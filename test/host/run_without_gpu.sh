#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# scripts/run on a machine without a GPU: answers --help (exit 0, usage on standard output) and argument errors
# (exit 2) as on any machine, then says there is no usable GPU on standard error (one of onchip-hist's three
# sentences: no driver, an old driver, no device) and exits 1 with nothing on standard output; none of it configures
# or builds anything. Run from another folder. Skipped (77) where there is a GPU.
set -u
root="$1"
if ls /dev/nvidia[0-9]* >/dev/null 2>&1 || { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  exit 77
fi
dir=$(mktemp -d); cd "$dir" || exit 1
# cmake, ninja and nvcc stand-ins that leave a mark: scripts/run must not reach any of them.
mkdir tools
for t in cmake ninja nvcc; do printf '#!/bin/sh\ntouch "%s/built"\n' "$dir" >"tools/$t"; chmod +x "tools/$t"; done
fail() { echo "run_without_gpu: $1"; echo "stdout:"; cat out.txt; echo "stderr:"; cat err.txt; exit 1; }
run() { PATH="$dir/tools:$PATH" "$root/scripts/run" "$@" >out.txt 2>err.txt; }

run --help
rc=$?
[ "$rc" = 0 ] || fail "--help: exit status $rc, expected 0"
grep -q "usage: onchip-hist" out.txt || fail "--help: no usage on standard output"
run -t u8 --bins
rc=$?
[ "$rc" = 2 ] || fail "--bins without a value: exit status $rc, expected 2"
grep -q "onchip-hist: --bins needs a value" err.txt || fail "--bins without a value: no sentence saying so"
run -t u8 data.bin
rc=$?
[ "$rc" = 1 ] || fail "exit status $rc, expected 1"
[ ! -s out.txt ] || fail "standard output is not empty"
grep -qE "onchip-hist: (no NVIDIA driver is installed|the NVIDIA driver supports CUDA|no CUDA device found)" err.txt ||
  fail "the no-GPU sentence is missing"
[ ! -e built ] || fail "it configured or built before answering"
echo "run_without_gpu: ok (help, an argument error and no GPU answered before any build; stdout empty without a GPU)"
