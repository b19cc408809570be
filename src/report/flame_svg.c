/*
 * flame_svg.c - writing a flame graph's SVG document (flame.h): the
 * head and style, each drawn frame (its name escaped, its label cut to
 * fit, its colour), the buttons and status line, then the time strip
 * (flame_time.c) and the script (flame_script.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "report/flame.h"
#include "report/flame_int.h"
#include "util/hash.h"
#include "util/textsafe.h"

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
	size_t i = (size_t)(nd - t->nodes);
	double x = XPAD + flame_px(t, l, nd->start),
	       w = flame_px(t, l, nd->total);
	unsigned y = l->top + (unsigned)(t->max_depth - nd->depth) * FRAME_H;

	fputs("<g class=\"frame\" data-name=\"", out);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out,
		"\" data-samples=\"%" PRIu64 "\" data-start=\"%" PRIu64
		"\" data-depth=\"%zu",
		nd->total, nd->start, nd->depth);
	flame_diff_put_attrs(out, t, i);
	fputc('"', out);
	flame_time_put_frame(out, t, nd);
	fputs("><title>", out);
	put_text(out, nd->name, SIZE_MAX);
	fprintf(out, " (%" PRIu64 " sample%s, %.2f%%", nd->total,
		nd->total == 1 ? "" : "s",
		100.0 * (double)nd->total / (double)t->nodes[0].total);
	flame_diff_put_title(out, t, i);
	fputs(")</title>\n", out);
	fprintf(out,
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"rx=\"2\" ry=\"2\" fill=\"",
		x, y, w, FRAME_H - 1);
	if (t->deltas)
		flame_diff_put_colour(out, t->dself[i], t->dmax);
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
	/* The bound reached (flame.h): the graph says what it leaves out. */
	if (t->drawn.depth_cut)
		fprintf(out,
			"<text class=\"cut\" x=\"%u\" y=\"%u\" "
			"text-anchor=\"middle\">Bounded to about %zu MB: "
			"frames from depth %zu on not drawn (%" PRIu64
			" at that depth; %" PRIu64
			" frames narrower than %.1f px not drawn)</text>\n",
			l->width / 2, l->top - 4, MAX_FRAMES_BYTES >> 20,
			t->drawn.depth_cut, t->drawn.cut, t->drawn.narrow,
			MIN_FRAME_PX);
}

int flame_svg_write(FILE *out, struct tree *t, struct layout *l,
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
	flame_time_put_strip(out, t, l);
	put_controls(out, t, l);
	fputs(flame_script, out);
	if (t->strip && t->strip->nslots)
		fputs(flame_script_time, out);
	fputs(flame_script_tail, out);
	fputs("</svg>\n", out);
	if (fflush(out) == EOF || ferror(out)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
