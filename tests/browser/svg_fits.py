#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Does every text of an SVG lie inside its picture, as Chromium lays it
out? (A title that ran past the right edge was cut off for the reader.)

    svg_fits.py SVG WORKDIR

The SVG goes inline into a page whose script measures each <text> with
getBBox against the viewBox; headless Chromium runs it (--dump-dom) and
the page carries the answer back. Exit 0 all inside, 1 (the texts that
are not, with their right edges, printed), 77 no chromium."""
import html, json, os, re, shutil, subprocess, sys

svg_path, work = sys.argv[1], sys.argv[2]
chromium = shutil.which("chromium")
if not chromium:
    print("no chromium (apt-get install chromium)")
    sys.exit(77)
svg = open(svg_path, encoding="utf-8").read()
svg = svg[svg.index("<svg"):]
page = os.path.join(work, "svg_fits.html")
with open(page, "w", encoding="utf-8") as f:
    f.write('<!doctype html><html><body style="margin:0">' + svg + """<script>
const s = document.querySelector('svg'), v = s.viewBox.baseVal;
const out = [...s.querySelectorAll('text')].map(t => [t.textContent.slice(0, 60), t.getBBox()])
  .filter(([, b]) => b.x < v.x || b.x + b.width > v.x + v.width)
  .map(([t, b]) => t + ' (' + Math.round(b.x) + '-' + Math.round(b.x + b.width) + ' of ' + v.width + ')');
document.body.setAttribute('data-outside', JSON.stringify(out));
document.body.setAttribute('data-texts', s.querySelectorAll('text').length);
</script></body></html>""")
r = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--user-data-dir=" + os.path.join(work, "chrome-fits"), "--dump-dom",
                    "file://" + os.path.abspath(page)],
                   capture_output=True, text=True, timeout=90)
m = re.search(r'data-outside="([^"]*)"', r.stdout)
n = re.search(r'data-texts="(\d+)"', r.stdout)
if not m or not n or int(n.group(1)) == 0:
    print("the page did not run: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    sys.exit(1)
outside = json.loads(html.unescape(m.group(1)))
for t in outside:
    print("outside: " + t)
sys.exit(1 if outside else 0)
