/*
 * test_tselect - which threads to sample (sampler/tselect.h): none given
 * selects every thread (tselect_active() false), a TID list, an extended
 * regular expression on the name, both (either one selects), a bad
 * expression refused with EINVAL, and tselect_free() twice is harmless.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

#include "sampler/tselect.h"
#include "unit.h"

int main(void)
{
	static const pid_t tids[] = { 100, 200 };
	struct tselect t;

	CHECK(tselect_init(&t, NULL, 0, NULL) == 0);
	CHECK(!tselect_active(&t));
	CHECK(!tselect_match(&t, 100, "worker")); /* callers ask active first */
	tselect_free(&t);

	CHECK(tselect_init(&t, tids, 2, NULL) == 0);
	CHECK(tselect_active(&t));
	CHECK(tselect_match(&t, 100, "x") && tselect_match(&t, 200, ""));
	CHECK(!tselect_match(&t, 300, "x") && !tselect_match(&t, 0, "x"));
	CHECK(!tselect_match(&t, -100, "x"));
	tselect_free(&t);

	CHECK(tselect_init(&t, NULL, 0, "^work(er)?[0-9]+$") == 0);
	CHECK(tselect_active(&t));
	CHECK(tselect_match(&t, 1, "worker7") &&
	      tselect_match(&t, 1, "work12"));
	CHECK(!tselect_match(&t, 1, "worker") && !tselect_match(&t, 1, ""));
	CHECK(!tselect_match(&t, 1, "a worker7"));
	CHECK(!tselect_match(&t, 1, "worker7\n"));
	tselect_free(&t);
	tselect_free(&t); /* again: nothing to free */

	/* unanchored: anywhere in the name; either rule selects */
	CHECK(tselect_init(&t, tids, 1, "io") == 0);
	CHECK(tselect_match(&t, 5, "disk-io-3") && tselect_match(&t, 100, "x"));
	CHECK(!tselect_match(&t, 200, "x"));
	tselect_free(&t);

	errno = 0;
	CHECK(tselect_init(&t, tids, 2, "(unclosed") == -1 && errno == EINVAL);
	CHECK(!tselect_active(&t) || !t.have_re);
	tselect_free(&t); /* safe after a failed init */
	errno = 0;
	CHECK(tselect_init(&t, NULL, 0, "a{2,1}") == -1 && errno == EINVAL);
	tselect_free(&t);
	return unit_result("test_tselect");
}
