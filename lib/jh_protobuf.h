/* SPDX-License-Identifier: BSD-2-Clause */
/* Protocol buffers' wire format, writing side only: what the pprof writer
 * needs (varints, length-delimited fields, packed repeated varints).
 * Internal to libjeheap. */
#ifndef JH_PROTOBUF_H
#define JH_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; err sticks once memory runs out. */
struct jh_pb {
	uint8_t *d;
	size_t n, cap;
	int err;
};

void jh_pb_free(struct jh_pb *b);
/* A varint field (wire type 0): uint64, int64 (two's complement), bool.
 * Zero values are written too: callers leave out proto3 defaults. */
void jh_pb_varint(struct jh_pb *b, unsigned field, uint64_t v);
/* A length-delimited field (wire type 2): bytes, strings, messages. */
void jh_pb_bytes(struct jh_pb *b, unsigned field, const void *data, size_t len);
/* A packed repeated varint field. */
void jh_pb_packed(struct jh_pb *b, unsigned field, const uint64_t *v, size_t n);

#endif
