/*
 * test_pprof_read - the pprof protobuf reader's refusals of hostile
 * input, each with its one sentence: messages that name what does not
 * exist or break a rule (test_bad_messages), bytes that are no gzip or no
 * protobuf, or cut short (test_bad_bytes), a gzip bomb (test_bomb),
 * small inputs that decode to much (test_expanding), and a "time" label
 * of any int64, a string, a unit not nanoseconds or one outside the
 * string table, read as the contract says (test_time_label); a
 * location's inlined Lines kept as its inline chain, innermost first,
 * cut at SYMBOLIZE_MAX_INLINE, a Line of no function or an odd line
 * number kept unnamed (test_inline_lines).  What the
 * reader gives back of a valid profile is test_pprof_out's.
 *
 * Covers: pprof_read_build pprof_read_check pprof_read_decode
 * pprof_read_spaces (the rest of the module, split out).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/pprof_read.h"
#include "profile/profile.pb-c.h"
#include "profile/profile_read.h"
#include "symbols/symbolize.h"
#include "unit.h"

typedef Perftools__Profiles__Profile PbProfile;

#define T0 1700000000000000000LL /* a time since the epoch, in ns */

static void expect_fail(const void *data, size_t len, int e, const char *want)
{
	struct profile p;
	char err[256] = "";

	CHECKF(pprof_read_parse(data, len, &p, err, sizeof(err)) < 0 &&
		       errno == e && strstr(err, want) && !strchr(err, '\n'),
	       "wanted '%s' (errno %d), got '%s' (errno %d)", want, e, err,
	       errno);
	CHECK(!p.records && !p.maps_text && !p.nrecords);
}

static unsigned char *gzip_mem(const void *data, size_t len, size_t *outlen)
{
	uLong cap = compressBound(len) + 64;
	unsigned char *out = malloc(cap);
	z_stream z;

	memset(&z, 0, sizeof(z));
	deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

/* A small valid profile to break: one mapping, one location in it, one
 * sample of it, as protobuf-c messages the cases change. */
struct small {
	PbProfile p;
	Perftools__Profiles__ValueType vt, *vtp;
	Perftools__Profiles__Mapping m, *mp;
	Perftools__Profiles__Location l, *lp;
	Perftools__Profiles__Sample s, *sp;
	uint64_t loc_ids[1];
	int64_t values[1];
	char *strs[4];
};

static void small_init(struct small *x)
{
	static char s0[] = "", s1[] = "samples", s2[] = "count",
		    s3[] = "/bin/true";

	memset(x, 0, sizeof(*x));
	perftools__profiles__profile__init(&x->p);
	perftools__profiles__value_type__init(&x->vt);
	perftools__profiles__mapping__init(&x->m);
	perftools__profiles__location__init(&x->l);
	perftools__profiles__sample__init(&x->s);
	x->strs[0] = s0, x->strs[1] = s1, x->strs[2] = s2, x->strs[3] = s3;
	x->p.n_string_table = 4, x->p.string_table = x->strs;
	x->vt.type = 1, x->vt.unit = 2, x->vtp = &x->vt;
	x->p.n_sample_type = 1, x->p.sample_type = &x->vtp;
	x->m.id = 1, x->m.memory_start = 0x1000, x->m.memory_limit = 0x2000;
	x->m.filename = 3, x->mp = &x->m;
	x->p.n_mapping = 1, x->p.mapping = &x->mp;
	x->l.id = 7, x->l.mapping_id = 1, x->l.address = 0x1100, x->lp = &x->l;
	x->p.n_location = 1, x->p.location = &x->lp;
	x->loc_ids[0] = 7, x->values[0] = 3;
	x->s.n_location_id = 1, x->s.location_id = x->loc_ids;
	x->s.n_value = 1, x->s.value = x->values;
	x->sp = &x->s;
	x->p.n_sample = 1, x->p.sample = &x->sp;
}

/* Pack x (gzipped when gz) and expect want, or success when want NULL. */
static void small_expect(const struct small *x, bool gz, const char *want)
{
	size_t len = perftools__profiles__profile__get_packed_size(&x->p), zlen;
	unsigned char *buf = malloc(len + 1), *z;
	struct profile p;
	char err[256] = "";

	perftools__profiles__profile__pack(&x->p, buf);
	z = gz ? gzip_mem(buf, len, &zlen) : NULL;
	if (want) {
		expect_fail(gz ? z : buf, gz ? zlen : len, EINVAL, want);
	} else {
		CHECKF(pprof_read_parse(gz ? z : buf, gz ? zlen : len, &p, err,
					sizeof(err)) == 0,
		       "%s", err);
		CHECK(p.nrecords == 1 && p.total_samples == 3 &&
		      p.records[0].pcs[0] == 0x1100 && p.threads &&
		      !p.records[0].tid && !p.records[0].thread);
		CHECK(p.records[0].npcs < 2 || p.records[0].pcs[1] == 0x1101);
		CHECKF(p.maps_text &&
			       !strcmp(p.maps_text,
				       "1000-2000 r-xp 00000000 00:00 0 /bin/true\n"),
		       "maps '%s'", p.maps_text);
		profile_free(&p);
	}
	free(buf);
	free(z);
}

static void test_bad_messages(void)
{
	struct small x;
	static char bad0[] = "x", nl[] = "/bin/a\nb";
	uint64_t two[2] = { 7, 7 };
	Perftools__Profiles__Location *locs[2];

	small_init(&x);
	small_expect(&x, true, NULL);
	small_expect(&x, false, NULL); /* uncompressed is accepted too */
	x.l.mapping_id = 5;
	small_expect(&x, true,
		     "location 7 names mapping 5, which does not exist");
	small_init(&x);
	x.loc_ids[0] = 8;
	small_expect(&x, true,
		     "sample 0 names location 8, which does not exist");
	small_init(&x);
	x.m.filename = 9;
	small_expect(&x, true,
		     "mapping 1 names string 9, outside the string table");
	small_init(&x);
	x.strs[0] = bad0;
	small_expect(&x, true, "string_table[0] is not the empty string");
	small_init(&x);
	x.strs[3] = nl;
	small_expect(&x, true, "file name holds a newline");
	small_init(&x);
	x.m.memory_start = 0x3000;
	small_expect(&x, true, "is above its limit");
	small_init(&x);
	x.values[0] = -1;
	small_expect(&x, true, "negative count");
	small_init(&x);
	x.s.n_value = 0;
	small_expect(&x, true, "has 0 values for 1 sample types");
	small_init(&x);
	x.l.id = 0;
	x.loc_ids[0] = 0;
	small_expect(&x, true, "location 0 has id 0");
	small_init(&x);
	x.s.n_location_id = 0;
	small_expect(&x, true, "sample 0 has no location");
	small_init(&x);
	x.p.n_sample_type = 0;
	small_expect(&x, true, "no sample type");
	small_init(&x);
	x.s.n_location_id = 2; /* a location twice (recursion) is fine */
	x.s.location_id = two;
	small_expect(&x, true, NULL);
	small_init(&x);
	/* No mapping at all (found by fuzz_pprof_read: memcpy from NULL). */
	x.p.n_mapping = 0;
	x.p.mapping = NULL;
	x.l.mapping_id = 0;
	{
		size_t len = perftools__profiles__profile__get_packed_size(
			&x.p);
		unsigned char *buf = malloc(len);
		struct profile p;

		perftools__profiles__profile__pack(&x.p, buf);
		CHECK(pprof_read_parse(buf, len, &p, NULL, 0) == 0 &&
		      p.nrecords == 1 && p.maps_len == 0 && p.maps_text &&
		      !p.maps_text[0]);
		profile_free(&p);
		free(buf);
	}
	small_init(&x);
	locs[0] = locs[1] = &x.l;
	x.p.n_location = 2;
	x.p.location = locs;
	small_expect(&x, true, "two locations have id 7");
}

static void test_bad_bytes(void)
{
	static const unsigned char not_gzip_deflate[] = {
		0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff, 0xff
	};
	const char garbage[] = "this is not a protobuf, just text";
	struct small x;
	unsigned char *z, *good, *pb;
	size_t zlen, glen, len;

	expect_fail(not_gzip_deflate, sizeof(not_gzip_deflate), EINVAL,
		    "bad gzip data at byte");
	z = gzip_mem(garbage, sizeof(garbage), &zlen);
	expect_fail(z, zlen, EINVAL, "not a pprof protobuf profile");
	free(z);
	/* a valid gzipped profile, cut short */
	small_init(&x);
	len = perftools__profiles__profile__get_packed_size(&x.p);
	pb = malloc(len);
	CHECK(pb != NULL);
	if (!pb)
		return;
	perftools__profiles__profile__pack(&x.p, pb);
	good = gzip_mem(pb, len, &glen);
	free(pb);
	CHECK(glen > 40);
	expect_fail(good, glen / 2, EINVAL, "truncated gzip data");
	expect_fail(good, 12, EINVAL, "truncated gzip data");
	free(good);
}

/* A gzip bomb: 300 MiB of zeros in about 300 KB is refused, not read. */
static void test_bomb(void)
{
	size_t n = 300u << 20, zlen;
	unsigned char *zeros = calloc(1, n), *z;

	if (!zeros)
		return;
	z = gzip_mem(zeros, n, &zlen);
	free(zeros);
	expect_fail(z, zlen, EFBIG, "decompresses to more than");
	free(z);
}

/*
 * A protobuf of a valid head (string table "", "samples", "count"; one
 * sample type samples/count) then n copies of rep (rep_len bytes).
 */
static unsigned char *repeated_pb(const void *rep, size_t rep_len, size_t n,
				  size_t *len)
{
	static const unsigned char head[] = { 0x32, 0x00, 0x32, 0x07, 's',
					      'a',  'm',  'p',	'l',  'e',
					      's',  0x32, 0x05, 'c',  'o',
					      'u',  'n',  't',	0x0a, 0x04,
					      0x08, 0x01, 0x10, 0x02 };
	unsigned char *b = malloc(sizeof(head) + n * rep_len);

	if (!b)
		return NULL;
	memcpy(b, head, sizeof(head));
	for (size_t i = 0; i < n; i++)
		memcpy(b + sizeof(head) + i * rep_len, rep, rep_len);
	*len = sizeof(head) + n * rep_len;
	return b;
}

/*
 * Small inputs that decode to much: each is refused before it is decoded
 * (issue 12, item 13), by a sentence naming what is too many.
 */
static void test_expanding(void)
{
	static const unsigned char empty_string[] = { 0x32, 0x00 };
	static const unsigned char empty_sample[] = { 0x12, 0x00 };
	static const unsigned char varint_type[] = { 0x08, 0x01 };
	static const unsigned char unknown[] = { 0xa0, 0x06, 0x00 };
	static const unsigned char two_values[] = { 0x12, 0x04, 0x10,
						    0x01, 0x10, 0x01 };
	unsigned char *pb, *z;
	size_t len, zlen;

	/* 2 MB of empty strings: 52 MB to decode, over 32 times 2 MB */
	pb = repeated_pb(empty_string, 2, 1000000, &len);
	CHECK(pb != NULL);
	expect_fail(pb, len, EFBIG, "1000003 strings, 0 unknown fields) needs");
	/* the same gzipped (about 2 KB): refused the same way */
	z = gzip_mem(pb, len, &zlen);
	expect_fail(z, zlen, EFBIG, "1000003 strings, 0 unknown fields) needs");
	free(z);
	free(pb);
	pb = repeated_pb(empty_sample, 2, 1000000, &len);
	CHECK(pb != NULL);
	expect_fail(pb, len, EFBIG, "(1000000 samples, 0 locations");
	free(pb);
	/* 9 million empty strings (18 MB) in about 18 KB of gzip: more than
	 * 100 times the file and the 16 MiB floor */
	pb = repeated_pb(empty_string, 2, 9000000, &len);
	z = pb ? gzip_mem(pb, len, &zlen) : NULL;
	free(pb);
	if (z)
		expect_fail(z, zlen, EFBIG, "a gzip bomb?");
	free(z);
	/* 3 MB of fields of no known number, which protobuf-c keeps */
	pb = repeated_pb(unknown, 3, 1000000, &len);
	CHECK(pb != NULL);
	expect_fail(pb, len, EFBIG, "1000000 unknown fields) needs");
	free(pb);
	/* a message field as a varint (fuzz_pprof_read found the scan
	 * reading it as a message: UBSan, NULL + 0) */
	pb = repeated_pb(varint_type, 2, 1, &len);
	CHECK(pb != NULL);
	expect_fail(pb, len, EINVAL, "protobuf decoding failed");
	free(pb);
	pb = repeated_pb(two_values, 6, 1, &len);
	CHECK(pb != NULL);
	expect_fail(pb, len, EINVAL,
		    "sample 0 has 2 values for 1 sample types");
	free(pb);
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

static void test_time_label(void)
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

/* A location of NLINES Lines, each of its own function "fK" in file
 * "src.c" at line 100 + K, but Line 1's function, which does not exist,
 * and Line 2's line, past PROFILE_MAX_LINE. */
#define NLINES (SYMBOLIZE_MAX_INLINE + 8)
struct inlined {
	struct small x;
	Perftools__Profiles__Line ln[NLINES], *lnp[NLINES];
	Perftools__Profiles__Function fn[NLINES], *fnp[NLINES];
	char *strs[5 + NLINES];
	char names[NLINES][8];
};

static void inlined_init(struct inlined *y, size_t nlines)
{
	static char src[] = "src.c";

	small_init(&y->x);
	memcpy(y->strs, y->x.strs, 4 * sizeof(*y->strs));
	y->strs[4] = src;
	for (size_t k = 0; k < nlines; k++) {
		snprintf(y->names[k], sizeof(y->names[k]), "f%zu", k);
		y->strs[5 + k] = y->names[k];
		perftools__profiles__function__init(&y->fn[k]);
		y->fn[k].id = k + 1;
		y->fn[k].name = (int64_t)(5 + k);
		y->fn[k].filename = 4;
		y->fnp[k] = &y->fn[k];
		perftools__profiles__line__init(&y->ln[k]);
		y->ln[k].function_id = k == 1 ? 999 : k + 1;
		y->ln[k].line = k == 2 ? (int64_t)PROFILE_MAX_LINE + 1 :
					 (int64_t)(100 + k);
		y->lnp[k] = &y->ln[k];
	}
	y->x.p.n_string_table = 5 + nlines, y->x.p.string_table = y->strs;
	y->x.p.n_function = nlines, y->x.p.function = y->fnp;
	y->x.l.n_line = nlines, y->x.l.line = y->lnp;
}

/* Read y back: its one name, checked as the contract says. */
static void inlined_check(struct inlined *y, size_t nlines)
{
	size_t len = perftools__profiles__profile__get_packed_size(&y->x.p);
	size_t want = nlines - 1 < SYMBOLIZE_MAX_INLINE ? nlines - 1 :
							  SYMBOLIZE_MAX_INLINE;
	unsigned char *buf = malloc(len + 1);
	const struct profile_name *n;
	struct profile p;
	char err[256] = "", last[8];

	perftools__profiles__profile__pack(&y->x.p, buf);
	CHECKF(pprof_read_parse(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	free(buf);
	n = p.nnames == 1 ? &p.names[0] : NULL;
	CHECKF(n != NULL, "%zu names", p.nnames);
	if (!n)
		return;
	snprintf(last, sizeof(last), "f%zu", nlines - 1);
	CHECKF(!strcmp(n->name, last), "name %s", n->name);
	CHECKF(n->ninl == want, "%zu inlined frames, not %zu", n->ninl, want);
	CHECK(!n->ninl == !n->inl);
	CHECK(n->file && !strcmp(n->file, "src.c") && n->line == 100);
	for (size_t k = 0; k < n->ninl; k++) {
		char name[8];

		snprintf(name, sizeof(name), "f%zu", k);
		if (k == 1) { /* no such function */
			CHECK(!n->inl[k].func && !n->inl[k].file &&
			      !n->inl[k].line);
			continue;
		}
		CHECKF(n->inl[k].func && !strcmp(n->inl[k].func, name),
		       "inl[%zu] %s", k, n->inl[k].func);
		CHECK(n->inl[k].file && !strcmp(n->inl[k].file, "src.c"));
		CHECKF(n->inl[k].line == (k == 2 ? 0 : 100 + k),
		       "inl[%zu] line %u", k, n->inl[k].line);
	}
	if (n->ninl) {
		CHECK(n->outer_file && !strcmp(n->outer_file, "src.c"));
		CHECKF(n->outer_line == 100 + nlines - 1, "outer line %u",
		       n->outer_line);
	} else {
		CHECK(!n->outer_file && !n->outer_line);
	}
	profile_free(&p);
}

static void test_inline_lines(void)
{
	static const size_t counts[] = { 1, 4, NLINES };
	struct inlined *y = malloc(sizeof(*y));

	for (size_t i = 0; y && i < sizeof(counts) / sizeof(counts[0]); i++) {
		inlined_init(y, counts[i]);
		inlined_check(y, counts[i]);
	}
	free(y);
}

int main(void)
{
	test_bad_messages();
	test_bad_bytes();
	test_bomb();
	test_expanding();
	test_time_label();
	test_inline_lines();
	return unit_result("test_pprof_read");
}
