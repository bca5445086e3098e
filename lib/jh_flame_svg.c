/* SPDX-License-Identifier: BSD-2-Clause */
/* The flame graph's document: the title and subtitle (by default the
 * program, the profile, the metric and the total), the controls (reset
 * zoom, search), the frames, the info line and the search's matched share,
 * and the script. Everything the profile or the caller says is written
 * through jh_xml_text; nothing of theirs reaches the script, which reads
 * names from the document. Self-contained: no external resource. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core_maps.h"
#include "jh_flame.h"
#include "jh_xml.h"

#define TOP 56.0 /* title, subtitle and controls above the rows */
#define BOTTOM 30 /* the info line below them */

static const char *const metric_names[] = { "inuse_space", "inuse_objects", "alloc_space",
					    "alloc_objects" };

static int first_executable(const struct core_maps_line *m, void *arg)
{
	if (!m->x || m->path_len == 0 || m->path[0] != '/')
		return 0;
	*(char **)arg = strndup(m->path, m->path_len);
	return 1;
}

/* The default title: the program is the first executable mapping (the
 * kernel maps the executable below its libraries), or the binary jeprof's
 * symbolized form names. */
static void default_title(FILE *out, const jeheap_profile *p)
{
	char *program = NULL;
	core_maps_foreach(jeheap_profile_mappings(p), first_executable, &program);
	const char *name = program ? program : p->binary;
	fputs("Heap flame graph", out);
	if (name && *name) {
		fputs(" of ", out);
		jh_xml_text(out, name, SIZE_MAX);
	}
	free(program);
}

/* The default subtitle: "a.heap + 2 more, against base.heap: inuse_space,
 * total 1.50 MiB, +1.00 MiB since the base". */
static void default_subtitle(FILE *out, const struct jeheap_query *q,
			     const struct jeheap_flame_options *o, const struct jh_flame_node *root)
{
	char a[64];
	int objects = q->metric % 2;
	if (o->source) {
		jh_xml_text(out, o->source, SIZE_MAX);
		if (q->nmore)
			fprintf(out, " + %zu more", q->nmore);
		if (q->base && o->base_source) {
			fputs(", against ", out);
			jh_xml_text(out, o->base_source, SIZE_MAX);
		}
		fputs(": ", out);
	}
	fprintf(out, "%s, total %s", metric_names[q->metric],
		jh_flame_human(root->value, objects, 0, a, sizeof(a)));
	if (q->base)
		fprintf(out, ", %s since the base (red grew, blue shrank, by each frame's own change)",
			jh_flame_human(root->delta, objects, 1, a, sizeof(a)));
}

static const char style[] =
	"<style type=\"text/css\">\n"
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	"#subtitle{fill:#555;text-anchor:middle}\n"
	"#matched{text-anchor:end}\n"
	".ctl{cursor:pointer;fill:#06c}\n"
	".hide{display:none}\n"
	"g.f{cursor:pointer}\n"
	"g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
	"g.f text{pointer-events:none}\n"
	"g.m rect{fill:rgb(230,0,230)}\n"
	"g.p{opacity:0.5}\n"
	"</style>\n";

static void head(FILE *out, const jeheap_profile *p, const struct jeheap_query *q,
		 const struct jeheap_flame_options *o, const struct jh_flame_tree *t, int h)
{
	int w = (int)JH_FLAME_WIDTH;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n%s"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#eee\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">",
		w, h, w, h, style, w / 2);
	if (o->title)
		jh_xml_text(out, o->title, SIZE_MAX);
	else
		default_title(out, p);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"44\">", w / 2);
	if (o->subtitle)
		jh_xml_text(out, o->subtitle, SIZE_MAX);
	else
		default_subtitle(out, q, o, &t->v[0]);
	fprintf(out,
		"</text>\n<text id=\"unzoom\" class=\"ctl hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n"
		"<foreignObject x=\"%d\" y=\"8\" width=\"220\" height=\"26\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
		"placeholder=\"Search (regex)\" title=\"A JavaScript regular expression (a plain "
		"substring if it is not one); Ctrl-F here, Esc clears\" "
		"style=\"width:210px;font:12px Verdana,sans-serif\"/></foreignObject>\n",
		w - 230);
}

static void tail(FILE *out, int h)
{
	fprintf(out,
		"<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		h - 10, (int)JH_FLAME_WIDTH - 10, h - 10, jh_flame_js);
}

int jh_flame_document(FILE *out, const jeheap_profile *p, const struct jeheap_query *q,
		      const struct jeheap_flame_options *o, const struct jh_flame_tree *t)
{
	double maxd = 0;
	for (size_t i = 0; q->base && i < t->n; i++)
		if (fabs(t->v[i].own) > maxd)
			maxd = fabs(t->v[i].own);
	/* a base with no change at all still draws as a difference */
	struct jh_flame_style st = { t->v[0].value > 0 ? t->v[0].value : 1,
				     q->base && !(maxd > 0) ? 1 : maxd,
				     q->metric % 2,
				     (int)t->depth,
				     o->inverted != 0,
				     TOP };
	int h = (int)TOP + st.levels * JH_FLAME_ROW + BOTTOM;
	head(out, p, q, o, t, h);
	fprintf(out, "<g id=\"frames\" data-total=\"%.17g\" data-unit=\"%s\" data-width=\"%d\" "
		     "data-inverted=\"%d\">\n",
		st.total, st.objects ? "objects" : "bytes", (int)JH_FLAME_WIDTH, st.inverted);
	int r = jh_flame_frames(out, t, &st);
	fputs("</g>\n", out);
	tail(out, h);
	return r;
}
