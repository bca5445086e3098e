/* SPDX-License-Identifier: BSD-2-Clause */
/* The flame graph's script (jh_flame_svg.c embeds it; the build makes it a
 * C string, jh_flame_js.c). Click a frame: it fills the width, what is
 * outside it hides, its callers stay below it, faded, and every label is
 * cut again for its new width; "Reset Zoom" or a click on the root undoes
 * it. The search box takes a regular expression (a substring if it is not
 * one): matching frames turn purple and "Matched:" says what share of the
 * whole they hold, each stack counted once however many of its frames
 * match. The frames come parents first, so a match inside an earlier match
 * is found by its place alone. Names are read from the document (data-n),
 * never written into this script. */
(function () {
	"use strict";
	var frames = document.getElementById("frames");
	var W = +frames.getAttribute("data-width");
	var total = +frames.getAttribute("data-total");
	var objects = frames.getAttribute("data-unit") === "objects";
	var inverted = frames.getAttribute("data-inverted") === "1";
	var all = Array.prototype.slice.call(frames.querySelectorAll("g.f"));
	var details = document.getElementById("details");
	var matched = document.getElementById("matched");
	var unzoomer = document.getElementById("unzoom");
	var search = document.getElementById("search");
	var CHAR = 7; /* px a character: the writer's estimate (JH_FLAME_CHAR) */

	function human(v) {
		if (objects)
			return Math.round(v) + " objects";
		var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], a = Math.abs(v), u = 0;
		while (a >= 1024 && u + 1 < units.length) {
			a /= 1024;
			u++;
		}
		return (v < 0 ? "-" : "") + (u ? a.toFixed(2) : Math.round(a)) + " " + units[u];
	}

	function part(g, tag) {
		return g.getElementsByTagName(tag)[0];
	}

	/* As the writer cuts a label: whole, or its start and "..", or nothing;
	 * by characters (code points), as the writer counts them. */
	function fit(name, w) {
		var chars = Array.from(name), n = w > 20 ? Math.floor((w - 6) / CHAR) : 0;
		if (n >= chars.length)
			return name;
		return n > 2 ? chars.slice(0, n - 2).join("") + ".." : "";
	}

	/* Place frame g at x, w wide, and cut its label to fit. */
	function place(g, x, w) {
		var r = part(g, "rect"), t = part(g, "text");
		r.setAttribute("x", x.toFixed(3));
		r.setAttribute("width", w.toFixed(3));
		t.setAttribute("x", (x + 3).toFixed(3));
		t.textContent = fit(g.getAttribute("data-n"), w);
	}

	/* Nearer the root: lower rows, or upper ones in an icicle graph. */
	function depth(g) {
		var y = +part(g, "rect").getAttribute("y");
		return inverted ? y : -y;
	}

	function unzoom() {
		all.forEach(function (g) {
			g.style.display = "";
			g.classList.remove("p");
			place(g, +g.getAttribute("data-x"), +g.getAttribute("data-w"));
		});
		unzoomer.classList.add("hide");
	}

	function zoom(z) {
		var x = +z.getAttribute("data-x"), w = +z.getAttribute("data-w"), d = depth(z);
		if (w >= W - 0.001)
			return unzoom();
		var eps = 0.05, scale = W / w;
		all.forEach(function (g) {
			var gx = +g.getAttribute("data-x"), gw = +g.getAttribute("data-w");
			var inside = gx >= x - eps && gx + gw <= x + w + eps;
			var over = gx <= x + eps && gx + gw >= x + w - eps;
			var gd = depth(g);
			if (inside && gd >= d) {
				g.style.display = "";
				g.classList.remove("p");
				place(g, (gx - x) * scale, gw * scale);
			} else if (over && gd < d) {
				g.style.display = "";
				g.classList.add("p");
				place(g, 0, W);
			} else {
				g.style.display = "none";
			}
		});
		unzoomer.classList.remove("hide");
	}

	function matcher(term) {
		try {
			var re = new RegExp(term);
			return function (s) { return re.test(s); };
		} catch (e) {
			return function (s) { return s.indexOf(term) >= 0; };
		}
	}

	function find(term) {
		var test = term ? matcher(term) : null, sum = 0, end = -1;
		all.forEach(function (g) {
			var hit = test !== null && test(g.getAttribute("data-n"));
			g.classList.toggle("m", hit);
			if (!hit)
				return;
			var gx = +g.getAttribute("data-x");
			if (gx < end - 0.05)
				return; /* inside a match already counted */
			end = gx + +g.getAttribute("data-w");
			sum += +g.getAttribute("data-v");
		});
		matched.textContent = test === null ? " " : "Matched: " +
			(total > 0 ? 100 * sum / total : 0).toFixed(2) + "% (" + human(sum) + ")";
	}

	frames.addEventListener("click", function (e) {
		var g = e.target.closest("g.f");
		if (g)
			zoom(g);
	});
	frames.addEventListener("mouseover", function (e) {
		var g = e.target.closest("g.f");
		details.textContent = g ? part(g, "title").textContent : " ";
	});
	frames.addEventListener("mouseout", function () {
		details.textContent = " ";
	});
	unzoomer.addEventListener("click", unzoom);
	search.addEventListener("input", function () {
		find(search.value);
	});
	document.addEventListener("keydown", function (e) {
		if ((e.ctrlKey || e.metaKey) && e.key === "f") {
			e.preventDefault();
			search.focus();
		} else if (e.key === "Escape" && document.activeElement === search) {
			search.value = "";
			find("");
		}
	});
})();
