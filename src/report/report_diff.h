/*
 * report_diff.h - what changed from one profile to another (ptprof
 * report --diff BASE NEW): by function, by stack, and as a differential
 * flame graph.
 *
 * Built from two reports (report.h) made with the same options; frames
 * are matched by name (a function, or "function file:line" with --lines),
 * stacks by their names root first.  BASE's counts are scaled by NEW's
 * total over BASE's (the scale; 0 when BASE has no samples), so that two
 * runs of different lengths compare: a function's change in samples is
 * NEW's count minus BASE's scaled, and in percentage points (pp) its
 * share of NEW's total minus its share of BASE's.
 *
 *  - The table: a line naming both profiles with their totals and the
 *    scale, a header, then one row per function either has: the change
 *    of its flat and cum counts in samples (rounded) and in pp, and its
 *    flat share in BASE and in NEW; sorted by the size of the flat change
 *    in pp, then of the cum change, then by name.
 *  - Folded: difffolded.pl's format, "root;...;leaf BASE NEW", every
 *    stack either has, BASE's count scaled and rounded (difffolded.pl -n
 *    truncates), so flamegraph.pl draws it as the SVG below is drawn.
 *  - The SVG: flame_write_svg_diff() (flame.h): widths from NEW, red for
 *    growth, blue for shrinking; a frame only in BASE is not drawn.
 *
 * Contract: the diff copies what it needs (the reports may be freed
 * after report_diff_build()).  Never prints elsewhere than the stream
 * given, never exits; writers return 0 or -1 with errno (a write error,
 * ENOMEM); report_diff_build() NULL with errno ENOMEM.
 */
#ifndef PTPROF_REPORT_DIFF_H
#define PTPROF_REPORT_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

struct report_diff;

/* One function's change (the table's row). */
struct report_diff_row {
	const char *name;
	const char *module; /* NEW's, else BASE's; NULL: none */
	uint64_t base_flat, base_cum, new_flat, new_cum;
	double flat, cum;	/* change in samples (BASE scaled) */
	double flat_pp, cum_pp; /* change in percentage points */
};

/* base_label and new_label name the profiles in the table's first line
 * and the graph's subtitle (copied). */
struct report_diff *report_diff_build(const struct report *base,
				      const struct report *nw,
				      const char *base_label,
				      const char *new_label);
void report_diff_free(struct report_diff *d);

/* The rows, sorted as above; valid until report_diff_free(). */
const struct report_diff_row *report_diff_rows(const struct report_diff *d,
					       size_t *n);
double report_diff_scale(const struct report_diff *d);

/* The table, up to `top` rows (0: all). */
int report_diff_write_text(const struct report_diff *d, FILE *out, size_t top);

int report_diff_write_folded(const struct report_diff *d, FILE *out);

/* The differential flame graph, titled title, with a subtitle saying
 * what the colours mean and both totals; what it left out into *drawn
 * when not NULL (struct flame_drawn, flame.h). */
struct flame_drawn;
int report_diff_write_svg(const struct report_diff *d, FILE *out,
			  const char *title, struct flame_drawn *drawn);

#endif /* PTPROF_REPORT_DIFF_H */
