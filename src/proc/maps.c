/*
 * maps.c - the union of /proc/PID/maps snapshots (see maps.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/maps.h"
#include "util/grow.h"
#include "util/scan.h"

#define mapping map_entry

struct maps {
	struct mapping *v; /* sorted by start */
	size_t n, cap;
};

struct maps *maps_new(void)
{
	return calloc(1, sizeof(struct maps));
}

static void entry_free(struct mapping *e)
{
	free(e->line);
	free(e->build_id);
}

static void clear(struct mapping *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		entry_free(&v[i]);
}

void maps_free(struct maps *m)
{
	if (!m)
		return;
	clear(m->v, m->n);
	free(m->v);
	free(m);
}

/* ---- parsing one line ------------------------------------------------ */

/* Where maps_parse_line() is in its line. */
struct maps_cursor {
	const char *s;
	size_t len, i;
	char *err;
	size_t errlen;
};

static int maps_bad(const struct maps_cursor *c, const char *what)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "bad maps line at column %zu: %s",
			 c->i + 1, what);
	errno = EINVAL;
	return -1;
}

/* 1 to max hex digits into *v; false (the cursor unmoved) otherwise. */
static bool maps_hex(struct maps_cursor *c, size_t max, uint64_t *v)
{
	const char *s = c->s + c->i;

	if (scan_hex(&s, c->s + c->len, max, 0, v))
		return false;
	c->i = (size_t)(s - c->s);
	return true;
}

/* A decimal number below 2^64 into *v. */
static bool maps_dec(struct maps_cursor *c, uint64_t *v)
{
	const char *s = c->s + c->i;

	if (scan_dec(&s, c->s + c->len, UINT64_MAX, v))
		return false;
	c->i = (size_t)(s - c->s);
	return true;
}

static bool maps_char(struct maps_cursor *c, char ch)
{
	if (c->i >= c->len || c->s[c->i] != ch)
		return false;
	c->i++;
	return true;
}

/* PERMS: [r-][w-][x-][ps-]. */
static bool maps_perms(struct maps_cursor *c, struct maps_line *out)
{
	static const char *const allowed[4] = { "r-", "w-", "x-", "ps-" };
	const char *p = c->s + c->i;

	if (c->len - c->i < 4)
		return false;
	for (int k = 0; k < 4; k++)
		if (!p[k] || !strchr(allowed[k], p[k]))
			return false;
	out->read = p[0] == 'r';
	out->write = p[1] == 'w';
	out->exec = p[2] == 'x';
	c->i += 4;
	return true;
}

/* "START-END ", START below END. */
static int maps_range(struct maps_cursor *c, struct maps_line *out)
{
	size_t at = c->i;

	if (!maps_hex(c, 16, &out->start))
		return maps_bad(c,
				"expected the start address (1 to 16 hex digits)");
	if (!maps_char(c, '-'))
		return maps_bad(c, "expected '-' after the start address");
	if (!maps_hex(c, 16, &out->end))
		return maps_bad(c,
				"expected the end address (1 to 16 hex digits)");
	if (!maps_char(c, ' '))
		return maps_bad(c, "expected a space after the end address");
	if (out->end <= out->start) {
		c->i = at;
		return maps_bad(c,
				"the end address is not above the start address");
	}
	return 0;
}

/* "PERMS OFFSET MAJ:MIN INODE". */
static int maps_fields(struct maps_cursor *c, struct maps_line *out)
{
	uint64_t maj, min;
	size_t at;

	if (!maps_perms(c, out))
		return maps_bad(c, "expected permissions such as r-xp");
	if (!maps_char(c, ' '))
		return maps_bad(c, "expected a space after the permissions");
	if (!maps_hex(c, 16, &out->offset))
		return maps_bad(c,
				"expected the file offset (1 to 16 hex digits)");
	if (!maps_char(c, ' '))
		return maps_bad(c, "expected a space after the file offset");
	at = c->i;
	if (!maps_hex(c, 8, &maj) || !maps_char(c, ':') ||
	    !maps_hex(c, 8, &min)) {
		c->i = at; /* name the field, not the byte inside it */
		return maps_bad(c, "expected the device as MAJOR:MINOR in hex");
	}
	if (!maps_char(c, ' '))
		return maps_bad(c, "expected a space after the device");
	out->dev = makedev((unsigned)maj, (unsigned)min);
	if (!maps_dec(c, &out->ino))
		return maps_bad(c,
				"expected the inode (a decimal number below 2^64)");
	return 0;
}

int maps_parse_line(const char *line, size_t len, struct maps_line *out,
		    char *err, size_t errlen)
{
	struct maps_cursor c = { line, len, 0, err, errlen };

	memset(out, 0, sizeof(*out));
	if (maps_range(&c, out) || maps_fields(&c, out))
		return -1;
	if (c.i < len && !maps_char(&c, ' '))
		return maps_bad(
			&c,
			"expected a space or the end of the line after the inode");
	while (c.i < len && line[c.i] == ' ')
		c.i++;
	out->path_off = c.i;
	return 0;
}

/* ---- the union of snapshots ------------------------------------------ */

static int push(struct mapping **v, size_t *n, size_t *cap,
		const struct mapping *m)
{
	struct mapping *nv = grow_array(*v, cap, *n + 1, sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	(*v)[(*n)++] = *m;
	return 0;
}

static void maps_entry_init(struct mapping *e, const struct maps_line *ml)
{
	memset(e, 0, sizeof(*e));
	e->start = ml->start;
	e->end = ml->end;
	e->offset = ml->offset;
	e->ino = ml->ino;
	e->dev = ml->dev;
	e->read = ml->read;
	e->write = ml->write;
	e->exec = ml->exec;
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
		struct maps_line ml;
		struct mapping m;

		if (maps_parse_line(text + off, l, &ml, NULL, 0) == 0) {
			maps_entry_init(&m, &ml);
			m.line = strndup(text + off, l);
			if (m.line)
				m.path = m.line + ml.path_off;
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

/*
 * What was learnt of a mapping (its build ID) goes to the same mapping
 * (same line) of the newer snapshot.  Both are in address order (the
 * kernel's, and ours), so one pass does it.
 */
static void carry_over(struct mapping *nv, size_t nn, struct mapping *old,
		       size_t no)
{
	size_t j = 0;

	for (size_t i = 0; i < nn; i++) {
		while (j < no && old[j].start < nv[i].start)
			j++;
		if (j < no && old[j].start == nv[i].start &&
		    !strcmp(old[j].line, nv[i].line)) {
			nv[i].build_id = old[j].build_id;
			nv[i].build_id_tried = old[j].build_id_tried;
			old[j].build_id = NULL;
		}
	}
}

/*
 * The build IDs src knows of mappings dst holds too (the same line at the
 * same address): for a union of several snapshots' texts (maps_write()
 * then maps_update()), which carries no build ID over.  Both are in
 * address order.
 */
void maps_copy_build_ids(struct maps *dst, const struct maps *src)
{
	size_t j = 0;

	for (size_t i = 0; i < dst->n; i++) {
		struct mapping *d = &dst->v[i];

		while (j < src->n && src->v[j].start < d->start)
			j++;
		if (j == src->n || d->build_id || !src->v[j].build_id ||
		    src->v[j].start != d->start ||
		    strcmp(src->v[j].line, d->line))
			continue;
		d->build_id = strdup(src->v[j].build_id);
		d->build_id_tried = d->build_id != NULL;
	}
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
	carry_over(nv, fresh, m->v, m->n);
	for (size_t i = 0; i < m->n; i++) {
		if (survives(&m->v[i], nv, fresh)) {
			nv[nn] = m->v[i];
			nv[nn++].gone = true;
		} else
			entry_free(&m->v[i]);
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

const struct map_entry *maps_entry(const struct maps *m, size_t i)
{
	return i < m->n ? &m->v[i] : NULL;
}

bool maps_covers_exec(const struct maps *m, uint64_t addr)
{
	const struct map_entry *e = maps_find(m, addr);

	return e && e->exec;
}

bool maps_entry_is_file(const struct map_entry *e)
{
	return e->path[0] == '/';
}

size_t maps_count(const struct maps *m)
{
	return m->n;
}

void maps_set_build_id(struct maps *m, size_t i, char *id)
{
	m->v[i].build_id_tried = true;
	m->v[i].build_id = id;
}

/* "START-END PERMS PATH (@OFFSET) BUILDID": the mapping's line in pprof's
 * brief form (see maps.h), or nothing if it cannot be written so. */
static int write_brief(const struct mapping *e, FILE *f)
{
	const char *perms = strchr(e->line, ' ');

	if (!e->build_id || !perms || strpbrk(e->path, " \t"))
		return 0;
	return fprintf(f, "%" PRIx64 "-%" PRIx64 " %.4s %s (@%" PRIx64 ") %s\n",
		       e->start, e->end, perms + 1, e->path, e->offset,
		       e->build_id) < 0 ?
		       -1 :
		       0;
}

int maps_write(const struct maps *m, FILE *f)
{
	for (size_t i = 0; i < m->n; i++)
		if (write_brief(&m->v[i], f) ||
		    fprintf(f, "%s\n", m->v[i].line) < 0)
			return -1;
	return 0;
}
