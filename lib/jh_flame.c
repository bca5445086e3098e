/* SPDX-License-Identifier: BSD-2-Clause */
/* A self-contained flame graph (SVG with a little JavaScript: click a frame
 * to zoom into it, search names, hover for the full name and value): no
 * Perl, no graphviz. The tree is built straight from the reduced stacks (a
 * node per distinct call path, found by (parent, frame) in a hash table),
 * children drawn in name order as flamegraph.pl does.
 * With a base it is a differential flame graph, as Brendan Gregg's
 * difffolded.pl + flamegraph.pl draw one: widths are the current profile,
 * colour is the change since the base (red grew, blue shrank, the deeper
 * the more; white unchanged). The colour is a frame's own change, what the
 * stacks that end in it gained or lost, as flamegraph.pl gives each stack's
 * change to its leaf: colouring by what all the stacks through a frame
 * changed painted the whole trunk the deepest red and left the frame that
 * grew pale. The cumulative change is in each frame's tooltip. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_flame.h"

/* The child of node `parent` for reducer entry `entry`: created when
 * `create`, else 0 when there is none. UINT32_MAX without memory. */
static uint32_t child(struct jh_flame_tree *t, uint32_t parent, uint32_t entry, int create)
{
	uint64_t key = (uint64_t)parent << 32 | entry;
	if (!create) { /* the base only walks what is drawn */
		uint32_t id = jh_u64map_get(&t->kids, key);
		return id == UINT32_MAX ? 0 : id;
	}
	uint32_t *slot = jh_u64map_slot(&t->kids, key);
	if (!slot)
		return UINT32_MAX;
	if (*slot != UINT32_MAX)
		return *slot;
	if (jh_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return UINT32_MAX;
	uint32_t id = (uint32_t)t->n++;
	t->v[id] = (struct jh_flame_node){ entry, 0, t->v[parent].kid, 0, 0, 0 };
	t->v[parent].kid = id;
	*slot = id;
	return id;
}

static int add_stack(void *arg, const struct jh_reduced *rs)
{
	struct jh_flame_tree *t = arg;
	const uint32_t *path = rs->path;
	size_t n = rs->n;
	int base = rs->which < 0;
	double v = base ? -rs->value : rs->value;
	if (!base && v <= 0)
		return 0; /* a flame graph shows what is there */
	uint32_t node = 0;
	size_t i;
	if (!base)
		t->v[0].value += v;
	t->v[0].delta += v;
	for (i = n; i-- > 0;) { /* root first */
		uint32_t k = child(t, node, path[i], !base);
		if (k == UINT32_MAX)
			return JEHEAP_ENOMEM;
		if (!k)
			break; /* the base's path leaves what is drawn */
		node = k;
		if (!base)
			t->v[node].value += v;
		t->v[node].delta += v;
	}
	/* A base stack not drawn whole has no leaf here, as in flamegraph.pl
	 * (its frames are drawn no wider than nothing); its loss still shows
	 * in the cumulative change of the frames it passed. */
	if (i == (size_t)-1)
		t->v[node].own += v;
	if (!base && n + 1 > t->depth)
		t->depth = n + 1;
	return 0;
}

static void tree_free(struct jh_flame_tree *t)
{
	jh_entries_free(&t->names);
	free(t->v);
	jh_u64map_free(&t->kids);
}

static int tree_build(struct jh_flame_tree *t, const jeheap_profile *p, jeheap_symbolizer *s,
		      const struct jeheap_query *q)
{
	memset(t, 0, sizeof(*t));
	t->depth = 1;
	int r = jh_grow((void **)&t->v, &t->cap, 1, sizeof(*t->v));
	if (r)
		return r;
	t->v[0] = (struct jh_flame_node){ UINT32_MAX, 0, 0, 0, 0, 0 };
	t->n = 1;
	static const struct jh_sink sink = { .stack = add_stack };
	return jh_reduce_run(p, s, q, &sink, t, &t->names);
}

JH_EXPORT int jeheap_flamegraph_svg_opts(const jeheap_profile *p, jeheap_symbolizer *s,
					 const struct jeheap_query *q,
					 const struct jeheap_flame_options *o, FILE *out)
{
	if (!p || !out || !jh_query_valid(q))
		return JEHEAP_EINVAL;
	static const struct jeheap_flame_options defaults;
	struct jh_flame_tree t;
	int r = tree_build(&t, p, s, q);
	if (!r)
		r = jh_flame_document(out, p, q, o ? o : &defaults, &t);
	if (!r && ferror(out))
		r = JEHEAP_EIO;
	tree_free(&t);
	return r;
}

JH_EXPORT int jeheap_flamegraph_svg(const jeheap_profile *p, jeheap_symbolizer *s,
				    const struct jeheap_query *q, const char *title, FILE *out)
{
	struct jeheap_flame_options o = { .title = title };
	return jeheap_flamegraph_svg_opts(p, s, q, &o, out);
}
