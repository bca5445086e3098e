/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag-out FILE.svg: a self-contained SVG (no script, no external
 * reference): one bar of resident memory cut into the categories, then
 * the worst size classes, each bar its slabs' bytes split into live
 * regions and wasted ones. Text from the target (its comm, jemalloc's
 * version string) is XML-escaped, control bytes dropped. */
#include "config.h"

#include <stdio.h>
#include "cli_frag.h"

#define SVG_W 960
#define SVG_LEFT 150       /* labels left of the bars */
#define SVG_BAR_W 620
#define SVG_ROW 22
#define SVG_CLASSES 15

static const char *const colours[FRAG_NCATS] = {
	[FRAG_ALLOCATED] = "#4c78a8", [FRAG_BIN_FREE] = "#e45756", [FRAG_SLAB_TAIL] = "#ff9da6",
	[FRAG_LARGE_PAD] = "#f58518", [FRAG_DIRTY] = "#eeca3b",    [FRAG_METADATA] = "#72b7b2",
};

static void put_escaped(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, out);
		else
			fputc('?', out); /* bytes that may not be valid UTF-8 */
	}
}

static double mib(uint64_t b)
{
	return (double)b / 1048576.0;
}

/* The resident bar and its legend; returns the next free y. */
static int resident_bar(FILE *out, const struct frag_report *f, int y)
{
	double total = f->sum > f->st.resident ? (double)f->sum : (double)f->st.resident;
	double x = SVG_LEFT;
	fprintf(out, "<text x=\"10\" y=\"%d\" class=\"h\">resident %.1f MiB</text>\n", y + 15,
		mib(f->st.resident));
	for (int c = 0; c < FRAG_NCATS; c++) {
		double w = total > 0 ? SVG_BAR_W * (double)f->cat[c] / total : 0;
		fprintf(out,
			"<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"20\" fill=\"%s\">"
			"<title>%s: %llu bytes</title></rect>\n",
			x, y, w, colours[c], frag_cat_name((enum frag_cat)c),
			(unsigned long long)f->cat[c]);
		x += w;
	}
	y += 34;
	for (int c = 0; c < FRAG_NCATS; c++, y += SVG_ROW) {
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
			SVG_LEFT, y, colours[c]);
		fprintf(out,
			"<text x=\"%d\" y=\"%d\">%s: %.1f MiB (%.1f%%)</text>\n", SVG_LEFT + 22, y + 12,
			frag_cat_name((enum frag_cat)c), mib(f->cat[c]),
			f->st.resident ? 100.0 * (double)f->cat[c] / (double)f->st.resident : 0);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\">unexplained: %lld bytes; not resident: muzzy %.1f "
		     "MiB, retained %.1f MiB</text>\n",
		SVG_LEFT, y + 12, (long long)f->unexplained, mib(f->muzzy), mib(f->st.retained));
	return y + 2 * SVG_ROW;
}

/* One bar per class: live regions, then wasted bytes, scaled to the worst. */
static int class_bars(FILE *out, const struct frag_report *f, int y)
{
	uint64_t max = 0;
	size_t n = f->nclasses < SVG_CLASSES ? f->nclasses : SVG_CLASSES;
	for (size_t i = 0; i < n; i++) {
		const struct frag_class *c = &f->classes[i];
		uint64_t slabs = c->bin->curslabs * c->bin->slab_size;
		max = slabs > max ? slabs : max;
	}
	fprintf(out, "<text x=\"10\" y=\"%d\" class=\"h\">worst size classes: live (blue) and "
		     "wasted (red) bytes of their slabs</text>\n", y + 12);
	y += 24;
	for (size_t i = 0; i < n && max; i++, y += SVG_ROW) {
		const struct frag_class *c = &f->classes[i];
		double live = (double)(c->bin->curregs * c->bin->size);
		double wl = SVG_BAR_W * live / (double)max;
		double ww = SVG_BAR_W * (double)c->wasted / (double)max;
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%llu B</text>\n",
			SVG_LEFT - 8, y + 14, (unsigned long long)c->bin->size);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"16\" fill=\"%s\"/>\n",
			SVG_LEFT, y, wl, colours[FRAG_ALLOCATED]);
		fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"16\" fill=\"%s\"/>\n",
			SVG_LEFT + wl, y, ww, colours[FRAG_BIN_FREE]);
		fprintf(out, "<text x=\"%.2f\" y=\"%d\">%.1f MiB wasted, %.0f%% used</text>\n",
			SVG_LEFT + wl + ww + 6, y + 13, mib(c->wasted), 100 * c->util);
	}
	return y;
}

void cli_frag_svg(FILE *out, const struct frag_report *f, int pid, const char *comm)
{
	size_t n = f->nclasses < SVG_CLASSES ? f->nclasses : SVG_CLASSES;
	int height = 72 + 34 + SVG_ROW * (FRAG_NCATS + 2) + 24 + SVG_ROW * (int)n + 20;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		     "<style>.h{font-weight:bold}</style>\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_W, height, SVG_W, height);
	fprintf(out, "<text x=\"10\" y=\"22\" font-size=\"16\" class=\"h\">Where the memory of %d (",
		pid);
	put_escaped(out, comm);
	/* The version on a line of its own: a git-described one is 48
	 * characters, and on the title's line it ran past the right edge
	 * (1,034 px of 960 for victim_dyn, measured in chromium: t_frag). */
	fputs(") goes</text>\n<text x=\"10\" y=\"40\">jemalloc ", out);
	put_escaped(out, f->st.version);
	fputs("</text>\n", out);
	int y = resident_bar(out, f, 52);
	class_bars(out, f, y);
	fputs("</svg>\n", out);
}
