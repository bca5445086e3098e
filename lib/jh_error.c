/* SPDX-License-Identifier: BSD-2-Clause */
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
