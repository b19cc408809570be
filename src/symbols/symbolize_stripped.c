/*
 * symbolize_stripped.c - names for the addresses no symbol covers: Go's
 * own table (gopclntab.h) in a stripped Go binary, else the unwind-table
 * entry (fdetab.h) that holds the address; and the functions inlined
 * at an address of a Go binary, from its table's inline trees.
 */
#include "config.h"

#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "elf/debugfile.h"
#include "symbols/fdetab.h"
#include "symbols/gopclntab.h"
#include "symbols/symbolize_int.h"
#include "util/strpool.h"

/*
 * No symbol covers addr (in m): name it by the unwind-table entry that
 * does (fdetab.h), "module+0xSTART" with START the entry's file offset,
 * in the form an unnamed address has, so that each stripped function is
 * one name however many of its addresses are sampled.
 */
void symbolize_stripped_fde(struct symbolizer *s, struct sym_map *m,
			    uint64_t addr, struct symbol_info *out)
{
	struct sym_file *f = m->file;
	const char *base = strrchr(f->path, '/');
	uint64_t start, end;
	char buf[4096];
	int64_t id;
	Elf *elf;
	int fd;

	if (!f->fde_tried) {
		f->fde_tried = true;
		elf = symbolize_elf_open(s, f, &fd);
		f->fdes = elf ? fdetab_read(elf, NULL, 0) : NULL;
		f->fde_names = f->fdes ? strpool_new() : NULL;
		if (elf)
			symbolize_elf_close(elf, fd);
	}
	if (!f->fde_names ||
	    fdetab_lookup(f->fdes, addr - m->bias, &start, &end) ||
	    addr - m->bias - start > out->module_off)
		return;
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
		 base && base[1] ? base + 1 : f->path,
		 out->module_off - (addr - m->bias - start));
	id = strpool_intern(f->fde_names, buf);
	if (id < 0)
		return;
	out->func = strpool_get(f->fde_names, (size_t)id);
	out->func_off = addr - m->bias - start;
	out->fde = true;
}

/* The section of elf that holds the link-time address addr in its file
 * bytes, its header into *sh; false if none. */
static bool section_at(Elf *elf, uint64_t addr, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_PROGBITS &&
		    (sh->sh_flags & SHF_ALLOC) &&
		    !(sh->sh_flags & SHF_COMPRESSED) && addr >= sh->sh_addr &&
		    addr - sh->sh_addr < sh->sh_size)
			return true;
	return false;
}

/*
 * Go 1.18 and later keep the inline trees in go:func.* of .rodata, at
 * offsets from moduledata.gofunc: find the moduledata in .noptrdata (the
 * word that points at the table), then hand the bytes from gofunc to
 * the end of its section to t (gopclntab.h).  Nothing happens when any
 * step fails: lookups then give no inlined frames.  A position-
 * independent binary's moduledata words are relocated at run time (the
 * file may hold 0 there): no inline frames for it.
 */
static void go_funcdata(Elf *elf, int fd, struct sym_file *f,
			struct gopclntab *t)
{
	GElf_Shdr sh, tab;
	Elf_Data *d;
	uint64_t gofunc, size;
	Elf_Scn *scn;

	if (gopclntab_version(t) < 118 ||
	    !(scn = debugfile_section(elf, ".noptrdata", &sh)) ||
	    sh.sh_type != SHT_PROGBITS || sh.sh_size > GOPCLNTAB_MAX_SIZE ||
	    !(d = elf_getdata_rawchunk(elf, (int64_t)sh.sh_offset,
				       (size_t)sh.sh_size, ELF_T_BYTE)) ||
	    !d->d_buf)
		return;
	/* the table's link-time address, from the section holding it */
	if (!debugfile_section(elf, ".gopclntab", &tab) &&
	    !debugfile_section(elf, ".data.rel.ro.gopclntab", &tab))
		return;
	if (tab.sh_offset != f->go_off ||
	    gopclntab_gofunc(t, d->d_buf, d->d_size, sh.sh_addr, tab.sh_addr,
			     &gofunc) ||
	    !section_at(elf, gofunc, &sh))
		return;
	size = sh.sh_size - (gofunc - sh.sh_addr);
	if (size > GOPCLNTAB_MAX_SIZE)
		size = GOPCLNTAB_MAX_SIZE;
	gopclntab_read_funcdata(t, fd, sh.sh_offset + (gofunc - sh.sh_addr),
				size);
}

/* f's Go table, read once, at the first lookup .symtab or DWARF do not
 * answer; NULL if f has none or it cannot be read. */
struct gopclntab *symbolize_stripped_go(struct symbolizer *s,
					struct sym_file *f)
{
	Elf *elf;
	int fd;

	if (f->go_tried || !f->go_size)
		return f->go;
	f->go_tried = true;
	elf = symbolize_elf_open(s, f, &fd);
	if (!elf)
		return NULL;
	f->go = gopclntab_read(fd, f->go_off, f->go_size, f->go_text, NULL, 0);
	if (f->go)
		go_funcdata(elf, fd, f, f->go);
	symbolize_elf_close(elf, fd);
	return f->go;
}

/* The Go function at vaddr, when no symbol names it (gopclntab.h). */
void symbolize_stripped_go_func(struct symbolizer *s, struct sym_file *f,
				uint64_t vaddr, struct symbol_info *out)
{
	struct gopclntab *t = symbolize_stripped_go(s, f);
	uint64_t entry;

	if (t && gopclntab_func(t, vaddr, &out->func, &entry) == 0)
		out->func_off = vaddr - entry;
}

/* The Go functions inlined at vaddr, from f's inline trees. */
size_t symbolize_stripped_go_inline(struct symbolizer *s, struct sym_file *f,
				    uint64_t vaddr, struct symbol_frame *frames,
				    size_t max, const char **outer_file,
				    unsigned *outer_line)
{
	struct gopclntab *t = symbolize_stripped_go(s, f);

	return t ? gopclntab_inline(t, vaddr, frames, max, outer_file,
				    outer_line) :
		   0;
}
