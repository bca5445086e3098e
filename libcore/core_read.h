/* SPDX-License-Identifier: BSD-2-Clause */
/* core_read: a whole file into memory, bounded; and a buffer out whole. /proc files report size 0,
 * so nothing is trusted but what read() returns; and a file a target
 * controls may be endless, so every read has a ceiling. */
#ifndef CORE_READ_H
#define CORE_READ_H

#include <stddef.h>

/* Small /proc text files (status, maps of a sane process): 256 MiB. */
#define CORE_READ_PROC_MAX ((size_t)256 << 20)

/* Read fd to its end into *text (malloc'd, NUL-terminated; *len without the
 * NUL if len is given). More than max bytes: -EFBIG, nothing returned. */
int core_read_fd(int fd, size_t max, char **text, size_t *len);
/* The same for a path, opened read-only. */
int core_read_file(const char *path, size_t max, char **text, size_t *len);
/* Write all n bytes of buf to fd (short writes and EINTR resumed): 0 or
 * -errno. */
int core_write_all(int fd, const void *buf, size_t n);

#endif
