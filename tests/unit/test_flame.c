/*
 * test_flame - the SVG flame graph writer (report/flame.h), on small inputs
 * written to memory: one <svg> that closes, one frame per merged node,
 * widths in proportion to samples, names escaped, no external reference,
 * the same bytes whatever the order of the stacks, and errors as the
 * contract says.
 *
 * Covers: flame_svg (the rest of the module, split out).
 */
#define _GNU_SOURCE /* open_memstream */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "unit.h"

#define GRAPH_W 1180.0 /* 1200 less the two margins of 10 px */

/* The SVG of stacks[0..n), NUL-terminated (free it), or NULL on error. */
static char *render(const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	rc = flame_write_svg(f, stacks, n, opt);
	fclose(f);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

/* The frame whose data-name is name (as written, escaped), or NULL. */
static const char *frame_of(const char *svg, const char *name)
{
	char key[256];

	snprintf(key, sizeof(key), "<g class=\"frame\" data-name=\"%s\"", name);
	return strstr(svg, key);
}

/* The value of attribute attr (e.g. " width=\"") after p, or NAN. */
static double attr_after(const char *p, const char *attr)
{
	p = p ? strstr(p, attr) : NULL;
	return p ? strtod(p + strlen(attr), NULL) : NAN;
}

static double width_of(const char *svg, const char *name)
{
	return attr_after(frame_of(svg, name), " width=\"");
}

/* A struct flame_stack of count samples in the frames given, root first. */
/* clang-format off */
#define STACK(count, ...)                                                    \
	{ (const char *const[]){ __VA_ARGS__ },                              \
	  sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *),     \
	  (count) }
/* clang-format on */

static void test_structure(void)
{
	const struct flame_stack s[] = { STACK(3, "main", "a"),
					 STACK(1, "main", "b") };
	const struct flame_options opt = { .title = "my title",
					   .subtitle = "sub & title" };
	char *svg = render(s, 2, &opt);
	size_t len;

	CHECK(svg != NULL);
	if (!svg)
		return;
	len = strlen(svg);
	CHECK(strncmp(svg, "<?xml ", 6) == 0);
	CHECK(count_of(svg, "<svg ") == 1);
	CHECK(count_of(svg, "</svg>") == 1);
	CHECK(len > 7 && strcmp(svg + len - 7, "</svg>\n") == 0);
	CHECK(count_of(svg, "<g ") == count_of(svg, "</g>"));
	CHECK(count_of(svg, "<script") == 1 && count_of(svg, "</script>") == 1);
	CHECK(count_of(svg, "<style") == 1 && count_of(svg, "</style>") == 1);
	CHECK(count_of(svg, "]]>") == 2); /* the style's and the script's */
	CHECK(count_of(svg, "class=\"frame\"") == 4); /* all, main, a, b */
	CHECK(strstr(svg, ">my title</text>") != NULL);
	CHECK(strstr(svg, ">sub &amp; title</text>") != NULL);
	CHECK(strstr(svg, "class=\"status\"") != NULL);
	CHECK(strstr(svg, "class=\"matched\"") != NULL);
	CHECK(strstr(svg, "Reset zoom") != NULL);
	CHECK(strstr(svg, ">Search<") != NULL);
	CHECK(strstr(svg, "<title>a (3 samples, 75.00%)</title>") != NULL);
	CHECK(strstr(svg, "<title>b (1 sample, 25.00%)</title>") != NULL);
	free(svg);
}

static void test_widths(void)
{
	const struct flame_stack s[] = { STACK(3, "main", "a"),
					 STACK(1, "main", "b") };
	char *svg = render(s, 2, NULL);
	double a, b, x_a, x_b;

	CHECK(svg != NULL);
	if (!svg)
		return;
	a = width_of(svg, "a");
	b = width_of(svg, "b");
	x_a = attr_after(frame_of(svg, "a"), "<rect x=\"");
	x_b = attr_after(frame_of(svg, "b"), "<rect x=\"");
	CHECKF(fabs(width_of(svg, "all") - GRAPH_W) < 1, "all %f",
	       width_of(svg, "all"));
	CHECKF(fabs(width_of(svg, "main") - GRAPH_W) < 1, "main %f",
	       width_of(svg, "main"));
	CHECKF(fabs(a - 0.75 * GRAPH_W) < 1, "a is %f px", a);
	CHECKF(fabs(b - 0.25 * GRAPH_W) < 1, "b is %f px", b);
	CHECKF(fabs(x_a - 10) < 1 && fabs(x_b - (10 + a)) < 1,
	       "a at %f, b at %f", x_a, x_b);
	CHECK(strstr(frame_of(svg, "a"), "data-samples=\"3\"") != NULL);
	free(svg);
}

static void test_merge(void)
{
	const struct flame_stack s[] = { STACK(2, "main", "a", "x"),
					 STACK(1, "main", "a", "y"),
					 STACK(4, "main", "a", "x"),
					 STACK(5, "other", "a", "x") };
	char *svg = render(s, 4, NULL);
	const char *x;

	CHECK(svg != NULL);
	if (!svg)
		return;
	/* all; main, a, x, y; other, a, x */
	CHECK(count_of(svg, "class=\"frame\"") == 8);
	CHECK(count_of(svg, "data-name=\"a\"") == 2);
	x = frame_of(svg, "x");
	CHECK(x && strncmp(strstr(x, "data-samples"), "data-samples=\"6\"",
			   16) == 0);
	CHECK(strstr(svg, "data-name=\"all\" data-samples=\"12\"") != NULL);
	free(svg);
}

static void test_escaping(void)
{
	const struct flame_stack s[] = {
		STACK(1, "main", "<a&b>\"'"),
		STACK(1, "main", "]]></script><script>alert(1)</script>"),
		STACK(1, "main", "bad\xff\x01utf8 \xc3\xa9"),
		STACK(1, "main", ""),
	};
	char *svg = render(s, 4, NULL);

	CHECK(svg != NULL);
	if (!svg)
		return;
	CHECK(frame_of(svg, "&lt;a&amp;b&gt;&quot;&#39;") != NULL);
	CHECK(strstr(svg, "<title>&lt;a&amp;b&gt;&quot;&#39; (") != NULL);
	CHECK(strstr(svg, "<a&b>") == NULL);
	CHECK(strstr(svg, "alert(1)</script>") == NULL);
	CHECK(count_of(svg, "]]>") == 2);
	CHECK(count_of(svg, "</script>") == 1);
	CHECK(frame_of(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8 \xc3\xa9") !=
	      NULL);
	CHECK(strchr(svg, '\x01') == NULL && strchr(svg, '\xff') == NULL);
	CHECK(frame_of(svg, "") != NULL);
	free(svg);
}

static void test_empty(void)
{
	const struct flame_stack s[] = { STACK(0, "main"), { NULL, 0, 5 } };
	char *none = render(NULL, 0, NULL), *zero = render(s, 2, NULL);

	CHECK(none != NULL && zero != NULL);
	if (none && zero) {
		CHECK(strstr(none, ">No samples</text>") != NULL);
		CHECK(strstr(none, "class=\"frame\"") == NULL);
		CHECK(strstr(none, "</svg>\n") != NULL);
		CHECK(strcmp(none, zero) == 0);
	}
	free(none);
	free(zero);
}

/* Every URI is the SVG namespace's: no http(s) reference elsewhere. */
static void test_no_external(void)
{
	const struct flame_stack s[] = { STACK(1, "http://x", "https://y") };
	char *svg = render(s, 1, NULL);
	const char *ns = "xmlns=\"http://www.w3.org/2000/svg\"";
	const char *p;
	size_t n = 0;

	CHECK(svg != NULL);
	if (!svg)
		return;
	for (p = strstr(svg, "http"); p; p = strstr(p + 1, "http")) {
		if (strncmp(p, "http://x", 8) == 0 ||
		    strncmp(p, "https://y", 9) == 0)
			continue; /* the names given, in data-name and title */
		n++;
		CHECKF(p - svg >= 7 && strncmp(p - 7, ns, strlen(ns)) == 0,
		       "a URI at offset %td: %.40s", p - svg, p);
	}
	CHECK(n == 1);
	CHECK(strstr(svg, "url(") == NULL && strstr(svg, "href") == NULL);
	CHECK(strstr(svg, "@import") == NULL && strstr(svg, "src=") == NULL);
	free(svg);
}

static void test_deterministic(void)
{
	const struct flame_stack s1[] = { STACK(3, "main", "b", "z"),
					  STACK(1, "main", "a"),
					  STACK(2, "main", "b", "y"),
					  STACK(7, "init") };
	const struct flame_stack s2[] = { STACK(7, "init"),
					  STACK(2, "main", "b", "y"),
					  STACK(1, "main", "a"),
					  STACK(3, "main", "b", "z") };
	char *a = render(s1, 4, NULL), *b = render(s2, 4, NULL);

	CHECK(a != NULL && b != NULL);
	if (a && b) {
		CHECK(strcmp(a, b) == 0);
		/* Siblings by name: init before main, a before b. */
		CHECK(frame_of(a, "init") < frame_of(a, "main"));
		CHECK(frame_of(a, "a") < frame_of(a, "b"));
		CHECK(width_of(a, "init") > width_of(a, "main"));
	}
	free(a);
	free(b);
}

static void test_errors(void)
{
	const struct flame_stack bad_frames[] = { { NULL, 2, 1 } };
	const struct flame_stack bad_name[] = { STACK(1, "main", NULL) };
	const struct flame_stack big[] = { STACK(UINT64_MAX, "a"),
					   STACK(1, "b") };
	const struct flame_options narrow = { .width = 50 };
	const struct flame_stack ok[] = { STACK(1, "main") };

	errno = 0;
	CHECK(flame_write_svg(NULL, ok, 1, NULL) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(render(NULL, 1, NULL) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(render(bad_frames, 1, NULL) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(render(bad_name, 1, NULL) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(render(ok, 1, &narrow) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(render(big, 2, NULL) == NULL && errno == EOVERFLOW);
}

/* 4096 frames deep, a name repeated at every depth: one frame a level. */
static void test_deep(void)
{
	static const char *frames[4096];
	struct flame_stack s = { frames, 4096, 10 };
	char *svg;
	size_t i;

	for (i = 0; i < 4096; i++)
		frames[i] = i % 2 ? "f" : "";
	svg = render(&s, 1, NULL);
	CHECK(svg != NULL);
	if (svg) {
		CHECK(count_of(svg, "class=\"frame\"") == 4097);
		CHECK(strstr(svg, "data-depth=\"4096\"") != NULL);
	}
	free(svg);
}

/* Frames under 0.1 px are left out, labels cut to fit or left out. */
static void test_narrow_and_labels(void)
{
	const struct flame_stack s[] = {
		STACK(1000000, "main", "a_rather_long_function_name_here"),
		STACK(1, "main", "tiny"),
		STACK(15000, "main", "short_frame_name"),
	};
	char *svg = render(s, 3, NULL);
	const char *f;

	CHECK(svg != NULL);
	if (!svg)
		return;
	CHECK(frame_of(svg, "tiny") == NULL);
	CHECK(count_of(svg, "class=\"frame\"") == 4);
	f = frame_of(svg, "a_rather_long_function_name_here");
	CHECK(f && strstr(f, ">a_rather_long_function_name_here</text>"));
	/* 15000 of 1015001 samples: 17.4 px, room for 1 character: none. */
	f = frame_of(svg, "short_frame_name");
	CHECK(f && strncmp(strstr(f, "<text"), "<text x=", 8) == 0 &&
	      strstr(strstr(f, "<text"), "\"></text>") < strstr(f, "</g>"));
	free(svg);
}

static void test_cut_label(void)
{
	const struct flame_stack s[] = {
		STACK(1, "main", "abcdefghijklmnopqrstuvwxyz"),
		STACK(9, "main", "other"),
	};
	char *svg = render(s, 2, NULL);
	const char *f;

	CHECK(svg != NULL);
	if (!svg)
		return;
	/* 118 px: (118 - 6) / 7.08 = 15 characters, 13 and "..". */
	f = frame_of(svg, "abcdefghijklmnopqrstuvwxyz");
	CHECK(f && strstr(f, ">abcdefghijklm..</text>") != NULL);
	free(svg);
}

/* Many siblings and stacks: no quadratic path (this would take minutes). */
static void test_many(void)
{
	enum { N = 200000 };
	struct flame_stack *s = calloc(N, sizeof(*s));
	char(*names)[16] = calloc(N, sizeof(*names));
	const char **frames = calloc(2 * (size_t)N, sizeof(*frames));
	char *svg = NULL;
	size_t i;

	CHECK(s && names && frames);
	if (s && names && frames) {
		for (i = 0; i < N; i++) {
			snprintf(names[i], sizeof(names[i]), "f%zu", i);
			frames[2 * i] = "main";
			frames[2 * i + 1] = names[i];
			s[i] = (struct flame_stack){ &frames[2 * i], 2, 1 };
		}
		svg = render(s, N, NULL);
		CHECK(svg != NULL);
	}
	/* Each leaf is 0.0059 px: only all and main are drawn. */
	CHECK(svg && count_of(svg, "class=\"frame\"") == 2);
	free(svg);
	free(frames);
	free(names);
	free(s);
}

/* The ids interface draws what the strings one does; equal names under
 * two ids are one frame; an id past the names is EINVAL. */
static void test_ids(void)
{
	static const char *const names[] = { "main", "a", "b", "a" };
	static const uint32_t f1[] = { 0, 1 }, f2[] = { 0, 3 }, f3[] = { 0, 2 };
	static const uint32_t bad[] = { 0, 4 };
	const struct flame_id_stack ids[] = { { f1, 2, 3 },
					      { f2, 2, 2 },
					      { f3, 2, 1 } };
	const struct flame_id_stack bad_ids[] = { { bad, 2, 1 } };
	const struct flame_stack strs[] = { STACK(5, "main", "a"),
					    STACK(1, "main", "b") };
	char *a = NULL, *b = render(strs, 2, NULL);
	size_t len = 0;
	FILE *f = open_memstream(&a, &len);

	CHECK(f && flame_write_svg_ids(f, names, 4, ids, 3, NULL) == 0);
	if (f)
		fclose(f);
	CHECK(a && b && !strcmp(a, b));
	free(a);
	free(b);
	a = NULL;
	f = open_memstream(&a, &len);
	errno = 0;
	CHECK(f && flame_write_svg_ids(f, names, 4, bad_ids, 1, NULL) == -1 &&
	      errno == EINVAL);
	if (f)
		fclose(f);
	free(a);
}

/* Pruning: 100000 distinct stacks 64 deep (6.4 million frames read)
 * beside one wide stack draw 2 frames; none of the narrow ones, nor
 * anything above them, is made (report-hostile.test measures memory). */
static void test_narrow_not_made(void)
{
	enum { N = 100000, D = 64 };
	struct flame_id_stack *s = calloc(N + 1, sizeof(*s));
	uint32_t *frames = calloc((size_t)N * D + 1, sizeof(*frames));
	static const char *const names[] = { "main", "x", "y", "z" };
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);
	uint32_t x = 1;

	CHECK(s && frames && f);
	if (s && frames && f) {
		for (size_t i = 0; i < N; i++) {
			for (size_t d = 0; d < D; d++) {
				x = x * 1103515245u + 12345u;
				frames[i * D + d] = 1 + (x >> 16) % 3;
			}
			s[i] = (struct flame_id_stack){ &frames[i * D], D, 1 };
		}
		frames[(size_t)N * D] = 0;
		s[N] = (struct flame_id_stack){ &frames[(size_t)N * D], 1,
						1000000000 };
		CHECK(flame_write_svg_ids(f, names, 4, s, N + 1, NULL) == 0);
	}
	if (f)
		fclose(f);
	/* all, main, and x, y, z at depth 1 (each 1/30000 of the total:
	 * 0.04 px, too narrow): 2 frames */
	CHECK(svg && count_of(svg, "class=\"frame\"") == 2);
	free(svg);
	free(frames);
	free(s);
}

int main(void)
{
	test_structure();
	test_widths();
	test_merge();
	test_escaping();
	test_empty();
	test_no_external();
	test_deterministic();
	test_errors();
	test_deep();
	test_narrow_and_labels();
	test_cut_label();
	test_many();
	test_ids();
	test_narrow_not_made();
	return unit_result("test_flame");
}
