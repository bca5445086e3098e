/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_prom: the figures of one or more targets in Prometheus' text
 * exposition format, for node_exporter's textfile collector: the file
 * (cli_prom_write.c) and its label values (cli_prom_label.c). */
#ifndef JEATTACH_CLI_PROM_H
#define JEATTACH_CLI_PROM_H

#include <stdio.h>
#include <sys/types.h>
#include "cli_top.h"
#include "target_ident.h"

/* The longest value a label is given (a path, a cgroup: target_ident.h). */
#define CLI_PROM_LABEL_MAX TARGET_IDENT_MAX

/* in escaped as a label value into out (len bytes, NUL included), cut at a
 * whole character or escape; the length written. */
size_t cli_prom_escape(const char *in, char *out, size_t len);
/* The same to f; values are at most CLI_PROM_LABEL_MAX bytes (target_ident
 * cuts its paths), whose escaped form always fits. */
void cli_prom_label(FILE *f, const char *s);

/* One file and what goes in it. */
struct cli_prom_file {
	const char *file;
	const struct top_target *const *targets;
	int n;
	unsigned following; /* processes followed (jeattach_targets) */
	/* The file last published (its device and inode): only that one is
	 * ever removed. */
	dev_t dev;
	ino_t ino;
	int published;
};

/* Before any target is touched: file can be written (a regular file or
 * none, in a writable directory). 0, or -1 with the message in msg. */
int cli_prom_check(const char *file, char *msg, size_t len);
/* Write every target's series atomically (0 or -errno). */
int cli_prom_write(struct cli_prom_file *pf);
/* cli_prom_write, its failure said in msg: 0 or JA_EXIT_OUTPUT. */
int cli_prom_publish(struct cli_prom_file *pf, char *msg, size_t len);
/* Remove the file, if it is still the one published last. */
void cli_prom_remove(struct cli_prom_file *pf);

#endif
