/* SPDX-License-Identifier: BSD-2-Clause */
/* Writing and reading jeattach's stamp lines (see core_stamp.h). */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "core_stamp.h"

void core_stamp_boot_id(char out[40])
{
	out[0] = 0;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, 39);
	close(fd);
	/* A UUID: 36 characters, then the kernel's newline. */
	if (n < 36) {
		out[0] = 0;
		return;
	}
	out[36] = 0;
}

/* A build id is a SHA-1 (40 hex digits) by default, up to 64 (--build-id=
 * sha256 ...); fewer than 8 proves nothing. */
static int is_hex_id(const char *s, size_t n)
{
	if (n < 8 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

int core_stamp_parse(const char *line, size_t len, int *kind, const char **value,
		     size_t *value_len, const char **path, size_t *path_len)
{
	size_t bl = sizeof(CORE_STAMP_BOOT) - 1, il = sizeof(CORE_STAMP_BUILD) - 1;
	if (len > bl && !strncmp(line, CORE_STAMP_BOOT, bl)) {
		*kind = CORE_STAMP_IS_BOOT;
		*value = line + bl;
		*value_len = len - bl;
		*path = NULL;
		*path_len = 0;
		return *value_len == 36 ? 0 : -1;
	}
	if (len <= il || strncmp(line, CORE_STAMP_BUILD, il))
		return -1;
	const char *v = line + il, *sp = memchr(v, ' ', len - il);
	if (!sp || sp[1] != '/')
		return -1;
	*kind = CORE_STAMP_IS_BUILD;
	*value = v;
	*value_len = (size_t)(sp - v);
	*path = sp + 1;
	*path_len = len - (size_t)(sp + 1 - line);
	return is_hex_id(v, *value_len) ? 0 : -1;
}
