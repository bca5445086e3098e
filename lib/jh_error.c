/* SPDX-License-Identifier: BSD-2-Clause */
/* What the library says about itself: its error codes in words, its
 * version. */
#include "config.h"

#include "jh_internal.h"

JH_EXPORT const char *jeheap_strerror(int err)
{
	switch (err) {
	case JEHEAP_OK:
		return "success";
	case JEHEAP_ENOMEM:
		return "out of memory";
	case JEHEAP_EIO:
		return "cannot read the input";
	case JEHEAP_EFORMAT:
		return "not a jemalloc heap profile, or a malformed line";
	case JEHEAP_EINVAL:
		return "invalid argument";
	case JEHEAP_ENOENT:
		return "not found";
	default:
		return "unknown error";
	}
}

/* The version configure built the library as (AC_INIT; jeheap.pc says the
 * same), not the header's macro: a program compiled against one release
 * and run with another learns it here. */
JH_EXPORT const char *jeheap_version(void)
{
	return PACKAGE_VERSION;
}
