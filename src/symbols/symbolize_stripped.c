/*
 * symbolize_stripped.c - names for the addresses no symbol covers: Go's
 * own table (gopclntab.h) in a stripped Go binary, else the unwind-table
 * entry (fdetab.h) that holds the address.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

/* Not yet: issue 29's Go helper writes it. */
size_t symbolize_stripped_go_inline(struct symbolizer *s, struct sym_file *f,
				    uint64_t vaddr, struct symbol_frame *frames,
				    size_t max, const char **outer_file,
				    unsigned *outer_line)
{
	(void)s, (void)f, (void)vaddr, (void)frames, (void)max;
	(void)outer_file, (void)outer_line;
	return 0;
}
