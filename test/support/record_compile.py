#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs a compiler command as a build step and records what it printed and its exit status, for a test to judge.

    record_compile.py --log LOG [--depfile DEP] -- <compiler> <arguments...>
        runs the command with "-MD -MF DEP -MT LOG" added (when --depfile is given: nvcc and gcc write it even when
        the compile fails), so that the build tool runs it again only when the source or a header it read changed;
        writes LOG (the output, then a last line "exit status: N"); exits 0 whatever the compiler's status, since a
        compile that must fail is what some tests expect.
    record_compile.py --show LOG
        prints LOG (for a test: ctest judges the text), and exits 1 when it is missing.
"""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", help="where to write the compiler's output and status")
    ap.add_argument("--depfile", default="")
    ap.add_argument("--show", metavar="LOG", help="print a log written earlier")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()

    if args.show:
        try:
            with open(args.show) as f:
                sys.stdout.write(f.read())
        except OSError:
            sys.exit(f"record_compile: {args.show} is missing: build the project first (the build compiles it)")
        return 0

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not args.log or not command:
        ap.error("give --log LOG and, after --, the command to run")
    if args.depfile:
        command += ["-MD", "-MF", args.depfile, "-MT", args.log]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(args.log, "w") as f:
        f.write("+ " + " ".join(command) + "\n")
        f.write(proc.stdout)
        f.write(f"exit status: {proc.returncode}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
