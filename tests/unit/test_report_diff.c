/*
 * test_report_diff - report --diff (report_diff.h) on counts a hostile
 * file may give, up to 2^64 - 1 in all: a change past a long long
 * printed with its sign and size, not wrapped; BASE's folded column
 * scaled to 2^64 - 1 printed as such, not as 0.
 */
#define _GNU_SOURCE /* open_memstream */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "report/report.h"
#include "report/report_diff.h"
#include "symbols/symbolize.h"
#include "unit.h"

static const uint64_t pc_a = 0x1000, pc_b = 0x2000;

/* The report of records (no maps: the addresses name themselves). */
static struct report *report_of(struct profile_record *recs, size_t n,
				struct symbolizer **sym)
{
	static char no_maps[1];
	struct profile p = { .records = recs,
			     .nrecords = n,
			     .maps_text = no_maps };
	struct report_options ro = { 0 };
	struct report *r;

	for (size_t i = 0; i < n; i++)
		p.total_samples += recs[i].count;
	*sym = symbolizer_new(p.maps_text, 0, NULL, 0);
	r = *sym ? report_build(&p, sym, &ro) : NULL;
	CHECK(r != NULL);
	return r;
}

static char *written(const struct report_diff *d, bool folded)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK((folded ? report_diff_write_folded(d, f) :
			report_diff_write_text(d, f, 0)) == 0);
	fclose(f);
	return buf;
}

/* BASE 1 sample in b; NEW 15 * 2^60 in a: a grew by about 1.7e19
 * samples, b shrank by as many (scaled), both past LLONG_MAX. */
static void check_text(void)
{
	struct profile_record rb[1] = {
		{ .count = 1, .npcs = 1, .pcs = &pc_b },
	};
	struct profile_record rn[1] = {
		{ .count = 0xF000000000000000ULL, .npcs = 1, .pcs = &pc_a },
	};
	struct symbolizer *sb, *sn;
	struct report *b = report_of(rb, 1, &sb), *n = report_of(rn, 1, &sn);
	struct report_diff *d = b && n ? report_diff_build(b, n, "b", "n") :
					 NULL;
	char *text = d ? written(d, false) : NULL;

	CHECK(d != NULL);
	/* rows: a and b, changes of equal size */
	CHECKF(text && strstr(text, "\n+17293822569102704640 ") &&
		       strstr(text, "\n-17293822569102704640 "),
	       "%s", text ? text : "(none)");
	free(text);
	report_diff_free(d);
	report_free(b);
	report_free(n);
	symbolizer_free(sb);
	symbolizer_free(sn);
}

/* A file against itself, all its 2^64 - 1 samples in one stack: BASE's
 * column is NEW's. */
static void check_folded(void)
{
	struct profile_record r[1] = {
		{ .count = UINT64_MAX, .npcs = 1, .pcs = &pc_a },
	};
	struct symbolizer *s1, *s2;
	struct report *a = report_of(r, 1, &s1), *b = report_of(r, 1, &s2);
	struct report_diff *d = a && b ? report_diff_build(a, b, "a", "b") :
					 NULL;
	char *text = d ? written(d, true) : NULL;

	CHECK(d != NULL);
	CHECKF(text && strstr(text, " 18446744073709551615 "
				    "18446744073709551615\n"),
	       "%s", text ? text : "(none)");
	free(text);
	report_diff_free(d);
	report_free(a);
	report_free(b);
	symbolizer_free(s1);
	symbolizer_free(s2);
}

int main(void)
{
	check_text();
	check_folded();
	return unit_result("test_report_diff");
}
