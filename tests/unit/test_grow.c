/*
 * test_grow - the shared helpers: grow_array keeps the elements, doubles,
 * refuses sizes that overflow without touching the array; the hashes give
 * the published FNV-1a values (flame graph colours depend on them).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"
#include "unit.h"

static void check_growth(void)
{
	size_t cap = 0, i;
	int *v = NULL, *nv;

	for (i = 0; i < 1000; i++) {
		nv = grow_array(v, &cap, i + 1, sizeof(*v));
		CHECK(nv != NULL);
		if (!nv)
			break;
		v = nv;
		v[i] = (int)i;
	}
	CHECKF(cap == 1024, "cap %zu", cap);
	for (i = 0; i < 1000; i++)
		CHECKF(v[i] == (int)i, "v[%zu] = %d", i, v[i]);
	/* Room already: the same array, no change. */
	CHECK(grow_array(v, &cap, 10, sizeof(*v)) == v && cap == 1024);
	/* A need that would overflow: NULL, ENOMEM, array and cap kept. */
	errno = 0;
	CHECK(grow_array(v, &cap, SIZE_MAX / 2, sizeof(*v)) == NULL);
	CHECK(errno == ENOMEM && cap == 1024 && v[999] == 999);
	errno = 0;
	CHECK(grow_array(v, &cap, SIZE_MAX, 1) == NULL && errno == ENOMEM);
	CHECK(cap == 1024);
	free(v);
}

static void check_hashes(void)
{
	/* Published FNV-1a 64 test vectors. */
	CHECK(hash_fnv1a_str("") == 0xcbf29ce484222325ULL);
	CHECK(hash_fnv1a_str("a") == 0xaf63dc4c8601ec8cULL);
	CHECK(hash_fnv1a_str("foobar") == 0x85944171f73967e8ULL);
	CHECK(hash_fnv1a(HASH_FNV_SEED, "foobar", 6) == 0x85944171f73967e8ULL);
	CHECK(hash_mix64(0) == 0);
	CHECK(hash_mix64(1) != hash_mix64(2));
}

int main(void)
{
	check_growth();
	check_hashes();
	return unit_result("test_grow");
}
