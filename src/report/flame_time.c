/*
 * flame_time.c - a flame graph's time strip (flame.h): each drawn
 * frame's samples per slot, made bottom up, and their SVG (the bars of
 * the strip and each frame's data-t).  A stack's samples go to the
 * deepest drawn frame over it (its owner); a frame's counts are its own
 * plus its children's, which come after it in t->nodes (breadth first),
 * so one pass from the last frame to the root adds them up, each frame's
 * counts a sorted run of one pool.  A slot width that would make the
 * pool outgrow FLAME_MAX_TIME_ENTRIES is given up for the next wider
 * one.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "report/flame_int.h"
#include "util/grow.h"

void flame_time_free(struct strip *s)
{
	free(s->owner);
	free(s->parent);
	free(s->kids);
	free(s->first);
	free(s->len);
	free(s->pool);
	free(s->own);
	free(s->own_at);
	free(s->dense);
	free(s->touched);
}

/* Owners, callers and first children of the drawn frames. */
static int strip_links(struct strip *s, const struct tree *t, size_t nstacks)
{
	size_t p = 0;

	s->owner = malloc((nstacks ? nstacks : 1) * sizeof(*s->owner));
	s->parent = malloc(t->n * sizeof(*s->parent));
	s->kids = malloc(t->n * sizeof(*s->kids));
	if (!s->owner || !s->parent || !s->kids)
		return -1;
	for (size_t i = 0; i < nstacks; i++)
		s->owner[i] = SIZE_MAX;
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = t->nodes[i].lo; j < t->nodes[i].hi; j++)
			s->owner[t->idx[j]] = i; /* deeper frames come later */
	/* A frame's caller is the frame one level down whose stacks hold
	 * its own (frames of a level hold disjoint stacks); callers come in
	 * the order their callees do. */
	s->parent[0] = 0;
	for (size_t i = 0; i < t->n; i++)
		s->kids[i] = t->n;
	for (size_t c = 1; c < t->n; c++) {
		const struct node *nc = &t->nodes[c];

		while (p < c &&
		       !(t->nodes[p].depth + 1 == nc->depth &&
			 t->nodes[p].lo <= nc->lo && nc->hi <= t->nodes[p].hi))
			p++;
		s->parent[c] = p;
		if (s->kids[p] == t->n)
			s->kids[p] = c;
	}
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The samples by owner (counting sort), their slots at slot_ns. */
static int strip_own(struct strip *s, const struct tree *t)
{
	const struct flame_time *tm = s->time;
	size_t *at;

	free(s->own);
	free(s->own_at);
	s->own = malloc((tm->n ? tm->n : 1) * sizeof(*s->own));
	s->own_at = calloc(t->n + 1, sizeof(*s->own_at));
	at = calloc(t->n + 1, sizeof(*at));
	if (!s->own || !s->own_at || !at) {
		free(at);
		return -1;
	}
	for (size_t i = 0; i < tm->n; i++)
		if (s->owner[tm->samples[i].stack] != SIZE_MAX)
			s->own_at[s->owner[tm->samples[i].stack] + 1]++;
	for (size_t i = 0; i < t->n; i++)
		s->own_at[i + 1] += s->own_at[i];
	memcpy(at, s->own_at, (t->n + 1) * sizeof(*at));
	for (size_t i = 0; i < tm->n; i++) {
		size_t o = s->owner[tm->samples[i].stack];

		if (o != SIZE_MAX)
			s->own[at[o]++] = (struct tcount){
				(uint32_t)(tm->samples[i].ns / s->slot_ns),
				tm->samples[i].count
			};
	}
	free(at);
	return 0;
}

/* Add count to a slot of the frame being made (saturating: the
 * caller's counts are not checked against the stacks'). */
static void strip_touch(struct strip *s, uint32_t slot, uint64_t count)
{
	if (!count)
		return;
	if (!s->dense[slot])
		s->touched[s->ntouched++] = slot;
	s->dense[slot] = count > UINT64_MAX - s->dense[slot] ?
				 UINT64_MAX :
				 s->dense[slot] + count;
}

/* Frame i's counts: its own samples and its children's counts. */
static int strip_frame(struct strip *s, const struct tree *t, size_t i)
{
	struct tcount *pool;

	s->ntouched = 0;
	for (size_t k = s->own_at[i]; k < s->own_at[i + 1]; k++)
		strip_touch(s, s->own[k].slot, s->own[k].count);
	for (size_t c = s->kids[i]; c < t->n && s->parent[c] == i; c++)
		for (size_t k = 0; k < s->len[c]; k++)
			strip_touch(s, s->pool[s->first[c] + k].slot,
				    s->pool[s->first[c] + k].count);
	if (s->npool + s->ntouched > FLAME_MAX_TIME_ENTRIES)
		return 1;
	pool = grow_array(s->pool, &s->cappool, s->npool + s->ntouched,
			  sizeof(*pool));
	if (!pool)
		return -1;
	s->pool = pool;
	qsort(s->touched, s->ntouched, sizeof(*s->touched), u32_cmp);
	s->first[i] = s->npool;
	s->len[i] = s->ntouched;
	for (size_t k = 0; k < s->ntouched; k++) {
		s->pool[s->npool++] = (struct tcount){
			s->touched[k], s->dense[s->touched[k]]
		};
		s->dense[s->touched[k]] = 0;
	}
	return 0;
}

/* Every frame's counts at slot_ns: 0, 1 when they are too many, -1. */
static int strip_counts(struct strip *s, const struct tree *t)
{
	int rc = 0;

	s->npool = 0;
	free(s->dense);
	free(s->touched);
	s->dense = calloc(s->nslots, sizeof(*s->dense));
	s->touched = malloc(s->nslots * sizeof(*s->touched));
	if (!s->dense || !s->touched || strip_own(s, t))
		return -1;
	for (size_t i = t->n; i-- > 0 && !rc;)
		rc = strip_frame(s, t, i);
	return rc;
}

/* The next slot width of 1, 2, 5 times a power of ten; 0 past 2^63. */
static uint64_t next_slot(uint64_t ns)
{
	uint64_t lead = ns, pow = 1;

	while (lead >= 10) {
		lead /= 10;
		pow *= 10;
	}
	if (pow > UINT64_MAX / 10)
		return 0;
	return (lead == 1 ? 2 : lead == 2 ? 5 : 10) * pow;
}

/*
 * Make the strip of t's frames from opt->time: 0 (s->nslots 0: no strip,
 * when there are no samples or no slot width fits), or -1 with errno.
 */
int flame_time_build(struct strip *s, const struct tree *t,
		     const struct flame_time *tm, size_t nstacks)
{
	uint64_t last = 0;
	int rc;

	s->time = tm;
	if (tm->n && !tm->samples) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < tm->n; i++) {
		if (tm->samples[i].stack >= nstacks) {
			errno = EINVAL;
			return -1;
		}
		if (tm->samples[i].ns > last)
			last = tm->samples[i].ns;
	}
	if (!t->nodes[0].total || !tm->n)
		return 0;
	s->first = calloc(t->n, sizeof(*s->first));
	s->len = calloc(t->n, sizeof(*s->len));
	if (!s->first || !s->len || strip_links(s, t, nstacks))
		return -1;
	for (s->slot_ns = FLAME_MIN_SLOT_NS; s->slot_ns;
	     s->slot_ns = next_slot(s->slot_ns)) {
		if (last / s->slot_ns >= FLAME_MAX_SLOTS)
			continue;
		s->nslots = (uint32_t)(last / s->slot_ns + 1);
		rc = strip_counts(s, t);
		if (rc <= 0)
			return rc;
	}
	s->nslots = 0;
	return 0;
}

/* A frame's counts per slot, as its data-t attribute. */
void flame_time_put_frame(FILE *out, const struct tree *t,
			  const struct node *nd)
{
	const struct strip *s = t->strip;
	size_t i = (size_t)(nd - t->nodes);

	if (!s || !s->nslots)
		return;
	fputs(" data-t=\"", out);
	for (size_t k = 0; k < s->len[i]; k++)
		fprintf(out, "%s%" PRIu32 ":%" PRIu64, k ? " " : "",
			s->pool[s->first[i] + k].slot,
			s->pool[s->first[i] + k].count);
	fputc('"', out);
}

void flame_time_put_strip(FILE *out, const struct tree *t,
			  const struct layout *l)
{
	const struct strip *s = t->strip;
	/* below the frames (next to the root, the widest), above the
	 * status line */
	double bw, y = l->top + (double)(t->max_depth + 1) * FRAME_H + 6;
	double max = 1;
	unsigned right = l->width - XPAD;

	if (!s || !s->nslots)
		return;
	bw = l->graph_width / s->nslots;
	for (size_t k = 0; k < s->len[0]; k++)
		if ((double)s->pool[s->first[0] + k].count > max)
			max = (double)s->pool[s->first[0] + k].count;
	fprintf(out,
		"<g class=\"timeline\" data-slots=\"%" PRIu32
		"\" data-slot-ns=\"%" PRIu64 "\" data-x0=\"%d\" "
		"data-width=\"%.2f\">\n"
		"<rect class=\"timeline-bg\" x=\"%d\" y=\"%.0f\" "
		"width=\"%.2f\" height=\"%d\" fill=\"#eeeef4\"/>\n",
		s->nslots, s->slot_ns, XPAD, l->graph_width, XPAD, y,
		l->graph_width, STRIP_BARS_H);
	for (size_t k = 0; k < s->len[0]; k++) {
		const struct tcount *c = &s->pool[s->first[0] + k];
		double h = (double)c->count / max * STRIP_BARS_H;

		if (h < 1)
			h = 1;
		fprintf(out,
			"<rect class=\"tslot\" data-slot=\"%" PRIu32
			"\" data-samples=\"%" PRIu64 "\" x=\"%.2f\" "
			"y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			"fill=\"#c0502a\"/>\n",
			c->slot, c->count, XPAD + bw * c->slot,
			y + STRIP_BARS_H - h, bw, h);
	}
	fprintf(out,
		"<rect class=\"tsel hide\" x=\"%d\" y=\"%.0f\" width=\"0\" "
		"height=\"%d\" fill=\"#3060d0\" fill-opacity=\"0.25\" "
		"stroke=\"#3060d0\"/>\n"
		"<text class=\"time-axis\" x=\"%d\" y=\"%.0f\">0 s</text>\n"
		"<text class=\"time-axis\" x=\"%u\" y=\"%.0f\" "
		"text-anchor=\"end\">%.2f s</text>\n"
		"<text class=\"time-range\" x=\"%u\" y=\"%.0f\" "
		"text-anchor=\"middle\">All %.2f s: drag over the samples "
		"per %.3g s to show a part</text>\n"
		"</g>\n"
		"<text class=\"button reset-time hide\" x=\"%d\" "
		"y=\"%.0f\">Reset time</text>\n",
		XPAD, y, STRIP_BARS_H, XPAD, y + STRIP_BARS_H + 13, right,
		y + STRIP_BARS_H + 13,
		(double)s->nslots * (double)s->slot_ns / 1e9, l->width / 2,
		y + STRIP_BARS_H + 13,
		(double)s->nslots * (double)s->slot_ns / 1e9,
		(double)s->slot_ns / 1e9, XPAD + 50, y + STRIP_BARS_H + 13);
}
