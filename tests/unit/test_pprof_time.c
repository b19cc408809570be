/*
 * test_pprof_time - the "time" label (pprof_out.h, pprof_read.h): the
 * writer rounds each stack's time down to its 10 ms slot, merges a
 * thread's same stack within a slot, keeps slots apart, writes no label
 * for an unknown time, and the reader gives each record its slot's start
 * and the profile's time_nanos; a hostile label (any int64, a string, a
 * unit not nanoseconds, a unit outside the string table) is read as the
 * contract says.
 */
#define _GNU_SOURCE /* open_memstream */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/pprof_out.h"
#include "profile/pprof_read.h"
#include "profile/procset.h"
#include "profile/profile.pb-c.h"
#include "profile/stacktab.h"
#include "unit.h"

typedef Perftools__Profiles__Profile PbProfile;

#define T0 1700000000000000000LL /* a time since the epoch, in ns */

static const struct profile_record *rec_at(const struct profile *p, int64_t t)
{
	for (size_t i = 0; i < p->nrecords; i++)
		if (p->records[i].time_ns == t)
			return &p->records[i];
	return NULL;
}

static void test_round_trip(void)
{
	struct procset *ps = procset_new();
	struct proc_image *im = ps ? procset_add(ps, getpid(), 0, "t") : NULL;
	struct pprof_out *b = pprof_out_new(0);
	struct pprof_meta meta = { .period_ns = 10000000, .time_nanos = T0 };
	uint64_t pcs[] = { 0x1234, 0x5678 };
	int64_t at[] = { T0 + 1000, T0 + 3000000, T0 + 12000000, 0 };
	const struct profile_record *r;
	struct profile p;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;

	CHECK(im && b);
	if (!im || !b)
		return;
	for (size_t i = 0; i < 4; i++) {
		struct sample_origin from = { im, 42, "w", at[i] };

		pprof_out_add(b, &from, pcs, 2, i + 1);
	}
	/* the first two share a slot */
	CHECKF(pprof_out_samples(b) == 3, "%zu samples", pprof_out_samples(b));
	f = open_memstream(&buf, &len);
	CHECK(f && pprof_out_write(f, b, ps, &meta) == 0);
	if (f)
		fclose(f);
	CHECKF(pprof_read_parse(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	CHECK(p.times && p.time_nanos == T0 && p.nrecords == 3);
	r = rec_at(&p, T0);
	CHECK(r && r->count == 3);
	r = rec_at(&p, T0 + 10000000);
	CHECK(r && r->count == 3);
	r = rec_at(&p, 0);
	CHECK(r && r->count == 4); /* no label */
	profile_free(&p);
	free(buf);
	pprof_out_free(b);
	procset_free(ps);
}

/* The time slot is a key in front of the stack: at --max-depth=4096
 * (STACKTAB_MAX_DEPTH) a stack of 4096 frames is still written whole,
 * not cut to the default depth. */
static void test_deepest(void)
{
	struct procset *ps = procset_new();
	struct proc_image *im = ps ? procset_add(ps, getpid(), 0, "t") : NULL;
	struct pprof_out *b = pprof_out_new(STACKTAB_MAX_DEPTH);
	struct pprof_meta meta = { .period_ns = 10000000, .time_nanos = T0 };
	uint64_t *pcs = calloc(STACKTAB_MAX_DEPTH, sizeof(*pcs));
	struct sample_origin from = { im, 42, "w", T0 };
	struct profile p;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;

	CHECK(im && b && pcs);
	if (!im || !b || !pcs)
		goto out;
	for (size_t i = 0; i < STACKTAB_MAX_DEPTH; i++)
		pcs[i] = 0x10000 + 16 * i;
	pprof_out_add(b, &from, pcs, STACKTAB_MAX_DEPTH, 1);
	f = open_memstream(&buf, &len);
	CHECK(f && pprof_out_write(f, b, ps, &meta) == 0);
	if (f)
		fclose(f);
	CHECKF(pprof_read_parse(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	CHECKF(p.nrecords == 1 && p.records[0].npcs == STACKTAB_MAX_DEPTH,
	       "%zu frames", p.nrecords ? p.records[0].npcs : 0);
	profile_free(&p);
	free(buf);
out:
	free(pcs);
	pprof_out_free(b);
	procset_free(ps);
}

/* One sample with one label "time", as the cases set it. */
struct timed {
	PbProfile p;
	Perftools__Profiles__ValueType vt, *vtp;
	Perftools__Profiles__Location l, *lp;
	Perftools__Profiles__Sample s, *sp;
	Perftools__Profiles__Label lb, *lbp;
	uint64_t loc_ids[1];
	int64_t values[1];
	char *strs[6];
};

static void timed_init(struct timed *x)
{
	static char s0[] = "", s1[] = "samples", s2[] = "count", s3[] = "time",
		    s4[] = "nanoseconds", s5[] = "seconds";

	memset(x, 0, sizeof(*x));
	perftools__profiles__profile__init(&x->p);
	perftools__profiles__value_type__init(&x->vt);
	perftools__profiles__location__init(&x->l);
	perftools__profiles__sample__init(&x->s);
	perftools__profiles__label__init(&x->lb);
	x->strs[0] = s0, x->strs[1] = s1, x->strs[2] = s2, x->strs[3] = s3;
	x->strs[4] = s4, x->strs[5] = s5;
	x->p.n_string_table = 6, x->p.string_table = x->strs;
	x->vt.type = 1, x->vt.unit = 2, x->vtp = &x->vt;
	x->p.n_sample_type = 1, x->p.sample_type = &x->vtp;
	x->l.id = 1, x->l.address = 0x1100, x->lp = &x->l;
	x->p.n_location = 1, x->p.location = &x->lp;
	x->loc_ids[0] = 1, x->values[0] = 1;
	x->s.n_location_id = 1, x->s.location_id = x->loc_ids;
	x->s.n_value = 1, x->s.value = x->values;
	x->lb.key = 3, x->lb.num_unit = 4, x->lbp = &x->lb;
	x->s.n_label = 1, x->s.label = &x->lbp;
	x->sp = &x->s;
	x->p.n_sample = 1, x->p.sample = &x->sp;
}

/* Read x back: its record's time, or -1 when refused (err gets why). */
static int timed_read(struct timed *x, int64_t *t, char *err, size_t errlen)
{
	size_t len = perftools__profiles__profile__get_packed_size(&x->p);
	unsigned char *buf = malloc(len + 1);
	struct profile p;
	int rc;

	perftools__profiles__profile__pack(&x->p, buf);
	rc = pprof_read_parse(buf, len, &p, err, errlen);
	if (rc == 0) {
		*t = p.nrecords == 1 ? p.records[0].time_ns : -42;
		CHECK(p.times == (*t != 0));
		profile_free(&p);
	}
	free(buf);
	return rc;
}

static void test_hostile(void)
{
	static const int64_t nums[] = { INT64_MIN, -1, 1, INT64_MAX, T0 };
	struct timed x;
	char err[256];
	int64_t t;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		timed_init(&x);
		x.lb.num = nums[i];
		CHECK(timed_read(&x, &t, err, sizeof(err)) == 0 &&
		      t == nums[i]);
	}
	timed_init(&x);
	x.lb.num = T0;
	x.lb.num_unit = 0; /* no unit: nanoseconds, as written */
	CHECK(timed_read(&x, &t, err, sizeof(err)) == 0 && t == T0);
	x.lb.num_unit = 5; /* seconds: not a time ptprof reads */
	CHECK(timed_read(&x, &t, err, sizeof(err)) == 0 && t == 0);
	x.lb.num_unit = 4;
	x.lb.str = 4; /* a string label "time": no time */
	CHECK(timed_read(&x, &t, err, sizeof(err)) == 0 && t == 0);
	x.lb.str = 0;
	x.lb.num_unit = 99;
	CHECK(timed_read(&x, &t, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "outside the string table"), "%s", err);
	x.lb.num_unit = -1;
	CHECK(timed_read(&x, &t, err, sizeof(err)) == -1);
}

int main(void)
{
	test_round_trip();
	test_deepest();
	test_hostile();
	return unit_result("test_pprof_time");
}
