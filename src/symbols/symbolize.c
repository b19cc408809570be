/*
 * symbolize.c - maps text + ELF symbol tables -> function names: the
 * symbolizer's life cycle and its lookups (symbolize.h).  Its files and
 * what each holds: symbolize_int.h.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/debugfile.h"
#include "elf/loadseg.h"
#include "proc/maps.h"
#include "symbols/gopclntab.h"
#include "symbols/symbolize.h"
#include "symbols/symbolize_int.h"
#include "util/strpool.h"

struct symbolizer *symbolizer_new_maps(const struct maps *maps,
				       const char *root, pid_t pid)
{
	return symbolizer_new_cached(maps, root, pid, NULL);
}

struct symbolizer *symbolizer_new_cached(const struct maps *maps,
					 const char *root, pid_t pid,
					 struct symcache *cache)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cache = cache;
	symcache_root_key(s, root);
	s->elf_ok = elf_version(EV_CURRENT) != EV_NONE;
	s->crc_ns = DEBUGFILE_CRC_BUDGET_NS;
	s->live_pid = pid > 0 ? pid : 0;
	s->paths = strpool_new();
	if (!s->paths || (root && !(s->root = strdup(root))) ||
	    symbolize_maps_add(s, maps)) {
		symbolizer_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

struct symbolizer *symbolizer_new_text_cached(const char *maps_text, size_t len,
					      const char *root, pid_t pid,
					      struct symcache *cache)
{
	struct maps *maps = maps_new();
	struct symbolizer *s = NULL;

	/* EINVAL: not one line parses; the symbolizer then knows none. */
	if (maps &&
	    (!maps_text || !maps_update(maps, maps_text, len) ||
	     errno == EINVAL) &&
	    (!maps_text || !symbolize_maps_text_ids(maps, maps_text, len)))
		s = symbolizer_new_cached(maps, root, pid, cache);
	maps_free(maps);
	if (s && maps_text && symbolize_maps_build_ids(s, maps_text, len)) {
		symbolizer_free(s);
		s = NULL;
	}
	if (!s)
		errno = ENOMEM;
	return s;
}

struct symbolizer *symbolizer_new(const char *maps_text, size_t len,
				  const char *root, pid_t pid)
{
	return symbolizer_new_text_cached(maps_text, len, root, pid, NULL);
}

const char *symbolizer_refused(const struct symbolizer *s, size_t *next,
			       const char **why)
{
	for (; s && *next < s->nfiles; ++*next) {
		const struct sym_file *f = s->files[*next];

		*why = f->refused ? "is not the file that was mapped "
				    "(another build ID or inode)" :
				    "cannot be checked against the recording "
				    "(it has neither build ID nor inode)";
		if (f->refused || f->unverifiable) {
			++*next;
			return f->path;
		}
	}
	return NULL;
}

void symbolizer_free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles && !s->cache; i++)
		symcache_file_free(s->files[i]);
	free(s->files);
	strpool_free(s->paths);
	free(s->maps);
	free(s->root);
	free(s);
}

/*
 * The bias of an executable mapping (the only ones kept), from the
 * executable segment it maps: by its offset alone the segment may be the
 * read-only one before it, which shares its page in files linked by lld
 * (loadseg.c).  ET_EXEC files have bias 0 by construction, which the
 * formula also gives; without a matching segment assume vaddr == offset.
 */
static uint64_t map_bias(const struct sym_map *m)
{
	const struct sym_file *f = m->file;
	const GElf_Phdr *seg;

	/* GElf_Phdr is Elf64_Phdr */
	seg = loadseg_exec(f->segs, f->nsegs, m->offset);
	if (seg)
		return loadseg_bias(seg, m->start, m->offset);
	return f->is_exec ? 0 : m->start - m->offset;
}

static const struct sym *find_sym(const struct sym_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= f->syms[lo - 1].end)
		return NULL;
	return &f->syms[lo - 1];
}

int symbolizer_lookup(struct symbolizer *s, uint64_t addr,
		      struct symbol_info *out)
{
	const struct sym *sym;
	struct sym_map *m;

	if (!s || !out) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	m = symbolize_maps_find(s, addr);
	if (!m || !m->file)
		return 0;
	out->module = m->file->path;
	out->module_off = addr - m->start + m->offset;
	if (!m->file->loaded)
		symbolize_elf_load(s, m->file);
	if (!m->bias_known) {
		m->bias = map_bias(m);
		m->bias_known = true;
	}
	sym = find_sym(m->file, addr - m->bias);
	if (sym) {
		out->func = m->file->names + sym->name;
		out->func_off = addr - m->bias - sym->start;
	}
	if (!out->func && m->file->go_size)
		symbolize_stripped_go_func(s, m->file, addr - m->bias, out);
	if (!out->func)
		symbolize_stripped_fde(s, m, addr, out);
	return 0;
}

int symbolizer_lookup_line(struct symbolizer *s, uint64_t addr,
			   const char **file, unsigned *line)
{
	struct sym_map *m;
	struct symbol_info si;

	if (!s || !file || !line) {
		errno = EINVAL;
		return -1;
	}
	symbolizer_lookup(s, addr, &si); /* loads the file, sets the bias */
	m = symbolize_maps_find(s, addr);
	if (m && m->file &&
	    symbolize_dwarf_line(s, m->file, addr - m->bias, file, line) == 0)
		return 0;
	/* no DWARF line: a stripped Go binary still has its own table */
	if (m && m->file && m->file->go_size &&
	    symbolize_stripped_go(s, m->file) &&
	    !gopclntab_line(m->file->go, addr - m->bias, file, line))
		return 0;
	errno = ENOENT;
	return -1;
}

size_t symbolizer_lookup_inline(struct symbolizer *s, uint64_t addr,
				struct symbol_frame *frames, size_t max,
				const char **outer_file, unsigned *outer_line)
{
	struct sym_map *m;
	struct symbol_info si;
	const char *of = NULL;
	unsigned ol = 0;
	size_t n;

	if (!s || !frames || !max)
		return 0;
	symbolizer_lookup(s, addr, &si); /* loads the file, sets the bias */
	m = symbolize_maps_find(s, addr);
	if (!m || !m->file || !si.func)
		return 0;
	/* from the DWARF, else from a Go binary's own inline tree */
	n = symbolize_dwarf_inline(s, m->file, addr - m->bias, frames, max, &of,
				   &ol);
	if (n && outer_file)
		*outer_file = of;
	if (n && outer_line)
		*outer_line = ol;
	return n;
}
