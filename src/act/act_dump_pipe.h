/* SPDX-License-Identifier: BSD-2-Clause */
/* How a profile leaves the target during --dump: a pipe (act_dump_pipe.c).
 * Private to act_dump.c. */
#ifndef JEATTACH_ACT_DUMP_PIPE_H
#define JEATTACH_ACT_DUMP_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include "act.h"
#include "rcall.h"

struct dump_pipe {
	struct target *t;
	long tr, tw;       /* the target's read and write ends; -1 once closed */
	int rd;            /* our read end, -1 if none */
	int out;           /* where its bytes go: a memfd of jeattach's own (r->dump.fd) */
	size_t cap;        /* the pipe's capacity */
	uint64_t ino;      /* its inode (pipefs): how a child's copy is known */
	uint64_t max;      /* keep at most this many bytes; the rest is counted */
	uint64_t received; /* every byte read from the pipe */
	uint64_t stored;   /* of them, kept in out */
	uint64_t written;  /* what jemalloc's writes into it returned */
	int taken;         /* jemalloc's creat was answered with tw: jemalloc closes it */
	int in_write;      /* between the entry and exit stops of such a write */
	int oversize;      /* a write larger than the pipe was failed (EFBIG) */
	int store_err;     /* errno of a failed write into out */
};

/* The pipe in the target, our read end and our store (r->dump.fd); on
 * failure nothing of it is left in the target but what a transport error
 * left. max: --max-dump, past which bytes are counted and dropped. */
enum ja_exit dump_pipe_make(struct target *t, struct act_result *r, const char *doing,
			    uint64_t max, struct dump_pipe *p);
/* The rcall drain hook (rcall_set_drain) for the prof.dump call. */
void dump_pipe_hook(void *arg, struct rcall_sysstop *s);
/* After the call: the target's ends closed, the rest read, our end
 * closed, the store rewound. 0 or a transport error. */
int dump_pipe_end(struct dump_pipe *p);

#endif
