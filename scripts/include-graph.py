#!/usr/bin/env python3
"""include-graph.py [FOLDER...] - the #include graph of each folder's own modules.

A module is a .c/.h pair sharing a name (st_report.c, st_report.h); a folder's programs
(analyze.c) are modules with no header.  Module A depends on module B when A.c or A.h
includes "B.h" from the same folder.  For each folder this prints:
  - every include cycle among its modules (a strongly connected component of two or more
    modules, listed with the includes that close it), and
  - every arrow from one stage's folder into another stage's folder (runtime/, harness/,
    stats/, plots/ are stages; contracts/ is shared by all and allowed).
Exit status: 0 when no folder has a cycle or a cross-stage arrow, 1 when one does, 2 for a
folder that does not exist.  With no FOLDER it checks every stage and contracts/.
docs/ARCHITECTURE.md describes the stages and why each keeps to its own folder.
"""
import os
import re
import sys

STAGES = ("runtime", "harness", "stats", "plots")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def sccs(graph):
    """Tarjan's strongly connected components, each sorted, in a stable order."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(folder):
    folder = folder.rstrip("/")
    stage = os.path.basename(folder)
    files = sorted(f for f in os.listdir(folder) if f.endswith((".c", ".h")))
    modules = {os.path.splitext(f)[0] for f in files}
    graph = {m: set() for m in modules}
    why = {}  # (A, B) -> the files of A that include B.h
    bad = 0
    for f in files:
        a = os.path.splitext(f)[0]
        for inc in includes(os.path.join(folder, f)):
            parts = os.path.normpath(inc).split(os.sep)
            if len(parts) >= 3 and parts[0] == ".." and parts[1] != stage:
                if parts[1] in STAGES and stage in STAGES:
                    print(f"{folder}: {f} includes {inc}: an arrow from stage {stage}/ into stage {parts[1]}/")
                    bad = 1
                continue
            if len(parts) == 1 and inc.endswith(".h"):
                b = inc[:-2]
                if b in modules and b != a:
                    graph[a].add(b)
                    why.setdefault((a, b), []).append(f)
    for comp in sccs(graph):
        if len(comp) < 2:
            continue
        bad = 1
        print(f"{folder}: a {len(comp)}-module include cycle: {' '.join(comp)}")
        members = set(comp)
        for a in comp:
            for b in sorted(graph[a] & members):
                print(f"  {'/'.join(why[(a, b)])} includes {b}.h")
    return bad


def main(argv):
    folders = argv or [d for d in STAGES + ("contracts",) if os.path.isdir(d)]
    bad = 0
    for folder in folders:
        if not os.path.isdir(folder):
            print(f"include-graph.py: {folder} is not a folder; name a folder of .c/.h modules, such as stats/", file=sys.stderr)
            return 2
        bad |= check(folder)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
