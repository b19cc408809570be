/*
 * test_stacktab - the aggregator: identical chains add up, distinct ones
 * stay apart, the depth cap keeps the leaf-most frames, and nothing with
 * count 0, npcs 0 or a zero PC is ever stored.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stacktab.h"
#include "unit.h"

struct seen {
	size_t n;
	uint64_t counts[16];
	size_t npcs[16];
	uint64_t pcs[16][8];
};

static int collect(const uint64_t *pcs, size_t npcs, uint64_t count, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->counts[s->n] = count;
		s->npcs[s->n] = npcs;
		memcpy(s->pcs[s->n], pcs, (npcs < 8 ? npcs : 8) * sizeof(*pcs));
	}
	s->n++;
	return 0;
}

static void test_same_and_distinct(void)
{
	struct stacktab *t = stacktab_new(0);
	const uint64_t a[] = { 0x1000, 0x2000, 0x3000 };
	const uint64_t b[] = { 0x1000, 0x2000, 0x3001 };
	const uint64_t prefix[] = { 0x1000, 0x2000 };
	struct seen s = { 0 };

	CHECK(t != NULL);
	CHECK(stacktab_max_depth(t) == STACKTAB_DEFAULT_DEPTH);
	CHECK(stacktab_add(t, a, 3, 1) == 0);
	CHECK(stacktab_add(t, a, 3, 1) == 0);
	CHECK(stacktab_add(t, b, 3, 1) == 0);
	CHECK(stacktab_add(t, prefix, 2, 5) == 0);
	CHECK(stacktab_distinct(t) == 3);
	CHECK(stacktab_samples(t) == 8);
	stacktab_foreach(t, collect, &s);
	CHECK(s.n == 3);
	CHECK(s.counts[0] == 2 && s.npcs[0] == 3 && s.pcs[0][2] == 0x3000);
	CHECK(s.counts[1] == 1 && s.pcs[1][2] == 0x3001);
	CHECK(s.counts[2] == 5 && s.npcs[2] == 2);
	stacktab_free(t);
}

static void test_depth_cap(void)
{
	struct stacktab *t = stacktab_new(4);
	uint64_t deep[10], other[10];
	struct seen s = { 0 };

	for (int i = 0; i < 10; i++) {
		deep[i] = 0x100 + (uint64_t)i;
		other[i] = 0x100 + (uint64_t)i;
	}
	other[9] = 0x999; /* differs only beyond the cap */
	CHECK(stacktab_add(t, deep, 10, 1) == 0);
	CHECK(stacktab_add(t, other, 10, 1) == 0);
	CHECK(stacktab_distinct(t) == 1);
	stacktab_foreach(t, collect, &s);
	CHECK(s.npcs[0] == 4);
	CHECK(s.pcs[0][0] == 0x100 && s.pcs[0][3] == 0x103); /* leaf kept */
	CHECK(s.counts[0] == 2);
	stacktab_free(t);
}

static void test_nothing_empty(void)
{
	struct stacktab *t = stacktab_new(8);
	const uint64_t zero_leaf[] = { 0, 0x2000 };
	const uint64_t zero_mid[] = { 0x1000, 0, 0x3000 };
	const uint64_t ok[] = { 0x1000 };
	struct seen s = { 0 };

	CHECK(stacktab_add(t, ok, 0, 1) == 0);
	CHECK(stacktab_add(t, zero_leaf, 2, 1) == 0);
	CHECK(stacktab_add(t, ok, 1, 0) == 0);
	CHECK(stacktab_distinct(t) == 0 && stacktab_samples(t) == 0);
	/* a zero PC ends the chain: same as the one-frame chain */
	CHECK(stacktab_add(t, zero_mid, 3, 1) == 0);
	CHECK(stacktab_add(t, ok, 1, 1) == 0);
	stacktab_foreach(t, collect, &s);
	CHECK(s.n == 1 && s.npcs[0] == 1 && s.counts[0] == 2);
	stacktab_free(t);
}

/* Many distinct chains: the table grows and still finds every one. */
static void test_growth(void)
{
	struct stacktab *t = stacktab_new(0);
	uint64_t pcs[2];
	int bad = 0;

	for (int round = 0; round < 2; round++)
		for (uint64_t i = 1; i <= 50000; i++) {
			pcs[0] = i;
			pcs[1] = i * 7;
			bad |= stacktab_add(t, pcs, 2, 1);
		}
	CHECK(!bad);
	CHECK(stacktab_distinct(t) == 50000);
	CHECK(stacktab_samples(t) == 100000);
	stacktab_free(t);
}

int main(void)
{
	test_same_and_distinct();
	test_depth_cap();
	test_nothing_empty();
	test_growth();
	return unit_result("test_stacktab");
}
