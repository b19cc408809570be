/*
 * test_flame_time - the flame graph's time strip (report/flame.h): each
 * frame's samples per slot (data-t) add up from its callees and its own,
 * the strip's bars are the root's, the slot is 10 ms or the next 1-2-5
 * step that keeps the run within FLAME_MAX_SLOTS, and a long run of many
 * stacks (10^4 s of samples, 10^4 distinct stacks) keeps both the slots
 * and the frames' counts per slot within their bounds; no strip without
 * times; a time of a stack that does not exist is EINVAL.
 */
#define _GNU_SOURCE /* open_memstream */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "unit.h"

static char *render(const struct flame_stack *stacks, size_t n,
		    const struct flame_time *tm, size_t *len)
{
	struct flame_options opt = { .time = tm };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	if (!f)
		return NULL;
	rc = flame_write_svg(f, stacks, n, &opt);
	fclose(f);
	if (rc < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The data-t of the frame named name, into out. */
static void times_of(const char *svg, const char *name, char *out, size_t size)
{
	char key[128];
	const char *g, *t, *end;

	out[0] = '\0';
	snprintf(key, sizeof(key), "data-name=\"%s\"", name);
	g = strstr(svg, key);
	t = g ? strstr(g, "data-t=\"") : NULL;
	end = t ? strchr(t + 8, '"') : NULL;
	if (end && (size_t)(end - t - 8) < size)
		snprintf(out, size, "%.*s", (int)(end - t - 8), t + 8);
}

static void check_small(void)
{
	static const char *const ab[] = { "a", "b" }, *const ac[] = { "a", "c" },
				 *const d[] = { "d" };
	struct flame_stack st[] = { { ab, 2, 3 }, { ac, 2, 2 }, { d, 1, 4 } };
	/* 10 ms slots: b in 0 and 2, c in 1, d in 2 and 5 */
	struct flame_time_sample ts[] = {
		{ 0, 1000000, 1 },  { 0, 25000000, 2 }, { 1, 10000000, 2 },
		{ 2, 29999999, 1 }, { 2, 50000000, 3 },
	};
	struct flame_time tm = { ts, 5 };
	char v[256], *svg;
	size_t len;

	svg = render(st, 3, &tm, &len);
	CHECK(svg != NULL);
	if (!svg)
		return;
	CHECK(strstr(svg, "<g class=\"timeline\" data-slots=\"6\" "
			  "data-slot-ns=\"10000000\""));
	times_of(svg, "b", v, sizeof(v));
	CHECKF(!strcmp(v, "0:1 2:2"), "b: %s", v);
	times_of(svg, "a", v, sizeof(v));
	CHECKF(!strcmp(v, "0:1 1:2 2:2"), "a: %s", v);
	times_of(svg, "all", v, sizeof(v));
	CHECKF(!strcmp(v, "0:1 1:2 2:3 5:3"), "all: %s", v);
	CHECK(strstr(svg, "<rect class=\"tslot\" data-slot=\"5\" "
			  "data-samples=\"3\""));
	CHECK(strstr(svg, "svg.flame.select = select"));
	free(svg);

	/* no times: no strip, no script for it */
	svg = render(st, 3, NULL, &len);
	CHECK(svg && !strstr(svg, "<g class=\"timeline\"") &&
	      !strstr(svg, "data-t=") && !strstr(svg, "flame.select"));
	free(svg);

	ts[1].stack = 3;
	errno = 0;
	CHECK(!render(st, 3, &tm, &len) && errno == EINVAL);
}

/* 10^4 stacks of 3 frames, each sampled once a second for 10^4 s. */
static void check_bounded(void)
{
	enum { NSTACKS = 10000, NSAMPLES = 10000 };
	struct flame_stack *st = calloc(NSTACKS, sizeof(*st));
	struct flame_time_sample *ts = calloc(NSAMPLES, sizeof(*ts));
	char(*names)[16] = calloc(NSTACKS, sizeof(*names));
	const char **frames = calloc(NSTACKS * 3, sizeof(*frames));
	struct flame_time tm = { ts, NSAMPLES };
	unsigned long slots = 0, entries = 0;
	const char *p;
	char *svg;
	size_t len = 0;

	CHECK(st && ts && names && frames);
	if (!st || !ts || !names || !frames)
		goto out;
	for (size_t i = 0; i < NSTACKS; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i % 97);
		frames[3 * i] = "main";
		frames[3 * i + 1] = names[i];
		frames[3 * i + 2] = i % 2 ? "odd" : "even";
		st[i] = (struct flame_stack){ frames + 3 * i, 3, 1 };
		ts[i] = (struct flame_time_sample){ i, i * 1000000000ULL, 1 };
	}
	svg = render(st, NSTACKS, &tm, &len);
	CHECK(svg != NULL);
	if (!svg)
		goto out;
	p = strstr(svg, "data-slots=\"");
	if (p)
		slots = strtoul(p + 12, NULL, 10);
	CHECKF(slots > 0 && slots <= FLAME_MAX_SLOTS, "%lu slots", slots);
	for (p = strstr(svg, "data-t=\""); p; p = strstr(p + 1, "data-t=\""))
		for (const char *q = p + 8; *q != '"'; q++)
			entries += *q == ':';
	CHECKF(entries > 0 && entries <= FLAME_MAX_TIME_ENTRIES,
	       "%lu counts per slot", entries);
	CHECKF(len < 8u << 20, "%zu bytes", len);
	printf("10^4 stacks over 10^4 s: %lu slots, %lu counts per slot, "
	       "%zu bytes\n",
	       slots, entries, len);
	free(svg);
out:
	free(st);
	free(ts);
	free(names);
	free(frames);
}

int main(void)
{
	check_small();
	check_bounded();
	return unit_result("test_flame_time");
}
