/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "core_grow.h"
#include "core_read.h"

int core_read_fd(int fd, size_t max, char **text, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int e = 0;
	for (;;) {
		/* Room for a read of 16 KiB at least, and the NUL. */
		if ((e = CORE_GROW(&buf, &cap, n + 16384 + 1)))
			break;
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			e = -EFBIG;
			break;
		}
	}
	if (e) {
		free(buf);
		return e;
	}
	buf[n] = 0;
	*text = buf;
	if (len)
		*len = n;
	return 0;
}

int core_read_file(const char *path, size_t max, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int e = core_read_fd(fd, max, text, len);
	close(fd);
	return e;
}

int core_write_all(int fd, const void *buf, size_t n)
{
	const char *s = buf;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}
