/*
 * test_timeslice - report --from/--to: SEC parsed (fractions, no sign,
 * exponent, hex, inf or junk), an empty window refused, records kept by
 * their time after the profile's start (the window half-open, a time
 * that would overflow the difference never in it, a record without a
 * time never in it, one before the start at 0 s), and a profile without a start or without sample
 * times refused with one sentence, untouched.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "report/timeslice.h"
#include "unit.h"

static void check_parse(void)
{
	char err[256];
	int64_t ns = -1;

	CHECK(timeslice_parse_sec("1.5", "--from", &ns, err, sizeof(err)) ==
		      0 &&
	      ns == 1500000000);
	CHECK(timeslice_parse_sec(".25", "--from", &ns, err, sizeof(err)) ==
		      0 &&
	      ns == 250000000);
	CHECK(timeslice_parse_sec("10", "--to", &ns, err, sizeof(err)) == 0 &&
	      ns == 10000000000LL);
	CHECK(timeslice_parse_sec("0", "--to", &ns, err, sizeof(err)) == 0 &&
	      ns == 0);
	CHECK(timeslice_parse_sec("0.000000001", "--to", &ns, err,
				  sizeof(err)) == 0 &&
	      ns == 1);
	static const char *const bad[] = { "",	   "-1",  "+1",	 "1e3",
					   "0x10", "inf", "nan", "1.2.3",
					   "1s",   " 1",  ".",	 "1,5" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		err[0] = '\0';
		CHECKF(timeslice_parse_sec(bad[i], "--from", &ns, err,
					   sizeof(err)) == -1 &&
			       errno == EINVAL,
		       "'%s' accepted", bad[i]);
		CHECKF(strstr(err, "--from") && !strchr(err, '\n'), "'%s': %s",
		       bad[i], err);
	}
	CHECK(timeslice_parse_sec("99999999999", "--to", &ns, err,
				  sizeof(err)) == -1 &&
	      strstr(err, "too far"));
}

static void check_window(void)
{
	struct timeslice w = { 2, 2 };
	char err[256];

	CHECK(timeslice_check(&w, err, sizeof(err)) == -1 &&
	      strstr(err, "--from") && strstr(err, "--to"));
	w.to_ns = 3;
	CHECK(timeslice_check(&w, err, sizeof(err)) == 0);
	/* half-open: [from, to) */
	CHECK(timeslice_has(&w, 100, 102) && !timeslice_has(&w, 100, 103) &&
	      !timeslice_has(&w, 100, 101));
	/* no time, and differences that overflow: never in */
	CHECK(!timeslice_has(&w, 0, 0));
	w = (struct timeslice){ 0, INT64_MAX };
	CHECK(!timeslice_has(&w, INT64_MIN + 1, INT64_MAX));
	CHECK(timeslice_has(&w, 5, INT64_MAX - 1));
	/* before the start (a ptprof file's first slot starts up to 10 ms
	 * before time_nanos): at 0 s, as in the time strip's first slot */
	CHECK(timeslice_has(&w, 5, 4));
	CHECK(timeslice_has(&w, INT64_MAX, INT64_MIN));
	w.from_ns = 1;
	CHECK(!timeslice_has(&w, 5, 4) && timeslice_has(&w, 5, 6));
	w.from_ns = 0;
	CHECK(timeslice_after(INT64_MAX, INT64_MIN) == UINT64_MAX);
	CHECK(timeslice_after(-5, -7) == 2 && timeslice_after(-7, -5) == 0);
	CHECK(timeslice_after(3, -2) == 5);
}

static void check_keep(void)
{
	static const uint64_t pc = 0x1000;
	struct profile_record recs[4] = {
		{ .count = 1, .npcs = 1, .pcs = &pc, .time_ns = 1000 },
		{ .count = 2, .npcs = 1, .pcs = &pc, .time_ns = 2000 },
		{ .count = 4, .npcs = 1, .pcs = &pc, .time_ns = 0 },
		{ .count = 8, .npcs = 1, .pcs = &pc, .time_ns = 3000 },
	};
	struct profile p = { .records = recs,
			     .nrecords = 4,
			     .total_samples = 15,
			     .times = true,
			     .time_nanos = 1000 };
	struct timeslice w = { 1000, 2001 };
	char err[256];

	CHECK(timeslice_keep(&p, &w, "f", err, sizeof(err)) == 2);
	CHECK(p.nrecords == 2 && p.total_samples == 10);
	CHECK(p.records[0].count == 2 && p.records[1].count == 8);

	p = (struct profile){ .records = recs, .nrecords = 2, .times = true };
	errno = 0;
	CHECK(timeslice_keep(&p, &w, "f.prof", err, sizeof(err)) == -1 &&
	      errno == EINVAL && p.nrecords == 2);
	CHECKF(strstr(err, "f.prof has no start time"), "%s", err);
	p.time_nanos = 5;
	p.times = false;
	CHECK(timeslice_keep(&p, &w, "f.prof", err, sizeof(err)) == -1);
	CHECKF(strstr(err, "f.prof has no sample times"), "%s", err);
}

int main(void)
{
	check_parse();
	check_window();
	check_keep();
	return unit_result("test_timeslice");
}
