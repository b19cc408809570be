/*
 * symbolize_maps.c - a symbolizer's executable mappings: from a struct
 * maps, with the build IDs of the brief lines of maps text, and the one
 * that holds an address.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/maps.h"
#include "symbols/symbolize_int.h"
#include "util/grow.h"
#include "util/scan.h"
#include "util/strpool.h"

/* The file of the mapping e, a new one for a path not seen yet. */
static struct sym_file *file_get(struct symbolizer *s,
				 const struct map_entry *e)
{
	const char *path = e->path;
	struct sym_file *f, **files;
	int64_t i = strpool_intern(s->paths, path);

	/* The pool numbers paths in the order first seen from 1 ("" is 0
	 * and never asked for): a new path is the next file. */
	if (i < 1)
		return NULL;
	if ((size_t)i <= s->nfiles)
		return s->files[i - 1];
	files = grow_array(s->files, &s->files_cap, s->nfiles + 1,
			   sizeof(*files));
	if (!files)
		return NULL;
	s->files = files;
	if (s->cache)
		f = symcache_file(s->cache, s->root_key, e);
	else
		f = symcache_file_new(e, strpool_get(s->paths, (size_t)i));
	if (!f)
		return NULL;
	s->files[s->nfiles++] = f;
	return f;
}

/* One executable mapping more (they come in address order). */
static int add_map(struct symbolizer *s, const struct map_entry *e)
{
	struct sym_map *m;

	m = grow_array(s->maps, &s->maps_cap, s->nmaps + 1, sizeof(*m));
	if (!m)
		return -1;
	s->maps = m;
	m += s->nmaps;
	memset(m, 0, sizeof(*m));
	m->start = e->start;
	m->end = e->end;
	m->offset = e->offset;
	if (e->path[0]) {
		m->file = file_get(s, e);
		if (!m->file)
			return -1;
	}
	s->nmaps++;
	return 0;
}

/* The executable mappings of maps, gone ones included (a profile names
 * them), in address order as maps.h keeps them. */
int symbolize_maps_add(struct symbolizer *s, const struct maps *maps)
{
	for (size_t i = 0; i < maps_count(maps); i++) {
		const struct map_entry *e = maps_entry(maps, i);

		if (e->exec && add_map(s, e))
			return -1;
	}
	return 0;
}

struct sym_map *symbolize_maps_find(struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= s->maps[lo - 1].end)
		return NULL;
	return &s->maps[lo - 1];
}

/*
 * The start address and build ID of a line of pprof's brief form,
 * "START-END PERMS PATH (@OFFSET) BUILDID" (maps.h): 2 to 128 hex digits
 * after the last space, which follows ")"; START, hex before a "-".
 */
static bool parse_brief(const char *l, size_t n, uint64_t *start, char *id,
			size_t idlen)
{
	const char *sp = memrchr(l, ' ', n), *q = l;
	size_t i, idn;

	if (!sp || sp == l || sp[-1] != ')' || !memmem(l, n, " (@", 3))
		return false;
	idn = (size_t)(l + n - sp - 1);
	if (idn < 2 || idn >= idlen)
		return false;
	for (i = 0; i < idn; i++)
		if (scan_hex_digit(sp[1 + i]) < 0)
			return false;
	if (scan_hex(&q, l + n, 16, 0, start) || q == l + n || *q != '-')
		return false;
	memcpy(id, sp + 1, idn);
	id[idn] = '\0';
	return true;
}

/* The first mapping of maps (by start address) that starts at start
 * and has no build ID yet: maps_count() when none. */
static size_t entry_at(const struct maps *maps, uint64_t start)
{
	size_t lo = 0, hi = maps_count(maps);
	const struct map_entry *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps_entry(maps, mid)->start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < maps_count(maps); lo++) {
		e = maps_entry(maps, lo);
		if (e->start != start)
			break;
		if (!e->build_id)
			return lo;
	}
	return maps_count(maps);
}

/* The next brief line from *p on (text up to end): its mapping's start
 * and its build ID into id; *p moves past it.  False when none is left. */
static bool next_brief(const char **p, const char *end, uint64_t *start,
		       char id[2 * 64 + 1])
{
	const char *l, *nl;

	while (*p < end) {
		l = *p;
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		*p = nl < end ? nl + 1 : end;
		if (parse_brief(l, (size_t)(nl - l), start, id, 2 * 64 + 1))
			return true;
	}
	return false;
}

int symbolize_maps_text_ids(struct maps *maps, const char *text, size_t len)
{
	const char *p = text;
	char id[2 * 64 + 1], *copy;
	uint64_t start;
	size_t i;

	while (next_brief(&p, text + len, &start, id)) {
		i = entry_at(maps, start);
		if (i == maps_count(maps))
			continue;
		if (!(copy = strdup(id)))
			return -1;
		maps_set_build_id(maps, i, copy);
	}
	return 0;
}

/* Give each file the build ID of the brief line of its mapping. */
int symbolize_maps_build_ids(struct symbolizer *s, const char *text, size_t len)
{
	const char *p = text;
	char id[2 * 64 + 1];
	struct sym_map *m;
	uint64_t start;

	while (next_brief(&p, text + len, &start, id)) {
		m = symbolize_maps_find(s, start);
		if (!m || m->start != start || !m->file || m->file->build_id)
			continue;
		if (!(m->file->build_id = strdup(id)))
			return -1;
	}
	return 0;
}
