/*
 * flame.h - a self-contained interactive SVG flame graph.
 *
 * Input: stacks, each a list of frame names from the root (outermost
 * caller) to the leaf, with a sample count.  Stacks may repeat and come in
 * any order; they are merged into a tree (same name at the same depth
 * under the same parent = one frame), so the output does not depend on
 * their order.  Frames are sized by samples: a frame's width is its
 * samples over the total, across the full width of the graph.
 *
 * Output: one SVG document with its own inline script and style, no
 * external reference at all (no network, no font or script files), that
 * works opened directly in a browser: the title of each frame (hover) gives
 * its name, samples and percentage; clicking a frame zooms so that it fills
 * the width (its ancestors shown full width above it, other stacks hidden),
 * and clicking the root, or "Reset zoom", returns; "Search" takes a regular
 * expression, highlights matching frames and shows the share of samples
 * they cover.  Names are XML-escaped.
 *
 * Contract: never prints except to `out`, never exits.  Returns 0, or -1
 * with errno (EINVAL for bad arguments: out NULL, a stack with NULL frames
 * and nframes > 0; ENOMEM; the errno of a failed write).  Stacks with a
 * count of 0 or no frames are skipped; with no samples at all the graph
 * still renders and says so.
 */
#ifndef PTPROF_FLAME_H
#define PTPROF_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flame_stack {
	const char *const *frames; /* root first */
	size_t nframes;
	uint64_t count;
};

struct flame_options {
	const char *title;    /* e.g. "ptprof: prog, 1234 samples"; NULL: default */
	const char *subtitle; /* one more line, or NULL */
	unsigned width;	      /* pixels; 0: 1200 */
};

int flame_write_svg(FILE *out, const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt);

#endif /* PTPROF_FLAME_H */
