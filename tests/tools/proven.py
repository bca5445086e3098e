#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every name jeheap gives an address must be proven by a symbol's extent.

Usage: proven.py [--allow-none] PROFILE JEHEAP_ADDRESSES_OUTPUT

Reads the profile's MAPPED_LIBRARIES (address -> file, file offset), each
file's program headers and symbol tables (readelf, from binutils), and the
rows of `jeheap top --addresses` ("ADDR function file:line"). For each row
whose function names a symbol of the address's object, the address must lie
in [value, value + size) of one symbol of that name. Prints the rows that do
not, exits 1 if any (or if nothing could be checked, unless --allow-none:
a sampled profile may hold no row a symbol table can check), else prints
how many rows were checked."""
import re
import subprocess
import sys

MAPS = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) \S+ \d+\s+(/.*)$")


def mappings(profile):
    out, on = [], False
    with open(profile, errors="replace") as f:
        for line in f:
            if line.startswith("MAPPED_LIBRARIES:"):
                on = True
            elif on:
                m = MAPS.match(line.rstrip("\n"))
                if m and "x" in m.group(3):
                    out.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(4), 16),
                                m.group(5)))
    return out


def readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], capture_output=True,
                          text=True).stdout


def segments(path):
    segs = []
    for line in readelf(["-l"], path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset, vaddr, filesz
    return segs


def symbols(path):
    """name -> [(value, size)] of FUNC symbols, from .symtab and .dynsym."""
    syms = {}
    for line in readelf(["-s", "--dyn-syms"], path).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND":
            name = f[7].split("@")[0]
            syms.setdefault(name, []).append((int(f[1], 16), int(f[2], 0)))
    return syms


def main():
    allow_none = sys.argv[1] == "--allow-none"
    if allow_none:
        del sys.argv[1]
    maps = mappings(sys.argv[1])
    cache = {}
    checked, bad = 0, []
    with open(sys.argv[2]) as f:
        rows = f.read().splitlines()
    for row in rows:
        m = re.match(r"^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+([0-9a-f]{16}) (\S+)( \(inline\))?", row)
        if not m or m.group(3):
            continue
        addr, name = int(m.group(1), 16), m.group(2)
        hit = [mp for mp in maps if mp[0] <= addr < mp[1]]
        if not hit:
            continue
        start, _, off, path = hit[0]
        if path not in cache:
            cache[path] = (segments(path), symbols(path))
        segs, syms = cache[path]
        if name not in syms:
            continue  # a DWARF or demangled name: not a symbol to check
        foff = addr - start + off
        vaddr = [foff - so + va for so, va, sz in segs if so <= foff < so + sz]
        if not vaddr:
            continue
        checked += 1
        if not any(v <= vaddr[0] < v + s for v, s in syms[name]):
            bad.append(f"{row.strip()}  (vaddr {vaddr[0]:#x} outside every {name})")
    for b in bad:
        print("unproven:", b)
    if bad or (not checked and not allow_none):
        print(f"{len(bad)} unproven of {checked} checked")
        return 1
    print(f"{checked} named rows, each inside its symbol's extent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
