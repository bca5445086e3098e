/* SPDX-License-Identifier: BSD-2-Clause */
/* Locate jemalloc in a target. Objects are taken from /proc/PID/maps (what
 * is really mapped) in the dynamic linker's search order (link_map: the
 * program, LD_PRELOAD, then DT_NEEDED breadth-first), so the mallctl found is
 * the one the program's own calls bind to. Each object is read through
 * /proc/PID/map_files/ (the exact inode the target mapped, even if deleted or
 * replaced since), or /proc/PID/root/PATH checked by device and inode
 * (another mount namespace); never by a path in jeattach's own filesystem. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "core_read.h"
#include "arch.h"
#include "pt.h"
#include "sym.h"
#include "core_elf.h"
#include "core_open.h"

/* Symbol prefixes seen in the wild (doc/jemalloc-versions.md): Debian and most builds
 * export plain names; --with-jemalloc-prefix=je_ (Redis' bundled copy, many
 * static builds); Rust's tikv-jemalloc-sys uses _rjem_. */
static const char *const known_prefixes[] = { "", "je_", "_rjem_" };

/* jemalloc's public entry points: a thread with one of these (or anything
 * prefixed je_, jemalloc's private namespace) on its stack is inside the
 * allocator and may hold its locks. */
static const char *const public_api[] = {
	"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign",
	"valloc", "pvalloc", "mallocx", "rallocx", "xallocx", "sallocx", "dallocx", "sdallocx",
	"nallocx", "mallctl", "mallctlnametomib", "mallctlbymib", "malloc_stats_print",
	"malloc_usable_size", "malloc_message", "smallocx", "free_sized", "free_aligned_sized",
};

struct object {
	size_t first, last; /* indices of its mappings in maps */
	int linkmap_rank;   /* position in link_map order, or a large number */
	uint64_t l_addr;
	int in_linkmap;
};

static void add_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_why(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strlen(why);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

/* Open the file behind mapping m as the target sees it (core_open.c). */
static int open_mapped(pid_t pid, const struct sym_map *m)
{
	char root[48];
	const struct core_file_id id = { m->inode, m->dev_major, m->dev_minor };
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return core_open_mapped(pid, m->start, m->end, root, m->path, &id);
}

/* Group file-backed mappings by file; each group is one loaded object. */
static size_t group_objects(const struct sym_maps *maps, struct object *objs)
{
	size_t n = 0;
	for (size_t i = 0; i < maps->n; i++) {
		const struct sym_map *m = &maps->v[i];
		if (!m->inode || m->path[0] != '/')
			continue;
		size_t j;
		for (j = 0; j < n; j++) {
			const struct sym_map *f = &maps->v[objs[j].first];
			if (f->inode == m->inode && f->dev_major == m->dev_major &&
			    f->dev_minor == m->dev_minor && !strcmp(f->path, m->path))
				break;
		}
		if (j == n) {
			objs[n].first = i;
			objs[n].linkmap_rank = 1 << 30;
			objs[n].in_linkmap = 0;
			objs[n].l_addr = 0;
			n++;
		}
		objs[j].last = i;
	}
	return n;
}

static void rank_by_linkmap(pid_t pid, const struct sym_maps *maps, struct object *objs, size_t n)
{
	struct sym_linkmap_entry *lm;
	size_t nlm;
	if (sym_linkmap_read(pid, &lm, &nlm))
		return;
	for (size_t k = 0; k < nlm; k++) {
		/* l_ld (the object's dynamic section) lies inside one of its own
		 * mappings: that ties the entry to the object without trusting
		 * its name (names differ across merged-/usr symlinks). */
		const struct sym_map *m = sym_maps_find(maps, lm[k].l_ld);
		if (!m)
			continue;
		for (size_t j = 0; j < n; j++) {
			const struct sym_map *f = &maps->v[objs[j].first];
			if (f->inode == m->inode && f->dev_major == m->dev_major &&
			    f->dev_minor == m->dev_minor && !objs[j].in_linkmap) {
				objs[j].linkmap_rank = (int)k;
				objs[j].in_linkmap = 1;
				objs[j].l_addr = lm[k].l_addr;
			}
		}
	}
	free(lm);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct object *x = a, *y = b;
	if (x->linkmap_rank != y->linkmap_rank)
		return x->linkmap_rank < y->linkmap_rank ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Load bias: where the first PT_LOAD's file page is mapped, minus its
 * link-time page address. Works for PIE, non-PIE and shared objects alike. */
static int object_bias(struct core_elf *e, const struct sym_maps *maps, const struct object *o,
		       uint64_t *bias)
{
	uint64_t vaddr, off;
	int err = core_elf_first_load(e, &vaddr, &off);
	if (err)
		return err;
	for (size_t i = o->first; i <= o->last; i++) {
		const struct sym_map *m = &maps->v[i];
		if (m->inode == maps->v[o->first].inode && m->offset == (off & ~4095ULL)) {
			*bias = m->start - (vaddr & ~4095ULL);
			return 0;
		}
	}
	return -ENOENT;
}

static int add_object_text(const struct sym_maps *maps, const struct object *o,
			   struct sym_ranges *r)
{
	for (size_t i = o->first; i <= o->last; i++) {
		const struct sym_map *m = &maps->v[i];
		if (m->x && m->inode == maps->v[o->first].inode) {
			int e = sym_ranges_add(r, m->start, m->end);
			if (e)
				return e;
		}
	}
	return 0;
}

struct unsafe_ctx {
	struct sym_ranges *r;
	uint64_t bias;
	const char *prefix;
};

static int is_allocator_name(const char *name, const char *prefix)
{
	if (!strncmp(name, "je_", 3) || !strncmp(name, "_rjem_", 6))
		return 1;
	size_t pl = strlen(prefix);
	if (pl && !strncmp(name, prefix, pl))
		return 1;
	for (size_t i = 0; i < sizeof(public_api) / sizeof(public_api[0]); i++)
		if (!strcmp(name + (pl && !strncmp(name, prefix, pl) ? pl : 0), public_api[i]))
			return 1;
	return 0;
}

static int unsafe_cb(const struct core_elf_sym *y, void *arg)
{
	struct unsafe_ctx *c = arg;
	if (!is_allocator_name(y->name, c->prefix))
		return 0;
	return sym_ranges_add(c->r, c->bias + y->value, c->bias + y->value + (y->size ? y->size : 1));
}

static int is_exported(struct core_elf *e, const char *name)
{
	struct core_elf_sym y;
	return !core_elf_lookup(e, name, CORE_ELF_DYNSYM, &y);
}

/* The link-time value of function name (.symtab, then .dynsym). */
static int lookup_value(struct core_elf *e, const char *name, uint64_t *v)
{
	struct core_elf_sym y;
	int r = core_elf_lookup(e, name, CORE_ELF_BOTH, &y);
	if (!r)
		*v = y.value;
	return r;
}

/* Try one object: 1 found, 0 not here, <0 error. */
static int try_object(pid_t pid, const struct sym_maps *maps, const struct object *o,
		      int is_main, const char *const *prefixes, size_t nprefixes, struct sym_jemalloc *je,
		      char *why, size_t whylen)
{
	const struct sym_map *m = &maps->v[o->first];
	int fd = open_mapped(pid, m);
	if (fd < 0) {
		if (fd == -ESTALE)
			add_why(why, whylen, "%s was replaced on disk and map_files is not readable; ",
				m->path);
		/* The program itself cannot be opened: the process is going
		 * away (its mappings vanish with exit_mm) or /proc is closed
		 * to us; either way "no jemalloc" would be a wrong answer. */
		if (!is_main || fd == -ESTALE)
			return 0;
		return fd == -ENOENT ? -ESRCH : fd;
	}
	struct core_elf *e;
	if (core_elf_open(fd, &e))
		return 0; /* not ELF: locale archives, fonts, data files */
	int found = 0;
	for (size_t p = 0; p < nprefixes && !found; p++) {
		char name[128];
		uint64_t v;
		snprintf(name, sizeof(name), "%smallctl", prefixes[p]);
		if (lookup_value(e, name, &v))
			continue;
		if (core_elf_class(e) != ELFCLASS64 || core_elf_machine(e) != ARCH_ELF_MACHINE) {
			add_why(why, whylen, "%s has %s but not for this architecture; ", m->path, name);
			break;
		}
		uint64_t bias;
		if (object_bias(e, maps, o, &bias)) {
			add_why(why, whylen, "%s: cannot tell where it is loaded; ", m->path);
			break;
		}
		if (o->in_linkmap && o->l_addr != bias) {
			add_why(why, whylen, "%s: link_map says loaded at %#llx, maps say %#llx; ",
				m->path, (unsigned long long)o->l_addr, (unsigned long long)bias);
			break;
		}
		found = 1;
		snprintf(je->object, sizeof(je->object), "%s", m->path);
		snprintf(je->prefix, sizeof(je->prefix), "%s", prefixes[p]);
		je->object_deleted = m->deleted;
		je->found_by_link_map = o->in_linkmap;
		je->bias = bias;
		je->mallctl = bias + v;
		je->from_symtab_only = !is_exported(e, name);
		snprintf(name, sizeof(name), "%smalloc_stats_print", prefixes[p]);
		if (!lookup_value(e, name, &v))
			je->malloc_stats_print = bias + v;
		/* Where threads must not be borrowed. A shared jemalloc: its
		 * whole text. Linked into another object: its functions by name. */
		je->is_main_executable = is_main;
		if (!is_main) {
			add_object_text(maps, o, &je->unsafe);
		} else {
			struct unsafe_ctx c = { &je->unsafe, bias, prefixes[p] };
			core_elf_foreach_func(e, CORE_ELF_BOTH, unsafe_cb, &c);
		}
	}
	core_elf_close(e);
	return found;
}

/* The dynamic linker's text: a thread inside it (lazy binding, dlopen) holds
 * its lock, and jemalloc may need the linker (TLS, dlsym). */
static int add_interp_text(pid_t pid, const struct sym_maps *maps, struct object *objs, size_t n,
			   struct sym_ranges *r)
{
	char path[64], *text;
	size_t len;
	uint64_t base = 0;
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, &len))
		return 0;
	for (size_t off = 0; off + 16 <= len; off += 16) {
		uint64_t kv[2];
		memcpy(kv, text + off, sizeof(kv));
		if (kv[0] == AT_BASE)
			base = kv[1];
	}
	free(text);
	if (!base)
		return 0;
	for (size_t j = 0; j < n; j++)
		if (maps->v[objs[j].first].start == base)
			return add_object_text(maps, &objs[j], r);
	return 0;
}

/* libc's fork path: a thread anywhere in it holds every lock its
 * pthread_atfork prepare handlers took (jemalloc's jemalloc_prefork takes
 * every jemalloc mutex, the ctl lock mallctl needs included, and only
 * jemalloc_postfork_parent gives them back), and at clone's return inside
 * _Fork it has no jemalloc frame on its stack at all. glibc 2.34+ runs the
 * handlers from __libc_fork (alias fork, __fork) around _Fork; older
 * releases do the clone inside __libc_fork itself: a frame in any of these
 * functions is in fork's critical section, or about to enter it. The
 * names are exported by every glibc (GLIBC_PRIVATE for __libc_fork), and
 * a program's own interposed fork is caught by the same names. */
static const char *const fork_functions[] = { "fork", "__fork", "__libc_fork", "_Fork" };

/* Each object's ELF file with its load bias, in order, until cb returns
 * non-zero (returned). Objects that cannot be opened are passed over. */
typedef int (*object_elf_cb)(struct core_elf *elf, uint64_t bias, void *arg);

static int foreach_object_elf(pid_t pid, const struct sym_maps *maps, const struct object *objs,
			      size_t n, object_elf_cb cb, void *arg)
{
	int e = 0;
	for (size_t j = 0; j < n && !e; j++) {
		int fd = open_mapped(pid, &maps->v[objs[j].first]);
		struct core_elf *elf;
		uint64_t bias;
		if (fd < 0 || core_elf_open(fd, &elf))
			continue;
		if (!object_bias(elf, maps, &objs[j], &bias))
			e = cb(elf, bias, arg);
		core_elf_close(elf);
	}
	return e;
}

static int fork_text_cb(struct core_elf *elf, uint64_t bias, void *arg)
{
	int libc = 0;
	for (size_t i = 0; i < sizeof(fork_functions) / sizeof(fork_functions[0]); i++) {
		struct core_elf_sym y;
		if (core_elf_lookup(elf, fork_functions[i], CORE_ELF_BOTH, &y) || !y.size)
			continue;
		/* libc (or a static program) defines the real ones: objects
		 * after it can only hold copies nobody calls. */
		libc |= i >= 2;
		int e = sym_ranges_add(arg, bias + y.value, bias + y.value + y.size);
		if (e)
			return e;
	}
	return libc;
}

static int add_fork_text(pid_t pid, const struct sym_maps *maps, const struct object *objs,
			 size_t n, struct sym_ranges *r)
{
	int e = foreach_object_elf(pid, maps, objs, n, fork_text_cb, r);
	return e < 0 ? e : 0;
}

/* The loaded objects in the order the dynamic linker searches them. */
static struct object *ordered_objects(pid_t pid, const struct sym_maps *maps, size_t *n)
{
	struct object *objs = calloc(maps->n ? maps->n : 1, sizeof(*objs));
	if (!objs)
		return NULL;
	*n = group_objects(maps, objs);
	rank_by_linkmap(pid, maps, objs, *n);
	qsort(objs, *n, sizeof(objs[0]), cmp_rank);
	return objs;
}

struct lookup_ctx {
	const char *name;
	uint64_t *addr;
	int *ifunc;
};

static int lookup_cb(struct core_elf *elf, uint64_t bias, void *arg)
{
	struct lookup_ctx *c = arg;
	struct core_elf_sym y;
	if (core_elf_lookup(elf, c->name, CORE_ELF_BOTH, &y))
		return 0;
	*c->addr = bias + y.value;
	*c->ifunc = y.ifunc;
	return 1;
}

int sym_lookup_function(pid_t pid, const struct sym_maps *maps, const char *name, uint64_t *addr,
			int *ifunc)
{
	size_t n;
	struct object *objs = ordered_objects(pid, maps, &n);
	if (!objs)
		return -ENOMEM;
	struct lookup_ctx c = { name, addr, ifunc };
	int e = foreach_object_elf(pid, maps, objs, n, lookup_cb, &c);
	free(objs);
	return e == 1 ? 0 : e < 0 ? e : -ENOENT;
}

int sym_locate_jemalloc(pid_t pid, const struct sym_maps *maps, const char *prefix,
			struct sym_jemalloc *je, char *why, size_t whylen)
{
	memset(je, 0, sizeof(*je));
	why[0] = 0;
	size_t n;
	struct object *objs = ordered_objects(pid, maps, &n);
	if (!objs)
		return -ENOMEM;

	const char *const *prefixes = known_prefixes;
	size_t nprefixes = sizeof(known_prefixes) / sizeof(known_prefixes[0]);
	if (prefix) {
		prefixes = &prefix;
		nprefixes = 1;
	}
	int found = 0;
	for (size_t j = 0; j < n && !found; j++) {
		/* link_map's first entry is the program; without a link map
		 * (static executable) the program is the lowest file mapping. */
		int is_main = objs[j].in_linkmap ? objs[j].linkmap_rank == 0 : objs[j].first == 0;
		found = try_object(pid, maps, &objs[j], is_main, prefixes, nprefixes, je, why,
				   whylen);
	}
	if (found > 0) {
		add_interp_text(pid, maps, objs, n, &je->unsafe);
		int e = add_fork_text(pid, maps, objs, n, &je->forking);
		if (e) {
			sym_jemalloc_free(je);
			found = e;
		}
	}
	free(objs);
	if (found <= 0)
		return found < 0 ? found : -ENOENT;
	sym_ranges_sort(&je->unsafe);
	sym_ranges_sort(&je->forking);
	return 0;
}

void sym_jemalloc_free(struct sym_jemalloc *je)
{
	sym_ranges_free(&je->unsafe);
	sym_ranges_free(&je->forking);
}

int sym_unwind_table(pid_t pid, const struct sym_maps *maps, uint64_t ip,
		     struct sym_unwind_table *out)
{
	/* From the target's memory, not the file: the ELF header and program
	 * headers sit in the object's first mapping (file offset 0), so two
	 * small reads find PT_GNU_EH_FRAME without opening anything, which
	 * matters because this runs while a thread is held. */
	const struct sym_map *m = sym_maps_find(maps, ip);
	if (!m || !m->inode || m->path[0] != '/')
		return -ENOENT;
	const struct sym_map *first = NULL;
	for (size_t i = 0; i < maps->n; i++) {
		const struct sym_map *c = &maps->v[i];
		if (c->inode == m->inode && c->dev_major == m->dev_major &&
		    c->dev_minor == m->dev_minor && c->offset == 0 && c->start <= m->start) {
			first = c; /* the last one at or below m: its own load */
		}
	}
	if (!first)
		return -ENOENT;
	Elf64_Ehdr eh;
	int e = pt_read(pid, first->start, &eh, sizeof(eh));
	if (e)
		return e;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 128 ||
	    eh.e_phoff + eh.e_phnum * sizeof(Elf64_Phdr) > first->end - first->start)
		return -ENOEXEC;
	Elf64_Phdr ph[128];
	e = pt_read(pid, first->start + eh.e_phoff, ph, eh.e_phnum * sizeof(Elf64_Phdr));
	if (e)
		return e;
	uint64_t load = UINT64_MAX, hdr = 0;
	int have_hdr = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0 && load == UINT64_MAX)
			load = ph[i].p_vaddr & ~4095ULL;
		if (ph[i].p_type == PT_GNU_EH_FRAME) {
			hdr = ph[i].p_vaddr;
			have_hdr = 1;
		}
	}
	if (load == UINT64_MAX || !have_hdr)
		return -ENOENT;
	out->text_start = m->start;
	out->text_end = m->end;
	out->eh_frame_hdr = first->start - load + hdr;
	return 0;
}

/* How much of one mapping sym_find_code reads at most: libc's text is
 * about 2 MB, a large static program's some tens. */
#define FIND_CODE_MAX ((uint64_t)64 << 20)
/* ... and over all of them: a target with 65,000 executable mappings. */
#define FIND_CODE_TOTAL ((uint64_t)512 << 20)

static int cmp_size(const void *a, const void *b, void *arg)
{
	const struct sym_maps *maps = arg;
	const struct sym_map *x = &maps->v[*(const size_t *)a];
	const struct sym_map *y = &maps->v[*(const size_t *)b];
	uint64_t sx = x->end - x->start, sy = y->end - y->start;
	return sx < sy ? -1 : sx > sy;
}

static void sort_by_size(const struct sym_maps *maps, size_t *order, size_t n)
{
	if (n)
		qsort_r(order, n, sizeof(*order), cmp_size, (void *)maps);
}

int sym_find_code(pid_t pid, const struct sym_maps *maps, const char *prefix, size_t plen,
		  int (*check)(const unsigned char *p, size_t n), uint64_t *addr, int *extra)
{
	/* Only code that cannot change: file-backed, not writable mappings
	 * (or the vDSO), never a JIT's. [vsyscall] is emulated, skip it.
	 * Chunks overlap by 64 bytes so no match straddles two of them. What
	 * is looked for lives in libc or the vDSO (a few MB): mappings are
	 * scanned smallest first, each up to FIND_CODE_MAX bytes, so that a
	 * huge mapping the target chose (an 8 GiB sparse file mapped
	 * executable) costs no more than a normal one. */
	static unsigned char buf[65536];
	size_t *order = malloc((maps->n ? maps->n : 1) * sizeof(*order)), n = 0;
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < maps->n; i++) {
		const struct sym_map *m = &maps->v[i];
		if (m->x && m->r && !m->w && strcmp(m->path, "[vsyscall]") &&
		    (m->inode || !strcmp(m->path, "[vdso]")))
			order[n++] = i;
	}
	sort_by_size(maps, order, n);
	int found = -ENOENT;
	uint64_t budget = FIND_CODE_TOTAL;
	for (size_t k = 0; k < n && found && budget; k++) {
		const struct sym_map *m = &maps->v[order[k]];
		uint64_t room = budget < FIND_CODE_MAX ? budget : FIND_CODE_MAX;
		uint64_t end = m->end - m->start > room ? m->start + room : m->end;
		budget -= end - m->start;
		for (uint64_t a = m->start; a < end && found; a += sizeof(buf) - 64) {
			size_t len = end - a < sizeof(buf) ? end - a : sizeof(buf);
			if (pt_read(pid, a, buf, len))
				break;
			for (size_t off = 0; off + plen <= len;) {
				unsigned char *hit = memmem(buf + off, len - off, prefix, plen);
				if (!hit)
					break;
				size_t at = (size_t)(hit - buf);
				/* Instructions of a fixed width start only at their
				 * alignment (ARCH_INSN_ALIGN): bytes across two of them
				 * are not one. */
				int x = (a + at) % ARCH_INSN_ALIGN ? -1
					: check			  ? check(hit, len - at)
								  : 0;
				if (x >= 0) {
					*addr = a + at;
					if (extra)
						*extra = x;
					found = 0;
					break;
				}
				off = at + 1;
			}
			if (len < sizeof(buf))
				break;
		}
	}
	free(order);
	return found;
}

int sym_find_syscall_insn(pid_t pid, const struct sym_maps *maps, uint64_t *addr)
{
	/* Any executable bytes 0f 05 decode as `syscall` when jumped to; we only
	 * ever single-step that one instruction, so its place in the original
	 * instruction stream does not matter. */
	return sym_find_code(pid, maps, ARCH_SYSCALL_INSN, ARCH_SYSCALL_INSN_LEN, NULL, addr, NULL);
}
