/*
 * test_profile_read - unit tests of profile_read: profiles built in memory
 * slot by slot; good ones must parse to exactly those slots, each kind of
 * malformed one must fail with EINVAL and a message naming the byte.
 * Exit 0 when every check passes, 1 otherwise (each failure is printed).
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile_load.h"
#include "profile/profile_read.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAPS "400000-401000 r-xp 00000000 08:01 1234 /bin/x\n"
#define HDR 0, 3, 0, 10000, 0
#define TRAILER 0, 1, 0

/* Lay out slots (little-endian) then text into buf; returns the length. */
static size_t build(unsigned char *buf, size_t cap, const uint64_t *slots,
		    size_t n, const char *text, size_t tlen)
{
	size_t i;
	uint64_t v;

	if (n * 8 + tlen > cap)
		abort();
	for (i = 0; i < n; i++) {
		v = htole64(slots[i]);
		memcpy(buf + i * 8, &v, 8);
	}
	memcpy(buf + n * 8, text, tlen);
	return n * 8 + tlen;
}

static bool is_zeroed(const struct profile *p)
{
	return !p->records && !p->maps_text && !p->storage_ && !p->nrecords &&
	       !p->period_us && !p->total_samples;
}

/* Expect failure with EINVAL and "at byte OFF:" in the message. */
static void expect_bad(const char *name, const uint64_t *slots, size_t n,
		       const char *text, size_t tlen, size_t off)
{
	unsigned char buf[1024];
	struct profile p;
	char err[256], want[64];
	size_t len = build(buf, sizeof(buf), slots, n, text, tlen);
	int rc;

	memset(err, 0, sizeof(err));
	errno = 0;
	rc = profile_read_parse(buf, len, &p, err, sizeof(err));
	snprintf(want, sizeof(want), "at byte %zu:", off);
	CHECKF(rc == -1, "%s: parsed", name);
	CHECKF(errno == EINVAL, "%s: errno %d", name, errno);
	CHECKF(strstr(err, want) != NULL, "%s: err \"%s\" lacks \"%s\"", name,
	       err, want);
	CHECKF(is_zeroed(&p), "%s: profile not zeroed on failure", name);
	if (rc == 0)
		profile_free(&p);
}

#define BAD(name, text, off, ...)                                         \
	do {                                                              \
		const uint64_t s_[] = { __VA_ARGS__ };                    \
		expect_bad(name, s_, N(s_), text, sizeof(text) - 1, off); \
	} while (0)

static void test_good(void)
{
	const uint64_t s[] = { HDR,	5,	 3,	  0xa0000, 0xc0000,
			       0xe0000, 2,	 1,	  0x1234,  5,
			       3,	0xa0000, 0xc0000, 0xe0000, TRAILER };
	unsigned char buf[1024];
	struct profile p;
	char err[256] = "";
	size_t len = build(buf, sizeof(buf), s, N(s), MAPS, strlen(MAPS));

	CHECKF(profile_read_parse(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	CHECKF(p.period_us == 10000, "period %llu",
	       (unsigned long long)p.period_us);
	CHECKF(p.nrecords == 3,
	       "nrecords %zu (identical chains must stay apart)", p.nrecords);
	if (p.nrecords == 3) {
		CHECKF(p.records[0].count == 5 && p.records[0].npcs == 3,
		       "rec 0");
		CHECKF(p.records[0].pcs[0] == 0xa0000 &&
			       p.records[0].pcs[1] == 0xc0000 &&
			       p.records[0].pcs[2] == 0xe0000,
		       "rec 0 pcs");
		CHECKF(p.records[1].count == 2 && p.records[1].npcs == 1 &&
			       p.records[1].pcs[0] == 0x1234,
		       "rec 1");
		CHECKF(p.records[2].count == 5 && p.records[2].npcs == 3 &&
			       p.records[2].pcs[2] == 0xe0000,
		       "rec 2");
	}
	CHECKF(p.total_samples == 12, "total %llu",
	       (unsigned long long)p.total_samples);
	CHECKF(p.maps_len == strlen(MAPS), "maps_len %zu", p.maps_len);
	CHECKF(p.maps_text && strcmp(p.maps_text, MAPS) == 0, "maps text");
	profile_free(&p);
	CHECKF(is_zeroed(&p), "profile_free leaves fields set");
	profile_free(&p); /* harmless twice */
}

static void test_good_variants(void)
{
	const uint64_t longhdr[] = { 0, 4, 0, 100, 0, 77, 1, 1, 0x42, TRAILER };
	const uint64_t empty[] = { HDR, TRAILER };
	const char junk_then_line[] = "garbage line\n\n" MAPS "more junk";
	unsigned char raw[1024];
	struct profile p;
	char err[256] = "";
	size_t len;

	/* Header longer than 3 slots: the extra slot is skipped. */
	len = build(raw, sizeof(raw), longhdr, N(longhdr), "", 0);
	CHECKF(profile_read_parse(raw, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	CHECKF(p.period_us == 100 && p.nrecords == 1 &&
		       p.records[0].count == 1 && p.records[0].pcs[0] == 0x42,
	       "long header");
	CHECKF(p.maps_len == 0 && p.maps_text && !p.maps_text[0], "no maps");
	profile_free(&p);

	/* No records at all; unaligned data; unparseable lines ignored. */
	len = build(raw + 1, sizeof(raw) - 1, empty, N(empty), junk_then_line,
		    strlen(junk_then_line));
	CHECKF(profile_read_parse(raw + 1, len, &p, err, sizeof(err)) == 0,
	       "%s", err);
	CHECKF(p.nrecords == 0 && p.total_samples == 0, "empty profile");
	CHECKF(p.maps_text && strcmp(p.maps_text, junk_then_line) == 0,
	       "maps kept verbatim");
	profile_free(&p);
}

/* The "ptprof-pid: PID" line (profile.h): read when it is exactly that,
 * 0 otherwise. */
static void test_pid_line(void)
{
	static const struct {
		const char *text;
		int64_t pid;
	} cases[] = {
		{ MAPS "ptprof-pid: 4242\n", 4242 },
		{ MAPS "ptprof-pid: 4242", 4242 }, /* no newline at the end */
		{ "ptprof-pid: 7\n" MAPS, 7 },
		{ MAPS, 0 },
		{ MAPS "ptprof-pid: \n", 0 },
		{ MAPS "ptprof-pid: 12x\n", 0 },
		{ MAPS "ptprof-pid: -5\n", 0 },
		{ MAPS "ptprof-pid:  5\n", 0 },
		{ MAPS "ptprof-pid: 4194305\n", 0 }, /* past pid_max */
		{ MAPS "ptprof-pid: 99999999999999999999999\n", 0 },
		{ MAPS "xptprof-pid: 5\n", 0 },
	};
	const uint64_t empty[] = { HDR, TRAILER };
	unsigned char raw[1024];
	struct profile p;
	char err[256] = "";
	size_t len;

	for (size_t i = 0; i < N(cases); i++) {
		len = build(raw, sizeof(raw), empty, N(empty), cases[i].text,
			    strlen(cases[i].text));
		CHECKF(profile_read_parse(raw, len, &p, err, sizeof(err)) == 0,
		       "%s", err);
		CHECKF(p.pid == cases[i].pid, "case %zu: pid %lld", i,
		       (long long)p.pid);
		profile_free(&p);
	}
}

static void test_bad_header(void)
{
	unsigned char b = 0;
	struct profile p;
	char err[128] = "";

	CHECKF(profile_read_parse(&b, 0, &p, err, sizeof(err)) == -1 &&
		       errno == EINVAL && strstr(err, "empty") &&
		       strstr(err, "at byte 0:"),
	       "empty: %s", err);
	BAD("short header", "", 0, 0);
	BAD("3-slot header", "", 0, 0, 3, 0);
	BAD("header without padding", "", 0, 0, 3, 0, 100);
	BAD("header count", MAPS, 0, 1, 3, 0, 100, 0, TRAILER);
	BAD("header words 2", MAPS, 8, 0, 2, 0, 100, 0, TRAILER);
	BAD("header words huge", MAPS, 8, 0, 1ULL << 62, 0, 100, 0, TRAILER);
	BAD("version", MAPS, 16, 0, 3, 1, 100, 0, TRAILER);
	BAD("period 0", MAPS, 24, 0, 3, 0, 0, 0, TRAILER);
	BAD("half slot", "\1\0\0\0", 0, 0);
}

static void test_bad_records(void)
{
	BAD("no trailer", "", 64, HDR, 5, 1, 0xa);
	BAD("no trailer after header", "", 40, HDR);
	BAD("count only", "", 40, HDR, 5);
	BAD("count and half npcs", "\3\0\0\0", 40, HDR, 5);
	BAD("missing PC", "", 40, HDR, 5, 3, 0xa, 0xb);
	BAD("missing PC into maps", MAPS, 40, HDR, 5, 1000, 0xa, 0xb);
	BAD("trailer truncated", "", 40, HDR, 0, 1);
	BAD("trailer half", "\0\0\0\0", 64, HDR, 5, 1, 0xa, 0, 1);
	BAD("count 0", MAPS, 40, HDR, 0, 2, 0xa, 0xb, TRAILER);
	BAD("count 0 npcs 1", MAPS, 40, HDR, 0, 1, 0xa, TRAILER);
	BAD("npcs 0", MAPS, 40, HDR, 1, 0, TRAILER);
	BAD("npcs too many", MAPS, 40, HDR, 1, PROFILE_MAX_PCS + 1, 1, TRAILER);
	BAD("npcs huge", MAPS, 40, HDR, 1, UINT64_MAX, 1, TRAILER);
	BAD("first PC 0", MAPS, 40, HDR, 3, 2, 0, 0xb, TRAILER);
	BAD("first PC 0, npcs 1", MAPS, 40, HDR, 3, 1, 0, TRAILER);
	BAD("second record", MAPS, 64, HDR, 5, 1, 0xa, 0, 3, 1, 2, 3, TRAILER);
	BAD("count overflow", MAPS, 64, HDR, UINT64_MAX, 1, 0xa, 1, 1, 0xb,
	    TRAILER);
}

static void test_bad_maps(void)
{
	BAD("NUL in maps", "400000-401000 r-xp 0 0:0 0 /x\n\0more", 118, HDR, 5,
	    1, 0xa, TRAILER);
	BAD("garbage maps", "hello world\n", 88, HDR, 5, 1, 0xa, TRAILER);
	BAD("binary maps", "\x01\x02\xff", 64, HDR, TRAILER);
	BAD("bad perms", "400000-401000 rx 00000000 08:01 1 /x\n", 64, HDR,
	    TRAILER);
	BAD("no offset", "400000-401000 r-xp\n", 64, HDR, TRAILER);
}

/*
 * The offset named by a one-line message "... at byte N: ...", or -1 when
 * the message is not of that form.
 */
static long err_offset(const char *err)
{
	const char *at = strstr(err, " at byte ");
	unsigned long off;
	char colon = 0;

	if (strchr(err, '\n') || !at ||
	    sscanf(at, " at byte %lu%c", &off, &colon) != 2 || colon != ':')
		return -1;
	return (long)off;
}

/* A file that is not a 64-bit little-endian profile fails at its header. */
static void test_not_a_profile(void)
{
	static const char *const texts[] = {
		"#!/bin/sh\necho this is not a profile\n",
		"\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0",
		"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
	};
	/* 32-bit little-endian: 4-byte slots 0, 3, 0, 10000, 0. */
	static const unsigned char p32[] = {
		0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0
	};
	/* 64-bit big-endian: 0, 3, 0, 10000, 0. */
	unsigned char be[40] = { 0 };
	struct profile p;
	char err[256];
	size_t i;

	be[15] = 3;
	be[30] = 0x27;
	be[31] = 0x10;
	for (i = 0; i < N(texts); i++) {
		CHECKF(profile_read_parse(texts[i], strlen(texts[i]) + 1, &p,
					  err, sizeof(err)) == -1 &&
			       errno == EINVAL && err_offset(err) >= 0 &&
			       err_offset(err) <= 8,
		       "not a profile %zu: %s", i, err);
	}
	CHECKF(profile_read_parse(p32, sizeof(p32), &p, err, sizeof(err)) ==
			       -1 &&
		       err_offset(err) == 0 &&
		       strstr(err, "64-bit little-endian"),
	       "32-bit profile: %s", err);
	CHECKF(profile_read_parse(be, sizeof(be), &p, err, sizeof(err)) == -1 &&
		       err_offset(err) == 8 && strstr(err, "big-endian"),
	       "big-endian profile: %s", err);
}

/*
 * A valid profile cut at every byte: a cut inside the binary part fails
 * as a truncation (or a missing trailer) at a byte before the cut; a cut
 * inside the maps text fails at the start of the maps until the first
 * line is a whole mapping line (maps_parse_line(): up to the first digit
 * of its inode), then parses.
 */
static void test_truncations(void)
{
	const uint64_t s[] = { 0,	4, 0, 100,     0,
			       9,	5, 3, 0xa0000, 0xc0000,
			       0xe0000, 2, 1, 0x1234,  TRAILER };
	unsigned char buf[1024];
	size_t len = build(buf, sizeof(buf), s, N(s), MAPS, strlen(MAPS));
	size_t bin = N(s) * 8,
	       line = strlen("400000-401000 r-xp 00000000 08:01 1"), i;
	struct profile p;
	char err[256];
	bool ok;
	int rc;

	for (i = 0; i <= len; i++) {
		err[0] = '\0';
		rc = profile_read_parse(buf, i, &p, err, sizeof(err));
		if (i < bin)
			ok = rc == -1 && errno == EINVAL && is_zeroed(&p) &&
			     err_offset(err) >= 0 &&
			     (size_t)err_offset(err) <= i &&
			     (strstr(err, "truncated") ||
			      strstr(err, "missing") || strstr(err, "empty"));
		else if (i > bin && i < bin + line)
			ok = rc == -1 && errno == EINVAL &&
			     err_offset(err) == (long)bin;
		else
			ok = rc == 0 && p.maps_len == i - bin;
		CHECKF(ok, "cut at byte %zu: rc %d, \"%s\"", i, rc, err);
		profile_free(&p);
	}
}

/* Every one-byte change must be handled without a crash. */
static void test_mutations(void)
{
	const uint64_t s[] = { HDR,	5, 3, 0xa0000, 0xc0000,
			       0xe0000, 2, 1, 0x1234,  TRAILER };
	unsigned char buf[1024], copy[1024];
	size_t len = build(buf, sizeof(buf), s, N(s), MAPS, strlen(MAPS));
	struct profile p;
	char err[8]; /* short on purpose: messages are cut, not overflowed */
	size_t i;
	int rc;

	for (i = 0; i < len; i++) {
		memcpy(copy, buf, len);
		copy[i] ^= 0x5a;
		rc = profile_read_parse(copy, len, &p, err, sizeof(err));
		CHECKF(rc == 0 || (errno == EINVAL && strlen(err) == 7),
		       "byte %zu changed: \"%s\"", i, err);
		profile_free(&p);
	}
}

static void test_file(void)
{
	const uint64_t s[] = { HDR, 5, 1, 0xa, TRAILER };
	char path[] = "/tmp/test_profile_read.XXXXXX";
	unsigned char buf[256];
	size_t len = build(buf, sizeof(buf), s, N(s), MAPS, strlen(MAPS));
	struct profile p;
	char err[256] = "";
	int fd = mkstemp(path);

	CHECKF(fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return;
	CHECKF(write(fd, buf, len) == (ssize_t)len, "write");
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	CHECKF(p.nrecords == 1 && p.records[0].pcs[0] == 0xa, "file record");
	profile_free(&p);
	CHECKF(ftruncate(fd, 0) == 0, "ftruncate");
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == -1 &&
		       errno == EINVAL && strstr(err, "at byte 0:"),
	       "empty file: %s", err);
	close(fd);
	unlink(path);
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == -1 &&
		       errno == ENOENT && is_zeroed(&p),
	       "missing file: %s", err);
	CHECKF(profile_load_file("/", &p, err, sizeof(err)) == -1 &&
		       errno == EISDIR,
	       "directory: %s", err);
}

/* profile_read_adopt(): the records in place in the buffer it takes; on
 * failure the buffer stays the caller's.  (ASan and valgrind would see a
 * leak or a double free.) */
static void test_adopt(void)
{
	const uint64_t s[] = { HDR, 5, 2, 0xa0000, 0xc0000, TRAILER };
	const uint64_t bad[] = { HDR, 0, 2, 0xa0000, 0xc0000, TRAILER };
	size_t cap = 1024, len;
	unsigned char *buf = malloc(cap);
	struct profile p;
	char err[256] = "";

	CHECK(buf != NULL);
	if (!buf)
		return;
	len = build(buf, cap, s, N(s), MAPS, strlen(MAPS));
	CHECKF(profile_read_adopt(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	CHECK(p.nrecords == 1 && p.records[0].npcs == 2 &&
	      p.records[0].pcs[1] == 0xc0000 &&
	      (unsigned char *)p.records[0].pcs == buf + 7 * 8);
	CHECK(p.maps_text && !strcmp(p.maps_text, MAPS));
	profile_free(&p); /* frees buf */
	buf = malloc(cap);
	CHECK(buf != NULL);
	if (!buf)
		return;
	len = build(buf, cap, bad, N(bad), MAPS, strlen(MAPS));
	CHECK(profile_read_adopt(buf, len, &p, err, sizeof(err)) == -1 &&
	      is_zeroed(&p));
	free(buf); /* still ours */
}

int main(void)
{
	test_good();
	test_good_variants();
	test_pid_line();
	test_bad_header();
	test_bad_records();
	test_bad_maps();
	test_not_a_profile();
	test_truncations();
	test_mutations();
	test_file();
	test_adopt();
	return unit_result("test_profile_read");
}
