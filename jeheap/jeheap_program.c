/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof [options] PROGRAM PROFILE...: jeprof takes its first operand for
 * the program unless it is a symbolized profile (Init, with
 * IsSymbolizedProfileFile) and reads the main executable's symbols from it
 * (ExtractSymbols over ParseLibraries, $main::prog). Here a program is told
 * from a profile by its content, ELF's magic number, never by its name:
 * profiles are text, programs are ELF. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jeheap_cli.h"
#include "jeheap_program.h"

/* Only a regular file is looked into: a pipe (jeheap top <(zcat x.gz))
 * would lose the bytes read, and a FIFO would wait for a writer. */
int is_program(const char *path)
{
	unsigned char magic[4];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	ssize_t n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

int use_program(jeheap_symbolizer *s, const char *path)
{
	errno = 0;
	int e = jeheap_symbolizer_set_program(s, path);
	/* A profile that maps no file (a symbolized one brings its names):
	 * nothing to read from the program, as jeprof then ignores it. */
	if (!e || e == JEHEAP_ENOENT)
		return 0;
	fprintf(stderr, "jeheap: program %s: %s\n", path,
		e == JEHEAP_EIO ? strerror(errno ? errno : EIO) : jeheap_strerror(e));
	return EXIT_INPUT;
}
