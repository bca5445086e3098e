/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --svg and --pdf run `dot -Tsvg` / `dot -Tpdf` over the dot text
 * (PrintDot's "$DOT -Tsvg"): so does jeheap, with fork and exec of an argv
 * (no shell: nothing in a name is ever interpreted), dot's standard output
 * being ours. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jeheap_cli.h"
#include "jeheap_graphviz.h"

const char *graphviz_find(void)
{
	static char path[PATH_MAX];
	const char *dirs = getenv("PATH");
	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (const char *d = dirs; *d;) {
		size_t n = strcspn(d, ":");
		if (n && n + 5 < sizeof(path)) {
			snprintf(path, sizeof(path), "%.*s/dot", (int)n, d);
			if (!access(path, X_OK))
				return path;
		}
		d += n + (d[n] == ':');
	}
	return NULL;
}

/* The child: stdin from the pipe, stdout the output file. */
static void exec_dot(const char *dot, const char *format, int in, int out)
{
	char name[] = "dot", arg[16];
	snprintf(arg, sizeof(arg), "-T%s", format);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	char *const argv[] = { name, arg, NULL };
	execv(dot, argv);
	_exit(127);
}

int graphviz_start(struct graphviz *g, const char *format, FILE *out)
{
	const char *dot = graphviz_find();
	int fds[2];
	if (!dot) {
		fprintf(stderr, "jeheap: --%s needs graphviz's dot, not found in $PATH (install "
				"graphviz), or use --dot and render it elsewhere\n",
			format);
		return EXIT_USAGE;
	}
	if (fflush(out) || pipe(fds)) {
		fprintf(stderr, "jeheap: cannot start dot: %s\n", strerror(errno));
		return EXIT_OUTPUT;
	}
	/* dot failing early must not kill us mid-write: its exit says why */
	signal(SIGPIPE, SIG_IGN);
	g->pid = fork();
	if (g->pid == 0) {
		close(fds[1]);
		exec_dot(dot, format, fds[0], fileno(out));
	}
	close(fds[0]);
	g->in = g->pid > 0 ? fdopen(fds[1], "w") : NULL;
	if (!g->in) {
		fprintf(stderr, "jeheap: cannot start dot: %s\n", strerror(errno));
		close(fds[1]);
		if (g->pid > 0)
			waitpid(g->pid, NULL, 0);
		return EXIT_OUTPUT;
	}
	return 0;
}

int graphviz_finish(struct graphviz *g)
{
	int status;
	int bad = fclose(g->in);
	while (waitpid(g->pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (status == 0 && !bad)
		return 0;
	if (WIFEXITED(status))
		fprintf(stderr, "jeheap: graphviz's dot failed (exit %d)\n", WEXITSTATUS(status));
	else
		fprintf(stderr, "jeheap: graphviz's dot failed%s\n", bad ? " (its input closed)" : "");
	return EXIT_OUTPUT;
}
