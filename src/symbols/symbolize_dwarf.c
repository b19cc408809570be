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
 * dwarf_getscopes() gives the innermost scope DIE that holds the
 * address; its chain of enclosing DIEs in the tree (dwarf_getscopes_die(),
 * as eu-addr2line -i walks it: dwarf_getscopes() itself continues an
 * inlined instance with its abstract definition's scopes, not with the
 * function it was inlined into) holds one DW_TAG_inlined_subroutine per
 * inlined call, innermost first, up to the DW_TAG_subprogram they are
 * all inlined into.  Each one's DW_AT_call_file / DW_AT_call_line is the
 * call in the frame that encloses it; the innermost frame's line is the
 * address's own, from the line table.
 *
 * The DWARF is the target user's (hostile): a call file is an index
 * checked against the CU's file table; a chain deeper than
 * SYMBOLIZE_MAX_INLINE is cut, the innermost kept; only the names and
 * files are copied, into f->inl_strs, each answer once per address.
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

/* The inlined instances enclosing vaddr, innermost first, into fr (at
 * most SYMBOLIZE_MAX_INLINE: the innermost); their count. */
static size_t inl_walk(struct sym_file *f, Dwarf *dw, uint64_t vaddr,
		       struct symbol_frame *fr, const char **outer_file,
		       unsigned *outer_line)
{
	Dwarf_Die cu, inner, *scopes = NULL, *chain = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, n = 0;
	const char *file;
	unsigned line;
	int ns, nc, i;

	if (!dwarf_addrdie(dw, vaddr, &cu))
		return 0;
	ns = dwarf_getscopes(&cu, vaddr, &scopes);
	if (ns > 0)
		inner = scopes[0];
	free(scopes);
	if (ns <= 0 || (nc = dwarf_getscopes_die(&inner, &chain)) <= 0)
		return 0;
	if (dwarf_getsrcfiles(&cu, &files, &nfiles))
		files = NULL;
	fr[0].file = NULL;
	fr[0].line = 0;
	for (i = 0; i < nc && dwarf_tag(&chain[i]) != DW_TAG_subprogram; i++) {
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
	free(chain);
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
