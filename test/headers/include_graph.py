#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the include graph of onchip's headers: the only cycles allowed are a public header and its one
definitions file, <onchip/X.cuh> and <onchip/detail/.../X_impl.cuh>, which the public header includes after its
declarations. Also checks that every *_impl.cuh is such a definitions file.

    include_graph.py <include dir>     exit 0 and a summary, or 1 with each cycle and broken rule
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*<(onchip/[^>]+)>', re.M)


def graph(root):
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob('*') if p.suffix in ('.cuh', '.hpp'))
    edges = {f: sorted(set(INCLUDE.findall((root / f).read_text()))) for f in files}
    return files, edges


def cycles(files, edges):
    """Strongly connected sets of more than one file (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in files:
        if start in index:
            continue
        work = [(start, iter(edges.get(start, [])))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in edges:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(edges[nxt])))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    w = stack.pop(); on.discard(w); scc.append(w)
                    if w == node:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))
    return out


def definitions_pair(scc):
    """The public header and its definitions file, if `scc` is exactly such a pair."""
    if len(scc) != 2:
        return None
    public = [f for f in scc if f.count('/') == 1]
    impl = [f for f in scc if f.startswith('onchip/detail/')]
    if len(public) != 1 or len(impl) != 1:
        return None
    stem = pathlib.PurePosixPath(public[0]).stem
    return (public[0], impl[0]) if pathlib.PurePosixPath(impl[0]).name == stem + '_impl.cuh' else None


def main():
    root = pathlib.Path(sys.argv[1])
    files, edges = graph(root)
    problems = []
    for scc in cycles(files, edges):
        if definitions_pair(scc) is None:
            problems.append('include cycle: ' + ' -> '.join(scc))
    for f in files:
        name = pathlib.PurePosixPath(f).name
        if not name.endswith('_impl.cuh'):
            continue
        public = 'onchip/' + name[:-len('_impl.cuh')] + '.cuh'
        if public not in edges:
            problems.append(f'{f}: a definitions file without its public header {public}')
        elif f not in edges[public]:
            problems.append(f'{f}: {public} does not include it')
        else:
            text = (root / public).read_text()
            if text.rfind('namespace') > text.find('<' + f + '>'):
                problems.append(f'{f}: {public} includes it before its own declarations end')
        users = [g for g in files if f in edges[g] and g != public]
        if users:
            problems.append(f'{f}: included by {", ".join(users)} (only {public} may)')
    for p in problems:
        print(p)
    edge_count = sum(len(v) for v in edges.values())
    print(f'{len(files)} headers, {edge_count} includes among them: {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
