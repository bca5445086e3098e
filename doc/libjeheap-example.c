/* SPDX-License-Identifier: BSD-2-Clause */
/* libjeheap example: print the five functions holding the most memory in
 * a heap profile, like `jeheap top -n 5`. Build:
 *   cc example.c $(pkg-config --cflags --libs jeheap) -o example */
#include <jeheap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct jeheap_error_info ei;
	jeheap_profile *p = NULL;
	jeheap_symbolizer *s = NULL;
	jeheap_top *t = NULL;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PROFILE\n", argv[0]);
		return 2;
	}
	if (jeheap_profile_read_file(argv[1], &p, &ei)) {
		fprintf(stderr, "%s:%lu:%lu: %s\n", argv[1], ei.line, ei.column, ei.message);
		return 1;
	}
	int e = jeheap_symbolizer_new(p, NULL, &s);
	if (!e)
		e = jeheap_top_new(p, s, JEHEAP_INUSE_SPACE, &t);
	if (e) {
		fprintf(stderr, "%s: %s\n", argv[1], jeheap_strerror(e));
		goto out;
	}
	printf("%.0f bytes in use (un-sampled)\n", jeheap_top_total(t));
	for (size_t i = 0; i < jeheap_top_count(t) && i < 5; i++) {
		const struct jeheap_top_entry *en = jeheap_top_entry(t, i);
		printf("%12.0f %12.0f  %s\n", en->flat, en->cum, en->name);
	}
	rc = 0;
out:
	jeheap_top_free(t); /* every free accepts NULL */
	jeheap_symbolizer_free(s);
	jeheap_profile_free(p);
	return rc;
}
