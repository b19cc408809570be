/*
 * test_pprof_out_time - part of test_pprof_out: the "time" label
 * (pprof_out.h, pprof_read.h): the writer rounds each stack's time down
 * to its 10 ms slot, merges a thread's same stack within a slot, keeps
 * slots apart, writes no label for an unknown time, and the reader gives
 * each record its slot's start and the profile's time_nanos.  The
 * reader's view of a hostile label is test_pprof_read's.
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

void test_pprof_out_time(void);

/* The checks above, as test_pprof_out's main() calls them. */
void test_pprof_out_time(void)
{
	test_round_trip();
	test_deepest();
}
