#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""No circle of source files: A calls into B, B (through others) into A.

The graph is read from the built objects, as the linker sees them: each
object's defined global functions and data (nm: T, D, B, R) and what it
takes from elsewhere (U). A file depends on the file that defines a symbol
it takes; libc and the other libraries define nothing here, so only the
project's own files are nodes. Static functions are a file's own business.
A circle (a strongly connected component of more than one file) is
printed with the symbols that close it, and the exit status is 1.

    circles.py OBJECT...
"""
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    out = subprocess.run(["nm", "--undefined-only", "-g", obj], capture_output=True,
                         text=True, check=True).stdout
    used = {l.split()[-1] for l in out.splitlines() if l.split()}
    return defined, used


def source_name(obj):
    # libtool and automake prefix objects with their target's name
    # (src/rcall/libengine_la-rcall_stop.o): the source is what follows.
    d, _, base = obj.rpartition("/")
    base = base.rsplit(".", 1)[0]
    if "-" in base:
        base = base.split("-", 1)[1]
    d = d.replace("/.libs", "")
    return (d + "/" if d else "") + base + ".c"


def strongly_connected(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(objs):
    if not objs:
        print(__doc__.strip().splitlines()[-1].strip())
        return 2
    files, owner = {}, {}
    for o in objs:
        name = source_name(o)
        defined, used = symbols(o)
        files[name] = used
        for s in defined:
            owner.setdefault(s, name)
    edges, why = {}, {}
    for f, used in files.items():
        for s in used:
            g = owner.get(s)
            if g and g != f:
                edges.setdefault(f, set()).add(g)
                why.setdefault((f, g), []).append(s)
    circles = strongly_connected(files, edges)
    for comp in circles:
        print("circle of %d files:" % len(comp))
        members = set(comp)
        for f in comp:
            for g in sorted(edges.get(f, ())):
                if g in members:
                    print("  %s -> %s (%s)" % (f, g, ", ".join(sorted(why[(f, g)])[:4])))
    print("%d files, %d dependencies, %d circles" %
          (len(files), sum(len(v) for v in edges.values()), len(circles)))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
