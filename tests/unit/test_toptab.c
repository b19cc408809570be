/*
 * test_toptab - ptprof top's table: flat to the leaf, cum once per
 * function per stack, the sliding window by second (seconds passed
 * empty their buckets, a late stack counts since the start only), the
 * two sorts, the caps on functions and threads, bad arguments.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "report/toptab.h"
#include "unit.h"

static const struct toptab_row *row_named(const struct toptab_row *r, size_t n,
					  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].name, name))
			return &r[i];
	return NULL;
}

/* main -> outer -> hot (flat in hot), main -> outer (flat in outer),
 * and a recursive rec -> rec -> rec. */
static void check_counts(void)
{
	struct toptab *t = toptab_new(100, 10);
	struct toptab_row r[10];
	const struct toptab_row *p;
	uint32_t main_, outer, hot, rec;
	size_t n;

	CHECK(t != NULL);
	main_ = (uint32_t)toptab_intern(t, "main", "prog");
	outer = (uint32_t)toptab_intern(t, "outer", "prog");
	hot = (uint32_t)toptab_intern(t, "hot", "prog");
	rec = (uint32_t)toptab_intern(t, "rec", NULL);
	CHECK(toptab_intern(t, "hot", "prog") == hot);
	CHECK(toptab_intern(t, "hot", NULL) != hot); /* another module */
	CHECK(toptab_nfuncs(t) == 5);
	CHECK(toptab_add(t, 0, (uint32_t[]){ hot, outer, main_ }, 3, 6, 1, 1,
			 "worker") == 0);
	CHECK(toptab_add(t, 0, (uint32_t[]){ outer, main_ }, 2, 4, 1, 2,
			 "other") == 0);
	CHECK(toptab_add(t, 0, (uint32_t[]){ rec, rec, rec, main_ }, 4, 1, 1, 1,
			 "") == 0);
	CHECK(toptab_total(t, 0) == 11);
	CHECK(toptab_total(t, 10) == 11);

	n = toptab_rows(t, 10, TOPTAB_BY_FLAT, false, r, 10);
	CHECKF(n == 4, "%zu rows", n);
	CHECK(!strcmp(r[0].name, "hot") && r[0].flat == 6 && r[0].cum == 6);
	CHECK(!strcmp(r[1].name, "outer") && r[1].flat == 4 && r[1].cum == 10);
	p = row_named(r, n, "rec");
	CHECK(p && p->flat == 1 && p->cum == 1); /* recursion counted once */
	p = row_named(r, n, "main");
	CHECK(p && p->flat == 0 && p->cum == 11 && p->wcum == 11);
	CHECK(!strcmp(r[0].module, "prog"));

	n = toptab_rows(t, 10, TOPTAB_BY_CUM, false, r, 2);
	CHECK(n == 2);
	CHECK(!strcmp(r[0].name, "main") && !strcmp(r[1].name, "outer"));

	/* threads: tid 1 has 7 samples, tid 2 has 4; a "" name keeps the
	 * known one */
	{
		struct toptab_thread th[4];

		n = toptab_threads(t, 10, true, th, 4);
		CHECK(n == 2);
		CHECK(th[0].tid == 1 && th[0].samples == 7 &&
		      !strcmp(th[0].name, "worker") &&
		      !strcmp(th[0].last_leaf, "rec"));
		CHECK(th[1].tid == 2 && th[1].wsamples == 4);
	}
	toptab_free(t);
}

/* The window: seconds passed empty their buckets; the ring wraps. */
static void check_window(void)
{
	struct toptab *t = toptab_new(10, 10);
	struct toptab_row r[4];
	uint32_t a = (uint32_t)toptab_intern(t, "a", NULL);
	uint32_t b = (uint32_t)toptab_intern(t, "b", NULL);
	size_t n;

	CHECK(toptab_add(t, 0, &a, 1, 100, 1, 1, NULL) == 0);
	CHECK(toptab_add(t, 5, &b, 1, 10, 1, 1, NULL) == 0);
	CHECK(toptab_total(t, 10) == 110);
	CHECK(toptab_total(t, 5) == 10); /* seconds 1..5 */
	/* since the start a leads, over the last 5 s b does */
	n = toptab_rows(t, 5, TOPTAB_BY_FLAT, false, r, 4);
	CHECK(n == 2 && !strcmp(r[0].name, "a") && r[0].wflat == 0);
	n = toptab_rows(t, 5, TOPTAB_BY_FLAT, true, r, 4);
	CHECK(n == 1 && !strcmp(r[0].name, "b") && r[0].wflat == 10);

	/* 60 s on: a's bucket is gone, the slot it used is reused clean */
	toptab_advance(t, TOPTAB_SECONDS);
	CHECK(toptab_total(t, TOPTAB_SECONDS) == 10);
	CHECK(toptab_add(t, TOPTAB_SECONDS, &b, 1, 1, 1, 1, NULL) == 0);
	n = toptab_rows(t, 1, TOPTAB_BY_FLAT, true, r, 4);
	CHECK(n == 1 && r[0].wflat == 1);
	/* a jump past the whole ring empties it all */
	toptab_advance(t, 1000);
	CHECK(toptab_total(t, TOPTAB_SECONDS) == 0);
	CHECK(toptab_total(t, 0) == 111);
	/* a stack of a second the ring left behind: since the start only */
	CHECK(toptab_add(t, 3, &a, 1, 7, 1, 1, NULL) == 0);
	CHECK(toptab_total(t, 0) == 118);
	CHECK(toptab_total(t, TOPTAB_SECONDS) == 0);
	/* an earlier second does not move the ring back */
	toptab_advance(t, 10);
	CHECK(toptab_add(t, 1000, &a, 1, 2, 1, 1, NULL) == 0);
	CHECK(toptab_total(t, 1) == 2);
	toptab_free(t);
}

/* Past the caps: one row of other functions, one of other threads. */
static void check_caps(void)
{
	struct toptab *t = toptab_new(3, 2);
	struct toptab_row r[8];
	struct toptab_thread th[8];
	char name[16];
	int64_t other = -1;
	size_t n;

	for (int i = 0; i < 100; i++) {
		int64_t id;

		snprintf(name, sizeof(name), "f%d", i);
		id = toptab_intern(t, name, NULL);
		CHECK(id >= 0);
		if (i >= 3 && other < 0)
			other = id;
		if (i >= 3)
			CHECK(id == other);
		CHECK(toptab_add(t, 0, (uint32_t[]){ (uint32_t)id }, 1, 1, 1,
				 i + 1, "t") == 0);
	}
	CHECK(toptab_nfuncs(t) == 4);
	CHECK(toptab_nthreads(t) == 3);
	n = toptab_rows(t, 10, TOPTAB_BY_FLAT, false, r, 8);
	CHECK(n == 4 && !strcmp(r[0].name, TOPTAB_OTHER) && r[0].flat == 97);
	n = toptab_threads(t, 10, false, th, 8);
	CHECK(n == 3 && th[0].tid == 0 && th[0].samples == 98 &&
	      !strcmp(th[0].name, TOPTAB_OTHER_THREADS));
	toptab_free(t);
}

static void check_errors(void)
{
	struct toptab *t = toptab_new(4, 4);
	uint32_t bad = 3;

	errno = 0;
	CHECK(toptab_new(0, 4) == NULL && errno == EINVAL);
	CHECK(toptab_intern(t, NULL, NULL) == -1 && errno == EINVAL);
	CHECK(toptab_add(t, 0, &bad, 1, 1, 1, 1, NULL) == -1 &&
	      errno == EINVAL); /* no such function */
	CHECK(toptab_add(t, 0, &bad, 0, 1, 1, 1, NULL) == -1);
	CHECK(toptab_total(t, 0) == 0);
	CHECK(toptab_rows(t, 10, TOPTAB_BY_FLAT, false, NULL, 0) == 0);
	toptab_free(t);
	toptab_free(NULL);
}

int main(void)
{
	check_counts();
	check_window();
	check_caps();
	check_errors();
	return unit_result("test_toptab");
}
