/*
 * flame_diff.c - a differential flame graph (flame_write_svg_diff(),
 * flame.h): each drawn frame's own and total delta, its colour and what
 * its attributes and title say of them.
 */
#include "config.h"

#include <stdlib.h>

#include "report/flame.h"
#include "report/flame_int.h"

/*
 * A differential graph: each drawn frame's delta, from its stacks (its
 * range of t->idx, which sorting its children's ranges did not change):
 * its total, and its own (the stacks that end at it), which colours it,
 * as flamegraph.pl colours a frame by the delta of the stacks ending
 * there.  t->dmax: the largest own delta's size, the full colour.
 */
int flame_diff_deltas(struct tree *t)
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

/* A differential frame's fill: white, red by how much it grew, blue by
 * how much it shrank (flamegraph.pl's color_scale()). */
void flame_diff_put_colour(FILE *out, double v, double max)
{
	unsigned r = 255, g = 255, b = 255;

	if (max > 0 && v > 0)
		g = b = (unsigned)(210 * (max - v) / max);
	else if (max > 0 && v < 0)
		r = g = (unsigned)(210 * (max + v) / max);
	fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

/* A differential frame's attributes, or its title's change. */
void flame_diff_put_attrs(FILE *out, const struct tree *t, size_t i)
{
	if (t->deltas)
		fprintf(out, "\" data-delta=\"%.2f\" data-delta-total=\"%.2f",
			t->dself[i], t->dtotal[i]);
}

void flame_diff_put_title(FILE *out, const struct tree *t, size_t i)
{
	double all = (double)t->nodes[0].total;

	if (t->deltas)
		fprintf(out, "; self %+.2f pp, total %+.2f pp",
			100.0 * t->dself[i] / all, 100.0 * t->dtotal[i] / all);
}
