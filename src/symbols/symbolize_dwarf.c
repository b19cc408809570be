/*
 * symbolize_dwarf.c - source lines and inlined frames from a file's DWARF
 * (libdw): from its debug file (debugfile.h), else from the file itself.
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/debugfile.h"
#include "symbols/symbolize_int.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strpool.h"

/* The DWARF of elf, with its dwz alt file set (debugfile.h), for f whose
 * file is open as fd; NULL if there is none, or it names an alt file
 * that cannot be trusted (libdw would open that one itself). */
static Dwarf *begin_dwarf(const struct symbolizer *s, Elf *elf, int fd,
			  struct sym_file *f)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	if (dw && debugfile_set_alt(dw, fd, s->root, &f->dw_alt)) {
		dwarf_end(dw);
		return NULL;
	}
	return dw;
}

/* f's DWARF: from its debug file (debugfile.h), else from f itself. */
static Dwarf *file_dwarf(struct symbolizer *s, struct sym_file *f)
{
	Elf *elf, *dbg;
	int fd, dfd;

	if (f->dw_tried)
		return f->dw;
	f->dw_tried = true;
	elf = symbolize_elf_open(s, f, &fd);
	if (!elf)
		return NULL;
	dbg = debugfile_open(elf, fd, f->path, s->root, &s->crc_ns, &dfd);
	if (dbg) {
		f->dw = begin_dwarf(s, dbg, fd, f);
		if (f->dw) {
			symbolize_elf_close(elf, fd);
			f->dw_elf = dbg;
			f->dw_fd = dfd;
			return f->dw;
		}
		symbolize_elf_close(dbg, dfd);
	}
	f->dw = begin_dwarf(s, elf, fd, f);
	if (!f->dw) {
		symbolize_elf_close(elf, fd);
		return NULL;
	}
	f->dw_elf = elf;
	f->dw_fd = fd;
	return f->dw;
}

/* The file and line of vaddr in the CU cu, from its line table: 0, or -1
 * when it has none. */
static int cu_line(Dwarf_Die *cu, uint64_t vaddr, const char **file,
		   unsigned *line)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, vaddr);
	const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	int n;

	if (!src || dwarf_lineno(l, &n) || n <= 0)
		return -1;
	*file = src;
	*line = (unsigned)n;
	return 0;
}

int symbolize_dwarf_line(struct symbolizer *s, struct sym_file *f,
			 uint64_t vaddr, const char **file, unsigned *line)
{
	Dwarf *dw = file_dwarf(s, f);
	Dwarf_Die cu;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return -1;
	return cu_line(&cu, vaddr, file, line);
}

/*
 * Inlined frames (symbolize.h: symbolizer_lookup_inline()).
 *
 * The function (DW_TAG_subprogram) holding the address, found through
 * an index of its CU (below), and the scopes nested in it that hold the
 * address hold one DW_TAG_inlined_subroutine per inlined call, innermost
 * last (the walk libdw's dwarf_getscopes() makes, but see below).  Each one's DW_AT_call_file / DW_AT_call_line is the
 * call in the frame that encloses it; the innermost frame's line is the
 * address's own, from the line table.
 *
 * The DWARF is the target user's (hostile): a call file is an index
 * checked against the CU's file table; a chain deeper than
 * SYMBOLIZE_MAX_INLINE is cut, the innermost kept; every walk has a
 * bound; only the names and files are copied, into f->inl_strs, each
 * answer once per address.
 */

/* s interned into f's pool; NULL for NULL or when memory runs out. */
static const char *inl_str(struct sym_file *f, const char *s)
{
	int64_t i;

	if (!s || (!f->inl_strs && !(f->inl_strs = strpool_new())))
		return NULL;
	i = strpool_intern(f->inl_strs, s);
	return i < 0 ? NULL : strpool_get(f->inl_strs, (size_t)i);
}

/* The name of an inlined instance, through its abstract origin: the
 * linkage name when there is one, else DW_AT_name; NULL: none. */
static const char *inl_name(Dwarf_Die *die)
{
	static const unsigned attrs[] = { DW_AT_linkage_name,
					  DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;
	const char *n;

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		n = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &a));
		if (n && *n)
			return n;
	}
	return NULL;
}

/* The call's file and line of the inlined instance die (file index
 * checked against the CU's table of nfiles). */
static void inl_call(struct sym_file *f, Dwarf_Die *die, Dwarf_Files *files,
		     size_t nfiles, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	*file = NULL;
	*line = 0;
	if (files &&
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0 &&
	    v < nfiles)
		*file = inl_str(f, dwarf_filesrc(files, v, NULL, NULL));
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0 &&
	    v <= UINT32_MAX)
		*line = (unsigned)v;
}

/*
 * The functions of a CU by address: each subprogram DIE with code (its
 * DW_AT_low_pc/high_pc or DW_AT_ranges), found once per CU by a walk of
 * its tree that descends only into DIEs that may hold functions
 * (namespaces, classes, structures: Rust and C++ put them there), and
 * sorted, so a lookup descends into one function only.  (libdw's
 * dwarf_getscopes() does not descend into namespaces, elfutils 0.188:
 * eu-addr2line -i and eu-stack -i show no inlined frame in Rust code.)
 * Bounded: INL_MAX_DIES DIEs a CU, namespaces nested INL_MAX_NEST deep.
 */
#define INL_MAX_DIES (1u << 24)
#define INL_MAX_NEST 64
#define INL_MAX_DEPTH 256 /* scopes nested in one function */
/* DIEs one lookup visits inside its function: the largest functions of
 * libLLVM hold tens of thousands; a hostile file's millions would cost
 * half a second an address. */
#define INL_MAX_FN_DIES (1u << 20)

static int fn_add(struct sym_cu *c, uint64_t lo, uint64_t hi, Dwarf_Off die)
{
	struct sym_fn *v;

	if (lo >= hi)
		return 0;
	v = grow_array(c->fns, &c->cap, c->nfns + 1, sizeof(*v));
	if (!v)
		return -1;
	c->fns = v;
	c->fns[c->nfns++] = (struct sym_fn){ lo, hi, die };
	return 0;
}

/* The functions among the children of parent into c; -1 when memory
 * runs out (what was found stays). */
static int fn_walk(struct sym_cu *c, Dwarf_Die *parent, unsigned nest,
		   size_t *dies)
{
	Dwarf_Die d;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off;

	if (nest > INL_MAX_NEST || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		if (++*dies > INL_MAX_DIES)
			return 0;
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			off = 0;
			while ((off = dwarf_ranges(&d, off, &base, &lo, &hi)) >
			       0)
				if (fn_add(c, lo, hi, dwarf_dieoffset(&d)))
					return -1;
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (fn_walk(c, &d, nest + 1, dies))
				return -1;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct sym_fn *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The function index of the CU cu of f, made at its first use; NULL
 * when memory runs out. */
static const struct sym_cu *cu_index(struct sym_file *f, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint64_t h = hash_mix64(off);
	struct hashtab_probe p;
	struct sym_cu *c, *nc;
	size_t i, dies = 0;

	hashtab_probe_init(&f->cu_idx, h, &p);
	while (hashtab_next(&f->cu_idx, &p, &i))
		if (f->cus[i].off == off)
			return &f->cus[i];
	nc = grow_array(f->cus, &f->cus_cap, f->ncus + 1, sizeof(*nc));
	if (!nc)
		return NULL;
	f->cus = nc;
	c = &f->cus[f->ncus];
	*c = (struct sym_cu){ .off = off };
	if (fn_walk(c, cu, 0, &dies) || hashtab_add(&f->cu_idx, h, f->ncus)) {
		free(c->fns);
		return NULL;
	}
	qsort(c->fns, c->nfns, sizeof(*c->fns), cmp_fn);
	return &f->cus[f->ncus++];
}

/* The function of c holding vaddr, into *die: 0, or -1 for none. */
static int cu_function(Dwarf *dw, const struct sym_cu *c, uint64_t vaddr,
		       Dwarf_Die *die)
{
	size_t lo = 0, hi = c->nfns, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->fns[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= c->fns[lo - 1].hi)
		return -1;
	return dwarf_offdie(dw, c->fns[lo - 1].die, die) ? 0 : -1;
}

/* The scopes holding vaddr inside the function fn, outermost first, into
 * chain (fn itself first); their count, at most INL_MAX_DEPTH. */
static size_t fn_scopes(Dwarf_Die *fn, uint64_t vaddr, Dwarf_Die *chain)
{
	size_t n = 1, dies = 0;
	Dwarf_Die c;
	bool found = true;

	chain[0] = *fn;
	while (found && n < INL_MAX_DEPTH &&
	       dwarf_child(&chain[n - 1], &c) == 0) {
		found = false;
		do {
			int tag = dwarf_tag(&c);

			if (++dies > INL_MAX_FN_DIES)
				return n;
			if ((tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_try_block ||
			     tag == DW_TAG_catch_block) &&
			    dwarf_haspc(&c, vaddr) > 0) {
				chain[n++] = c;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return n;
}

/* The inlined instances enclosing vaddr, innermost first, into fr (at
 * most SYMBOLIZE_MAX_INLINE: the innermost); their count. */
static size_t inl_walk(struct sym_file *f, Dwarf *dw, uint64_t vaddr,
		       struct symbol_frame *fr, const char **outer_file,
		       unsigned *outer_line)
{
	Dwarf_Die cu, fn, chain[INL_MAX_DEPTH];
	const struct sym_cu *c;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, n = 0, nc;
	const char *file;
	unsigned line;

	if (!dwarf_addrdie(dw, vaddr, &cu) || !(c = cu_index(f, &cu)) ||
	    cu_function(dw, c, vaddr, &fn))
		return 0;
	nc = fn_scopes(&fn, vaddr, chain);
	if (dwarf_getsrcfiles(&cu, &files, &nfiles))
		files = NULL;
	fr[0].file = NULL;
	fr[0].line = 0;
	for (size_t i = nc; i-- > 1;) {
		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		inl_call(f, &chain[i], files, nfiles, &file, &line);
		if (n < SYMBOLIZE_MAX_INLINE)
			fr[n].func = inl_str(f, inl_name(&chain[i]));
		/* the call is a line of the frame that encloses this one */
		if (n + 1 < SYMBOLIZE_MAX_INLINE) {
			fr[n + 1].file = file;
			fr[n + 1].line = line;
		}
		*outer_file = file;
		*outer_line = line;
		n++;
	}
	if (n > SYMBOLIZE_MAX_INLINE)
		n = SYMBOLIZE_MAX_INLINE;
	if (n) { /* the innermost frame's line is the address's own */
		const char *src;
		unsigned l;

		if (!cu_line(&cu, vaddr, &src, &l)) {
			fr[0].file = inl_str(f, src);
			fr[0].line = l;
		}
	}
	return n;
}

/* f's answer for vaddr, computed at the first call; NULL when memory
 * runs out. */
static const struct sym_inline *inl_lookup(struct symbolizer *s,
					   struct sym_file *f, uint64_t vaddr)
{
	struct symbol_frame fr[SYMBOLIZE_MAX_INLINE];
	struct hashtab_probe p;
	struct sym_inline *e, *ne;
	struct symbol_frame *nf;
	uint64_t h = hash_mix64(vaddr);
	Dwarf *dw;
	size_t i;

	hashtab_probe_init(&f->inl_idx, h, &p);
	while (hashtab_next(&f->inl_idx, &p, &i))
		if (f->inl[i].vaddr == vaddr)
			return &f->inl[i];
	ne = grow_array(f->inl, &f->inl_cap, f->ninl + 1, sizeof(*ne));
	if (!ne)
		return NULL;
	f->inl = ne;
	e = &f->inl[f->ninl];
	memset(e, 0, sizeof(*e));
	e->vaddr = vaddr;
	dw = file_dwarf(s, f);
	if (dw)
		e->n = inl_walk(f, dw, vaddr, fr, &e->outer_file,
				&e->outer_line);
	/* no DWARF: a Go binary still has its own inline tree (cached
	 * here too: a walk of it may take many PC-value steps) */
	if (!e->n && f->go_size)
		e->n = symbolize_stripped_go_inline(s, f, vaddr, fr,
						    SYMBOLIZE_MAX_INLINE,
						    &e->outer_file,
						    &e->outer_line);
	nf = grow_array(f->inl_frames, &f->inl_frames_cap,
			f->ninl_frames + e->n, sizeof(*nf));
	if (!nf || hashtab_add(&f->inl_idx, h, f->ninl))
		return NULL;
	f->inl_frames = nf;
	e->first = f->ninl_frames;
	memcpy(nf + e->first, fr, e->n * sizeof(*fr));
	f->ninl_frames += e->n;
	return &f->inl[f->ninl++];
}

size_t symbolize_dwarf_inline(struct symbolizer *s, struct sym_file *f,
			      uint64_t vaddr, struct symbol_frame *frames,
			      size_t max, const char **outer_file,
			      unsigned *outer_line)
{
	const struct sym_inline *e = inl_lookup(s, f, vaddr);
	size_t n;

	if (!e || !e->n)
		return 0;
	n = e->n < max ? e->n : max;
	memcpy(frames, f->inl_frames + e->first, n * sizeof(*frames));
	*outer_file = e->outer_file;
	*outer_line = e->outer_line;
	return n;
}
