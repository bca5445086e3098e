#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Build the libFuzzer harnesses with clang (ASan + UBSan) and run each for
# SECONDS seconds (default 20) on the seed corpus; a crash fails the run and
# leaves its input in tests/fuzz/crashes/ (turn it into a regression test).
# usage: tests/fuzz/run.sh [SECONDS]
set -eu
secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(mktemp -d /tmp/jeattach-fuzz.XXXXXX)
trap 'rm -rf "$out"' EXIT
command -v clang >/dev/null || { echo "SKIP: clang not installed"; exit 77; }
CF="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE"
printf '#define PACKAGE_VERSION "fuzz"\n' >"$out/config.h"
# libjeheap's libraries; libdw too when it is there, so DWARF is fuzzed.
LIBS="libelf zlib liblzma"
if pkg-config --exists libdw; then
	LIBS="$LIBS libdw"
	printf '#define HAVE_LIBDW 1\n' >>"$out/config.h"
fi
INC="-I$top/libcore -I$top/lib -I$top/src/arch/x86_64 -I$out"
for d in cli errors analysis arch ptrace sym target rcall remote act; do INC="$INC -I$top/src/$d"; done
# shellcheck disable=SC2086
clang $CF $INC -o "$out/fuzz_heap" "$here/fuzz_heap.c" "$top"/lib/jh_*.c "$top"/libcore/core_*.c $(pkg-config --cflags --libs $LIBS) -lm
# shellcheck disable=SC2086
clang $CF $INC -o "$out/fuzz_text" "$here/fuzz_text.c" "$top/src/cli/options.c" "$top/src/cli/plan.c" "$top/src/cli/cli_find.c" \
	"$top/src/act/act_pattern.c" "$top/src/act/act_rows.c" "$top/src/remote/rctl_types.c" "$top/src/sym/sym_maps.c" \
	"$top"/libcore/core_*.c $(pkg-config --cflags --libs libelf)
# shellcheck disable=SC2086
clang $CF $INC -o "$out/fuzz_elf" "$here/fuzz_elf.c" "$top"/lib/jh_*.c "$top"/libcore/core_*.c \
	$(pkg-config --cflags --libs $LIBS) -lm
# shellcheck disable=SC2086
clang $CF $INC -o "$out/fuzz_frag" "$here/fuzz_frag.c" "$top/src/analysis/frag_read.c" \
	"$top/src/analysis/frag_model.c" "$top/src/analysis/frag_sites.c" "$top"/lib/jh_*.c "$top"/libcore/core_*.c \
	$(pkg-config --cflags --libs $LIBS) -lm
# libcore's one JSON tokenizer, with the tree and the re-encoder on it.
clang $CF $INC -o "$out/fuzz_json" "$here/fuzz_json.c" "$top"/libcore/core_*.c \
	$(pkg-config --cflags --libs libelf) -lm
clang $CF $INC -o "$out/fuzz_recent" "$here/fuzz_recent.c" "$top"/lib/jh_*.c "$top"/libcore/core_*.c \
	$(pkg-config --cflags --libs $LIBS) -lm
mkdir -p "$here/crashes"
for f in heap text elf json frag recent; do
	mkdir -p "$out/corpus_$f"
	cp "$here/corpus/$f"/* "$out/corpus_$f/"
	"$out/fuzz_$f" -max_total_time="$secs" -artifact_prefix="$here/crashes/$f-" \
		-print_final_stats=1 "$out/corpus_$f" 2>"$out/$f.log" || {
		tail -30 "$out/$f.log"
		echo "FAIL: fuzz_$f found a crash"
		exit 1
	}
	grep -E 'stat::number_of_executed_units|cov:' "$out/$f.log" | tail -2
	echo "ok: fuzz_$f ran ${secs}s"
done
