#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# blob2c.sh ELF OUT.c: the sampler's hooks, linked by sampler.lds, as a C
# array jeattach copies into a target, with the offsets of the three
# hooks and of the install and removal jeattach calls. As CRIU's compel does with its
# parasites, but smaller: the blob must need no relocation at all, and this
# refuses one that would (an undefined symbol, a relocation, a writable
# section).
set -eu
# readelf alone: it reads an ELF of any architecture, where a host's
# objcopy and nm know only their own (a cross build).
elf=$1 out=$2
: "${READELF:=readelf}"
und=$($READELF -sW "$elf" | awk '$7 == "UND" && $8 != "" { print $8 }')
if [ -n "$und" ]; then
	echo "blob2c.sh: $elf calls outside itself: $(echo $und)" >&2
	exit 1
fi
if $READELF -rW "$elf" | grep -q '^Relocation section'; then
	echo "blob2c.sh: $elf has relocations; the sampler must be position-independent" >&2
	exit 1
fi
# The .blob section's file offset and size ("[Nr] Name Type Address Off Size ...").
set -- $($READELF -SW "$elf" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".blob" { print $4, $5 }')
[ $# = 2 ] || { echo "blob2c.sh: no .blob section in $elf" >&2; exit 1; }
boff=$((0x$1)) blen=$((0x$2))
off() {
	v=$($READELF -sW "$elf" | awk -v s="$1" '$8 == s { print $2 }')
	[ -n "$v" ] || { echo "blob2c.sh: no $1 in $elf" >&2; exit 1; }
	printf '%d' "0x$v"
}
a=$(off sampler_alloc_entry) d=$(off sampler_dalloc) x=$(off sampler_expand)
i=$(off sampler_install) r=$(off sampler_remove)
{
	echo "/* Made by src/sampler/parasite/blob2c.sh from the sampler's hooks: do not edit. */"
	echo '#include "sampler_blob.h"'
	echo "const unsigned char sampler_blob[] = {"
	od -An -v -tx1 -j "$boff" -N "$blen" "$elf" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/\t/'
	echo "};"
	echo "const unsigned long sampler_blob_len = sizeof(sampler_blob);"
	echo "const unsigned long sampler_blob_alloc = $a;"
	echo "const unsigned long sampler_blob_dalloc = $d;"
	echo "const unsigned long sampler_blob_expand = $x;"
	echo "const unsigned long sampler_blob_install = $i;"
	echo "const unsigned long sampler_blob_remove = $r;"
} >"$out"
