/*
 * symbolize_dwarf.c - source lines from a file's DWARF (libdw): from its
 * debug file (debugfile.h), else from the file itself.
 */
#include "config.h"

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/debugfile.h"
#include "symbols/symbolize_int.h"

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

int symbolize_dwarf_line(struct symbolizer *s, struct sym_file *f,
			 uint64_t vaddr, const char **file, unsigned *line)
{
	Dwarf *dw = file_dwarf(s, f);
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int n;

	if (!dw || !dwarf_addrdie(dw, vaddr, &cu))
		return -1;
	l = dwarf_getsrc_die(&cu, vaddr);
	src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!src || dwarf_lineno(l, &n) || n <= 0)
		return -1;
	*file = src;
	*line = (unsigned)n;
	return 0;
}

/* Not yet: issue 29's inline-core helper writes it. */
size_t symbolize_dwarf_inline(struct symbolizer *s, struct sym_file *f,
			      uint64_t vaddr, struct symbol_frame *frames,
			      size_t max, const char **outer_file,
			      unsigned *outer_line)
{
	(void)s, (void)f, (void)vaddr, (void)frames, (void)max;
	(void)outer_file, (void)outer_line;
	return 0;
}
