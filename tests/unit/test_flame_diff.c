/*
 * test_flame_diff - flame_write_svg_diff() (flame.h): widths from the
 * counts, a stack of count 0 drawn nowhere but counted in its frames'
 * deltas, each frame's own and total delta in data-delta and
 * data-delta-total, red for growth and blue for shrinking (the largest
 * own delta full), white for none, the change in the title, and EINVAL
 * for a delta that is not finite or missing.
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

/* names: 0 main, 1 a, 2 b, 3 gone */
static const char *const names[] = { "main", "a", "b", "gone" };
static const uint32_t s_a[] = { 0, 1 }, s_b[] = { 0, 2 }, s_g[] = { 0, 3 };
static const uint32_t s_main[] = { 0 };

static char *render(const struct flame_id_stack *st, size_t n,
		    const double *deltas, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*rc = flame_write_svg_diff(f, names, 4, st, n, deltas, NULL);
	fclose(f);
	return buf;
}

/* The <g ...> tag and title of the frame named name, or NULL. */
static const char *frame_of(const char *svg, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "data-name=\"%s\"", name);
	return strstr(svg, key);
}

/* The fill of the frame at f. */
static void fill_of(const char *f, char *out, size_t len)
{
	const char *p = strstr(f, "fill=\"");

	snprintf(out, len, "%.*s", p ? (int)strcspn(p + 6, "\"") : 0,
		 p ? p + 6 : "");
}

int main(void)
{
	/* BASE (scaled): main;a 80, main;b 20, main;gone 10, main 5;
	 * NEW: main;a 20, main;b 80, main 5 */
	struct flame_id_stack st[] = {
		{ s_a, 2, 20 }, { s_b, 2, 80 }, { s_g, 2, 0 }, { s_main, 1, 5 }
	};
	double deltas[] = { -60, 60, -10, 0 }, bad[] = { 0, NAN, 0, 0 };
	char fill[64];
	const char *f;
	int rc;
	char *svg = render(st, 4, deltas, &rc);

	CHECK(rc == 0 && svg);
	CHECK(!frame_of(svg, "gone")); /* only in BASE: no width */
	CHECK((f = frame_of(svg, "a")) != NULL);
	fill_of(f, fill, sizeof(fill));
	CHECKF(!strcmp(fill, "rgb(0,0,255)"), "a: %s", fill);
	CHECK(strstr(f, "data-delta=\"-60.00\" data-delta-total=\"-60.00\""));
	CHECK(strstr(f,
		     "a (20 samples, 19.05%; self -57.14 pp, total -57.14 pp)"));
	CHECK((f = frame_of(svg, "b")) != NULL);
	fill_of(f, fill, sizeof(fill));
	CHECKF(!strcmp(fill, "rgb(255,0,0)"), "b: %s", fill);
	CHECK((f = frame_of(svg, "main")) != NULL);
	fill_of(f, fill, sizeof(fill));
	CHECKF(!strcmp(fill, "rgb(255,255,255)"), "main: %s", fill);
	/* main's total: -60 + 60 - 10 (gone's, undrawn) + 0 */
	CHECKF(strstr(f, "data-delta=\"0.00\" data-delta-total=\"-10.00\""),
	       "main: %.120s", f);
	free(svg);

	/* half the largest change: half the colour */
	deltas[0] = -30;
	svg = render(st, 4, deltas, &rc);
	CHECK(rc == 0 && (f = frame_of(svg, "a")) != NULL);
	fill_of(f, fill, sizeof(fill));
	CHECKF(!strcmp(fill, "rgb(105,105,255)"), "a at half: %s", fill);
	free(svg);

	errno = 0;
	svg = render(st, 4, bad, &rc);
	CHECK(rc == -1 && errno == EINVAL);
	free(svg);
	errno = 0;
	svg = render(st, 4, NULL, &rc);
	CHECK(rc == -1 && errno == EINVAL);
	free(svg);
	return unit_result("test_flame_diff");
}
