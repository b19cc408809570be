/*
 * test_profile_merge - profile_merge.h: records copied whole with their
 * spaces renumbered, spaces of equal maps text shared unless their names
 * disagree, names merged and sorted, totals added up, and the parts that
 * cannot be added up refused with the parts left as they were.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_merge.h"
#include "unit.h"

struct rec {
	uint64_t count;
	size_t space;
	uint64_t pc;
};

/* A profile as a reader makes one: heap arrays, its PCs in storage_; one
 * space of the whole text when nspaces is 1 (a legacy file), else
 * spaces. */
static void make(struct profile *p, const char *const *texts, size_t nspaces,
		 const struct rec *r, size_t nr, const struct profile_name *nm,
		 size_t nn, uint64_t period)
{
	uint64_t *pcs = malloc((nr ? nr : 1) * sizeof(*pcs));
	size_t len = 0;

	memset(p, 0, sizeof(*p));
	p->period_us = period;
	p->records = calloc(nr ? nr : 1, sizeof(*p->records));
	for (size_t i = 0; i < nspaces; i++)
		len += strlen(texts[i]);
	p->maps_text = calloc(len + 1, 1);
	if (nspaces > 1) {
		p->spaces = calloc(nspaces, sizeof(*p->spaces));
		p->nspaces = nspaces;
	}
	len = 0;
	for (size_t i = 0; i < nspaces; i++) {
		strcpy(p->maps_text + len, texts[i]);
		if (p->spaces)
			p->spaces[i] = (struct profile_space){
				len, strlen(texts[i])
			};
		len += strlen(texts[i]);
	}
	p->maps_len = len;
	for (size_t i = 0; i < nr; i++) {
		pcs[i] = r[i].pc;
		p->records[i] = (struct profile_record){ .count = r[i].count,
							 .npcs = 1,
							 .pcs = &pcs[i],
							 .tid = 100 +
								(int64_t)i,
							 .thread = "worker",
							 .space = r[i].space };
		p->total_samples += r[i].count;
	}
	p->nrecords = nr;
	p->storage_ = pcs;
	if (nn) {
		p->names = malloc(nn * sizeof(*p->names));
		memcpy(p->names, nm, nn * sizeof(*nm));
		p->nnames = nn;
	}
}

static const char *space_text(const struct profile *p, size_t s)
{
	static char buf[256];
	size_t len;
	const char *t = profile_space_maps(p, s, &len);

	snprintf(buf, sizeof(buf), "%.*s", (int)len, t ? t : "");
	return buf;
}

/* Rotated files of one process: one space, totals added, records whole. */
static void test_same_maps(void)
{
	const char *t[] = { "400000-401000 r-xp 0 00:00 0 /bin/x\n" };
	struct rec r1[] = { { 3, 0, 0x400100 }, { 2, 0, 0x400200 } };
	struct rec r2[] = { { 5, 0, 0x400100 } };
	struct profile parts[2], m;
	const char *labels[] = { "a.prof", "b.prof" };
	char err[256];

	make(&parts[0], t, 1, r1, 2, NULL, 0, 10000);
	make(&parts[1], t, 1, r2, 1, NULL, 0, 10000);
	parts[0].pid = parts[1].pid = 42;
	CHECK(profile_merge(parts, labels, 2, &m, err, sizeof(err)) == 0);
	CHECKF(profile_nspaces(&m) == 1, "%zu spaces", profile_nspaces(&m));
	CHECK(m.nrecords == 3 && m.total_samples == 10);
	CHECK(m.records[2].count == 5 && m.records[2].pcs[0] == 0x400100);
	CHECK(m.records[2].tid == 100 &&
	      !strcmp(m.records[2].thread, "worker"));
	CHECK(m.records[0].space == 0 && m.records[2].space == 0);
	CHECK(!strcmp(space_text(&m, 0), t[0]));
	CHECK(m.period_us == 10000 && m.pid == 42);
	CHECK(parts[0].nrecords == 0 && parts[0].storage_ == NULL);
	profile_free(&m);
	CHECK(m.nrecords == 0 && m.parts_ == NULL);
}

/* Spaces renumbered after the previous parts', equal ones shared. */
static void test_spaces(void)
{
	const char *t1[] = { "A\n", "B\n" }, *t2[] = { "B\n", "C\n" };
	const char *t3[] = { "D\n" };
	struct rec r1[] = { { 1, 0, 0x10 }, { 2, 1, 0x20 } };
	struct rec r2[] = { { 4, 0, 0x30 }, { 8, 1, 0x40 } };
	struct rec r3[] = { { 16, 0, 0x50 } };
	struct profile parts[3], m;
	char err[256];

	make(&parts[0], t1, 2, r1, 2, NULL, 0, 1000);
	make(&parts[1], t2, 2, r2, 2, NULL, 0, 1000);
	make(&parts[2], t3, 1, r3, 1, NULL, 0, 1000);
	parts[0].pid = 7; /* a pid only one part names is kept */
	CHECK(profile_merge(parts, NULL, 3, &m, err, sizeof(err)) == 0);
	CHECKF(profile_nspaces(&m) == 4, "%zu spaces", profile_nspaces(&m));
	CHECK(!strcmp(space_text(&m, m.records[0].space), "A\n"));
	CHECK(!strcmp(space_text(&m, m.records[1].space), "B\n"));
	CHECK(!strcmp(space_text(&m, m.records[2].space), "B\n"));
	CHECK(m.records[1].space == m.records[2].space);
	CHECK(!strcmp(space_text(&m, m.records[3].space), "C\n"));
	CHECK(!strcmp(space_text(&m, m.records[4].space), "D\n"));
	CHECK(m.total_samples == 31 && m.pid == 7);
	profile_free(&m);
}

/* Names merged; an address named otherwise keeps its own space. */
static void test_names(void)
{
	const char *t[] = { "X\n", "" };
	struct rec r1[] = { { 1, 0, 0x10 }, { 1, 1, 0x5000 } };
	struct rec r2[] = { { 1, 0, 0x20 }, { 1, 1, 0x5000 } };
	struct profile_name n1[] = { { 0, 0x10, "f", "f.c", 3, 1 },
				     { 1, 0x5000, "py_a", NULL, 0, 0 } };
	struct profile_name n2[] = { { 0, 0x10, "f", "f.c", 3, 1 },
				     { 0, 0x20, "g", NULL, 0, 0 },
				     { 1, 0x5000, "py_b", NULL, 0, 0 } };
	struct profile parts[2], m;
	char err[256];

	make(&parts[0], t, 2, r1, 2, n1, 2, 1000);
	make(&parts[1], t, 2, r2, 2, n2, 3, 1000);
	CHECK(profile_merge(parts, NULL, 2, &m, err, sizeof(err)) == 0);
	/* X shared; "" twice: py_a and py_b name one address */
	CHECKF(profile_nspaces(&m) == 3, "%zu spaces", profile_nspaces(&m));
	CHECK(m.records[0].space == m.records[2].space);
	CHECK(m.records[1].space != m.records[3].space);
	CHECKF(m.nnames == 4, "%zu names", m.nnames);
	for (size_t i = 1; i < m.nnames; i++)
		CHECK(profile_name_cmp(&m.names[i - 1], &m.names[i]) < 0);
	CHECK(!strcmp(profile_name_of(&m, m.records[0].space, 0x10), "f"));
	CHECK(!strcmp(profile_name_of(&m, m.records[2].space, 0x20), "g"));
	CHECK(!strcmp(profile_name_of(&m, m.records[1].space, 0x5000), "py_a"));
	CHECK(!strcmp(profile_name_of(&m, m.records[3].space, 0x5000), "py_b"));
	CHECK(profile_name_at(&m, m.records[0].space, 0x10)->line == 3);
	profile_free(&m);
}

/* Parts that cannot be added up: refused, left as they were. */
static void test_refused(void)
{
	const char *t[] = { "X\n" };
	struct rec r[] = { { 1, 0, 0x10 } };
	struct rec big[] = { { UINT64_MAX, 0, 0x10 } };
	struct profile parts[2], m;
	const char *labels[] = { "a.prof", "b.pb.gz" };
	char err[256];

	make(&parts[0], t, 1, r, 1, NULL, 0, 10000);
	make(&parts[1], t, 1, r, 1, NULL, 0, 1000);
	errno = 0;
	CHECK(profile_merge(parts, labels, 2, &m, err, sizeof(err)) == -1);
	CHECK(errno == EINVAL && m.records == NULL);
	CHECKF(strstr(err,
		      "b.pb.gz was sampled every 1000 us and a.prof every 10000 us"),
	       "err: %s", err);
	CHECK(parts[0].nrecords == 1 && parts[1].nrecords == 1);
	parts[1].period_us = 10000;
	strcpy(parts[0].kind, "cpu");
	strcpy(parts[1].kind, "wall");
	CHECK(profile_merge(parts, labels, 2, &m, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "b.pb.gz holds wall samples and a.prof cpu"),
	       "err: %s", err);
	parts[1].kind[0] = '\0'; /* a legacy file goes with any kind */
	CHECK(profile_merge(parts, labels, 2, &m, err, sizeof(err)) == 0);
	CHECK(!strcmp(m.kind, "cpu"));
	profile_free(&m);

	{ /* a legacy part first: the next two still compared */
		struct profile three[3];
		const char *l3[] = { "x.prof", "c.pb.gz", "w.pb.gz" };

		for (int i = 0; i < 3; i++)
			make(&three[i], t, 1, r, 1, NULL, 0, 1);
		strcpy(three[1].kind, "cpu");
		strcpy(three[2].kind, "wall");
		CHECK(profile_merge(three, l3, 3, &m, err, sizeof(err)) == -1);
		CHECKF(strstr(err,
			      "w.pb.gz holds wall samples and c.pb.gz cpu"),
		       "err: %s", err);
		for (int i = 0; i < 3; i++)
			profile_free(&three[i]);
	}
	make(&parts[0], t, 1, r, 1, NULL, 0, 1);
	make(&parts[1], t, 1, big, 1, NULL, 0, 1);
	CHECK(profile_merge(parts, labels, 2, &m, err, sizeof(err)) == -1);
	CHECKF(errno == EOVERFLOW && strstr(err, "2^64"), "err: %s", err);
	CHECK(parts[1].nrecords == 1);
	profile_free(&parts[0]);
	profile_free(&parts[1]);
}

/* One part is moved as it is; pids that differ give 0. */
static void test_one_and_pids(void)
{
	const char *t[] = { "X\n" }, *u[] = { "Y\n" };
	struct rec r[] = { { 1, 0, 0x10 } };
	struct profile parts[2], m;
	char err[256];

	make(&parts[0], t, 1, r, 1, NULL, 0, 1);
	CHECK(profile_merge(parts, NULL, 1, &m, err, sizeof(err)) == 0);
	CHECK(m.nrecords == 1 && m.nparts_ == 0 && parts[0].records == NULL);
	profile_free(&m);

	make(&parts[0], t, 1, r, 1, NULL, 0, 1);
	make(&parts[1], u, 1, r, 1, NULL, 0, 1);
	parts[0].pid = 1;
	parts[1].pid = 2;
	parts[1].threads = parts[1].processes = true;
	CHECK(profile_merge(parts, NULL, 2, &m, err, sizeof(err)) == 0);
	CHECK(m.pid == 0 && m.threads && m.processes);
	profile_free(&m);
	CHECK(profile_merge(NULL, NULL, 0, &m, err, sizeof(err)) == -1);
}

int main(void)
{
	test_same_maps();
	test_spaces();
	test_names();
	test_refused();
	test_one_and_pids();
	return unit_result("test_profile_merge");
}
