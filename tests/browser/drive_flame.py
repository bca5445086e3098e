# SPDX-License-Identifier: BSD-2-Clause
"""Drive a jeheap flame graph in a real browser (headless Chromium, through
the DevTools protocol) with real input events: mouse moves and clicks at the
frames' on-screen boxes, text typed into the search box, keys pressed.

    drive_flame.py WS_URL CHECK SVG [ARGS...]

WS_URL is the browser's DevTools websocket (from DevToolsActivePort). CHECK:
  plain COLLAPSED   search (highlight, matched share against the collapsed
                    stacks of the same profile, nested matches once), hover
                    info in human units, zoom, a label blank before zoom
                    shown after, reset
  diff              the frame that grew is the deepest red, the trunk white
  inverted          the root on top, leaves below
  hostile COLLAPSED TITLE SUBTITLE
                    the document parses, no script from the profile runs,
                    each name of the collapsed stacks is a frame's name as
                    it was (invalid UTF-8 and control characters each as
                    U+FFFD), and so are the title and subtitle
Every failure is printed ("FAIL: ...") and the exit status is 1 if any;
every wait has a deadline, and the whole run an alarm."""
import json
import re
import signal
import sys
import time

import websocket

TIMEOUT = 20  # seconds for any one answer or event
failures = []


def check(ok, what):
    if ok:
        print("ok: " + what)
    else:
        print("FAIL: " + what)
        failures.append(what)


class Page:
    """One tab, through the browser's one websocket (flattened sessions)."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=TIMEOUT)
        self.next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1300, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(method)

    def wait_event(self, method):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    del self.events[i]
                    return e
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def open(self, url):
        self.url = url
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr[:60], r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def mouse(self, kind, x, y, **extra):
        p = {"type": kind, "x": x, "y": y}
        p.update(extra)
        self.call("Input.dispatchMouseEvent", p)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", clickCount=1)

    def key(self, key, code, vk):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                 "windowsVirtualKeyCode": vk})


# Each frame as the browser shows it: name (from its tooltip if it has no
# data-n, as before), label, box on screen, whether shown, highlighted, its
# fill.
FRAMES = """Array.from(document.querySelectorAll('g.f')).map(function (g) {
  var r = g.querySelector('rect'), b = r.getBoundingClientRect();
  var t = g.querySelector('title').textContent;
  return {n: g.getAttribute('data-n') || t.slice(0, t.lastIndexOf(' (')),
          label: g.querySelector('text').textContent,
          x: b.left, y: b.top, w: b.width, h: b.height,
          shown: getComputedStyle(g).display !== 'none',
          m: g.classList.contains('m'), fill: getComputedStyle(r).fill};
})"""


def frames(page):
    return page.js(FRAMES)


def first(fs, name):
    for f in fs:
        if f["n"] == name:
            return f
    raise RuntimeError("no frame named %s" % name)


def click_frame(page, name):
    f = first(frames(page), name)
    page.click(f["x"] + f["w"] / 2, f["y"] + f["h"] / 2)


def box(page, selector):
    return page.js("(function(){var b=document.querySelector(%s).getBoundingClientRect();"
                   "return [b.left,b.top,b.width,b.height];})()" % json.dumps(selector))


def collapsed_share(path, pattern):
    """The share of the stacks through a frame matching pattern: each stack
    once, however many of its frames match."""
    total = hit = 0.0
    rx = re.compile(pattern)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, value = line.rstrip("\n").rsplit(" ", 1)
            total += float(value)
            if any(rx.search(fr) for fr in stack.split(";")):
                hit += float(value)
    return 100.0 * hit / total


def search(page, text):
    x, y, w, h = box(page, "#search")
    page.click(x + w / 2, y + h / 2)
    page.call("Input.insertText", {"text": text})
    return page.js("document.getElementById('matched').textContent")


def check_search(page, collapsed, pattern):
    matched = search(page, pattern)
    fs = frames(page)
    rx = re.compile(pattern)
    want = sorted(f["n"] for f in fs if rx.search(f["n"]))
    got = sorted(f["n"] for f in fs if f["m"] and f["fill"] == "rgb(230, 0, 230)")
    check(want and got == want, "search %r highlights %s (got %s)" % (pattern, want, got))
    m = re.match(r"Matched: ([0-9.]+)% \(([0-9.]+ (B|KiB|MiB|GiB))\)$", matched or "")
    share = collapsed_share(collapsed, pattern)
    check(m and abs(float(m.group(1)) - share) < 0.01 + 0.5 * 10 ** -2,
          "search %r: %r, the collapsed stacks say %.4f%%" % (pattern, matched, share))
    page.key("Escape", "Escape", 27)
    fs = frames(page)
    check(not any(f["m"] for f in fs), "Escape clears the search")


def check_zoom(page):
    narrow, group = "fl_narrow_site_with_a_long_name", "fl_group"
    fs = frames(page)
    check(first(fs, narrow)["label"] == "" and first(fs, narrow)["w"] < 20,
          "unzoomed, the narrow frame (%.1f px) has no label" % first(fs, narrow)["w"])
    hidden = page.js("(function(){var u=document.getElementById('unzoom');"
                     "return u ? getComputedStyle(u).display : 'missing';})()")
    check(hidden == "none", "no Reset Zoom control before a zoom")
    click_frame(page, group)
    fs = frames(page)
    g, root = first(fs, group), first(fs, "all")
    check(abs(g["w"] - root["w"]) < 1 and g["w"] > 1100,
          "the clicked frame fills the width (%.1f px)" % g["w"])
    check(not first(fs, "fl_wide")["shown"] and not first(fs, "fl_grow")["shown"],
          "its siblings are hidden")
    label = first(fs, narrow)["label"]
    check(label.startswith("fl") and len(label) > 2,
          "the narrow frame's label appears after the zoom: %r" % label)
    click_frame(page, narrow)
    f = first(frames(page), narrow)
    check(f["label"] == narrow and f["w"] > 1100,
          "zoomed into the narrow frame: full width, whole label %r" % f["label"])
    x, y, w, h = box(page, "#unzoom")
    check(w > 0, "Reset Zoom is shown")
    page.click(x + w / 2, y + h / 2)
    after = frames(page)
    same = all(a["shown"] and abs(a["x"] - b["x"]) < 0.01 and abs(a["w"] - b["w"]) < 0.01
               and a["label"] == b["label"] for a, b in zip(fs_before_zoom, after))
    check(same and len(after) == len(fs_before_zoom), "Reset Zoom restores every frame")


def check_hover(page):
    f = first(frames(page), "fl_wide")
    page.mouse("mouseMoved", f["x"] + f["w"] / 2, f["y"] + f["h"] / 2)
    info = page.js("document.getElementById('details').textContent")
    check(re.match(r"fl_wide \(1\.56 MiB, [0-9]+\.[0-9]{2}%\)$", info or "") is not None,
          "hover info line in human units: %r" % info)
    title = page.js("document.getElementById('title').textContent")
    sub = page.js("document.getElementById('subtitle').textContent")
    check("victim_flame" in title, "the title names the program: %r" % title)
    check(re.search(r"\.heap: inuse_space, total [0-9.]+ MiB$", sub) is not None,
          "the subtitle: %r" % sub)


def soft(f, *args):
    """A check that cannot go on (a control missing) fails alone."""
    try:
        f(*args)
    except Exception as e:
        check(False, "%s: %s: %s" % (f.__name__, type(e).__name__, e))


def run_plain(page, collapsed):
    global fs_before_zoom
    fs_before_zoom = frames(page)
    soft(check_hover, page)
    soft(check_search, page, collapsed, "fl_rec")
    soft(check_search, page, collapsed, "^fl_(wide|grow)$")
    page.open(page.url)  # whatever the search left
    fs_before_zoom = frames(page)
    soft(check_zoom, page)


def rgb(fill):
    return tuple(int(c) for c in re.findall(r"\d+", fill))


def run_diff(page):
    fs = frames(page)
    grow = rgb(first(fs, "fl_grow")["fill"])
    others = sorted((rgb(f["fill"])[1], f["n"]) for f in fs if f["n"] != "fl_grow")
    check(grow[0] == 255 and grow[1] < 100 and all(grow[1] < g for g, _ in others),
          "the frame that grew is the deepest red, alone: %s (next %s)" % (grow, others[:3]))
    for name in ("all", "main", "fl_wide", "fl_group"):
        fill = rgb(first(fs, name)["fill"])
        check(fill == (255, 255, 255), "%s has no change of its own: white, %s" % (name, fill))


def run_inverted(page):
    fs = frames(page)
    root = first(fs, "all")
    check(all(f["y"] > root["y"] for f in fs if f is not root), "the root is on top")
    check(first(fs, "fl_wide")["y"] > first(fs, "main")["y"], "callees below their callers")


def shown(text):
    """A name as the SVG should carry it: invalid UTF-8 and control
    characters each as U+FFFD."""
    return "".join("\ufffd" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in text)


def run_hostile(page, collapsed, title, subtitle):
    names = set()
    with open(collapsed, "rb") as f:
        for line in f:
            names.update(shown(fr.decode("utf-8", "replace"))
                         for fr in line.rstrip(b"\n").rsplit(b" ", 1)[0].split(b";"))
    ok = page.js("document.documentElement.localName === 'svg' && "
                 "!document.getElementsByTagName('parsererror').length")
    check(ok, "the document parses")
    check(page.js("typeof window.pwned") == "undefined", "no script from a name ran")
    check(page.js("document.getElementsByTagName('script').length") == 1, "one script")
    have = set(f["n"] for f in frames(page))
    for n in sorted(names):
        check(n in have, "the name %r is read back whole" % n)
    for what, want in (("title", title), ("subtitle", subtitle)):
        got = page.js("document.getElementById('%s').textContent" % what)
        check(got == want, "the %s is read back whole: %r" % (what, got))
    # The search reads them as they are: one of the 7 equal stacks.
    matched = search(page, "&\"quote']]>")
    check(matched.startswith("Matched: 14.29% "), "a search for markup: %r" % matched)


def main():
    signal.alarm(120)  # never hang the test, whatever the browser does
    ws_url, what, svg = sys.argv[1:4]
    page = Page(ws_url)
    page.open("file://" + svg)
    if what == "plain":
        run_plain(page, sys.argv[4])
    elif what == "diff":
        run_diff(page)
    elif what == "inverted":
        run_inverted(page)
    elif what == "hostile":
        run_hostile(page, sys.argv[4], sys.argv[5], sys.argv[6])
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a missing control is a failure, not a crash
        print("FAIL: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
