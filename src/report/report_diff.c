/*
 * report_diff.c - two reports compared (see report_diff.h).
 *
 * Both reports' names are interned in one pool, so a frame has one id
 * on both sides; each side's stacks are copied as such ids, sorted
 * (qsort_r, by their ids root first, then side), and each run of equal
 * stacks becomes one stack of the diff with both counts.  No hash of
 * stacks: the sort costs O(S log S) comparisons of S stacks, each as
 * long as their common prefix.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "report/report_diff.h"
#include "util/strpool.h"
#include "util/textsafe.h"

struct dstack {
	size_t off, n;	   /* frame ids in d->frames[off..off+n), root first */
	uint64_t count[2]; /* BASE's, NEW's */
};

struct report_diff {
	struct strpool *names; /* the frames' names, both sides */
	char **modules;	       /* by name id, or NULL */
	size_t nnames;
	uint64_t *counts[4]; /* by name id: BASE flat, cum, NEW flat, cum */
	struct report_diff_row *rows;
	size_t nrows;
	uint32_t *frames;
	size_t nframes;
	struct dstack *stacks;
	size_t nstacks;
	uint64_t total[2];
	double scale;
	char *label[2];
};

/* The id of every name of r in d->names: ids[i] for r's name i. */
static uint32_t *intern_names(struct report_diff *d, const struct report *r)
{
	size_t n;
	const char *const *names = report_names(r, &n);
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	int64_t id;

	for (size_t i = 0; ids && i < n; i++) {
		id = strpool_intern(d->names, names[i]);
		if (id < 0 || id >= UINT32_MAX) {
			free(ids);
			errno = ENOMEM;
			return NULL;
		}
		ids[i] = (uint32_t)id;
	}
	return ids;
}

/* The flat and cum counts and modules of side's rows, by name id. */
static int side_counts(struct report_diff *d, const struct report *r, int side)
{
	size_t n;
	const struct report_row *rows = report_rows(r, &n);

	for (size_t i = 0; i < n; i++) {
		int64_t id = strpool_intern(d->names, rows[i].name);

		if (id < 0)
			return -1;
		d->counts[2 * side][id] += rows[i].flat;
		d->counts[2 * side + 1][id] += rows[i].cum;
		if (rows[i].module && (side == 1 || !d->modules[id])) {
			free(d->modules[id]);
			d->modules[id] = strdup(rows[i].module);
			if (!d->modules[id])
				return -1;
		}
	}
	return 0;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static double mag(double x)
{
	return x < 0 ? -x : x;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct report_diff_row *x = a, *y = b;

	if (mag(x->flat_pp) != mag(y->flat_pp))
		return mag(x->flat_pp) > mag(y->flat_pp) ? -1 : 1;
	if (mag(x->cum_pp) != mag(y->cum_pp))
		return mag(x->cum_pp) > mag(y->cum_pp) ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int make_rows(struct report_diff *d)
{
	d->rows = calloc(d->nnames ? d->nnames : 1, sizeof(*d->rows));
	if (!d->rows)
		return -1;
	for (size_t i = 0; i < d->nnames; i++) {
		struct report_diff_row *row = &d->rows[d->nrows];
		uint64_t bf = d->counts[0][i], bc = d->counts[1][i];
		uint64_t nf = d->counts[2][i], nc = d->counts[3][i];

		if (!bf && !bc && !nf && !nc)
			continue; /* "" of the pool, unless a frame is named so */
		*row = (struct report_diff_row){
			strpool_get(d->names, i),
			d->modules[i],
			bf,
			bc,
			nf,
			nc,
			(double)nf - (double)bf * d->scale,
			(double)nc - (double)bc * d->scale,
			pct(nf, d->total[1]) - pct(bf, d->total[0]),
			pct(nc, d->total[1]) - pct(bc, d->total[0])
		};
		d->nrows++;
	}
	qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_rows);
	return 0;
}

/* Stack order: by frame ids root first (a prefix first), then side. */
struct sort_ctx {
	const uint32_t *frames;
	const struct dstack *st;
	const unsigned char *side;
};

static int cmp_stacks(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *c = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct dstack *x = &c->st[i], *y = &c->st[j];
	size_t n = x->n < y->n ? x->n : y->n;

	for (size_t k = 0; k < n; k++)
		if (c->frames[x->off + k] != c->frames[y->off + k])
			return c->frames[x->off + k] < c->frames[y->off + k] ?
				       -1 :
				       1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return c->side[i] < c->side[j] ? -1 : c->side[i] > c->side[j];
}

/* Copy side's stacks as name ids into d->frames and all[]. */
static void copy_stacks(struct report_diff *d, const struct report *r, int side,
			const uint32_t *ids, struct dstack *all,
			unsigned char *sides, size_t *k)
{
	for (size_t i = 0; i < report_nstacks(r); i++, (*k)++) {
		size_t n;
		uint64_t count;
		const uint32_t *f = report_stack(r, i, &n, &count);

		all[*k] = (struct dstack){ d->nframes, n, { 0, 0 } };
		all[*k].count[side] = count;
		sides[*k] = (unsigned char)side;
		for (size_t j = 0; j < n; j++)
			d->frames[d->nframes++] = ids[f[j]];
	}
}

/* The stacks of both sides, equal ones as one with both counts. */
static int join_stacks(struct report_diff *d, const struct report *const *r,
		       uint32_t *const *ids)
{
	size_t ns = 0, nf = 0, k = 0, *idx;
	struct dstack *all;
	unsigned char *sides;
	struct sort_ctx ctx;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < report_nstacks(r[s]); i++, ns++) {
			size_t n;
			uint64_t c;

			report_stack(r[s], i, &n, &c);
			nf += n;
		}
	d->frames = malloc((nf ? nf : 1) * sizeof(*d->frames));
	all = malloc((ns ? ns : 1) * sizeof(*all));
	idx = malloc((ns ? ns : 1) * sizeof(*idx));
	sides = malloc(ns ? ns : 1);
	d->stacks = malloc((ns ? ns : 1) * sizeof(*d->stacks));
	if (!d->frames || !all || !idx || !sides || !d->stacks) {
		free(all);
		free(idx);
		free(sides);
		return -1;
	}
	for (int s = 0; s < 2; s++)
		copy_stacks(d, r[s], s, ids[s], all, sides, &k);
	for (size_t i = 0; i < ns; i++)
		idx[i] = i;
	ctx = (struct sort_ctx){ d->frames, all, sides };
	qsort_r(idx, ns, sizeof(*idx), cmp_stacks, &ctx);
	for (size_t i = 0; i < ns; i++) {
		const struct dstack *s = &all[idx[i]];
		struct dstack *last = d->nstacks ? &d->stacks[d->nstacks - 1] :
						   NULL;

		if (last && last->n == s->n &&
		    !memcmp(d->frames + last->off, d->frames + s->off,
			    s->n * sizeof(*d->frames))) {
			last->count[0] += s->count[0];
			last->count[1] += s->count[1];
		} else
			d->stacks[d->nstacks++] = *s;
	}
	free(all);
	free(idx);
	free(sides);
	return 0;
}

static int diff_init(struct report_diff *d, const char *bl, const char *nl)
{
	d->names = strpool_new();
	d->label[0] = strdup(bl ? bl : "BASE");
	d->label[1] = strdup(nl ? nl : "NEW");
	return d->names && d->label[0] && d->label[1] ? 0 : -1;
}

/* The per-name arrays, once every name is interned. */
static int alloc_counts(struct report_diff *d)
{
	d->nnames = strpool_count(d->names);
	d->modules = calloc(d->nnames, sizeof(*d->modules));
	for (int i = 0; i < 4; i++)
		d->counts[i] = calloc(d->nnames, sizeof(*d->counts[i]));
	return d->modules && d->counts[0] && d->counts[1] && d->counts[2] &&
			       d->counts[3] ?
		       0 :
		       -1;
}

struct report_diff *report_diff_build(const struct report *base,
				      const struct report *nw,
				      const char *base_label,
				      const char *new_label)
{
	struct report_diff *d = calloc(1, sizeof(*d));
	const struct report *r[2] = { base, nw };
	uint32_t *ids[2] = { NULL, NULL };
	int rc = -1;

	if (!d || diff_init(d, base_label, new_label))
		goto out;
	ids[0] = intern_names(d, base);
	ids[1] = ids[0] ? intern_names(d, nw) : NULL;
	if (!ids[1] || alloc_counts(d) || side_counts(d, base, 0) ||
	    side_counts(d, nw, 1))
		goto out;
	d->total[0] = report_total(base);
	d->total[1] = report_total(nw);
	d->scale = d->total[0] ? (double)d->total[1] / (double)d->total[0] :
				 0.0;
	if (make_rows(d) == 0 && join_stacks(d, r, ids) == 0)
		rc = 0;
out:
	free(ids[0]);
	free(ids[1]);
	if (rc) {
		report_diff_free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void report_diff_free(struct report_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->modules && i < d->nnames; i++)
		free(d->modules[i]);
	free(d->modules);
	for (int i = 0; i < 4; i++)
		free(d->counts[i]);
	free(d->rows);
	free(d->frames);
	free(d->stacks);
	free(d->label[0]);
	free(d->label[1]);
	strpool_free(d->names);
	free(d);
}

const struct report_diff_row *report_diff_rows(const struct report_diff *d,
					       size_t *n)
{
	*n = d->nrows;
	return d->rows;
}

double report_diff_scale(const struct report_diff *d)
{
	return d->scale;
}

/* x rounded to a whole number, with its sign ("0" for less than half).
 * A file's counts go up to 2^64 - 1, past a long long: a change that
 * large is printed as the double it is (whole already, past 2^53). */
static void put_samples(FILE *out, double x)
{
	long long v;

	if (mag(x) >= 0x1p53) {
		fprintf(out, "%+8.0f", x);
		return;
	}
	v = (long long)(x < 0 ? x - 0.5 : x + 0.5);
	if (v)
		fprintf(out, "%+8lld", v);
	else
		fprintf(out, "%8s", "0");
}

/* BASE's count of a stack, scaled, rounded: at most NEW's total, but
 * 2^64 - 1 as a double is 2^64, which no uint64_t holds. */
static uint64_t scaled(uint64_t count, double scale)
{
	double v = (double)count * scale + 0.5;

	return v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
}

/* x percentage points, with its sign ("0.00" when it rounds so). */
static void put_pp(FILE *out, double x)
{
	if (mag(x) < 0.005)
		fprintf(out, " %8s", "0.00");
	else
		fprintf(out, " %+8.2f", x);
}

static void put_head(const struct report_diff *d, FILE *out)
{
	fputs("Base: ", out);
	textsafe_fputs(out, d->label[0], NULL);
	fprintf(out, ", %" PRIu64 " samples; new: ", d->total[0]);
	textsafe_fputs(out, d->label[1], NULL);
	fprintf(out,
		", %" PRIu64 " samples; base scaled by %.4f to new's total\n",
		d->total[1], d->scale);
}

int report_diff_write_text(const struct report_diff *d, FILE *out, size_t top)
{
	size_t n = top && top < d->nrows ? top : d->nrows;

	put_head(d, out);
	fprintf(out, "%8s %8s %8s %8s  %6s %6s  %s\n", "flat", "flat pp", "cum",
		"cum pp", "base%", "new%", "function [module]");
	for (size_t i = 0; i < n; i++) {
		const struct report_diff_row *row = &d->rows[i];

		put_samples(out, row->flat);
		put_pp(out, row->flat_pp);
		fputc(' ', out);
		put_samples(out, row->cum);
		put_pp(out, row->cum_pp);
		fprintf(out, "  %5.1f%% %5.1f%%  ",
			pct(row->base_flat, d->total[0]),
			pct(row->new_flat, d->total[1]));
		report_put_name(out, row->name, row->module);
	}
	if (n < d->nrows)
		fprintf(out, "(%zu more rows; --top=0 shows all)\n",
			d->nrows - n);
	return fflush(out) || ferror(out) ? -1 : 0;
}

int report_diff_write_folded(const struct report_diff *d, FILE *out)
{
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct dstack *s = &d->stacks[i];

		report_put_stack(out,
				 (const char *const *)strpool_strings(d->names),
				 d->frames + s->off, s->n);
		fprintf(out, " %" PRIu64 " %" PRIu64 "\n",
			scaled(s->count[0], d->scale), s->count[1]);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

int report_diff_write_svg(const struct report_diff *d, FILE *out,
			  const char *title, struct flame_drawn *drawn)
{
	size_t n = d->nstacks ? d->nstacks : 1;
	struct flame_id_stack *fs = calloc(n, sizeof(*fs));
	double *deltas = calloc(n, sizeof(*deltas));
	char sub[512], b[128], nw[128];
	struct flame_options opt = { .title = title,
				     .subtitle = sub,
				     .drawn = drawn };
	int rc = -1;

	snprintf(sub, sizeof(sub),
		 "width: %s (%" PRIu64 " samples); red: grew, blue: shrank "
		 "since %s (%" PRIu64 " samples, scaled by %.4f)",
		 textsafe_str(nw, sizeof(nw), d->label[1]), d->total[1],
		 textsafe_str(b, sizeof(b), d->label[0]), d->total[0],
		 d->scale);
	for (size_t i = 0; fs && deltas && i < d->nstacks; i++) {
		const struct dstack *s = &d->stacks[i];

		fs[i] = (struct flame_id_stack){ d->frames + s->off, s->n,
						 s->count[1] };
		deltas[i] = (double)s->count[1] -
			    (double)s->count[0] * d->scale;
	}
	if (fs && deltas)
		rc = flame_write_svg_diff(out,
					  (const char *const *)strpool_strings(
						  d->names),
					  strpool_count(d->names), fs,
					  d->nstacks, deltas, &opt);
	free(fs);
	free(deltas);
	return rc;
}
