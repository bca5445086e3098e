/* SPDX-License-Identifier: BSD-2-Clause */
/* Safe points. A borrowed thread must not be inside jemalloc (it may hold an
 * arena or prof lock that mallctl takes: instant self-deadlock), inside
 * fork() (between jemalloc's atfork handlers it holds all of them), inside the
 * dynamic linker (its recursive lock; jemalloc may resolve symbols or TLS),
 * or inside a signal handler (async-signal context: jemalloc is not
 * async-signal-safe). The pc alone is not enough: a thread blocked on a
 * jemalloc mutex sits in libc's futex wrapper, so every frame is checked.
 *
 * The walk uses libunwind's DWARF engine with our own accessors, the way
 * perf does (tools/perf/util/unwind-libunwind-local.c): registers come from
 * the state already read, memory through process_vm_readv with a page cache,
 * and unwind tables straight from the .eh_frame_hdr the target has mapped.
 * libunwind-ptrace's stock accessors re-read /proc/PID/maps, reopen and
 * mmap the ELF file per frame and peek memory one word per ptrace call,
 * which kept a thread stopped for 7-20 ms instead of tens of microseconds. */
#include "config.h"

#include <errno.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"

#define MAX_FRAMES 128
#define PAGE 4096
#define CACHE_PAGES 64
#define MAX_TABLES 64

/* Not in libunwind's public headers, but exported; perf declares it too. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* Memory words one stack walk may read. A walk of MAX_FRAMES frames reads
 * some thousands; call-frame information can loop (a DWARF expression that
 * jumps back on itself, read a byte at a time through access_mem), so the
 * budget is what ends such a walk, in tens of milliseconds. */
#define UNWIND_MAX_READS 2000000UL

struct unwind_ctx {
	struct target *t;
	pid_t tid; /* the thread walked, stopped: memory is read through it */
	const arch_gpregs_t *regs;
	unsigned long reads, max_reads;
	int exhausted; /* the budget ran out: the stack cannot be walked */
	uint64_t page_addr[CACHE_PAGES];
	unsigned char page[CACHE_PAGES][PAGE];
	int page_ok[CACHE_PAGES];
	/* The page lies in a private read-only mapping of a file (the unwind
	 * tables, the code), that file's inode at that offset: kept for the
	 * next walks while the maps still show the same there. */
	int page_const[CACHE_PAGES];
	uint64_t page_ino[CACHE_PAGES], page_foff[CACHE_PAGES];
	/* A copy of a stack taken earlier (the sampler's), read in place of
	 * the target's memory over [ov_base, ov_base + ov_len). */
	const unsigned char *ov;
	uint64_t ov_base;
	size_t ov_len;
};

/* The maps of this round of the hold's search (read before its stops), or
 * none outside a search. */
static const struct sym_maps *round_maps(const struct target *t)
{
	return t->rc->stack_maps.n ? &t->rc->stack_maps : NULL;
}

/* A private, read-only mapping of a file that is still there: its pages
 * change only if the program remaps or mprotects them, which the maps
 * then show. A shared one (a memfd mapped twice, JIT code) may change
 * under it. */
static int const_mapping(const struct sym_map *m)
{
	return m && !m->w && m->p == 1 && m->path[0] && m->path[0] != '[' && !m->deleted;
}

/* Per target: unwind tables found so far (objects do not move while we
 * look), with their .eh_frame_hdr already decoded. */
struct unwind_table {
	struct sym_unwind_table loc;
	int usable;
	unw_dyn_info_t di;
	/* The file mapped at ip when it was found: its inode and where its
	 * offset 0 lay (start - offset). */
	uint64_t ino, bias;
};

struct unwind_tables {
	struct unwind_table v[MAX_TABLES];
	int n;
};

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	(void)as;
	struct unwind_ctx *c = arg;
	if (write)
		return -UNW_EREADONLYREG;
	if (++c->reads > c->max_reads) {
		c->exhausted = 1;
		return -UNW_EINVAL;
	}
	unsigned char *dst = (unsigned char *)val;
	if (c->ov && addr >= c->ov_base && addr - c->ov_base + sizeof(*val) <= c->ov_len) {
		memcpy(dst, c->ov + (addr - c->ov_base), sizeof(*val));
		return 0;
	}
	for (size_t done = 0; done < sizeof(*val);) {
		uint64_t a = addr + done, base = a & ~(uint64_t)(PAGE - 1);
		unsigned slot = (unsigned)((base / PAGE) % CACHE_PAGES);
		if (!c->page_ok[slot] || c->page_addr[slot] != base) {
			if (pt_read(c->tid, base, c->page[slot], PAGE))
				return -UNW_EINVAL;
			c->page_addr[slot] = base;
			c->page_ok[slot] = 1;
			const struct sym_maps *now = round_maps(c->t);
			const struct sym_map *m = now ? sym_maps_find(now, base) : NULL;
			c->page_const[slot] = const_mapping(m);
			if (c->page_const[slot]) {
				c->page_ino[slot] = m->inode;
				c->page_foff[slot] = m->offset + (base - m->start);
			}
		}
		size_t off = (size_t)(a - base), n = PAGE - off;
		if (n > sizeof(*val) - done)
			n = sizeof(*val) - done;
		memcpy(dst + done, c->page[slot] + off, n);
		done += n;
	}
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
		      void *arg)
{
	(void)as;
	struct unwind_ctx *c = arg;
	uint64_t v;
	if (write)
		return -UNW_EREADONLYREG;
	if (arch_unwind_reg(c->regs, reg, &v))
		return -UNW_EBADREG;
	*val = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as, (void)cu, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
	return -UNW_ENOINFO;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as, (void)dil, (void)arg;
	return -UNW_ENOINFO;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)arg;
	/* dwarf_search_unwind_table mallocs the unwind info it hands out. */
	free(pi->unwind_info);
	pi->unwind_info = NULL;
}

/* DW_EH_PE_* sizes of the encodings .eh_frame_hdr uses in practice. */
static int enc_size(unsigned char enc)
{
	switch (enc & 0x0f) {
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	default:
		return 0;
	}
}

/* .eh_frame_hdr: version, eh_frame_ptr_enc, fde_count_enc, table_enc,
 * eh_frame_ptr, fde_count, then (initial_loc, fde) pairs, which libunwind
 * binary-searches when they are datarel|sdata4 (0x3b). */
static int decode_table(pid_t pid, struct unwind_table *tab)
{
	unsigned char hdr[4];
	uint32_t count;
	uint64_t h = tab->loc.eh_frame_hdr;
	if (pt_read(pid, h, hdr, 4) || hdr[0] != 1 || hdr[3] != 0x3b)
		return 0;
	int ptr_len = enc_size(hdr[1]);
	if (!ptr_len || enc_size(hdr[2]) != 4 || pt_read(pid, h + 4 + (uint64_t)ptr_len, &count, 4))
		return 0;
	memset(&tab->di, 0, sizeof(tab->di));
	tab->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	tab->di.start_ip = tab->loc.text_start;
	tab->di.end_ip = tab->loc.text_end;
	tab->di.u.rti.segbase = h;
	tab->di.u.rti.table_data = h + 4 + (uint64_t)ptr_len + 4;
	tab->di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return 1;
}

/* Is tab still the table of what maps show at ip? An object unloaded
 * during a long run (--every, --top) and another loaded in its range
 * would otherwise be walked with the first one's table. */
int rcall_table_current(uint64_t ino, uint64_t bias, const struct sym_maps *maps, uint64_t ip)
{
	const struct sym_map *m = maps ? sym_maps_find(maps, ip) : NULL;
	return !maps || (m && m->inode == ino && m->start - m->offset == bias);
}

static struct unwind_table *table_for(struct target *t, uint64_t ip)
{
	struct unwind_tables *tabs = t->rc->unwind_tables;
	if (!tabs && !(tabs = t->rc->unwind_tables = calloc(1, sizeof(*tabs))))
		return NULL;
	/* This round's maps (read before its stops) where a search runs:
	 * an object loaded since target_open is found, and a cached table
	 * is checked against them. */
	const struct sym_maps *now = round_maps(t);
	struct unwind_table *tab = NULL;
	for (int i = 0; i < tabs->n && !tab; i++)
		if (ip >= tabs->v[i].loc.text_start && ip < tabs->v[i].loc.text_end) {
			if (rcall_table_current(tabs->v[i].ino, tabs->v[i].bias, now, ip))
				return tabs->v[i].usable ? &tabs->v[i] : NULL;
			tab = &tabs->v[i]; /* replaced in place */
		}
	if (!tab && tabs->n == MAX_TABLES)
		return NULL;
	const struct sym_maps *maps = now ? now : &t->maps;
	struct unwind_table fresh = { 0 };
	if (sym_unwind_table(t->io_pid, maps, ip, &fresh.loc)) {
		if (tab) /* what is there now has no table: forget the old */
			*tab = tabs->v[--tabs->n];
		return NULL;
	}
	const struct sym_map *m = sym_maps_find(maps, ip);
	fresh.ino = m ? m->inode : 0;
	fresh.bias = m ? m->start - m->offset : 0;
	fresh.usable = decode_table(t->io_pid, &fresh);
	if (!tab)
		tab = &tabs->v[tabs->n++];
	*tab = fresh;
	return tab->usable ? tab : NULL;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct unwind_ctx *c = arg;
	struct unwind_table *tab = table_for(c->t, ip);
	if (!tab)
		return -UNW_ENOINFO;
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &tab->di, pi, need_unwind_info, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* The tables of the objects a stopped thread's frames are nearly always in:
 * libc (its waits, its thread start), jemalloc's object and the program
 * itself. Read before any thread is stopped: found during the first walk,
 * each cost a few reads of the target's memory inside the stop. */
static void prefetch_tables(struct target *t)
{
	const struct rcall_ctx *rc = t->rc;
	const uint64_t ips[] = { rc->errno_location, rc->syscall_fn, t->je.mallctl };
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		if (ips[i])
			(void)table_for(t, ips[i]);
	const char *exe = target_get_info(t)->exe;
	for (size_t i = 0; exe[0] && i < t->maps.n; i++)
		if (t->maps.v[i].x && !strcmp(t->maps.v[i].path, exe)) {
			(void)table_for(t, t->maps.v[i].start);
			break;
		}
}

int rcall_unwind_prepare(struct target *t)
{
	struct rcall_ctx *rc = t->rc;
	/* Made once: libunwind's first address space also probes how to
	 * validate memory (a pipe, mincore), which inside a stop cost
	 * tens of microseconds. */
	if (!rc->unwind_as) {
		rc->unwind_as = unw_create_addr_space(&accessors, 0);
		if (!rc->unwind_as)
			return -ENOMEM;
		unw_set_caching_policy(rc->unwind_as, UNW_CACHE_GLOBAL);
		prefetch_tables(t);
	}
	/* The walk's page cache, 256 KiB: allocated per walk it was an mmap,
	 * 64 page faults and a munmap inside each stop. Touched now. */
	if (!rc->unwind_walk) {
		struct unwind_ctx *w = malloc(sizeof(*w));
		if (!w)
			return -ENOMEM;
		memset(w, 0, sizeof(*w));
		rc->unwind_walk = w;
	}
	return 0;
}

void rcall_unwind_free(struct rcall_ctx *c)
{
	if (c->unwind_as) {
		unw_destroy_addr_space(c->unwind_as);
		c->unwind_as = NULL;
	}
	free(c->unwind_tables);
	c->unwind_tables = NULL;
	free(c->unwind_walk);
	c->unwind_walk = NULL;
}

enum rcall_frame rcall_frame_verdict(const struct sym_jemalloc *je, uint64_t ip,
				     int signal_frame)
{
	if (sym_ranges_contains(&je->unsafe, ip))
		return RCALL_FRAME_ALLOCATOR;
	/* Between jemalloc's fork handlers the thread holds every jemalloc
	 * lock with no jemalloc frame on its stack (sym.c, fork_functions). */
	if (sym_ranges_contains(&je->forking, ip))
		return RCALL_FRAME_FORKING;
	return signal_frame ? RCALL_FRAME_SIGNAL : RCALL_FRAME_SAFE;
}

/* A walk begins: pages of the stack and other writable memory read before
 * may have changed; the tables' pages have not while this round's maps
 * show the same file at the same offset there (a library unloaded and its
 * range reused is read again). A walk of an idle thread read 8-10 pages,
 * each a process_vm_readv, the stack's one or two of them. NULL: out of
 * memory. */
static struct unwind_ctx *walk_begin(struct target *t, pid_t tid, const arch_gpregs_t *r,
				     unsigned long max_reads)
{
	if (rcall_unwind_prepare(t))
		return NULL;
	struct unwind_ctx *c = t->rc->unwind_walk;
	const struct sym_maps *now = round_maps(t);
	for (int i = 0; i < CACHE_PAGES; i++) {
		const struct sym_map *m =
			c->page_ok[i] && c->page_const[i] && now ? sym_maps_find(now, c->page_addr[i]) : NULL;
		c->page_ok[i] = const_mapping(m) && m->inode == c->page_ino[i] &&
				m->offset + (c->page_addr[i] - m->start) == c->page_foff[i];
	}
	c->reads = 0;
	c->max_reads = max_reads;
	c->exhausted = 0;
	c->t = t;
	c->tid = tid;
	c->regs = r;
	c->ov = NULL;
	c->ov_len = 0;
	return c;
}

int rcall_unwind_copy(struct target *t, const arch_gpregs_t *r, uint64_t stack_base,
		      const void *stack, size_t len, uint64_t *ips, int max)
{
	/* The copy's pages may differ from the target's now: stack pages
	 * the cache kept from an earlier walk are dropped with the rest of
	 * what is not a file's (walk_begin). */
	struct unwind_ctx *c = walk_begin(t, t->io_pid, r, UNWIND_MAX_READS / 16);
	if (!c)
		return -ENOMEM;
	c->ov = stack;
	c->ov_base = stack_base;
	c->ov_len = len;
	unw_cursor_t cur;
	int n = 0;
	if (unw_init_remote(&cur, t->rc->unwind_as, c) < 0)
		return 0;
	while (n < max) {
		unw_word_t ip;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		ips[n++] = ip;
		if (unw_step(&cur) <= 0)
			break;
	}
	c->ov = NULL;
	return n;
}

/* A thread blocked in a system call is not stopped yet, and its stack
 * does not change while it sleeps: the frames its stop will show can be
 * walked now from the pc and sp /proc gives, and the tables' pages that
 * walk reads are then in the cache for the walk inside the stop (the first
 * hold of a run read 13 pages there, 60 us; 2-3 after this). Only what a
 * walk with nothing but those two registers reaches, a few frames, in a
 * small budget; its verdict is not one (the thread may wake meanwhile). */
#define PREWALK_FRAMES 16
#define PREWALK_READS 20000UL
void rcall_prewalk(struct target *t, pid_t tid)
{
	char *text = rcall_reads.task_file(t->io_pid, tid, "syscall");
	if (!text)
		return;
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	arch_gpregs_t r;
	arch_regs_seen(&r, b.sp, b.pc);
	struct unwind_ctx *c = b.valid ? walk_begin(t, tid, &r, PREWALK_READS) : NULL;
	unw_cursor_t cur;
	if (!c || unw_init_remote(&cur, t->rc->unwind_as, c) < 0)
		return;
	for (int depth = 0; depth < PREWALK_FRAMES && unw_step(&cur) > 0; depth++)
		;
}

int rcall_thread_is_safe(struct target *t, pid_t tid, const arch_gpregs_t *r, char *why,
			 size_t whylen)
{
	uint64_t pc = arch_pc(r);
	switch (rcall_frame_verdict(&t->je, pc, 0)) {
	case RCALL_FRAME_ALLOCATOR:
		snprintf(why, whylen, "thread %d is running allocator or linker code at %#llx",
			 (int)tid, (unsigned long long)pc);
		return 0;
	case RCALL_FRAME_FORKING:
		snprintf(why, whylen, "thread %d is inside fork() (at %#llx)", (int)tid,
			 (unsigned long long)pc);
		return 0;
	default:
		break;
	}
	struct unwind_ctx *c = walk_begin(t, tid, r, UNWIND_MAX_READS);
	if (!c)
		return -ENOMEM;
	unw_cursor_t cur;
	int safe = 1;
	if (unw_init_remote(&cur, t->rc->unwind_as, c) < 0) {
		snprintf(why, whylen, "thread %d: its stack cannot be walked", (int)tid);
		safe = 0;
		goto out;
	}
	for (int depth = 0; depth < MAX_FRAMES; depth++) {
		unw_word_t ip;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0)
			break;
		const enum rcall_frame v = rcall_frame_verdict(&t->je, ip, unw_is_signal_frame(&cur) > 0);
		if (v == RCALL_FRAME_ALLOCATOR)
			snprintf(why, whylen,
				 "thread %d has allocator or linker code at frame %d (%#llx)",
				 (int)tid, depth, (unsigned long long)ip);
		else if (v == RCALL_FRAME_FORKING)
			snprintf(why, whylen, "thread %d is inside fork() (frame %d, %#llx)",
				 (int)tid, depth, (unsigned long long)ip);
		else if (v == RCALL_FRAME_SIGNAL)
			snprintf(why, whylen, "thread %d is running a signal handler", (int)tid);
		if (v != RCALL_FRAME_SAFE) {
			safe = 0;
			break;
		}
		/* 0: the outermost frame; <0: no unwind info beyond here (JIT code,
		 * hand-written assembly): what was seen is all we can check; but
		 * a walk cut off by the budget saw too little: unsafe. */
		if (unw_step(&cur) <= 0) {
			if (c->exhausted) {
				snprintf(why, whylen,
					 "thread %d cannot be unwound (its call-frame information "
					 "did not end in %lu reads, at frame %d)",
					 (int)tid, UNWIND_MAX_READS, depth);
				safe = 0;
			}
			break;
		}
	}
out:
	return safe;
}
