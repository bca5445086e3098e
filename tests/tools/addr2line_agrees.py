#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""jeheap's source lines for an object's addresses are eu-addr2line's.

Usage: addr2line_agrees.py PROFILE JEHEAP_ADDRESSES_OUTPUT PATH_SUFFIX

For each address of `jeheap top --addresses` that lies in the profile's
mapping of a file whose path ends with PATH_SUFFIX, the locations jeheap
gives (one row per frame: inlined ones and the containing function) must be
those `eu-addr2line -i -e FILE VADDR` prints (elfutils: libdw opening the
whole file and its build-id debug file itself, where jeheap inflates only
the units it needs), in any order, columns and discriminators aside.
binutils' addr2line is no oracle here: on glibc's DWARF 5 it names another
file for the same line (libc-start.c:58 for libc_start_call_main.h:58).
Exits 1 on a difference or when no address could be compared; prints how
many were."""
import collections
import re
import subprocess
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from proven import mappings, segments  # noqa: E402


def main():
    profile, rows_file, suffix = sys.argv[1:4]
    maps = [m for m in mappings(profile) if m[3].endswith(suffix)]
    if not maps:
        print(f"no mapping of *{suffix} in {profile}")
        return 1
    ours = collections.defaultdict(list)
    with open(rows_file) as f:
        for row in f:
            m = re.match(r"^\s*(?:\S+\s+){5}([0-9a-f]{16}) .*? (\S+:(?:\d+|\?)(?: \(discriminator \d+\))?)$",
                         row.rstrip("\n"))
            if m:
                ours[int(m.group(1), 16)].append(m.group(2))
    checked, bad = 0, []
    for addr, locs in sorted(ours.items()):
        hit = [mp for mp in maps if mp[0] <= addr < mp[1]]
        if not hit:
            continue
        start, _, off, path = hit[0]
        foff = addr - start + off
        vaddr = [foff - so + va for so, va, sz in segments(path) if so <= foff < so + sz]
        if not vaddr:
            continue
        out = subprocess.run(["eu-addr2line", "-i", "-e", path, hex(vaddr[0])],
                             capture_output=True, text=True).stdout.split("\n")
        theirs = [re.sub(r":(\d+):\d+$", r":\1", l).replace("??:0", "??:?") for l in out if l]
        locs = [re.sub(r" \(discriminator \d+\)$", "", l) for l in locs]
        checked += 1
        if sorted(theirs) != sorted(locs):
            bad.append(f"{addr:#x} (vaddr {vaddr[0]:#x}): jeheap {locs}, eu-addr2line {theirs}")
    for b in bad:
        print("differs:", b)
    if bad or not checked:
        print(f"{len(bad)} of {checked} addresses differ")
        return 1
    print(f"{checked} addresses of *{suffix}: the same lines as eu-addr2line")
    return 0


sys.exit(main())
