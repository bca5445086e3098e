/* SPDX-License-Identifier: BSD-2-Clause */
/* Growing arrays, the one way libjeheap grows them. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include "jh_internal.h"

int jh_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 256;
	while (nc < need) {
		if (nc > SIZE_MAX / 2 / elem)
			return JEHEAP_ENOMEM;
		nc *= 2;
	}
	void *nv = realloc(*v, nc * elem);
	if (!nv)
		return JEHEAP_ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}
