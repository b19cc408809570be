/*
 * test_outname - output name templates: %p %t %n %% expanded, bad
 * directives refused with one sentence, the sequence number put before
 * the extension of a rotated name without %n or %t, and names that do
 * not fit refused with ENAMETOOLONG.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "profile/outname.h"
#include "unit.h"

/* 2026-11-27 09:15:00 UTC */
#define START 1795770900

static void expect(const char *name, bool number, const char *want)
{
	struct outname_vars v = { .pid = 4242, .start = START, .seq = 7 };
	char out[256];
	int rc = outname_expand(name, &v, number, out, sizeof(out));

	CHECKF(rc == 0 && !strcmp(out, want), "'%s' -> '%s' (rc %d), want '%s'",
	       name, rc ? "" : out, rc, want);
}

static void check_expand(void)
{
	expect("out.prof", false, "out.prof");
	expect("out.prof", true, "out.0007.prof");
	expect("out.pb.gz", true, "out.0007.pb.gz");
	expect("dir.d/out", true, "dir.d/out.0007");
	expect("dir/.prof", true, "dir/.prof.0007");
	expect(".pb.gz", true, ".pb.gz.0007");
	expect("a.b.c.prof", true, "a.b.c.0007.prof");
	expect("prof-%p.pb.gz", false, "prof-4242.pb.gz");
	expect("prof-%p.pb.gz", true, "prof-4242.0007.pb.gz");
	expect("prof-%t.pb.gz", true, "prof-20261127T091500Z.pb.gz");
	expect("%p/%n.prof", true, "4242/0007.prof");
	expect("x%%n.prof", true, "x%n.0007.prof");
	expect("100%%", false, "100%");
	expect("%t-%n-%p", false, "20261127T091500Z-0007-4242");
}

static void check_wide_seq(void)
{
	struct outname_vars v = { .pid = 1, .start = START, .seq = 12345 };
	char out[64];

	CHECK(outname_expand("a-%n.prof", &v, true, out, sizeof(out)) == 0 &&
	      !strcmp(out, "a-12345.prof"));
}

static void check_refused(void)
{
	char err[256] = "";

	CHECK(outname_check("out-%p-%t-%n-%%.pb.gz", err, sizeof(err)) == 0);
	errno = 0;
	CHECK(outname_check("out-%q.prof", err, sizeof(err)) == -1 &&
	      errno == EINVAL);
	CHECKF(strstr(err, "'%q'") && !strchr(err, '\n'), "err: %s", err);
	CHECK(outname_check("out%", err, sizeof(err)) == -1);
	CHECKF(strstr(err, "at the end"), "err: %s", err);
	CHECK(outname_check("%%", err, sizeof(err)) == 0);
}

static void check_predicates(void)
{
	CHECK(!outname_unique("out.prof"));
	CHECK(outname_unique("out-%n.prof") && outname_unique("o-%t"));
	CHECK(!outname_unique("o-%%n-%p"));
	CHECK(outname_is_template("o-%p") && !outname_is_template("o.prof"));
}

static void check_too_long(void)
{
	struct outname_vars v = { .pid = 4242, .start = START, .seq = 1 };
	char out[12];

	errno = 0;
	CHECK(outname_expand("out.prof", &v, true, out, sizeof(out)) == -1 &&
	      errno == ENAMETOOLONG);
	errno = 0;
	CHECK(outname_expand("%t", &v, false, out, sizeof(out)) == -1 &&
	      errno == ENAMETOOLONG);
	CHECK(outname_expand("abcdefghijk", &v, false, out, sizeof(out)) == 0);
	CHECK(outname_expand("abcdefghijkl", &v, false, out, sizeof(out)) ==
	      -1);
}

int main(void)
{
	check_expand();
	check_wide_seq();
	check_refused();
	check_predicates();
	check_too_long();
	return unit_result("test_outname");
}
