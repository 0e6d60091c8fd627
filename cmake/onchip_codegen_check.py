#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Instruction-contract checker for onchip's codegen tests.

Compiles one probe .cu for one architecture to PTX, assembles that PTX to a cubin with ptxas (as nvcc does),
disassembles the cubin with cuobjdump, and checks the contracts written in the probe itself, one per comment line:

    // contract ptx  <function|*> has   <regex>      the function's PTX matches <regex>
    // contract sass <function|*> lacks <regex>      the function's SASS does not match <regex>
    // contract sass-count <function> == <function>  same number of SASS instructions (NOPs not counted)
    // contract@90 ...                               only when compiling for sm_90 (comma-separated list)

Functions are named as the disassembly names them: give probe kernels extern "C" linkage. A contract that names a
function missing from the output fails. When cuobjdump cannot be found the SASS contracts FAIL: they are never
skipped. Exit status 0 = every contract held.

The build runs `--mode compile` (the PTX and SASS, and a depfile listing every header the probe read, so that the
build tool compiles a probe again only when one of its inputs changed) and ctest runs `--mode check` (the contracts
against those files, in a fraction of a second). `--mode all`, the default, does both, for use by hand.
"""
import argparse
import glob
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig

CONTRACT = re.compile(r"^\s*//\s*contract(?:@(?P<archs>[0-9,]+))?\s+(?P<body>.+?)\s*$")
SASS_INSN = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?P<insn>[^;]*);")


def find_cuobjdump(explicit):
    candidates = [explicit, os.environ.get("ONCHIP_CUOBJDUMP"), shutil.which("cuobjdump")]
    roots = list(site.getsitepackages()) + [site.getusersitepackages(), sysconfig.get_paths()["purelib"]]
    for root in roots:
        candidates += sorted(glob.glob(os.path.join(root, "nvidia", "*", "bin", "cuobjdump")), reverse=True)
        candidates += glob.glob(os.path.join(root, "nvidia", "cuda_cuobjdump", "bin", "cuobjdump"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def split_ptx(ptx):
    """Maps each .entry/.func name to its text."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)\s*\(", ptx)]
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(ptx)
        out[name] = ptx[pos:end]
    return out


def split_sass(sass):
    out = {}
    parts = re.split(r"^\s*Function\s*:\s*(\S+)\s*$", sass, flags=re.M)
    for i in range(1, len(parts), 2):
        out[parts[i]] = parts[i + 1]
    return out


def instructions(text):
    insns = []
    for line in text.splitlines():
        m = SASS_INSN.match(line)
        if m and not re.match(r"^\s*NOP\b", m.group("insn")):
            insns.append(m.group("insn").strip())
    return insns


def run(cmd):
    """Runs cmd and returns its standard output; on failure prints the command and its output, and exits."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        print("+", " ".join(cmd))
        print(proc.stdout)
        sys.exit(f"codegen: command failed with exit status {proc.returncode}")
    return proc.stdout


def read_contracts(source, arch):
    contracts = []
    with open(source) as f:
        for lineno, line in enumerate(f, 1):
            m = CONTRACT.match(line)
            if not m:
                continue
            archs = m.group("archs")
            if archs and arch not in archs.split(","):
                continue
            contracts.append((lineno, m.group("body")))
    if not contracts:
        sys.exit(f"codegen: {source} declares no contract for sm_{arch}")
    return contracts


def compile_probe(args, contracts, stem):
    """Writes <stem>.ptx and, when a contract reads SASS, <stem>.sass; with --depfile, the headers the probe read."""
    base = [args.nvcc, "-std=c++17", "-O3", f"-arch=sm_{args.arch}"] + args.flag
    deps = ["-MD", "-MF", args.depfile, "-MT", args.stamp or stem + ".ptx"] if args.depfile else []
    run(base + ["-ptx", args.source, "-o", stem + ".ptx"] + deps)
    if os.path.exists(stem + ".sass"):
        os.remove(stem + ".sass")
    if not any(body.split()[0].startswith("sass") for _, body in contracts):
        return
    cuobjdump = find_cuobjdump(args.cuobjdump)
    if cuobjdump is None:
        sys.exit("codegen: FAILED: cuobjdump not found, so the SASS contracts cannot be checked. Install it "
                 "(python3 -m pip install 'nvidia-cuda-cuobjdump>=13.2,<14' 'nvidia-cuda-nvdisasm>=13.2,<14'), put "
                 "it on PATH, or set ONCHIP_CUOBJDUMP.")
    # cuobjdump runs nvdisasm, which PyPI installs beside it (nvidia-cuda-nvdisasm).
    os.environ["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + os.environ.get("PATH", "")
    # The cubin from the same PTX, as nvcc itself assembles it (compiling the source again would double the time).
    ptxas = os.path.join(os.path.dirname(os.path.abspath(shutil.which(args.nvcc) or args.nvcc)), "ptxas")
    if not os.access(ptxas, os.X_OK):
        ptxas = shutil.which("ptxas") or ptxas
    run([ptxas, f"-arch=sm_{args.arch}", "-m64", stem + ".ptx", "-o", stem + ".cubin"])
    text = run([cuobjdump, "-sass", stem + ".cubin"])
    with open(stem + ".sass", "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["all", "compile", "check"], default="all",
                    help="compile: write the PTX and SASS (a build step); check: check the contracts against what "
                         "compile wrote (a test); all: both")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuobjdump", default="")
    ap.add_argument("--source", required=True)
    ap.add_argument("--arch", required=True, help="e.g. 90")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--flag", action="append", default=[], help="extra nvcc flag (repeatable)")
    ap.add_argument("--depfile", default="", help="compile: write the probe's dependencies here (Makefile syntax)")
    ap.add_argument("--stamp", default="", help="compile: touch this file once the PTX and SASS are written")
    args = ap.parse_args()

    contracts = read_contracts(args.source, args.arch)
    os.makedirs(args.workdir, exist_ok=True)
    stem = os.path.join(args.workdir, os.path.splitext(os.path.basename(args.source))[0] + f".sm_{args.arch}")
    if args.mode != "check":
        compile_probe(args, contracts, stem)
        if args.stamp:
            with open(args.stamp, "w") as f:
                f.write(f"{stem}.ptx\n")
        if args.mode == "compile":
            return 0

    if not os.path.exists(stem + ".ptx"):
        sys.exit(f"codegen: {stem}.ptx is missing: build the project first (the build compiles the probes)")
    with open(stem + ".ptx") as f:
        ptx = split_ptx(f.read())
    sass = {}
    if any(body.split()[0].startswith("sass") for _, body in contracts):
        if not os.path.exists(stem + ".sass"):
            sys.exit(f"codegen: {stem}.sass is missing: build the project first (the build compiles the probes)")
        with open(stem + ".sass") as f:
            sass = split_sass(f.read())

    failures = 0
    for lineno, body in contracts:
        words = body.split(None, 3)
        where = f"{os.path.basename(args.source)}:{lineno} [sm_{args.arch}]"
        kind = words[0]
        try:
            if kind == "sass-count":
                a, op, b = words[1], words[2], words[3]
                if op != "==":
                    raise ValueError("sass-count supports '==' only")
                for fn in (a, b):
                    if fn not in sass:
                        raise KeyError(fn)
                na, nb = len(instructions(sass[a])), len(instructions(sass[b]))
                ok = na == nb
                print(f"{'ok  ' if ok else 'FAIL'} {where}: {a} has {na} SASS instructions, {b} has {nb}")
            else:
                fn, verb, pattern = words[1], words[2], words[3]
                table = ptx if kind == "ptx" else sass
                names = sorted(table) if fn == "*" else [fn]
                if not names:
                    raise KeyError("*")
                ok = True
                for name in names:
                    if name not in table:
                        raise KeyError(name)
                    hits = [l.strip() for l in table[name].splitlines() if re.search(pattern, l)]
                    good = bool(hits) if verb == "has" else (not hits) if verb == "lacks" else None
                    if good is None:
                        raise ValueError(f"unknown verb '{verb}' (use has or lacks)")
                    shown = f" (e.g. '{hits[0]}')" if hits else ""
                    print(f"{'ok  ' if good else 'FAIL'} {where}: {kind} {name} {verb} /{pattern}/{shown}")
                    ok = ok and good
        except KeyError as e:
            ok = False
            have = ", ".join(sorted(sass if kind.startswith("sass") else ptx))
            print(f"FAIL {where}: function {e} not in the {kind.split('-')[0].upper()} (have: {have})")
        except (ValueError, IndexError) as e:
            ok = False
            print(f"FAIL {where}: malformed contract '{body}': {e}")
        failures += 0 if ok else 1

    print(f"{len(contracts) - failures} of {len(contracts)} contracts held for {args.source} on sm_{args.arch}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
