/*
 * flame.c - SVG flame graphs (see flame.h).
 *
 * The stacks are merged into a tree kept in one array of nodes, a node
 * found from (parent, name) through an open-addressing hash table, so
 * merging is linear in the frames read.  Then each node's children are
 * sorted by name, laid out left to right in samples, and the nodes wide
 * enough to draw are listed breadth first: root, its children in order,
 * their children...  That order depends only on the merged tree, never on
 * the order of the stacks, so the output does not either.  Nothing here is
 * recursive: a stack of any depth costs no C stack.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "grow.h"
#include "hash.h"
#include "textsafe.h"

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

struct node {
	const char *name; /* the caller's string, read during the call only */
	uint64_t hash;	  /* of name */
	uint64_t total;	  /* samples in this frame (and above it) */
	uint64_t start;	  /* samples left of it */
	size_t parent;
	size_t kid0, nkids; /* children: tree.kids[kid0 .. kid0 + nkids) */
	size_t depth;	    /* 0 for the root */
};

struct tree {
	struct node *nodes; /* nodes[0] is the root, a parent before its kids */
	size_t n, cap;
	size_t *slots; /* hash table of node index + 1; 0 is empty */
	size_t nslots; /* a power of 2, at least twice n */
	struct node **kids;
	size_t *order; /* the nodes to draw, breadth first */
	size_t norder, max_depth;
};

struct layout {
	unsigned width;	    /* of the document, px */
	double graph_width; /* of the root frame, px */
	unsigned top;	    /* y of the top of the frame area */
	unsigned height;    /* of the document */
};

static size_t slot_of(const struct tree *t, size_t parent, uint64_t hash)
{
	uint64_t h = hash ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 31;
	return (size_t)h & (t->nslots - 1);
}

static void table_put(struct tree *t, size_t idx)
{
	const struct node *nd = &t->nodes[idx];
	size_t s = slot_of(t, nd->parent, nd->hash);

	while (t->slots[s])
		s = (s + 1) & (t->nslots - 1);
	t->slots[s] = idx + 1;
}

static int table_grow(struct tree *t)
{
	size_t want = t->nslots ? t->nslots * 2 : 64, i;
	size_t *slots;

	if (want > SIZE_MAX / sizeof(*slots) / 2) {
		errno = ENOMEM;
		return -1;
	}
	slots = calloc(want, sizeof(*slots));
	if (!slots)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->nslots = want;
	for (i = 0; i < t->n; i++)
		table_put(t, i);
	return 0;
}

static int nodes_grow(struct tree *t)
{
	struct node *nodes = grow_array(t->nodes, &t->cap, t->n + 1,
					sizeof(*nodes));

	if (!nodes)
		return -1;
	t->nodes = nodes;
	return 0;
}

/* A new node; its index, or SIZE_MAX with errno ENOMEM. */
static size_t node_add(struct tree *t, size_t parent, const char *name,
		       uint64_t hash)
{
	struct node *nd;

	if (t->n == t->cap && nodes_grow(t) < 0)
		return SIZE_MAX;
	if ((t->n + 1) * 2 > t->nslots && table_grow(t) < 0)
		return SIZE_MAX;
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->hash = hash;
	nd->parent = parent;
	nd->depth = t->n ? t->nodes[parent].depth + 1 : 0;
	table_put(t, t->n);
	return t->n++;
}

/* The child of parent called name, made if new; SIZE_MAX on ENOMEM. */
static size_t node_child(struct tree *t, size_t parent, const char *name)
{
	uint64_t hash = hash_fnv1a_str(name);
	size_t s = slot_of(t, parent, hash), idx;
	const struct node *nd;

	for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		idx = t->slots[s] - 1;
		nd = &t->nodes[idx];
		if (nd->parent == parent && nd->hash == hash &&
		    strcmp(nd->name, name) == 0)
			return idx;
	}
	return node_add(t, parent, name, hash);
}

static int tree_add_stack(struct tree *t, const struct flame_stack *st)
{
	size_t i, at = 0;

	if (st->nframes && !st->frames) {
		errno = EINVAL;
		return -1;
	}
	if (!st->count || !st->nframes)
		return 0;
	if (t->nodes[0].total > UINT64_MAX - st->count) {
		errno = EOVERFLOW;
		return -1;
	}
	t->nodes[0].total += st->count;
	for (i = 0; i < st->nframes; i++) {
		if (!st->frames[i]) {
			errno = EINVAL;
			return -1;
		}
		at = node_child(t, at, st->frames[i]);
		if (at == SIZE_MAX)
			return -1;
		t->nodes[at].total += st->count;
	}
	return 0;
}

static int kid_cmp(const void *a, const void *b)
{
	const struct node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Group every node's children in kids[], each group sorted by name. */
static int tree_sort_kids(struct tree *t)
{
	size_t i, at = 0;
	struct node *p;

	t->kids = malloc(t->n * sizeof(*t->kids));
	if (!t->kids)
		return -1;
	for (i = 1; i < t->n; i++)
		t->nodes[t->nodes[i].parent].nkids++;
	for (i = 0; i < t->n; i++) {
		t->nodes[i].kid0 = at;
		at += t->nodes[i].nkids;
		t->nodes[i].nkids = 0;
	}
	for (i = 1; i < t->n; i++) {
		p = &t->nodes[t->nodes[i].parent];
		t->kids[p->kid0 + p->nkids++] = &t->nodes[i];
	}
	for (i = 0; i < t->n; i++)
		qsort(t->kids + t->nodes[i].kid0, t->nodes[i].nkids,
		      sizeof(*t->kids), kid_cmp);
	return 0;
}

/* Parents come before their children in nodes[]: one pass places all. */
static void tree_place(struct tree *t)
{
	size_t i, k;
	uint64_t at;

	for (i = 0; i < t->n; i++) {
		at = t->nodes[i].start;
		for (k = 0; k < t->nodes[i].nkids; k++) {
			t->kids[t->nodes[i].kid0 + k]->start = at;
			at += t->kids[t->nodes[i].kid0 + k]->total;
		}
	}
}

static double px_of(const struct tree *t, const struct layout *l, uint64_t n)
{
	return (double)n / (double)t->nodes[0].total * l->graph_width;
}

/* List the frames to draw, breadth first, skipping the too narrow. */
static int tree_select(struct tree *t, const struct layout *l)
{
	size_t q, k;
	const struct node *nd, *kid;

	t->order = malloc(t->n * sizeof(*t->order));
	if (!t->order)
		return -1;
	if (!t->nodes[0].total)
		return 0;
	t->order[t->norder++] = 0;
	for (q = 0; q < t->norder; q++) {
		nd = &t->nodes[t->order[q]];
		for (k = 0; k < nd->nkids; k++) {
			kid = t->kids[nd->kid0 + k];
			if (px_of(t, l, kid->total) < MIN_FRAME_PX)
				continue;
			t->order[t->norder++] = (size_t)(kid - t->nodes);
			if (kid->depth > t->max_depth)
				t->max_depth = kid->depth;
		}
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->nodes);
	free(t->slots);
	free(t->kids);
	free(t->order);
}

static int tree_build(struct tree *t, const struct flame_stack *stacks,
		      size_t n, const struct layout *l)
{
	size_t i;

	if (node_add(t, 0, "all", hash_fnv1a_str("all")) == SIZE_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (tree_add_stack(t, &stacks[i]) < 0)
			return -1;
	if (tree_sort_kids(t) < 0)
		return -1;
	tree_place(t);
	return tree_select(t, l);
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

static void put_frame(FILE *out, const struct tree *t, const struct layout *l,
		      const struct node *nd)
{
	double x = XPAD + px_of(t, l, nd->start), w = px_of(t, l, nd->total);
	unsigned y = l->top + (unsigned)(t->max_depth - nd->depth) * FRAME_H;

	fputs("<g class=\"frame\" data-name=\"", out);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out,
		"\" data-samples=\"%" PRIu64 "\" data-start=\"%" PRIu64
		"\" data-depth=\"%zu\"><title>",
		nd->total, nd->start, nd->depth);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out, " (%" PRIu64 " sample%s, %.2f%%)</title>\n", nd->total,
		nd->total == 1 ? "" : "s",
		100.0 * (double)nd->total / (double)t->nodes[0].total);
	fprintf(out,
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"rx=\"2\" ry=\"2\" fill=\"",
		x, y, w, FRAME_H - 1);
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
	"\tframes.forEach(function (g) {\n"
	"\t\tplace(g, X0 + num(g, \"data-start\") / TOTAL * W,\n"
	"\t\t      num(g, \"data-samples\") / TOTAL * W);\n"
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
	"\t      resetSearch: resetSearch };\n"
	"try {\n"
	"\tvar q = new URLSearchParams(window.location.search).get(\"s\");\n"
	"\tif (q)\n"
	"\t\tsearch(q);\n"
	"} catch (e) {\n"
	"\tsay(\"Bad regular expression in ?s=\");\n"
	"}\n"
	"})();\n"
	"]]></script>\n";

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

	if (t->max_depth > (UINT32_MAX - l->top - BOTTOM_PAD) / FRAME_H - 1) {
		errno = ENOMEM; /* unreasonably deep */
		return -1;
	}
	l->height = l->top + (unsigned)(t->max_depth + 1) * FRAME_H +
		    BOTTOM_PAD;
	errno = 0;
	put_head(out, t, l, opt);
	for (i = 0; i < t->norder; i++)
		put_frame(out, t, l, &t->nodes[t->order[i]]);
	put_controls(out, t, l);
	fputs(svg_script, out);
	fputs("</svg>\n", out);
	if (fflush(out) == EOF || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

int flame_write_svg(FILE *out, const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt)
{
	struct tree t = { 0 };
	struct layout l;
	int rc, err;

	if (!out || (n && !stacks)) {
		errno = EINVAL;
		return -1;
	}
	if (layout_init(&l, opt) < 0)
		return -1;
	rc = tree_build(&t, stacks, n, &l);
	if (rc == 0)
		rc = write_svg(out, &t, &l, opt);
	err = errno;
	tree_free(&t);
	errno = err;
	return rc;
}
