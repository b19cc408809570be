/*
 * flame.c - SVG flame graphs (see flame.h): the merged tree of drawn
 * frames and the entry points.  The time strip is flame_time.c, a
 * differential graph's deltas flame_diff.c, the writing flame_svg.c and
 * the page's script flame_script.c (flame_int.h lists them).
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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "report/flame_int.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/strpool.h"

#define DEFAULT_WIDTH 1200
#define MIN_WIDTH 200
#define MAX_WIDTH 100000

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
	t->bytes += FRAME_BYTES + 2 * strlen(name);
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
		if (flame_px(t, l, total) < MIN_FRAME_PX)
			t->drawn.narrow++;
		else if (node_add(t,
				  t->names[t->stacks[t->idx[lo]]
						   .frames[nd.depth]],
				  total, at, nd.depth + 1, lo, j))
			return -1;
		at += total;
	}
	return 0;
}

/*
 * Expand the nodes level by level (they are breadth first: a level's
 * nodes are in a row, and its children come after them).  When a level
 * being made takes the document past MAX_FRAMES_BYTES, that level is
 * dropped whole and the expansion stops: the graph is whole down to the
 * level above, never cut partway along a level.
 */
static int tree_levels(struct tree *t, const struct layout *l)
{
	size_t level_at = 1; /* where the level being made starts */

	for (size_t i = 0; i < t->n; i++) {
		if (i == level_at)
			level_at = t->n;
		if (node_expand(t, l, i))
			return -1;
		if (t->bytes <= MAX_FRAMES_BYTES)
			continue;
		t->drawn.depth_cut = t->nodes[level_at].depth;
		t->drawn.cut = t->n - level_at;
		t->n = level_at;
		t->max_depth = t->drawn.depth_cut - 1;
		break;
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
	return tree_levels(t, l);
}

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

/* The time strip of t (flame_svg_write() makes room for it below the
 * frames). */
static int with_strip(struct tree *t, struct strip *s,
		      const struct flame_time *tm, size_t nstacks)
{
	if (flame_time_build(s, t, tm, nstacks))
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
		rc = flame_diff_deltas(&t);
	if (rc == 0 && opt && opt->time)
		rc = with_strip(&t, &strip, opt->time, n);
	t.drawn.frames = t.n;
	if (opt && opt->drawn)
		*opt->drawn = t.drawn;
	if (rc == 0)
		rc = flame_svg_write(out, &t, &l, opt);
	err = errno;
	flame_time_free(&strip);
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
