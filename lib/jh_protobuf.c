/* SPDX-License-Identifier: BSD-2-Clause */
/* Protocol buffers' encoding (protobuf.dev, "Encoding"): a field is a key
 * varint (field number << 3 | wire type) then its value; varints are
 * little-endian groups of 7 bits, the high bit set on all but the last; a
 * negative int64 is its 64-bit two's complement (10 bytes). Written by hand:
 * a fixed schema of five message types does not need protobuf-c's code
 * generator and runtime. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "jh_protobuf.h"

static int reserve(struct jh_pb *b, size_t more)
{
	if (b->err)
		return -1;
	if (CORE_GROW(&b->d, &b->cap, b->n + more)) {
		b->err = 1;
		return -1;
	}
	return 0;
}

static void put_varint(struct jh_pb *b, uint64_t v)
{
	if (reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->d[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->d[b->n++] = (uint8_t)v;
}

void jh_pb_free(struct jh_pb *b)
{
	free(b->d);
	memset(b, 0, sizeof(*b));
}

void jh_pb_varint(struct jh_pb *b, unsigned field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3 | 0);
	put_varint(b, v);
}

void jh_pb_bytes(struct jh_pb *b, unsigned field, const void *data, size_t len)
{
	put_varint(b, (uint64_t)field << 3 | 2);
	put_varint(b, len);
	if (len && !reserve(b, len)) {
		memcpy(b->d + b->n, data, len);
		b->n += len;
	}
}

void jh_pb_packed(struct jh_pb *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) { /* the payload's size first */
		uint64_t x = v[i];
		size_t k = 1;
		while (x >= 0x80) {
			x >>= 7;
			k++;
		}
		len += k;
	}
	put_varint(b, (uint64_t)field << 3 | 2);
	put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		put_varint(b, v[i]);
}
