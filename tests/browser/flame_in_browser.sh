# SPDX-License-Identifier: BSD-2-Clause
# The browser half of t_flame_browser (sourced by it, after lib.sh): the
# graphs in $WORK (a.svg and a.folded, d.svg, i.svg, h.svg and h.folded) in
# headless Chromium, driven through the DevTools protocol with real mouse and
# keyboard events (drive_flame.py). Skips without chromium or python3's
# websocket module.
command -v chromium >/dev/null || skip "no chromium (apt-get install chromium)"
PY=""
for p in python3 /usr/bin/python3; do
	"$p" -c 'import websocket' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip "no python3 websocket module (apt-get install python3-websocket)"

# The browser: its own profile directory, a DevTools port of its choosing
# (written to DevToolsActivePort), killed with the test (track).
# Alive: not gone, and not a zombie waiting for us.
alive() { [ -e "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
chromium --headless=new --no-sandbox --disable-gpu --no-first-run --remote-debugging-port=0 \
	--remote-allow-origins='*' --user-data-dir="$WORK/chrome" about:blank \
	</dev/null >"$WORK/chrome.log" 2>&1 &
chrome=$!
track "$chrome"
i=0
# (its two lines, the second unterminated, once it is written whole)
while [ -z "$(sed -n 2p "$WORK/chrome/DevToolsActivePort" 2>/dev/null)" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "chromium did not start in 30 s: $(tail -5 "$WORK/chrome.log")"
	alive "$chrome" || fail "chromium exited: $(tail -5 "$WORK/chrome.log")"
	sleep 0.1
done
ws="ws://127.0.0.1:$(sed -n 1p "$WORK/chrome/DevToolsActivePort")$(sed -n 2p "$WORK/chrome/DevToolsActivePort")"

drive() {
	timeout -k 5 150 "$PY" "$top_srcdir/tests/browser/drive_flame.py" "$ws" "$@" >"$WORK/drive.out" 2>&1
	rc=$?
	cat "$WORK/drive.out"
	[ $rc = 0 ] || fail "in the browser, $1: exit $rc"
}
drive plain "$WORK/a.svg" "$WORK/a.folded"
drive diff "$WORK/d.svg"
drive inverted "$WORK/i.svg"
drive hostile "$WORK/h.svg" "$WORK/h.folded" 'Heap flame graph of /bin/<hostile>&"]]>' \
	"$(printf 's</text><script>window.pwned=2</script>\357\277\275\357\277\275')"

# Closed gently (its helpers go with it); the cleanup kills what is left.
kill "$chrome" 2>/dev/null
i=0
while alive "$chrome" && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
pass "flame graph in the browser: search, zoom, labels, reset, diff colours, inverted, escaping"
