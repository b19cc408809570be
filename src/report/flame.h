/*
 * flame.h - a self-contained interactive SVG flame graph.
 *
 * Input: stacks, each a list of frame names from the root (outermost
 * caller) to the leaf, with a sample count.  Stacks may repeat and come in
 * any order; they are merged into a tree (same name at the same depth
 * under the same parent = one frame), so the output does not depend on
 * their order: the same stacks in any order give the same bytes.  Frames
 * are sized by samples: a frame's width is its samples over the total,
 * across the full width of the graph.  Siblings are ordered by name
 * (strcmp), as flamegraph.pl orders them; the root, "all", is at the
 * bottom and callees stand on their callers.  Merging sorts the stacks
 * under a frame by their next frame (O(F log S) for F frames in S
 * stacks: no quadratic path), and only frames wide enough to be drawn
 * are made: memory is a few words a stack and a node a drawn frame, not
 * a node a frame read (a 41 MB profile of 20000 distinct stacks 256 deep
 * took 561 MB with a node a frame, and takes 65 MB, as its text report).
 *
 * Output: one SVG document with its own inline script and style, no
 * external reference at all (no network, no font or script files; the
 * only URI is the SVG namespace), that works opened directly in a browser
 * and also with its markup inlined into an HTML page (the script finds its
 * own <svg>, not document.documentElement, scopes its CSS and lookups to
 * it and defines no global):
 *  - hovering a frame shows "name (N samples, P%)" in the status line at
 *    the bottom (and as the frame's <title> tooltip);
 *  - clicking a frame zooms: it fills the width, its ancestors are shown
 *    full width, frames not under it are hidden; clicking the root, or
 *    "Reset zoom" (top left), returns;
 *  - "Search" (top right) asks for a regular expression (prompt()); a
 *    "?s=REGEX" parameter in the page's URL searches on load.  Matching
 *    frames turn magenta and "Matched: P%" (bottom right) gives the share
 *    of samples under them (nested matches counted once); "Reset search"
 *    clears it.
 * Labels are cut to fit their frame (an average character width of 7.08
 * px for the 12 px font, ".." marking the cut) and left out for frames
 * under 3 characters wide.  Frames narrower than 0.1 px are not written at
 * all, nor anything above them, which bounds the output's size; zooming
 * cannot bring them back and a search does not count them.  Names are
 * XML-escaped (& < > " '); bytes that are not valid UTF-8, and control
 * characters, are written as U+FFFD.  The script reads names from the
 * DOM, never from script text, so no name can break it.
 *
 * Hooks (stable, for tests and for pages that embed the graph):
 *  - <svg class="flamegraph" data-samples="TOTAL" data-xpad="X0"
 *    data-graph-width="W" data-char-width="CW">: frames span
 *    [X0, X0 + W] when not zoomed;
 *  - each frame: <g class="frame" data-name="NAME" data-samples="N"
 *    data-start="S" data-depth="D"> (S: samples left of it; D: 0 for the
 *    root "all") holding <title>, <rect x= width=> (x and width change on
 *    zoom) and <text> (its label);
 *  - a hidden element has class "hide"; a search match, class "match";
 *  - <text class="status">, <text class="matched">, and the buttons
 *    <text class="button reset-zoom">, "button search", "button
 *    reset-search";
 *  - after the script ran, the <svg> element has a property "flame" with
 *    zoom(g), unzoom(), search(regex or string; returns the matched
 *    percentage) and resetSearch().
 * With no samples at all the graph still renders and says "No samples".
 *
 * Time strip (flame_options.time given, and samples): between the frames
 * and the status line, a timeline of samples per slot, FLAME_MIN_SLOT_NS (10
 * ms) or wider (1-2-5 steps) so that the run is at most FLAME_MAX_SLOTS
 * slots; dragging the mouse over it redraws the graph for the slots
 * under the drag only (frames with no samples there hidden, widths
 * and titles of the samples selected; a zoom and a search are reset),
 * and "Reset time" returns to all; hovering the strip shows a slot's samples
 * in the status line.  The graph is laid out again by the script from
 * each frame's samples per slot, written with the frame;
 * so only frames drawn for the whole run can be shown for a part of it
 * (a frame under 0.1 px of the whole is not there to widen), and the
 * slots are widened further until the frames' counts per slot are at
 * most FLAME_MAX_TIME_ENTRIES (no strip if even one slot is too many):
 * the size stays bounded whatever the run's length.
 * Hooks of the strip:
 *  - <g class="timeline" data-slots="N" data-slot-ns="NS"
 *    data-x0="X" data-width="W">: N slots of NS ns over [X, X + W];
 *    slot i starts i * NS ns after the strip's start;
 *  - in it <rect class="tslot" data-slot="I" data-samples="C"> a bar per
 *    slot with samples, <rect class="tsel"> the selection (class "hide"
 *    when none), <text class="time-range"> what is shown;
 *  - <text class="button reset-time"> (class "hide" when all is shown);
 *  - each frame: data-t="I:C I:C ..." its samples C in slot I (slots with
 *    none left out); data-samples and data-start are those of the slots
 *    selected, as the <svg>'s data-samples;
 *  - svg.flame.select(t0, t1): show the slots from the one holding t0 to
 *    the one holding t1 (seconds from the strip's start; t1 > t0); it
 *    returns the samples shown; svg.flame.resetTime().
 *
 * Contract: never prints except to `out`, never exits.  Returns 0, or -1
 * with errno: EINVAL for bad arguments (out NULL; stacks NULL with n > 0;
 * a stack with NULL frames and nframes > 0, or a NULL name; a width that
 * is not 0 nor within 200..100000; a time sample of a stack not below
 * n, or time samples NULL with n > 0); EOVERFLOW if the counts add up past
 * 2^64 - 1; ENOMEM; or the errno of a failed write (EIO if there is none).
 * Stacks with a count of 0 or no frames are skipped.  The stacks' strings
 * are only read during the call.
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

/* When the samples of stacks were taken (flame_options.time): count
 * samples of stacks[stack] (an index into the stacks given) were taken
 * ns nanoseconds after the start of the time strip. */
struct flame_time_sample {
	size_t stack;
	uint64_t ns;
	uint64_t count;
};

struct flame_time {
	const struct flame_time_sample *samples;
	size_t n;
};

/*
 * What a graph leaves out.  A frame narrower than 0.1 px is not drawn,
 * nor what is above it (zooming in by 10 shows a pixel of it).  And the
 * document is bounded: the frames are made level by level, and the
 * first level that would take the frames past about 32 MB of SVG is
 * not drawn, nor any deeper (3,000 distinct stacks 4,096 frames deep made
 * a 3.3 GB document).  The graph then says so at its bottom, and
 * depth_cut tells the caller, who may say so too.
 */
struct flame_drawn {
	size_t frames;	  /* drawn */
	uint64_t narrow;  /* narrower than 0.1 px, not drawn (nor above) */
	size_t depth_cut; /* 0, or the first depth not drawn (the bound) */
	uint64_t cut;	  /* frames of that depth not drawn for it */
};

struct flame_options {
	const char *title; /* e.g. "ptprof: prog, 1234 samples"; NULL: default */
	const char *subtitle; /* one more line, or NULL */
	unsigned width;	      /* pixels; 0: 1200 */
	/* the samples' times, for a time strip (below); NULL: none */
	const struct flame_time *time;
	/* what was left out, filled in when not NULL (below) */
	struct flame_drawn *drawn;
};

int flame_write_svg(FILE *out, const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt);

/* The time strip's bounds (see above). */
#define FLAME_MIN_SLOT_NS 10000000ULL
#define FLAME_MAX_SLOTS 600
#define FLAME_MAX_TIME_ENTRIES 200000

/*
 * The same from frames given as ids into names (nnames of them, none
 * NULL; equal strings may have different ids): what a caller that has
 * its frames numbered already passes, without an array of pointers a
 * frame.  An id not below nnames is EINVAL.
 */
struct flame_id_stack {
	const uint32_t *frames; /* root first */
	size_t nframes;
	uint64_t count;
};

int flame_write_svg_ids(FILE *out, const char *const *names, size_t nnames,
			const struct flame_id_stack *stacks, size_t n,
			const struct flame_options *opt);

/*
 * A differential flame graph (FlameGraph's difffolded.pl and
 * flamegraph.pl convention): widths from the stacks' counts (NEW's), and
 * deltas[i] (finite, else EINVAL) the change of stack i (NEW minus BASE
 * scaled to NEW's total).  A stack of count 0 with a delta (gone from
 * NEW) draws nothing but counts in its frames' deltas.  Each frame's own
 * delta (of the stacks that end at it) colours it: white for none, red
 * for growth and blue for shrinking, the larger the deeper, the largest
 * own delta of the graph full red or blue (rgb(255,0,0), rgb(0,0,255)).
 * A frame only in BASE has no width and is not drawn.  Hooks: each
 * frame's <g> has data-delta="OWN" and data-delta-total="TOTAL" (in
 * samples, 2 decimals), and its title, after the percentage, "; self
 * +X.XX pp, total +Y.YY pp" (percentage points of NEW's total).
 */
int flame_write_svg_diff(FILE *out, const char *const *names, size_t nnames,
			 const struct flame_id_stack *stacks, size_t n,
			 const double *deltas, const struct flame_options *opt);

#endif /* PTPROF_FLAME_H */
