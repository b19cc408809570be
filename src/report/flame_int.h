/*
 * flame_int.h - what the files of the flame graph share (private to
 * src/report/flame*.c; the interface is flame.h).
 *
 *  - flame.c: the merged tree of drawn frames, the entry points;
 *  - flame_time.c: the time strip (each frame's samples per slot);
 *  - flame_diff.c: a differential graph's deltas and colours;
 *  - flame_svg.c: writing the SVG document (frames, head, controls);
 *  - flame_script.c: the document's inline script, as strings.
 *
 * Nothing here prints except to the `out` given, nor exits; functions
 * that can fail return -1 with errno (ENOMEM, EINVAL as flame.h says).
 */
#ifndef PTPROF_FLAME_INT_H
#define PTPROF_FLAME_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/flame.h"

#define XPAD 10		  /* left and right margins, px */
#define FRAME_H 16	  /* one level of the graph, px */
#define TOP_PAD 50	  /* title and buttons above the frames */
#define SUBTITLE_PAD 18	  /* more of it with a subtitle */
#define BOTTOM_PAD 34	  /* the status line below the frames */
#define CHAR_W 7.08	  /* average width of a 12 px character, px */
#define MIN_FRAME_PX 0.1  /* narrower frames are not written */
#define MIN_LABEL_CHARS 3 /* a label shorter than this is left out */
/* The frames' part of the document, estimated as it is built
 * (FRAME_BYTES and twice the name a frame): the deeper levels of a graph
 * that would pass it are not drawn (flame.h, struct flame_drawn). */
#define MAX_FRAMES_BYTES ((size_t)32 << 20)
#define FRAME_BYTES 320

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
	size_t bytes;	   /* the drawn frames' estimated size */
	struct flame_drawn drawn;
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

/*
 * The time strip (flame_time.c): each drawn frame's samples per slot.
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

/* The width of n samples, px. */
static inline double flame_px(const struct tree *t, const struct layout *l,
			      uint64_t n)
{
	return (double)n / (double)t->nodes[0].total * l->graph_width;
}

/* flame_time.c */
int flame_time_build(struct strip *s, const struct tree *t,
		     const struct flame_time *tm, size_t nstacks);
void flame_time_free(struct strip *s);
void flame_time_put_frame(FILE *out, const struct tree *t,
			  const struct node *nd);
void flame_time_put_strip(FILE *out, const struct tree *t,
			  const struct layout *l);

/* flame_diff.c */
int flame_diff_deltas(struct tree *t);
void flame_diff_put_colour(FILE *out, double v, double max);
void flame_diff_put_attrs(FILE *out, const struct tree *t, size_t i);
void flame_diff_put_title(FILE *out, const struct tree *t, size_t i);

/* flame_svg.c */
int flame_svg_write(FILE *out, struct tree *t, struct layout *l,
		    const struct flame_options *opt);

/* flame_script.c: the script, the time strip's (inside it, when there
 * is a strip) and its end. */
extern const char flame_script[];
extern const char flame_script_time[];
extern const char flame_script_tail[];

#endif /* PTPROF_FLAME_INT_H */
