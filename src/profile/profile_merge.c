/*
 * profile_merge.c - several profiles as one (see profile_merge.h).
 *
 * Each part's spaces are looked up by their maps text (interned in a
 * strpool: a hostile file's many spaces cost a hash each, not a
 * comparison with every space before); the spaces of the merge with that
 * text are a chain, tried in order, at most PROFILE_MERGE_MAX_TRIES of
 * them.  Each space of the merge keeps its names sorted by address, and
 * a part's run of names of one space is merged into it in one pass.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_merge.h"
#include "util/errbuf.h"
#include "util/grow.h"
#include "util/strpool.h"

#define NONE SIZE_MAX

/* A space of the merge. */
struct mspace {
	const char *text; /* a part's maps lines, len bytes */
	size_t len;
	size_t next_same; /* the next space of the same text, or NONE */
	struct profile_name *names; /* sorted by address, space set */
	size_t nnames;
};

struct merge {
	struct mspace *sp;
	size_t nsp, cap_sp;
	struct strpool *texts;
	size_t *first; /* by text id: the first space of that text */
	size_t cap_first;
	size_t *map;	 /* (part, space) -> space of the merge, all parts */
	size_t *map_off; /* by part: its spaces in map[] */
};

static const char *label_of(const char *const *labels, size_t i, char *buf,
			    size_t len)
{
	if (labels && labels[i])
		return labels[i];
	snprintf(buf, len, "profile %zu", i + 1);
	return buf;
}

int profile_merge_check(const struct profile *a, const char *la,
			const struct profile *b, const char *lb, char *err,
			size_t errlen)
{
	if (a->kind[0] && b->kind[0] && strcmp(a->kind, b->kind))
		return errbuf_fail(
			err, errlen, EINVAL,
			"%s holds %s samples and %s %s samples: they measure different things and cannot be added up",
			lb, b->kind, la, a->kind);
	if (a->period_us != b->period_us)
		return errbuf_fail(
			err, errlen, EINVAL,
			"%s was sampled every %llu us and %s every %llu us: a sample of one would weigh more than one of the other (record them at one frequency)",
			lb, (unsigned long long)b->period_us, la,
			(unsigned long long)a->period_us);
	return 0;
}

static bool name_same(const struct profile_name *a,
		      const struct profile_name *b)
{
	return !strcmp(a->name, b->name) && !a->file == !b->file &&
	       (!a->file || !strcmp(a->file, b->file)) && a->line == b->line &&
	       a->start_line == b->start_line;
}

/* Whether the n names r (sorted by address) name an address of m
 * otherwise than m does. */
static bool names_conflict(const struct mspace *m, const struct profile_name *r,
			   size_t n)
{
	size_t i = 0, j = 0;

	while (i < m->nnames && j < n) {
		if (m->names[i].addr < r[j].addr)
			i++;
		else if (m->names[i].addr > r[j].addr)
			j++;
		else if (!name_same(&m->names[i], &r[j]))
			return true;
		else
			j++;
	}
	return false;
}

/* m's names and the n names r, merged (those m has already once);
 * -1 on ENOMEM. */
static int names_add(struct mspace *m, size_t space,
		     const struct profile_name *r, size_t n)
{
	struct profile_name *v;
	size_t i = 0, j = 0, k = 0;

	if (!n)
		return 0;
	if (m->nnames > SIZE_MAX / sizeof(*v) - n) {
		errno = ENOMEM;
		return -1;
	}
	v = malloc((m->nnames + n) * sizeof(*v));
	if (!v)
		return -1;
	while (i < m->nnames || j < n) {
		if (j == n ||
		    (i < m->nnames && m->names[i].addr <= r[j].addr)) {
			if (j < n && m->names[i].addr == r[j].addr)
				j++; /* the same name (names_conflict()) */
			v[k++] = m->names[i++];
		} else {
			v[k] = r[j++];
			v[k++].space = space;
		}
	}
	free(m->names);
	m->names = v;
	m->nnames = k;
	return 0;
}

/* A new space of the merge for text; its index, or NONE on ENOMEM. */
static size_t space_new(struct merge *mg, const char *text, size_t len)
{
	struct mspace *s = grow_array(mg->sp, &mg->cap_sp, mg->nsp + 1,
				      sizeof(*s));

	if (!s)
		return NONE;
	mg->sp = s;
	s[mg->nsp] = (struct mspace){ text, len, NONE, NULL, 0 };
	return mg->nsp++;
}

/* The text's id in mg->texts, or -1 when it cannot be shared (a NUL in
 * it: the pool keeps C strings) or on ENOMEM (then errno is set). */
static int64_t text_id(struct merge *mg, const char *text, size_t len)
{
	char *copy;
	int64_t id;
	size_t cap = mg->cap_first;

	errno = 0;
	if (memchr(text, '\0', len))
		return -1;
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, text, len);
	copy[len] = '\0';
	id = strpool_intern(mg->texts, copy);
	free(copy);
	if (id < 0)
		return -1;
	if ((size_t)id >= mg->cap_first) {
		size_t *f = grow_array(mg->first, &cap, (size_t)id + 1,
				       sizeof(*f));

		if (!f)
			return -1;
		for (size_t i = mg->cap_first; i < cap; i++)
			f[i] = NONE;
		mg->first = f;
		mg->cap_first = cap;
	}
	return id;
}

/* The space of the merge for a part's space of that text and those
 * names: one of the same text whose names agree, else a new one. */
static size_t space_for(struct merge *mg, const char *text, size_t len,
			const struct profile_name *names, size_t nnames)
{
	int64_t id = text_id(mg, text, len);
	size_t s = NONE, last = NONE, tries = 0;

	if (id < 0 && errno)
		return NONE;
	if (id >= 0)
		for (s = mg->first[id];
		     s != NONE && tries < PROFILE_MERGE_MAX_TRIES;
		     last = s, s = mg->sp[s].next_same, tries++)
			if (!names_conflict(&mg->sp[s], names, nnames))
				break;
	if (s == NONE || tries == PROFILE_MERGE_MAX_TRIES) {
		s = space_new(mg, text, len);
		if (s == NONE)
			return NONE;
		if (id >= 0 && last == NONE)
			mg->first[id] = s;
		else if (id >= 0) {
			while (mg->sp[last].next_same != NONE)
				last = mg->sp[last].next_same;
			mg->sp[last].next_same = s;
		}
	}
	return names_add(&mg->sp[s], s, names, nnames) ? NONE : s;
}

/* Map every space of part p (its index i) to a space of the merge. */
static int map_part(struct merge *mg, const struct profile *p, size_t i)
{
	size_t n = profile_nspaces(p), k = 0, len, lo;
	const char *text;

	for (size_t s = 0; s < n; s++) {
		while (k < p->nnames && p->names[k].space < s)
			k++; /* a reader never gives names of no space */
		for (lo = k; k < p->nnames && p->names[k].space == s; k++)
			;
		text = profile_space_maps(p, s, &len);
		mg->map[mg->map_off[i] + s] =
			space_for(mg, text ? text : "", len,
				  p->names ? p->names + lo : NULL, k - lo);
		if (mg->map[mg->map_off[i] + s] == NONE)
			return -1;
	}
	return 0;
}

/* out's maps text, spaces and names, from the merge's spaces. */
static int build_spaces(const struct merge *mg, struct profile *out)
{
	size_t len = 0, nn = 0;

	for (size_t s = 0; s < mg->nsp; s++) {
		if (mg->sp[s].len > SIZE_MAX - 1 - len ||
		    mg->sp[s].nnames > SIZE_MAX / sizeof(*out->names) - nn) {
			errno = ENOMEM;
			return -1;
		}
		len += mg->sp[s].len;
		nn += mg->sp[s].nnames;
	}
	out->maps_text = malloc(len + 1);
	out->spaces = calloc(mg->nsp ? mg->nsp : 1, sizeof(*out->spaces));
	out->names = nn ? malloc(nn * sizeof(*out->names)) : NULL;
	if (!out->maps_text || !out->spaces || (nn && !out->names))
		return -1;
	len = 0;
	for (size_t s = 0; s < mg->nsp; s++) {
		memcpy(out->maps_text + len, mg->sp[s].text, mg->sp[s].len);
		out->spaces[s] = (struct profile_space){ len, mg->sp[s].len };
		len += mg->sp[s].len;
		if (mg->sp[s].nnames)
			memcpy(out->names + out->nnames, mg->sp[s].names,
			       mg->sp[s].nnames * sizeof(*out->names));
		out->nnames += mg->sp[s].nnames;
	}
	out->maps_text[len] = '\0';
	out->maps_len = len;
	out->nspaces = mg->nsp;
	return 0;
}

/* out's records: every part's, their spaces renumbered. */
static int build_records(const struct merge *mg, struct profile *parts,
			 size_t n, struct profile *out, char *err,
			 size_t errlen, const char *const *labels)
{
	size_t nr = 0, k = 0;
	char buf[32];

	for (size_t i = 0; i < n; i++) {
		if (parts[i].nrecords > SIZE_MAX / sizeof(*out->records) - nr)
			return errbuf_fail(err, errlen, ENOMEM,
					   "out of memory");
		nr += parts[i].nrecords;
		if (out->total_samples > UINT64_MAX - parts[i].total_samples)
			return errbuf_fail(
				err, errlen, EOVERFLOW,
				"the samples of %s and the files before it add up past 2^64 - 1",
				label_of(labels, i, buf, sizeof(buf)));
		out->total_samples += parts[i].total_samples;
	}
	out->records = calloc(nr ? nr : 1, sizeof(*out->records));
	if (!out->records)
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < parts[i].nrecords; r++, k++) {
			size_t sp = parts[i].records[r].space;

			if (sp >= profile_nspaces(&parts[i]))
				return errbuf_fail(
					err, errlen, EINVAL,
					"%s: record %zu is in address space %zu, which it does not have",
					label_of(labels, i, buf, sizeof(buf)),
					r, sp);
			out->records[k] = parts[i].records[r]; /* whole */
			out->records[k].space = mg->map[mg->map_off[i] + sp];
		}
	out->nrecords = nr;
	return 0;
}

/* The scalar fields of out from the parts (checked already). */
/*
 * The time of the whole: sample times (time_ns) are since the epoch, so
 * they stay as they are; the start is the earliest file's start, the
 * duration runs to the latest file's end.  A file's values are hostile:
 * an end that overflows is left out (its start still counts).
 */
static void merge_times(const struct profile *parts, size_t n,
			struct profile *out)
{
	int64_t end = 0, e;

	for (size_t i = 0; i < n; i++) {
		out->times |= parts[i].times;
		if (!parts[i].time_nanos)
			continue;
		if (!out->time_nanos || parts[i].time_nanos < out->time_nanos)
			out->time_nanos = parts[i].time_nanos;
		if (parts[i].duration_nanos >= 0 &&
		    !__builtin_add_overflow(parts[i].time_nanos,
					    parts[i].duration_nanos, &e) &&
		    e > end)
			end = e;
	}
	if (out->time_nanos && end > out->time_nanos &&
	    __builtin_sub_overflow(end, out->time_nanos, &out->duration_nanos))
		out->duration_nanos = 0;
}

static void merge_fields(const struct profile *parts, size_t n,
			 struct profile *out)
{
	bool pid_conflict = false;

	out->period_us = parts[0].period_us;
	for (size_t i = 0; i < n; i++) {
		out->threads |= parts[i].threads;
		out->processes |= parts[i].processes;
		if (!out->kind[0])
			memcpy(out->kind, parts[i].kind, sizeof(out->kind));
		if (parts[i].pid && out->pid && parts[i].pid != out->pid)
			pid_conflict = true;
		if (parts[i].pid && !out->pid)
			out->pid = parts[i].pid;
	}
	if (pid_conflict)
		out->pid = 0;
	merge_times(parts, n, out);
}

static void merge_free(struct merge *mg)
{
	for (size_t s = 0; s < mg->nsp; s++)
		free(mg->sp[s].names);
	free(mg->sp);
	strpool_free(mg->texts);
	free(mg->first);
	free(mg->map);
	free(mg->map_off);
}

/* Map the parts' spaces; -1 with errno on ENOMEM. */
static int map_parts(struct merge *mg, const struct profile *parts, size_t n)
{
	size_t total = 0;

	mg->texts = strpool_new();
	mg->map_off = calloc(n, sizeof(*mg->map_off));
	if (!mg->texts || !mg->map_off)
		return -1;
	for (size_t i = 0; i < n; i++) {
		mg->map_off[i] = total;
		if (profile_nspaces(&parts[i]) >
		    SIZE_MAX / sizeof(size_t) - total) {
			errno = ENOMEM;
			return -1;
		}
		total += profile_nspaces(&parts[i]);
	}
	mg->map = malloc((total ? total : 1) * sizeof(*mg->map));
	if (!mg->map)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (map_part(mg, &parts[i], i))
			return -1;
	return 0;
}

/* The parts, kept in out for their storage only, and zeroed. */
static int adopt_parts(struct profile *parts, size_t n, struct profile *out)
{
	out->parts_ = calloc(n, sizeof(*out->parts_));
	if (!out->parts_)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct profile *p = &out->parts_[i];

		*p = parts[i];
		memset(&parts[i], 0, sizeof(parts[i]));
		free(p->records);
		free(p->maps_text);
		free(p->names);
		free(p->spaces);
		p->records = NULL;
		p->maps_text = NULL;
		p->names = NULL;
		p->spaces = NULL;
		p->nrecords = p->nnames = p->nspaces = p->maps_len = 0;
	}
	out->nparts_ = n;
	return 0;
}

int profile_merge(struct profile *parts, const char *const *labels, size_t n,
		  struct profile *out, char *err, size_t errlen)
{
	struct merge mg = { .sp = NULL };
	char b1[32], b2[32];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (!parts || !n)
		return errbuf_fail(err, errlen, EINVAL, "no profile to merge");
	/* Each part against the first that says its kind (else the first):
	 * a legacy file first must not let a cpu and a wall one through. */
	for (size_t i = 1, ref = 0; i < n; i++) {
		if (profile_merge_check(&parts[ref],
					label_of(labels, ref, b1, sizeof(b1)),
					&parts[i],
					label_of(labels, i, b2, sizeof(b2)),
					err, errlen))
			return -1;
		if (!parts[ref].kind[0] && parts[i].kind[0])
			ref = i;
	}
	if (n == 1) {
		*out = parts[0];
		memset(&parts[0], 0, sizeof(parts[0]));
		return 0;
	}
	if (map_parts(&mg, parts, n) || build_spaces(&mg, out))
		errbuf_fail(err, errlen, ENOMEM, "out of memory");
	else if (build_records(&mg, parts, n, out, err, errlen, labels) == 0)
		rc = 0;
	merge_fields(parts, n, out);
	if (rc == 0 && adopt_parts(parts, n, out))
		rc = errbuf_fail(err, errlen, ENOMEM, "out of memory");
	merge_free(&mg);
	if (rc) {
		int e = errno;

		free(out->records);
		free(out->maps_text);
		free(out->names);
		free(out->spaces);
		free(out->parts_);
		memset(out, 0, sizeof(*out));
		errno = e;
	}
	return rc;
}
