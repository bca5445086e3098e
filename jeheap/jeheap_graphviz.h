/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --svg/--pdf: the dot text piped through graphviz's dot. */
#ifndef JEHEAP_GRAPHVIZ_H
#define JEHEAP_GRAPHVIZ_H

#include <stdio.h>
#include <sys/types.h>

struct graphviz {
	FILE *in;  /* write the dot text here */
	pid_t pid;
};

/* graphviz's dot in $PATH, or NULL (a static buffer). */
const char *graphviz_find(void);
/* Start `dot -T<format>` writing to out: 0, or an exit code after a
 * message. */
int graphviz_start(struct graphviz *g, const char *format, FILE *out);
/* Close its input and wait for it: 0, or an exit code after a message. */
int graphviz_finish(struct graphviz *g);

#endif
