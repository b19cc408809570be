/*
 * flame.c - SVG flame graphs (see flame.h).
 *
 * The stacks are merged into a tree breadth first: the stacks under a
 * frame (a range of an array of stack indexes) are sorted by the rank of
 * their next frame's name (qsort_r), each run of one name is a child, in
 * name order, and a child too narrow to draw is dropped with everything
 * above it.  So the frames are made in the order they are drawn (root,
 * its children in order, their children...), which depends only on the
 * merged tree, never on the order of the stacks, so the output does not
 * either; and memory is a stack index a stack plus the drawn frames, not
 * a node per frame read (a hostile profile of many deep stacks made
 * gigabytes of nodes, nearly all too narrow to draw).  A range already
 * in order (a prefix the stacks share) is not sorted again, so a shared
 * prefix costs a pass per frame, as a hash would.  Nothing here is
 * recursive: a stack of any depth costs no C stack.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/strpool.h"
#include "util/textsafe.h"

#define DEFAULT_WIDTH 1200
#define MIN_WIDTH 200
#define MAX_WIDTH 100000
#define XPAD 10		  /* left and right margins, px */
#define FRAME_H 16	  /* one level of the graph, px */
#define TOP_PAD 50	  /* title and buttons above the frames */
#define SUBTITLE_PAD 18	  /* more of it with a subtitle */
#define BOTTOM_PAD 34	  /* the status line below the frames */
#define CHAR_W 7.08	  /* average width of a 12 px character, px */
#define MIN_FRAME_PX 0.1  /* narrower frames are not written */
#define MIN_LABEL_CHARS 3 /* a label shorter than this is left out */

/*
 * A frame of the graph.  Only frames wide enough to draw are made: the
 * stacks under a frame are a range of t->idx, sorted by their next frame's
 * name to find its children, and a child too narrow to draw is skipped
 * with everything above it.  So memory is the stacks' indexes and the
 * drawn frames, never a node per frame read.
 */
struct node {
	const char *name; /* the caller's string, read during the call only */
	uint64_t hash;	  /* of name */
	uint64_t total;	  /* samples in this frame (and above it) */
	uint64_t start;	  /* samples left of it */
	size_t depth;	  /* 0 for the root */
	size_t lo, hi;	  /* its stacks: t->idx[lo .. hi) */
};

struct tree {
	const char *const *names; /* by frame id */
	const struct flame_id_stack *stacks;
	uint32_t *rank;	    /* by frame id: of its name among the names */
	size_t *idx;	    /* the stacks drawn from, sorted range by range */
	struct node *nodes; /* drawn, breadth first: nodes[0] is the root */
	size_t n, cap;
	size_t max_depth;
	size_t sort_depth; /* the frame qsort_r() compares by */
	/* the time strip, or NULL */
	const struct strip *strip;
	/* a differential graph (flame_write_svg_diff()): the stacks'
	 * deltas, and by drawn node its own and its total delta and the
	 * largest own delta's size; NULL otherwise */
	const double *deltas;
	double *dself, *dtotal;
	double dmax;
};

struct layout {
	unsigned width;	    /* of the document, px */
	double graph_width; /* of the root frame, px */
	unsigned top;	    /* y of the top of the frame area */
	unsigned height;    /* of the document */
};

static int rank_cmp(const void *a, const void *b, void *ctx)
{
	const char *const *names = ctx;

	return strcmp(names[*(const uint32_t *)a], names[*(const uint32_t *)b]);
}

/* The rank of each name in strcmp order, equal names equal ranks. */
static int tree_rank(struct tree *t, size_t nnames)
{
	uint32_t *by = malloc((nnames ? nnames : 1) * sizeof(*by));
	uint32_t r = 0;

	t->rank = malloc((nnames ? nnames : 1) * sizeof(*t->rank));
	if (!by || !t->rank) {
		free(by);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < nnames; i++)
		by[i] = (uint32_t)i;
	qsort_r(by, nnames, sizeof(*by), rank_cmp, (void *)t->names);
	for (size_t i = 0; i < nnames; i++) {
		if (i && strcmp(t->names[by[i]], t->names[by[i - 1]]))
			r++;
		t->rank[by[i]] = r + 1; /* 0: the stack ends here */
	}
	free(by);
	return 0;
}

/* The key of stack s at frame d: its name's rank, 0 past its end. */
static uint32_t key_of(const struct tree *t, size_t s, size_t d)
{
	const struct flame_id_stack *st = &t->stacks[s];

	return d < st->nframes ? t->rank[st->frames[d]] : 0;
}

static int idx_cmp(const void *a, const void *b, void *ctx)
{
	const struct tree *t = ctx;
	uint32_t x = key_of(t, *(const size_t *)a, t->sort_depth);
	uint32_t y = key_of(t, *(const size_t *)b, t->sort_depth);

	return x < y ? -1 : x > y;
}

static double px_of(const struct tree *t, const struct layout *l, uint64_t n)
{
	return (double)n / (double)t->nodes[0].total * l->graph_width;
}

/* A drawn frame more; -1 with ENOMEM.  (It may move t->nodes.) */
static int node_add(struct tree *t, const char *name, uint64_t total,
		    uint64_t start, size_t depth, size_t lo, size_t hi)
{
	struct node *nd;

	if (t->n == t->cap) {
		nd = grow_array(t->nodes, &t->cap, t->n + 1, sizeof(*nd));
		if (!nd)
			return -1;
		t->nodes = nd;
	}
	t->nodes[t->n++] = (struct node){
		name, hash_fnv1a_str(name), total, start, depth, lo, hi
	};
	if (depth > t->max_depth)
		t->max_depth = depth;
	return 0;
}

/* The children of node i: its stacks sorted by their next frame, one
 * run a child, the ones wide enough to draw added (at the end). */
static int node_expand(struct tree *t, const struct layout *l, size_t i)
{
	struct node nd = t->nodes[i];
	size_t lo = nd.lo, j;
	uint64_t at = nd.start, total;
	uint32_t key;

	t->sort_depth = nd.depth;
	for (j = nd.lo + 1; j < nd.hi; j++)
		if (idx_cmp(&t->idx[j - 1], &t->idx[j], t) > 0)
			break;
	if (j < nd.hi) /* not in order already */
		qsort_r(t->idx + nd.lo, nd.hi - nd.lo, sizeof(*t->idx), idx_cmp,
			t);
	while (lo < nd.hi && key_of(t, t->idx[lo], nd.depth) == 0)
		lo++; /* the stacks that end at this frame */
	for (; lo < nd.hi; lo = j) {
		key = key_of(t, t->idx[lo], nd.depth);
		total = 0;
		for (j = lo; j < nd.hi && key_of(t, t->idx[j], nd.depth) == key;
		     j++)
			total += t->stacks[t->idx[j]].count;
		if (px_of(t, l, total) >= MIN_FRAME_PX &&
		    node_add(t,
			     t->names[t->stacks[t->idx[lo]].frames[nd.depth]],
			     total, at, nd.depth + 1, lo, j))
			return -1;
		at += total;
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->dself);
	free(t->dtotal);
	free(t->rank);
	free(t->idx);
	free(t->nodes);
}

/* Check the stacks; list those with samples in t->idx (*kept of them)
 * and add up the root's total. */
static int tree_stacks(struct tree *t, size_t nnames, size_t n, size_t *kept,
		       uint64_t *total)
{
	t->idx = malloc((n ? n : 1) * sizeof(*t->idx));
	if (!t->idx)
		return -1;
	*kept = 0;
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct flame_id_stack *st = &t->stacks[i];

		if (st->nframes && !st->frames) {
			errno = EINVAL;
			return -1;
		}
		if (!st->nframes ||
		    (!st->count && !(t->deltas && t->deltas[i])))
			continue; /* a diff's stack gone from NEW: its delta */
		for (size_t d = 0; d < st->nframes; d++)
			if (st->frames[d] >= nnames) {
				errno = EINVAL;
				return -1;
			}
		if (*total > UINT64_MAX - st->count) {
			errno = EOVERFLOW;
			return -1;
		}
		*total += st->count;
		t->idx[(*kept)++] = i;
	}
	return 0;
}

static int tree_build(struct tree *t, const char *const *names, size_t nnames,
		      const struct flame_id_stack *stacks, size_t n,
		      const struct layout *l)
{
	uint64_t total;
	size_t kept;

	if (nnames >= UINT32_MAX) {
		errno = ENOMEM; /* the ranks are 32 bits, as the ids */
		return -1;
	}
	for (size_t i = 0; i < nnames; i++)
		if (!names[i]) {
			errno = EINVAL;
			return -1;
		}
	t->names = names;
	t->stacks = stacks;
	if (tree_stacks(t, nnames, n, &kept, &total) || tree_rank(t, nnames) ||
	    node_add(t, "all", total, 0, 0, 0, kept))
		return -1;
	if (!total)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		if (node_expand(t, l, i))
			return -1;
	return 0;
}

/*
 * The time strip (flame.h): each drawn frame's samples per slot, made
 * bottom up.  A stack's samples go to the deepest drawn frame over it
 * (its owner); a frame's counts are its own plus its children's, which
 * come after it in t->nodes (breadth first), so one pass from the last
 * frame to the root adds them up, each frame's counts a sorted run of
 * one pool.  A slot width that would make the pool outgrow
 * FLAME_MAX_TIME_ENTRIES is given up for the next wider one.
 */
struct tcount {
	uint32_t slot;
	uint64_t count;
};

struct strip {
	const struct flame_time *time;
	uint64_t slot_ns;
	uint32_t nslots;
	size_t *owner;	/* by stack: its deepest drawn frame, or SIZE_MAX */
	size_t *parent; /* by frame: its caller's index (the root: 0) */
	size_t *kids;	/* by frame: its first child (children are in a row) */
	size_t *first, *len; /* by frame: its counts, pool[first..first+len) */
	struct tcount *pool;
	size_t npool, cappool;
	struct tcount *own; /* the samples by owner, then slot */
	size_t *own_at;	    /* by frame: its first in own (n + 1 of them) */
	uint64_t *dense;    /* by slot, while a frame's counts are added */
	uint32_t *touched;
	size_t ntouched;
};

#define STRIP_H 66	/* px the strip takes below the frames */
#define STRIP_BARS_H 40 /* px of its bars */

static void strip_free(struct strip *s)
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
static int strip_build(struct strip *s, const struct tree *t,
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
static void put_frame_times(FILE *out, const struct tree *t,
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

static void put_strip(FILE *out, const struct tree *t, const struct layout *l)
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

/*
 * A differential graph: each drawn frame's delta, from its stacks (its
 * range of t->idx, which sorting its children's ranges did not change):
 * its total, and its own (the stacks that end at it), which colours it,
 * as flamegraph.pl colours a frame by the delta of the stacks ending
 * there.  t->dmax: the largest own delta's size, the full colour.
 */
static int tree_deltas(struct tree *t)
{
	t->dself = calloc(t->n ? t->n : 1, sizeof(*t->dself));
	t->dtotal = calloc(t->n ? t->n : 1, sizeof(*t->dtotal));
	if (!t->dself || !t->dtotal)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct node *nd = &t->nodes[i];

		for (size_t j = nd->lo; j < nd->hi; j++) {
			size_t s = t->idx[j];

			t->dtotal[i] += t->deltas[s];
			if (t->stacks[s].nframes == nd->depth)
				t->dself[i] += t->deltas[s];
		}
		if (t->dself[i] > t->dmax || -t->dself[i] > t->dmax)
			t->dmax = t->dself[i] > 0 ? t->dself[i] : -t->dself[i];
	}
	return 0;
}

/*
 * Writing.  Names go through put_text(), which escapes them for XML text
 * and attribute values alike.
 */

/* Characters in s, an invalid byte counting as one. */
static size_t text_chars(const char *s)
{
	size_t n = 0, len;

	for (; *s; s += len ? len : 1, n++)
		len = textsafe_utf8_len(s);
	return n;
}

static void put_char(FILE *out, const char *s, size_t len)
{
	unsigned char c = (unsigned char)s[0];

	if (textsafe_unsafe(s, len))
		fputs("\xef\xbf\xbd", out); /* U+FFFD (textsafe.h) */
	else if (c == '&')
		fputs("&amp;", out);
	else if (c == '<')
		fputs("&lt;", out);
	else if (c == '>')
		fputs("&gt;", out);
	else if (c == '"')
		fputs("&quot;", out);
	else if (c == '\'')
		fputs("&#39;", out);
	else
		fwrite(s, 1, len, out);
}

/* At most max characters of s, escaped. */
static void put_text(FILE *out, const char *s, size_t max)
{
	size_t len;

	for (; *s && max; s += len ? len : 1, max--) {
		len = textsafe_utf8_len(s);
		put_char(out, s, len);
	}
}

/* The label of a frame w px wide: its name, cut to fit, or nothing. */
static void put_label(FILE *out, const char *name, double w)
{
	double fit = (w - 6) / CHAR_W;
	size_t chars = text_chars(name), max;

	if (fit < MIN_LABEL_CHARS)
		return;
	max = (size_t)fit;
	if (chars <= max) {
		put_text(out, name, chars);
		return;
	}
	put_text(out, name, max - 2);
	fputs("..", out);
}

/*
 * The warm palette of flamegraph.pl ("hot"), from the name's hash, mixed
 * first (murmur3's finaliser): FNV-1a alone barely moves the high bits of
 * short names, and "a", "b", "c" would come out one colour.
 */
static void put_colour(FILE *out, uint64_t hash)
{
	unsigned v1, v2, v3;

	hash = hash_mix64(hash);
	v1 = (unsigned)(hash >> 40) & 0xff;
	v2 = (unsigned)(hash >> 48) & 0xff;
	v3 = (unsigned)(hash >> 56) & 0xff;
	fprintf(out, "rgb(%u,%u,%u)", 205 + 50 * v1 / 255, 230 * v2 / 255,
		55 * v3 / 255);
}

/* A differential frame's fill: white, red by how much it grew, blue by
 * how much it shrank (flamegraph.pl's color_scale()). */
static void put_diff_colour(FILE *out, double v, double max)
{
	unsigned r = 255, g = 255, b = 255;

	if (max > 0 && v > 0)
		g = b = (unsigned)(210 * (max - v) / max);
	else if (max > 0 && v < 0)
		r = g = (unsigned)(210 * (max + v) / max);
	fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

/* A differential frame's attributes, or its title's change. */
static void put_diff_attrs(FILE *out, const struct tree *t, size_t i)
{
	if (t->deltas)
		fprintf(out, "\" data-delta=\"%.2f\" data-delta-total=\"%.2f",
			t->dself[i], t->dtotal[i]);
}

static void put_diff_title(FILE *out, const struct tree *t, size_t i)
{
	double all = (double)t->nodes[0].total;

	if (t->deltas)
		fprintf(out, "; self %+.2f pp, total %+.2f pp",
			100.0 * t->dself[i] / all, 100.0 * t->dtotal[i] / all);
}

static void put_frame(FILE *out, const struct tree *t, const struct layout *l,
		      const struct node *nd)
{
	size_t i = (size_t)(nd - t->nodes);
	double x = XPAD + px_of(t, l, nd->start), w = px_of(t, l, nd->total);
	unsigned y = l->top + (unsigned)(t->max_depth - nd->depth) * FRAME_H;

	fputs("<g class=\"frame\" data-name=\"", out);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out,
		"\" data-samples=\"%" PRIu64 "\" data-start=\"%" PRIu64
		"\" data-depth=\"%zu",
		nd->total, nd->start, nd->depth);
	put_diff_attrs(out, t, i);
	fputc('"', out);
	put_frame_times(out, t, nd);
	fputs("><title>", out);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out, " (%" PRIu64 " sample%s, %.2f%%", nd->total,
		nd->total == 1 ? "" : "s",
		100.0 * (double)nd->total / (double)t->nodes[0].total);
	put_diff_title(out, t, i);
	fputs(")</title>\n", out);
	fprintf(out,
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"rx=\"2\" ry=\"2\" fill=\"",
		x, y, w, FRAME_H - 1);
	if (t->deltas)
		put_diff_colour(out, t->dself[i], t->dmax);
	else
		put_colour(out, nd->hash);
	fprintf(out, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 11.5);
	put_label(out, nd->name, w);
	fputs("</text></g>\n", out);
}

static const char svg_style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"svg.flamegraph text { font-family: Verdana, \"DejaVu Sans\", "
	"sans-serif; font-size: 12px; fill: #000; }\n"
	"svg.flamegraph text.title { font-size: 17px; }\n"
	"svg.flamegraph text.button { fill: #303090; cursor: pointer; }\n"
	"svg.flamegraph g.frame { cursor: pointer; }\n"
	"svg.flamegraph g.frame:hover rect { stroke: #000; "
	"stroke-width: 0.5; }\n"
	"svg.flamegraph g.frame.match rect { fill: rgb(230,0,230); }\n"
	"svg.flamegraph .hide { display: none; }\n"
	"svg.flamegraph g.timeline { cursor: crosshair; }\n"
	"svg.flamegraph rect.tsel { pointer-events: none; }\n"
	"]]></style>\n";

static void put_head(FILE *out, const struct tree *t, const struct layout *l,
		     const struct flame_options *opt)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"class=\"flamegraph\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" data-samples=\"%" PRIu64 "\" "
		"data-xpad=\"%d\" data-graph-width=\"%.2f\" "
		"data-char-width=\"%.2f\">\n",
		l->width, l->height, l->width, l->height, t->nodes[0].total,
		XPAD, l->graph_width, CHAR_W);
	fputs(svg_style, out);
	fprintf(out,
		"<rect class=\"background\" x=\"0\" y=\"0\" width=\"%u\" "
		"height=\"%u\" fill=\"#ffffff\"/>\n"
		"<text class=\"title\" x=\"%u\" y=\"24\" "
		"text-anchor=\"middle\">",
		l->width, l->height, l->width / 2);
	put_text(out, opt && opt->title ? opt->title : "Flame Graph", SIZE_MAX);
	fputs("</text>\n", out);
	if (opt && opt->subtitle) {
		fprintf(out,
			"<text class=\"subtitle\" x=\"%u\" y=\"44\" "
			"text-anchor=\"middle\">",
			l->width / 2);
		put_text(out, opt->subtitle, SIZE_MAX);
		fputs("</text>\n", out);
	}
}

static void put_controls(FILE *out, const struct tree *t,
			 const struct layout *l)
{
	unsigned right = l->width - XPAD, bottom = l->height - 12;

	fprintf(out,
		"<text class=\"button reset-zoom hide\" x=\"%d\" y=\"24\">"
		"Reset zoom</text>\n"
		"<text class=\"button search\" x=\"%u\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n"
		"<text class=\"button reset-search hide\" x=\"%u\" y=\"42\" "
		"text-anchor=\"end\">Reset search</text>\n"
		"<text class=\"status\" x=\"%d\" y=\"%u\"></text>\n"
		"<text class=\"matched\" x=\"%u\" y=\"%u\" "
		"text-anchor=\"end\"></text>\n",
		XPAD, right, right, XPAD, bottom, right, bottom);
	if (!t->nodes[0].total)
		fprintf(out,
			"<text class=\"empty\" x=\"%u\" y=\"%u\" "
			"text-anchor=\"middle\">No samples</text>\n",
			l->width / 2, l->top + 12);
}

/*
 * The script: plain ES5 in an IIFE (no global), in CDATA, so it holds no
 * "]]>".  It reads everything from the DOM of its own <svg>.
 */
static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"\"use strict\";\n"
	"var cur = document.currentScript, svg = null, all;\n"
	"if (cur && cur.closest)\n"
	"\tsvg = cur.closest(\"svg.flamegraph\");\n"
	"if (!svg) {\n"
	"\tall = document.querySelectorAll(\"svg.flamegraph\");\n"
	"\tsvg = all[all.length - 1];\n"
	"}\n"
	"if (!svg)\n"
	"\treturn;\n"
	"function num(e, a) { return Number(e.getAttribute(a)) || 0; }\n"
	"function one(c) { return svg.querySelector(\".\" + c); }\n"
	"function frameOf(e) {\n"
	"\tvar g = e && e.closest ? e.closest(\"g.frame\") : null;\n"
	"\treturn g && svg.contains(g) ? g : null;\n"
	"}\n"
	"var X0 = num(svg, \"data-xpad\"), W = num(svg, \"data-graph-width\");\n"
	"var CW = num(svg, \"data-char-width\"), TOTAL = num(svg, "
	"\"data-samples\");\n"
	"var frames = Array.prototype.slice.call("
	"svg.querySelectorAll(\"g.frame\"));\n"
	"var status = one(\"status\"), matched = one(\"matched\");\n"
	"var zoomBtn = one(\"reset-zoom\"), searchBtn = one(\"search\");\n"
	"var unsearchBtn = one(\"reset-search\");\n"
	"function show(e, on) {\n"
	"\tif (e)\n"
	"\t\te.classList.toggle(\"hide\", !on);\n"
	"}\n"
	"function say(s) {\n"
	"\tif (status)\n"
	"\t\tstatus.textContent = s;\n"
	"}\n"
	"function label(g, w) {\n"
	"\tvar t = g.querySelector(\"text\"), name = "
	"g.getAttribute(\"data-name\");\n"
	"\tvar fit = Math.floor((w - 6) / CW);\n"
	"\tif (!t)\n"
	"\t\treturn;\n"
	"\tif (fit < 3)\n"
	"\t\tt.textContent = \"\";\n"
	"\telse if (name.length > fit)\n"
	"\t\tt.textContent = name.slice(0, fit - 2) + \"..\";\n"
	"\telse\n"
	"\t\tt.textContent = name;\n"
	"}\n"
	"function place(g, x, w) {\n"
	"\tvar r = g.querySelector(\"rect\"), t = g.querySelector(\"text\");\n"
	"\tshow(g, true);\n"
	"\tr.setAttribute(\"x\", x.toFixed(2));\n"
	"\tr.setAttribute(\"width\", w.toFixed(2));\n"
	"\tif (t)\n"
	"\t\tt.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tlabel(g, w);\n"
	"}\n"
	"function unzoom() {\n"
	"\tvar tot = TOTAL > 0 ? TOTAL : 1;\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tplace(g, X0 + num(g, \"data-start\") / tot * W,\n"
	"\t\t      num(g, \"data-samples\") / tot * W);\n"
	"\t});\n"
	"\tshow(zoomBtn, false);\n"
	"}\n"
	"function zoom(f) {\n"
	"\tvar fs = num(f, \"data-start\"), fn = num(f, \"data-samples\");\n"
	"\tvar fd = num(f, \"data-depth\");\n"
	"\tif (fd === 0 || fn <= 0) {\n"
	"\t\tunzoom();\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tvar gs = num(g, \"data-start\"), gn = num(g, \"data-samples\");\n"
	"\t\tvar gd = num(g, \"data-depth\");\n"
	"\t\tif (gd < fd && gs <= fs && gs + gn >= fs + fn)\n"
	"\t\t\tplace(g, X0, W);\n"
	"\t\telse if (gd >= fd && gs >= fs && gs + gn <= fs + fn)\n"
	"\t\t\tplace(g, X0 + (gs - fs) / fn * W, gn / fn * W);\n"
	"\t\telse\n"
	"\t\t\tshow(g, false);\n"
	"\t});\n"
	"\tshow(zoomBtn, true);\n"
	"}\n"
	"function search(re) {\n"
	"\tvar spans = [], sum = 0, end = 0, pct;\n"
	"\tif (!(re instanceof RegExp))\n"
	"\t\tre = new RegExp(String(re));\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tvar s = num(g, \"data-start\"), n = num(g, \"data-samples\");\n"
	"\t\tvar hit = g.getAttribute(\"data-name\").search(re) >= 0;\n"
	"\t\tg.classList.toggle(\"match\", hit);\n"
	"\t\tif (hit)\n"
	"\t\t\tspans.push([s, s + n]);\n"
	"\t});\n"
	"\tspans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"\tspans.forEach(function (s) {\n"
	"\t\tif (s[1] > end) {\n"
	"\t\t\tsum += s[1] - Math.max(s[0], end);\n"
	"\t\t\tend = s[1];\n"
	"\t\t}\n"
	"\t});\n"
	"\tpct = TOTAL > 0 ? 100 * sum / TOTAL : 0;\n"
	"\tif (matched)\n"
	"\t\tmatched.textContent = \"Matched: \" + pct.toFixed(1) + \"%\";\n"
	"\tshow(unsearchBtn, true);\n"
	"\treturn pct;\n"
	"}\n"
	"function resetSearch() {\n"
	"\tframes.forEach(function (g) { g.classList.remove(\"match\"); });\n"
	"\tif (matched)\n"
	"\t\tmatched.textContent = \"\";\n"
	"\tshow(unsearchBtn, false);\n"
	"}\n"
	"function ask() {\n"
	"\tvar q = window.prompt(\"Search frames (regular expression):\", "
	"\"\");\n"
	"\tif (q === null || q === \"\")\n"
	"\t\treturn;\n"
	"\ttry {\n"
	"\t\tsearch(q);\n"
	"\t} catch (e) {\n"
	"\t\tsay(\"Bad regular expression: \" + q);\n"
	"\t}\n"
	"}\n"
	"svg.addEventListener(\"click\", function (e) {\n"
	"\tvar g = frameOf(e.target);\n"
	"\tif (g)\n"
	"\t\tzoom(g);\n"
	"\telse if (e.target === zoomBtn)\n"
	"\t\tunzoom();\n"
	"\telse if (e.target === searchBtn)\n"
	"\t\task();\n"
	"\telse if (e.target === unsearchBtn)\n"
	"\t\tresetSearch();\n"
	"});\n"
	"svg.addEventListener(\"mouseover\", function (e) {\n"
	"\tvar g = frameOf(e.target), t = g && g.querySelector(\"title\");\n"
	"\tif (t)\n"
	"\t\tsay(t.textContent);\n"
	"});\n"
	"svg.addEventListener(\"mouseout\", function () { say(\"\"); });\n"
	"svg.flame = { zoom: zoom, unzoom: unzoom, search: search,\n"
	"\t      resetSearch: resetSearch };\n";

/* The end of the script, after the time strip's. */
static const char svg_script_tail[] =
	"try {\n"
	"\tvar q = new URLSearchParams(window.location.search).get(\"s\");\n"
	"\tif (q)\n"
	"\t\tsearch(q);\n"
	"} catch (e) {\n"
	"\tsay(\"Bad regular expression in ?s=\");\n"
	"}\n"
	"})();\n"
	"]]></script>\n";

/*
 * The time strip's script (flame.h), inside the main one's function
 * after svg.flame is made: each frame's samples per slot from its
 * data-t, the graph laid out again for the slots selected (a frame's
 * callees side by side from its start, in the order they are drawn).
 */
static const char svg_time_script[] =
	"var strip = one(\"timeline\"), tsel = one(\"tsel\");\n"
	"var trange = one(\"time-range\"), timeBtn = one(\"reset-time\");\n"
	"var SLOTS = num(strip, \"data-slots\");\n"
	"var SLOT_S = num(strip, \"data-slot-ns\") / 1e9;\n"
	"var SX0 = num(strip, \"data-x0\"), SW = num(strip, \"data-width\");\n"
	"var allText = trange.textContent, allN = [], allS = [], parent = [];\n"
	"var slotsOf = [], dragAt = null;\n"
	"frames.forEach(function (g, i) {\n"
	"\tvar d = num(g, \"data-depth\"), p = i ? parent[i - 1] : -1;\n"
	"\tallN.push(num(g, \"data-samples\"));\n"
	"\tallS.push(num(g, \"data-start\"));\n"
	"\tslotsOf.push((g.getAttribute(\"data-t\") || \"\").split(\" \")\n"
	"\t\t.filter(function (e) { return e.indexOf(\":\") > 0; })\n"
	"\t\t.map(function (e) { return e.split(\":\").map(Number); }));\n"
	"\tif (!i) {\n"
	"\t\tparent.push(-1);\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tif (p < 0)\n"
	"\t\tp = 0;\n"
	"\twhile (p < i && !(num(frames[p], \"data-depth\") === d - 1 &&\n"
	"\t       allS[p] <= allS[i] && allS[i] + allN[i] <= allS[p] + allN[p]))\n"
	"\t\tp++;\n"
	"\tparent.push(p);\n"
	"});\n"
	"function retitle(g, n) {\n"
	"\tvar t = g.querySelector(\"title\");\n"
	"\tif (t)\n"
	"\t\tt.textContent = g.getAttribute(\"data-name\") + \" (\" + n +\n"
	"\t\t\t(n === 1 ? \" sample, \" : \" samples, \") +\n"
	"\t\t\t(TOTAL > 0 ? 100 * n / TOTAL : 0).toFixed(2) + \"%)\";\n"
	"}\n"
	"function lay(ns, starts) {\n"
	"\tTOTAL = ns.length ? ns[0] : 0;\n"
	"\tsvg.setAttribute(\"data-samples\", TOTAL);\n"
	"\tframes.forEach(function (g, i) {\n"
	"\t\tg.setAttribute(\"data-samples\", ns[i]);\n"
	"\t\tg.setAttribute(\"data-start\", starts[i]);\n"
	"\t\tretitle(g, ns[i]);\n"
	"\t});\n"
	"\tunzoom();\n"
	"\tframes.forEach(function (g, i) {\n"
	"\t\tif (!ns[i])\n"
	"\t\t\tshow(g, false);\n"
	"\t});\n"
	"\tif (one(\"reset-search\") && !unsearchBtn.classList.contains(\"hide\"))\n"
	"\t\tresetSearch();\n"
	"}\n"
	"function selectSlots(a, b) {\n"
	"\tvar ns = [], starts = [], next = [];\n"
	"\ta = Math.max(0, Math.min(SLOTS - 1, a));\n"
	"\tb = Math.max(a + 1, Math.min(SLOTS, b));\n"
	"\tframes.forEach(function (g, i) {\n"
	"\t\tvar n = 0, p = parent[i];\n"
	"\t\tslotsOf[i].forEach(function (c) {\n"
	"\t\t\tif (c[0] >= a && c[0] < b)\n"
	"\t\t\t\tn += c[1];\n"
	"\t\t});\n"
	"\t\tns.push(n);\n"
	"\t\tstarts.push(p < 0 ? 0 : next[p]);\n"
	"\t\tif (p >= 0)\n"
	"\t\t\tnext[p] += n;\n"
	"\t\tnext.push(starts[i]);\n"
	"\t});\n"
	"\tlay(ns, starts);\n"
	"\ttsel.setAttribute(\"x\", (SX0 + a / SLOTS * SW).toFixed(2));\n"
	"\ttsel.setAttribute(\"width\", ((b - a) / SLOTS * SW).toFixed(2));\n"
	"\tshow(tsel, true);\n"
	"\tshow(timeBtn, true);\n"
	"\ttrange.textContent = (a * SLOT_S).toFixed(2) + \" s to \" +\n"
	"\t\t(b * SLOT_S).toFixed(2) + \" s: \" + TOTAL + \" samples\";\n"
	"\treturn TOTAL;\n"
	"}\n"
	"function select(t0, t1) {\n"
	"\tvar a = Math.floor(Number(t0) / SLOT_S + 1e-9);\n"
	"\tvar b = Math.floor(Number(t1) / SLOT_S - 1e-9) + 1;\n"
	"\treturn selectSlots(a, b);\n"
	"}\n"
	"function resetTime() {\n"
	"\tlay(allN, allS);\n"
	"\tshow(tsel, false);\n"
	"\tshow(timeBtn, false);\n"
	"\ttrange.textContent = allText;\n"
	"}\n"
	"function slotAt(e) {\n"
	"\tvar m = svg.getScreenCTM(), pt = svg.createSVGPoint();\n"
	"\tpt.x = e.clientX;\n"
	"\tpt.y = e.clientY;\n"
	"\tif (m)\n"
	"\t\tpt = pt.matrixTransform(m.inverse());\n"
	"\treturn Math.max(0, Math.min(1, (pt.x - SX0) / SW)) * SLOTS;\n"
	"}\n"
	"function dragTo(e, done) {\n"
	"\tvar at = slotAt(e), a = Math.floor(Math.min(dragAt, at));\n"
	"\tvar b = Math.ceil(Math.max(dragAt, at));\n"
	"\tif (b <= a)\n"
	"\t\tb = a + 1;\n"
	"\tif (done) {\n"
	"\t\tdragAt = null;\n"
	"\t\tselectSlots(a, b);\n"
	"\t\treturn;\n"
	"\t}\n"
	"\ttsel.setAttribute(\"x\", (SX0 + a / SLOTS * SW).toFixed(2));\n"
	"\ttsel.setAttribute(\"width\", ((b - a) / SLOTS * SW).toFixed(2));\n"
	"\tshow(tsel, true);\n"
	"}\n"
	"strip.addEventListener(\"mousedown\", function (e) {\n"
	"\tdragAt = slotAt(e);\n"
	"\te.preventDefault();\n"
	"});\n"
	"svg.addEventListener(\"mousemove\", function (e) {\n"
	"\tif (dragAt !== null)\n"
	"\t\tdragTo(e, false);\n"
	"});\n"
	"var bars = {};\n"
	"Array.prototype.forEach.call(strip.querySelectorAll(\"rect.tslot\"),\n"
	"\tfunction (r) { bars[num(r, \"data-slot\")] = num(r, \"data-samples\"); });\n"
	"strip.addEventListener(\"mousemove\", function (e) {\n"
	"\tvar k = Math.min(SLOTS - 1, Math.floor(slotAt(e)));\n"
	"\tif (dragAt === null)\n"
	"\t\tsay((k * SLOT_S).toFixed(2) + \" s: \" + (bars[k] || 0) +\n"
	"\t\t    (bars[k] === 1 ? \" sample\" : \" samples\") + \" in \" +\n"
	"\t\t    SLOT_S + \" s\");\n"
	"});\n"
	"svg.addEventListener(\"mouseup\", function (e) {\n"
	"\tif (dragAt !== null)\n"
	"\t\tdragTo(e, true);\n"
	"});\n"
	"timeBtn.addEventListener(\"click\", resetTime);\n"
	"svg.flame.select = select;\n"
	"svg.flame.resetTime = resetTime;\n";

static int layout_init(struct layout *l, const struct flame_options *opt)
{
	l->width = opt && opt->width ? opt->width : DEFAULT_WIDTH;
	if (l->width < MIN_WIDTH || l->width > MAX_WIDTH) {
		errno = EINVAL;
		return -1;
	}
	l->graph_width = l->width - 2 * XPAD;
	l->top = TOP_PAD + (opt && opt->subtitle ? SUBTITLE_PAD : 0);
	return 0;
}

static int write_svg(FILE *out, struct tree *t, struct layout *l,
		     const struct flame_options *opt)
{
	size_t i;

	if (t->max_depth >
	    (UINT32_MAX - l->top - BOTTOM_PAD - STRIP_H) / FRAME_H - 1) {
		errno = ENOMEM; /* unreasonably deep */
		return -1;
	}
	l->height = l->top + (unsigned)(t->max_depth + 1) * FRAME_H +
		    BOTTOM_PAD + (t->strip ? STRIP_H : 0);
	errno = 0;
	put_head(out, t, l, opt);
	for (i = 0; t->nodes[0].total && i < t->n; i++)
		put_frame(out, t, l, &t->nodes[i]);
	put_strip(out, t, l);
	put_controls(out, t, l);
	fputs(svg_script, out);
	if (t->strip && t->strip->nslots)
		fputs(svg_time_script, out);
	fputs(svg_script_tail, out);
	fputs("</svg>\n", out);
	if (fflush(out) == EOF || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* The frames of flame_write_svg()'s stacks as ids into a pool of their
 * names (the pool's "" is id 0, as an empty name's). */
struct interned {
	struct strpool *pool;
	uint32_t *frames;
	struct flame_id_stack *stacks;
};

static int intern_stacks(struct interned *in, const struct flame_stack *stacks,
			 size_t n)
{
	size_t nf = 0, at = 0;
	int64_t id;

	for (size_t i = 0; i < n; i++) {
		if (stacks[i].nframes && !stacks[i].frames) {
			errno = EINVAL;
			return -1;
		}
		if (stacks[i].count)
			nf += stacks[i].nframes;
	}
	in->pool = strpool_new();
	in->frames = malloc((nf ? nf : 1) * sizeof(*in->frames));
	in->stacks = calloc(n ? n : 1, sizeof(*in->stacks));
	if (!in->pool || !in->frames || !in->stacks)
		return -1;
	for (size_t i = 0; i < n; i++) {
		in->stacks[i].count = stacks[i].count;
		if (!stacks[i].count)
			continue; /* skipped: its frames are not read */
		in->stacks[i].frames = in->frames + at;
		in->stacks[i].nframes = stacks[i].nframes;
		for (size_t d = 0; d < stacks[i].nframes; d++) {
			if (!stacks[i].frames[d]) {
				errno = EINVAL;
				return -1;
			}
			id = strpool_intern(in->pool, stacks[i].frames[d]);
			if (id < 0)
				return -1;
			in->frames[at++] = (uint32_t)id;
		}
	}
	return 0;
}

/* The time strip of t (write_svg() makes room for it below the
 * frames). */
static int with_strip(struct tree *t, struct strip *s,
		      const struct flame_time *tm, size_t nstacks)
{
	if (strip_build(s, t, tm, nstacks))
		return -1;
	if (s->nslots)
		t->strip = s;
	return 0;
}

static int write_ids(FILE *out, const char *const *names, size_t nnames,
		     const struct flame_id_stack *stacks, size_t n,
		     const double *deltas, const struct flame_options *opt)
{
	struct tree t = { .deltas = deltas };
	struct strip strip = { 0 };
	struct layout l;
	int rc, err;

	if (!out || (n && !stacks) || (nnames && !names)) {
		errno = EINVAL;
		return -1;
	}
	if (layout_init(&l, opt) < 0)
		return -1;
	rc = tree_build(&t, names, nnames, stacks, n, &l);
	if (rc == 0 && deltas && t.nodes[0].total)
		rc = tree_deltas(&t);
	if (rc == 0 && opt && opt->time)
		rc = with_strip(&t, &strip, opt->time, n);
	if (rc == 0)
		rc = write_svg(out, &t, &l, opt);
	err = errno;
	strip_free(&strip);
	tree_free(&t);
	errno = err;
	return rc;
}

int flame_write_svg_ids(FILE *out, const char *const *names, size_t nnames,
			const struct flame_id_stack *stacks, size_t n,
			const struct flame_options *opt)
{
	return write_ids(out, names, nnames, stacks, n, NULL, opt);
}

int flame_write_svg_diff(FILE *out, const char *const *names, size_t nnames,
			 const struct flame_id_stack *stacks, size_t n,
			 const double *deltas, const struct flame_options *opt)
{
	if (n && !deltas) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(deltas[i])) {
			errno = EINVAL;
			return -1;
		}
	return write_ids(out, names, nnames, stacks, n, deltas, opt);
}

int flame_write_svg(FILE *out, const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt)
{
	struct interned in = { 0 };
	int rc = -1, err;

	if (!out || (n && !stacks)) {
		errno = EINVAL;
		return -1;
	}
	if (intern_stacks(&in, stacks, n) == 0)
		rc = flame_write_svg_ids(out,
					 (const char *const *)strpool_strings(
						 in.pool),
					 strpool_count(in.pool), in.stacks, n,
					 opt);
	err = errno;
	strpool_free(in.pool);
	free(in.frames);
	free(in.stacks);
	errno = err;
	return rc;
}
