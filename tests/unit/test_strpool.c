/*
 * test_strpool - interned strings (util/strpool.h): entry 0 is "", a
 * string is numbered once in the order first seen, the pool keeps copies
 * (the caller's buffer may change), strings that share a prefix or a hash
 * slot stay apart, the index survives the table's growth (many strings),
 * strpool_get() past the end is NULL, and strpool_strings() is the index
 * order.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "util/strpool.h"

static void test_basics(void)
{
	struct strpool *p = strpool_new();
	char buf[16];
	char **all;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(strpool_count(p) == 1 && !strcmp(strpool_get(p, 0), ""));
	CHECK(strpool_intern(p, "") == 0);
	CHECK(strpool_intern(p, "samples") == 1);
	CHECK(strpool_intern(p, "count") == 2);
	CHECK(strpool_intern(p, "samples") == 1);
	CHECK(strpool_intern(p, "sample") == 3); /* a prefix is another */
	CHECK(strpool_intern(p, "samples2") == 4);
	/* a copy: the caller's buffer may change afterwards */
	snprintf(buf, sizeof(buf), "mine");
	CHECK(strpool_intern(p, buf) == 5);
	buf[0] = 'X';
	CHECK(!strcmp(strpool_get(p, 5), "mine"));
	CHECK(strpool_intern(p, "mine") == 5);
	CHECK(strpool_intern(p, buf) == 6);
	CHECK(strpool_count(p) == 7);
	CHECK(strpool_get(p, 7) == NULL);
	CHECK(strpool_get(p, SIZE_MAX) == NULL);
	all = strpool_strings(p);
	CHECK(all && !strcmp(all[0], "") && !strcmp(all[1], "samples") &&
	      !strcmp(all[3], "sample") && !strcmp(all[6], "Xine"));
	/* bytes a name may hold: escapes, UTF-8, 0xff */
	CHECK(strpool_intern(p, "a\nb\033[31m\xff") == 7);
	CHECK(strpool_intern(p, "a\nb\033[31m\xff") == 7);
	strpool_free(p);
	strpool_free(NULL);
}

/* Past the first table (256 slots) and many times over: each string keeps
 * its number, in the order first seen. */
static void test_many(void)
{
	struct strpool *p = strpool_new();
	enum { N = 20000 };
	char s[32];
	size_t bad = 0;

	CHECK(p != NULL);
	if (!p)
		return;
	for (int i = 0; i < N; i++) {
		snprintf(s, sizeof(s), "f%d", i);
		bad += strpool_intern(p, s) != i + 1;
	}
	CHECKF(bad == 0, "%zu strings numbered out of order", bad);
	CHECK(strpool_count(p) == N + 1);
	for (int i = N - 1; i >= 0; i--) {
		snprintf(s, sizeof(s), "f%d", i);
		bad += strpool_intern(p, s) != i + 1;
		bad += strcmp(strpool_get(p, (size_t)i + 1), s) != 0;
	}
	CHECKF(bad == 0, "%zu strings not found again", bad);
	CHECK(strpool_count(p) == N + 1);
	strpool_free(p);
}

int main(void)
{
	test_basics();
	test_many();
	return unit_result("test_strpool");
}
