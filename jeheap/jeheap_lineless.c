/* SPDX-License-Identifier: BSD-2-Clause */
/* --lines and --addresses print ??:? for a frame whose object has no DWARF
 * (libjeheap_symbolizer_foreach_lineless says which, libjeheap(3)). Printed
 * after the output, one line per object, naming what would give lines:
 * for a file a Debian package installed, that package's automatic debug
 * package, PKG-dbgsym (dh_strip(1): debhelper builds one per package into
 * the debian-debug archive), which installs the debug file at the build-id
 * path libjeheap looked for; for any other file, that path, for a debug
 * file of one's own making. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_dpkg.h"
#include "jeheap_lineless.h"

struct lineless {
	char *path, *debug_path;
	int state;
};

struct found {
	struct lineless *o;
	size_t n;
	int failed; /* out of memory: say nothing rather than half */
};

static int collect(const struct jeheap_lineless *l, void *arg)
{
	struct found *f = arg;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->o[i].path, l->path))
			return 0;
	struct lineless *grown = realloc(f->o, (f->n + 1) * sizeof(*grown));
	if (!grown) {
		f->failed = 1;
		return 1;
	}
	f->o = grown;
	struct lineless *o = &f->o[f->n];
	o->path = strdup(l->path);
	o->debug_path = l->debug_path ? strdup(l->debug_path) : NULL;
	o->state = l->state;
	if (!o->path || (l->debug_path && !o->debug_path)) {
		free(o->path);
		free(o->debug_path);
		f->failed = 1;
		return 1;
	}
	f->n++;
	return 0;
}

static void note_one(const struct lineless *o, const char *owner, const char *root)
{
	const char *r = root ? root : "";
	if (o->state == JEHEAP_LINES_UNREADABLE) {
		fprintf(stderr, "jeheap: note: %s: its DWARF could not be read (malformed, or "
				"compressed beyond what jeheap inflates): its lines show as ??:?\n",
			o->path);
		return;
	}
	fprintf(stderr, "jeheap: note: %s has no line information (no DWARF in it or in a debug "
			"file): ",
		o->path);
	if (owner && o->debug_path)
		fprintf(stderr, "install %s-dbgsym (from the debian-debug archive; or the -dbg "
				"package its source ships, if any), which puts its debug file at "
				"%s%s\n",
			owner, r, o->debug_path);
	else if (owner)
		fprintf(stderr, "install %s-dbgsym (from the debian-debug archive; or the -dbg "
				"package its source ships, if any)\n",
			owner);
	else if (o->debug_path)
		fprintf(stderr, "it is in no Debian package; lines would come from a debug file at "
				"%s%s (objcopy --only-keep-debug of a build with -g), or from a "
				"build with -g\n",
			r, o->debug_path);
	else
		fprintf(stderr, "it is in no Debian package and has no build id: lines would come "
				"from a build with -g (or a debug file named by its .gnu_debuglink)\n");
}

void note_lineless(jeheap_symbolizer *const *s, size_t n, const char *root)
{
	struct found f = { NULL, 0, 0 };
	for (size_t i = 0; i < n; i++)
		if (s[i])
			jeheap_symbolizer_foreach_lineless(s[i], collect, &f);
	int not_built = 0;
	for (size_t i = 0; i < f.n; i++)
		not_built |= f.o[i].state == JEHEAP_LINES_NOT_BUILT;
	const char **paths = calloc(f.n ? f.n : 1, sizeof(*paths));
	char **owner = calloc(f.n ? f.n : 1, sizeof(*owner));
	if (f.failed || !paths || !owner) {
		/* out of memory: no note at all */
	} else if (not_built) {
		/* One cause for every object: naming each would mislead. */
		fprintf(stderr, "jeheap: note: no file:line for any frame: this jeheap's libjeheap "
				"was built without libdw (jeheap --version says); rebuild it with "
				"libdw-dev installed\n");
	} else if (f.n) {
		for (size_t i = 0; i < f.n; i++)
			paths[i] = f.o[i].path;
		dpkg_owners(root, paths, f.n, owner); /* none known where it fails */
		for (size_t i = 0; i < f.n; i++)
			note_one(&f.o[i], owner[i], root);
	}
	for (size_t i = 0; i < f.n; i++) {
		free(f.o[i].path);
		free(f.o[i].debug_path);
		free(owner ? owner[i] : NULL);
	}
	free(owner);
	free(paths);
	free(f.o);
}
