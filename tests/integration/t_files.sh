#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A target's files, reached through /proc/PID/root when /proc/PID/map_files
# is closed (no CAP_SYS_ADMIN: kubectl debug --profile=general), are the
# target's to choose: an absolute symbolic link in its tree must not lead
# root's jeattach to a host file (whose symbols would then appear in the
# output), and a FIFO must not block it in open(). Rule (libcore's
# core_open_in_root): resolve inside the target's root only (openat2
# RESOLVE_IN_ROOT), never wait (O_NONBLOCK), regular files only.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
command -v chroot >/dev/null || skip "no chroot(8)"
# map_files opens for CAP_SYS_ADMIN, and since Linux 5.9 for
# CAP_CHECKPOINT_RESTORE too: drop both.
NOCAP="setpriv --bounding-set=-sys_admin,-checkpoint_restore --inh-caps=-sys_admin,-checkpoint_restore --"
$NOCAP true 2>/dev/null || skip "setpriv cannot drop CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE here"
nocap() { $NOCAP "$@"; }

# A host file the target cannot see: one 3 MB function, so that any offset
# into the libc it impersonates falls inside it and takes its name.
cat >"$WORK/secret.c" <<'C'
__asm__(".text\n.globl host_only_secret_fn\n.type host_only_secret_fn,@function\n"
	"host_only_secret_fn:\n.fill 3000000,1,0x90\nret\n"
	".size host_only_secret_fn, .-host_only_secret_fn\n");
C
cc -shared -fPIC -o "$WORK/secret.so" "$WORK/secret.c" || skip "cannot build the host file"

# A root holding the victim and every object it maps, at the same paths.
R="$WORK/root"
bin=$(readlink -f "$TARGETS/victim_dyn")
for f in "$bin" $(ldd "$bin" | awk '/=>/ { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
	mkdir -p "$R$(dirname "$f")" && cp "$f" "$R$f" || fail "cannot copy $f"
done
mkdir -p "$R/proc" "$R/tmp"
mount -t proc proc "$R/proc" || skip "cannot mount proc in the test root"
MOUNTED="$R/proc"
libc=$(ldd "$bin" | awk '/libc\.so/ { print $3 }')

start_victim_env cv "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:10" chroot "$R" "$bin" -b 2 -w
# After it started, its libc is swapped for an absolute link to the host file.
rm "$R$libc" && ln -s "$WORK/secret.so" "$R$libc"
expect_rc 0 nocap "$JEATTACH" -p "$cv" --dump "$WORK/cv.heap" --symbolize
grep -q '^heap_v2/' "$WORK/cv.heap" || grep -q 'heap_v2' "$WORK/cv.heap" || fail "no profile"
grep -q host_only_secret "$WORK/cv.heap" && fail "a host file's symbols appear: $(grep -m3 host_only_secret "$WORK/cv.heap")"
pass "an absolute link in the target's tree stays in it"

# Now a FIFO in its place: nothing may wait on it.
rm "$R$libc" && mkfifo "$R$libc"
expect_rc 0 timeout 30 $NOCAP "$JEATTACH" -p "$cv" --dump "$WORK/cv2.heap" --symbolize
grep -q 'heap_v2' "$WORK/cv2.heap" || fail "no profile"
pass "a FIFO in the target's tree is passed over, not waited on"
finish_victim cv
