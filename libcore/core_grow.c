/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"

int core_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		nc *= 2;
	}
	void *nv = realloc(*v, nc * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

int core_grow_zeroed(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t had = *cap;
	int e = core_grow(v, cap, need, elem);
	if (!e && *cap > had)
		memset((char *)*v + had * elem, 0, (*cap - had) * elem);
	return e;
}
