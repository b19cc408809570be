/*
 * pprof_read_spaces.c - the address spaces of a pprof profile
 * (pprof_read.h): which of its mappings share one, and so which space
 * each location and sample is in.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_read.h"
#include "profile/pprof_read_int.h"
#include "util/errbuf.h"
#include "util/grow.h"

/* ---- address spaces ---- */

/*
 * Which mappings share an address space.  A writer of several processes
 * (ptprof: one per image) gives each its own mappings, and a sample's
 * locations are in its own process's mappings only; so the mappings the
 * samples link (one sample's locations) are one group, found with a
 * union-find.  Groups whose mappings do not overlap (but for equal ones)
 * are then put in one space (join_groups()): the report reads each
 * space's files once, and most processes share a few spaces, since
 * address space randomisation puts their mappings apart; two groups that
 * map different files at one address (two non-PIE programs) never share
 * one, so each address is named from its own mapping.  Another tool's
 * profile, of one process, is one space.
 */

static size_t uf_root(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* The mapping index of location id, or SIZE_MAX when it has none. */
static size_t loc_mapping(const struct rd *rd, uint64_t loc_id, size_t *li)
{
	const struct id_index *l = pprof_read_find_loc(rd, loc_id);

	*li = l ? l->i : 0; /* check_sample() found it */
	return l ? rd->loc_map[l->i] : SIZE_MAX;
}

/* Each location's mapping index (SIZE_MAX: none), for loc_mapping(). */
static void map_locations(struct rd *rd)
{
	for (size_t i = 0; i < rd->pp->n_location; i++) {
		uint64_t id = rd->pp->location[i]->mapping_id;
		const struct id_index *m =
			id ? pprof_read_find_id(rd->maps, rd->pp->n_mapping,
						id) :
			     NULL;

		rd->loc_map[i] = m ? m->i : SIZE_MAX;
	}
}

/* The first mapping sample i's locations are in, or SIZE_MAX. */
static size_t sample_mapping(const struct rd *rd, size_t i)
{
	const PbSample *s = rd->pp->sample[i];
	size_t li, m = SIZE_MAX;

	for (size_t k = 0; k < s->n_location_id && m == SIZE_MAX; k++)
		m = loc_mapping(rd, s->location_id[k], &li);
	return m;
}

static void link_mappings(const struct rd *rd, size_t *up)
{
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		size_t first = sample_mapping(rd, i), li;

		if (!s->value[rd->ci] || first == SIZE_MAX)
			continue;
		for (size_t k = 0; k < s->n_location_id; k++) {
			size_t m = loc_mapping(rd, s->location_id[k], &li);

			if (m != SIZE_MAX)
				up[uf_root(up, m)] = uf_root(up, first);
		}
	}
}

/* Steps join_groups() may take (a space tried, an interval compared or
 * moved): past them, the groups left get a space each (more spaces,
 * names still right), so a hostile file of a million mappings cannot
 * make it quadratic. */
#define JOIN_BUDGET (1UL << 25)

/* A space being filled: its mappings' ranges, sorted and disjoint. */
struct jspace {
	size_t *v; /* mapping indexes, by memory_start */
	size_t n, cap;
};

/* The union-find and what join_groups() needs of each group (by root). */
struct groups {
	const struct rd *rd;
	size_t *up;    /* mapping -> its group's root */
	bool *sampled; /* root -> some sample is in it */
	size_t *space; /* root -> its space */
	size_t *order; /* mappings by group, by start within one */
	size_t *first; /* root -> its mappings: order[first..] */
	size_t *count;
	struct jspace *sp; /* the spaces made */
	size_t nsp, capsp;
	size_t budget;
};

static const PbMapping *jmap(const struct groups *g, size_t m)
{
	return g->rd->pp->mapping[m];
}

static bool same_str(const struct rd *rd, int64_t a, int64_t b)
{
	return a == b || !strcmp(pprof_read_str(rd, a), pprof_read_str(rd, b));
}

/* The same file at the same place (two runs of one non-PIE program). */
bool pprof_read_same_mapping(const struct rd *rd, const PbMapping *x,
			     const PbMapping *y)
{
	return x->memory_start == y->memory_start &&
	       x->memory_limit == y->memory_limit &&
	       x->file_offset == y->file_offset &&
	       same_str(rd, x->filename, y->filename) &&
	       same_str(rd, x->build_id, y->build_id);
}

/* Mappings a and b may be in one space: they do not overlap, or are the
 * same mapping. */
static bool compatible(const struct groups *g, size_t a, size_t b)
{
	const PbMapping *x = jmap(g, a), *y = jmap(g, b);

	if (x->memory_start >= y->memory_limit ||
	    y->memory_start >= x->memory_limit)
		return true;
	return pprof_read_same_mapping(g->rd, x, y);
}

static const struct groups *sort_groups_;

static int cmp_member(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint64_t x = jmap(sort_groups_, a)->memory_start;
	uint64_t y = jmap(sort_groups_, b)->memory_start;

	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Each group's mappings together, by start (order, first, count). */
static void sort_groups(struct groups *g)
{
	size_t n = g->rd->pp->n_mapping, at = 0;

	for (size_t i = 0; i < n; i++)
		g->count[g->up[i]]++;
	for (size_t i = 0; i < n; i++)
		if (g->up[i] == i) {
			g->first[i] = at;
			at += g->count[i];
			g->count[i] = 0;
		}
	for (size_t i = 0; i < n; i++) {
		size_t r = g->up[i];

		g->order[g->first[r] + g->count[r]++] = i;
	}
	sort_groups_ = g;
	for (size_t i = 0; i < n; i++)
		if (g->up[i] == i && g->sampled[i])
			qsort(g->order + g->first[i], g->count[i],
			      sizeof(*g->order), cmp_member);
	sort_groups_ = NULL;
}

/* Where mapping m would go in space s: the first of its ranges that
 * starts at or after m's limit. */
static size_t jspace_pos(const struct groups *g, const struct jspace *s,
			 size_t m)
{
	size_t lo = 0, hi = s->n;
	uint64_t limit = jmap(g, m)->memory_limit;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (jmap(g, s->v[mid])->memory_start < limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether mapping m conflicts with space s: the range before its place
 * is the only one that may overlap it (the ranges are disjoint). */
static bool jspace_conflicts(const struct groups *g, const struct jspace *s,
			     size_t m)
{
	size_t pos = jspace_pos(g, s, m);

	return pos && !compatible(g, s->v[pos - 1], m);
}

/* Group r fits space s: none of its mappings conflicts. */
static bool group_fits(struct groups *g, size_t r, const struct jspace *s)
{
	for (size_t i = 0; i < g->count[r]; i++) {
		if (!g->budget)
			return false;
		g->budget--;
		if (jspace_conflicts(g, s, g->order[g->first[r] + i]))
			return false;
	}
	return true;
}

/* A group whose own mappings conflict (a library unloaded and another
 * loaded at its place) can share no space: it gets one of its own. */
static bool group_alone(const struct groups *g, size_t r)
{
	for (size_t i = 1; i < g->count[r]; i++)
		if (!compatible(g, g->order[g->first[r] + i - 1],
				g->order[g->first[r] + i]))
			return true;
	return false;
}

/* Add group r's mappings to space s (one of equal ones). */
static int jspace_add(struct groups *g, size_t r, struct jspace *s)
{
	for (size_t i = 0; i < g->count[r]; i++) {
		size_t m = g->order[g->first[r] + i], pos = jspace_pos(g, s, m);
		size_t *nv;

		if (pos && jmap(g, s->v[pos - 1])->memory_limit >
				   jmap(g, m)->memory_start)
			continue; /* the same mapping: there already */
		nv = grow_array(s->v, &s->cap, s->n + 1, sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		memmove(s->v + pos + 1, s->v + pos,
			(s->n - pos) * sizeof(*s->v));
		g->budget -= s->n - pos < g->budget ? s->n - pos : g->budget;
		s->v[pos] = m;
		s->n++;
	}
	return 0;
}

/* A new space for group r (its ranges kept only while the budget lasts:
 * after it, no group joins another). */
static int new_space(struct groups *g, size_t r, bool alone)
{
	struct jspace *ns = grow_array(g->sp, &g->capsp, g->nsp + 1,
				       sizeof(*ns));

	if (!ns)
		return -1;
	g->sp = ns;
	g->sp[g->nsp] = (struct jspace){ .v = NULL };
	g->space[r] = g->nsp++;
	return alone || !g->budget ? 0 : jspace_add(g, r, &g->sp[g->space[r]]);
}

/*
 * Put each sampled group in the first space it fits (no mapping of it
 * overlaps another there, but the same one), else in a new one: so the
 * processes of a file share a few spaces, each of whose files the report
 * reads once, and each address is still named from its own mapping.
 * Groups are taken in mapping order, so the spaces are numbered so too.
 */
static int join_groups(struct groups *g)
{
	size_t n = g->rd->pp->n_mapping;

	for (size_t r = 0; r < n; r++) {
		bool alone;
		size_t k;

		if (g->up[r] != r || !g->sampled[r])
			continue;
		alone = group_alone(g, r);
		for (k = 0; !alone && k < g->nsp && g->budget; k++) {
			g->budget--;
			if (g->sp[k].v && group_fits(g, r, &g->sp[k]))
				break;
		}
		if (!alone && k < g->nsp && g->budget) {
			g->space[r] = k;
			if (jspace_add(g, r, &g->sp[k]))
				return -1;
		} else if (new_space(g, r, alone)) {
			return -1;
		}
	}
	return 0;
}

/* rd->map_space from the groups' spaces; the mappings of no sample are
 * in none (SIZE_MAX): no record needs them. */
static void number_spaces(struct rd *rd, const struct groups *g)
{
	for (size_t i = 0; i < rd->pp->n_mapping; i++) {
		size_t r = g->up[i];

		rd->map_space[i] = g->sampled[r] ? g->space[r] : SIZE_MAX;
	}
	rd->nspaces = g->nsp;
}

/* The space of sample i: its first mapping's; a sample in no mapping
 * is in a space of its own, with no lines (rd->nspaces, made then). */
size_t pprof_read_sample_space(struct rd *rd, size_t i)
{
	size_t m = sample_mapping(rd, i);

	if (m != SIZE_MAX)
		return rd->map_space[m];
	if (rd->unmapped == SIZE_MAX)
		rd->unmapped = rd->nspaces++;
	return rd->unmapped;
}

/* Each location's space: its mapping's, else that of the first sample
 * it is in (else 0).  Makes the space of the samples in no mapping. */
static void locate_spaces(struct rd *rd)
{
	size_t li, unmapped = 0;

	rd->unmapped = SIZE_MAX;
	for (size_t i = 0; i < rd->pp->n_location; i++) {
		size_t m = rd->loc_map[i];

		rd->loc_space[i] = m != SIZE_MAX ? rd->map_space[m] : SIZE_MAX;
		unmapped += m == SIZE_MAX;
	}
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		size_t sp;

		if (!s->value[rd->ci])
			continue;
		sp = pprof_read_sample_space(rd, i);
		for (size_t k = 0; unmapped && k < s->n_location_id; k++)
			if (loc_mapping(rd, s->location_id[k], &li) ==
				    SIZE_MAX &&
			    rd->loc_space[li] == SIZE_MAX)
				rd->loc_space[li] = sp;
	}
	for (size_t i = 0; i < rd->pp->n_location; i++)
		if (rd->loc_space[i] == SIZE_MAX)
			rd->loc_space[i] = 0; /* in no sample */
}

static void free_groups(struct groups *g)
{
	for (size_t i = 0; g->sp && i < g->nsp; i++)
		free(g->sp[i].v);
	free(g->sp);
	free(g->up);
	free(g->sampled);
	free(g->space);
	free(g->order);
	free(g->first);
	free(g->count);
}

static int alloc_groups(struct rd *rd, struct groups *g)
{
	size_t n = rd->pp->n_mapping ? rd->pp->n_mapping : 1;
	size_t nl = rd->pp->n_location ? rd->pp->n_location : 1;

	*g = (struct groups){ .rd = rd, .budget = JOIN_BUDGET };
	g->up = malloc(n * sizeof(*g->up));
	g->sampled = calloc(n, sizeof(*g->sampled));
	g->space = malloc(n * sizeof(*g->space));
	g->order = malloc(n * sizeof(*g->order));
	g->first = calloc(n, sizeof(*g->first));
	g->count = calloc(n, sizeof(*g->count));
	rd->map_space = malloc(n * sizeof(*rd->map_space));
	rd->loc_space = malloc(nl * sizeof(*rd->loc_space));
	rd->loc_map = malloc(nl * sizeof(*rd->loc_map));
	if (g->up && g->sampled && g->space && g->order && g->first &&
	    g->count && rd->map_space && rd->loc_space && rd->loc_map)
		return 0;
	free_groups(g);
	return errbuf_fail(rd->err, rd->errlen, ENOMEM, "out of memory");
}

int pprof_read_spaces(struct rd *rd)
{
	struct groups g;
	int rc;

	if (alloc_groups(rd, &g))
		return -1;
	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		g.up[i] = i;
	map_locations(rd);
	link_mappings(rd, g.up);
	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		g.up[i] = uf_root(g.up, i);
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		size_t m = rd->pp->sample[i]->value[rd->ci] ?
				   sample_mapping(rd, i) :
				   SIZE_MAX;

		if (m != SIZE_MAX)
			g.sampled[g.up[m]] = true;
	}
	sort_groups(&g);
	rc = join_groups(&g);
	if (!rc) {
		number_spaces(rd, &g);
		locate_spaces(rd);
	}
	free_groups(&g);
	return rc ? errbuf_fail(rd->err, rd->errlen, ENOMEM, "out of memory") :
		    0;
}
