/*
 * maps.c - the union of /proc/PID/maps snapshots (see maps.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"

#define mapping map_entry

struct maps {
	struct mapping *v; /* sorted by start */
	size_t n, cap;
};

struct maps *maps_new(void)
{
	return calloc(1, sizeof(struct maps));
}

static void clear(struct mapping *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].line);
}

void maps_free(struct maps *m)
{
	if (!m)
		return;
	clear(m->v, m->n);
	free(m->v);
	free(m);
}

/* "start-end perms ..." -> fields; false for a line that is not one.
 * The line need not be NUL-terminated: its head is parsed from a copy. */
static bool parse_line(const char *text, size_t len, struct mapping *out)
{
	char line[128], *end;
	unsigned long long ino;
	const char *p = line;

	if (len < 8)
		return false;
	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	memcpy(line, text, len);
	line[len] = '\0';
	out->start = strtoull(p, &end, 16);
	if (end == p || *end != '-')
		return false;
	p = end + 1;
	out->end = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || out->end <= out->start)
		return false;
	p = end + 1;
	if ((size_t)(p - line) + 4 > len)
		return false;
	out->read = p[0] == 'r';
	out->write = p[1] == 'w';
	out->exec = p[2] == 'x';
	out->offset = strtoull(p + 4, &end, 16);
	/* then "MAJ:MIN INODE" */
	out->ino = sscanf(end, " %*x:%*x %llu", &ino) == 1 ? ino : 0;
	return true;
}

/* The path: what follows the inode (the sixth field), spaces and all. */
static const char *path_of(const char *line)
{
	const char *p = line;

	for (int field = 0; field < 5; field++) {
		p = strchr(p, ' ');
		if (!p)
			return "";
		while (*p == ' ')
			p++;
	}
	return p;
}

static int push(struct mapping **v, size_t *n, size_t *cap,
		const struct mapping *m)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct mapping *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *m;
	return 0;
}

/* Parse text into a fresh array, in file order (the kernel sorts it). */
static int parse_all(const char *text, size_t len, struct mapping **v,
		     size_t *n)
{
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	for (size_t off = 0; off < len;) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (text + off)) : len - off;
		struct mapping m;

		if (parse_line(text + off, l, &m)) {
			m.gone = false;
			m.line = strndup(text + off, l);
			if (m.line)
				m.path = path_of(m.line);
			if (!m.line || push(v, n, &cap, &m)) {
				free(m.line);
				goto fail;
			}
		}
		off += l + 1;
	}
	return 0;
fail:
	clear(*v, *n);
	free(*v);
	return -1;
}

static bool overlaps_any(const struct mapping *old, const struct mapping *v,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (old->start < v[i].end && v[i].start < old->end)
			return true;
	return false;
}

static int cmp_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Keep an old mapping: executable, and its range not reused since. */
static bool survives(const struct mapping *old, const struct mapping *v,
		     size_t n)
{
	return old->exec && !overlaps_any(old, v, n);
}

int maps_update(struct maps *m, const char *text, size_t len)
{
	struct mapping *nv, *grown;
	size_t nn, fresh, keep = 0;

	if (parse_all(text, len, &nv, &nn))
		return -1;
	if (nn == 0 && len > 0) {
		free(nv);
		errno = EINVAL;
		return -1;
	}
	/* Executable mappings that vanished without their range being
	 * reused are kept, as gone: their samples still need a name
	 * (dlclose), but no lookup may take them for live mappings.
	 * Room is made first, so a failure leaves m as it was. */
	for (size_t i = 0; i < m->n; i++)
		keep += survives(&m->v[i], nv, nn);
	grown = realloc(nv, (nn + keep + 1) * sizeof(*nv));
	if (!grown) {
		clear(nv, nn);
		free(nv);
		return -1;
	}
	nv = grown;
	fresh = nn;
	for (size_t i = 0; i < m->n; i++) {
		if (survives(&m->v[i], nv, fresh)) {
			nv[nn] = m->v[i];
			nv[nn++].gone = true;
		} else
			free(m->v[i].line);
	}
	free(m->v);
	qsort(nv, nn, sizeof(*nv), cmp_start);
	m->v = nv;
	m->n = nn;
	m->cap = nn;
	return 0;
}

const struct map_entry *maps_find(const struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else if (m->v[mid].start > addr)
			hi = mid;
		else
			return m->v[mid].gone ? NULL : &m->v[mid];
	}
	return NULL;
}

const struct map_entry *maps_find_at_or_above(const struct maps *m,
					      uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	/* first mapping whose end lies above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < m->n && m->v[lo].gone)
		lo++;
	return lo < m->n ? &m->v[lo] : NULL;
}

bool maps_covers_exec(const struct maps *m, uint64_t addr)
{
	const struct map_entry *e = maps_find(m, addr);

	return e && e->exec;
}

bool map_entry_is_file(const struct map_entry *e)
{
	return e->path[0] == '/';
}

size_t maps_count(const struct maps *m)
{
	return m->n;
}

int maps_write(const struct maps *m, FILE *f)
{
	for (size_t i = 0; i < m->n; i++)
		if (fprintf(f, "%s\n", m->v[i].line) < 0)
			return -1;
	return 0;
}
