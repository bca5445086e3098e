/* SPDX-License-Identifier: BSD-2-Clause */
/* Writing and reading jeattach's stamp lines (see core_stamp.h). */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
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
	size_t tl = sizeof(CORE_STAMP_TIME) - 1;
	if (len > tl && !strncmp(line, CORE_STAMP_TIME, tl)) {
		int64_t sec;
		uint32_t nsec;
		*kind = CORE_STAMP_IS_TIME;
		*value = line + tl;
		*value_len = len - tl;
		*path = NULL;
		*path_len = 0;
		return core_stamp_time(*value, *value_len, &sec, &nsec);
	}
	size_t sl = sizeof(CORE_STAMP_SOURCE) - 1;
	if (len > sl && !strncmp(line, CORE_STAMP_SOURCE, sl)) {
		*kind = CORE_STAMP_IS_SOURCE;
		*value = line + sl;
		*value_len = len - sl;
		*path = NULL;
		*path_len = 0;
		if (*value_len > 16)
			return -1;
		for (size_t i = 0; i < *value_len; i++)
			if ((*value)[i] < 'a' || (*value)[i] > 'z')
				return -1;
		return 0;
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

/* At most 12 digits of seconds (year 33658): a longer number is not a
 * time jeattach wrote, and its value cannot overflow an int64_t. */
int core_stamp_time(const char *value, size_t len, int64_t *sec, uint32_t *nsec)
{
	const char *dot = memchr(value, '.', len);
	size_t sl = dot ? (size_t)(dot - value) : 0;
	if (!dot || sl < 1 || sl > 12 || len - sl - 1 != 9)
		return -1;
	int64_t s = 0;
	uint32_t ns = 0;
	for (size_t i = 0; i < len; i++) {
		if (i == sl)
			continue;
		if (!isdigit((unsigned char)value[i]))
			return -1;
		if (i < sl)
			s = s * 10 + (value[i] - '0');
		else
			ns = ns * 10 + (uint32_t)(value[i] - '0');
	}
	*sec = s;
	*nsec = ns;
	return 0;
}

size_t core_stamp_time_line(int64_t sec, uint32_t nsec, char *buf, size_t len)
{
	int n = snprintf(buf, len, CORE_STAMP_TIME "%lld.%09u\n", (long long)sec, (unsigned)nsec);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* The length of the line at l (up to its newline or the end); *next the
 * line after it. */
static size_t line_at(const char *l, const char **next)
{
	const char *nl = strchr(l, '\n');
	size_t len = nl ? (size_t)(nl - l) : strlen(l);
	*next = l + len + (nl ? 1 : 0);
	return len;
}

/* Where the believed block starts: after the last line that is not a
 * comment, or at the last boot-id line after it. */
static const char *block_start(const char *maps)
{
	const char *start = maps, *next;
	for (const char *l = maps; *l; l = next) {
		size_t len = line_at(l, &next), vl, pl;
		int kind;
		const char *v, *p;
		if (*l != '#' && len)
			start = next;
		else if (*l == '#' && !core_stamp_parse(l, len, &kind, &v, &vl, &p, &pl) &&
			 kind == CORE_STAMP_IS_BOOT)
			start = l;
	}
	return start;
}

int core_stamp_foreach(const char *maps, core_stamp_cb cb, void *arg)
{
	const char *next;
	for (const char *l = block_start(maps); *l; l = next) {
		size_t len = line_at(l, &next), vl, pl;
		int kind, r;
		const char *v, *p;
		if (*l == '#' && !core_stamp_parse(l, len, &kind, &v, &vl, &p, &pl) &&
		    (r = cb(kind, v, vl, p, pl, arg)))
			return r;
	}
	return 0;
}
