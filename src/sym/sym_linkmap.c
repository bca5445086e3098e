/* SPDX-License-Identifier: BSD-2-Clause */
/* The dynamic linker's list of loaded objects, read from target memory:
 * auxv AT_PHDR -> the program's PT_DYNAMIC -> DT_DEBUG -> struct r_debug
 * -> r_map -> link_map chain (glibc's <link.h>, the same list gdb reads).
 * A static executable has no DT_DEBUG, and a process that has not reached
 * main() yet may have it zero: both give -ENOENT, and /proc/PID/maps alone
 * is used. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_read.h"
#include "pt.h"
#include "sym.h"

/* No real program loads more objects; the list is the target's memory, so
 * a longer one, or one that loops, is cut here (Brent's cycle check below
 * ends a loop after about twice its length). */
#define LINKMAP_MAX 8192
#define DYN_MAX 4096

static int read_auxv(pid_t pid, uint64_t *phdr, uint64_t *phnum)
{
	char path[64], *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	int e = core_read_file(path, CORE_READ_PROC_MAX, &text, &len);
	if (e)
		return e;
	*phdr = *phnum = 0;
	for (size_t off = 0; off + 16 <= len; off += 16) {
		uint64_t kv[2];
		memcpy(kv, text + off, sizeof(kv));
		if (kv[0] == AT_PHDR)
			*phdr = kv[1];
		else if (kv[0] == AT_PHNUM)
			*phnum = kv[1];
	}
	free(text);
	return *phdr && *phnum ? 0 : -ENOENT;
}

static int find_r_debug(pid_t pid, uint64_t *r_debug)
{
	uint64_t phdr, phnum, bias = 0, dyn = 0;
	int e = read_auxv(pid, &phdr, &phnum);
	if (e)
		return e;
	if (phnum > 256)
		return -EINVAL;
	Elf64_Phdr ph[256];
	e = pt_read(pid, phdr, ph, phnum * sizeof(ph[0]));
	if (e)
		return e;
	for (uint64_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = phdr - ph[i].p_vaddr; /* PIE: where the program was loaded */
	for (uint64_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = bias + ph[i].p_vaddr;
	if (!dyn)
		return -ENOENT; /* static executable */
	for (int i = 0; i < DYN_MAX; i++) {
		Elf64_Dyn d;
		e = pt_read(pid, dyn + (uint64_t)i * sizeof(d), &d, sizeof(d));
		if (e)
			return e;
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG) {
			*r_debug = d.d_un.d_ptr;
			return *r_debug ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

int sym_linkmap_read(pid_t pid, struct sym_linkmap_entry **out, size_t *n)
{
	uint64_t rd_addr;
	*out = NULL;
	*n = 0;
	int e = find_r_debug(pid, &rd_addr);
	if (e)
		return e;
	struct r_debug rd;
	e = pt_read(pid, rd_addr, &rd, sizeof(rd));
	if (e)
		return e;
	uint64_t lm_addr = (uint64_t)(uintptr_t)rd.r_map;
	size_t cap = 0;
	struct sym_linkmap_entry *v = NULL;
	uint64_t tortoise = 0, power = 1, lam = 0;
	while (lm_addr && *n < LINKMAP_MAX) {
		if (lm_addr == tortoise)
			break; /* the list loops */
		if (++lam == power) {
			tortoise = lm_addr;
			power *= 2;
			lam = 0;
		}
		struct link_map lm;
		e = pt_read(pid, lm_addr, &lm, sizeof(lm));
		if (e)
			break;
		if ((e = CORE_GROW(&v, &cap, *n + 1)))
			break;
		struct sym_linkmap_entry *ent = &v[*n];
		ent->l_addr = lm.l_addr;
		ent->l_ld = (uint64_t)(uintptr_t)lm.l_ld;
		(*n)++;
		lm_addr = (uint64_t)(uintptr_t)lm.l_next;
	}
	if (e && !*n) {
		free(v);
		return e;
	}
	*out = v;
	return 0;
}
