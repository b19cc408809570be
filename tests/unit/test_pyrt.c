/*
 * test_pyrt - CPython's runtime state and frames (pyrt.h):
 *  1. the 3.11 location table decoder on real tables (pyrt_lines.h,
 *     dumped from /usr/bin/python3 with the line co_positions() gives
 *     each code unit) and on tables made here byte by byte;
 *  2. hostile memory: a fake address space in this test's memory whose
 *     runtime, thread states and frames loop, lie and point outside;
 *     every call must end with an error or a bounded answer;
 *  3. a live /usr/bin/python3 (3.11) blocked at a known chain: the
 *     runtime found through .dynsym, read with process_vm_readv(), must
 *     give the thread states of both its threads and the chain the
 *     script printed from traceback, lines and is_entry included.
 * Exits 77 when part 3 cannot run (no 3.11 at /usr/bin/python3) and
 * parts 1 and 2 passed.
 *
 * Covers: pyrt_code pyrt_line pyrt_pages pyrt_threads (the rest of the module, split out).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pyrt_lines.h"
#include "python/pyrt.h"
#include "unit.h"

/* ---- 1. the location table ---- */

static void test_real_tables(void)
{
	size_t i;
	unsigned u;

	for (i = 0; i < sizeof(pyrt_fixtures) / sizeof(pyrt_fixtures[0]); i++) {
		const struct pyrt_fixture *f = &pyrt_fixtures[i];
		unsigned bad = 0, first = 0;

		for (u = 0; u < f->ncodeunits; u++) {
			int got = pyrt_line_table(f->table, f->len,
						  f->firstlineno,
						  2 * (int64_t)u);
			if (got != f->lines[u] && !bad++)
				first = u;
		}
		CHECKF(bad == 0,
		       "%s: %u of %u code units wrong, first %u: %d, not %d",
		       f->name, bad, f->ncodeunits, first,
		       pyrt_line_table(f->table, f->len, f->firstlineno,
				       2 * (int64_t)first),
		       f->lines[first]);
		/* past the end of the code: no line */
		CHECK(pyrt_line_table(f->table, f->len, f->firstlineno,
				      2 * (int64_t)f->ncodeunits + 64) == -1);
	}
}

static void test_made_tables(void)
{
	/*
	 * Units 0-1: short form (code 0), same line 10.  2: one-line form
	 * code 11, +1 -> 11.  3-5: no columns (13), -3 -> 8.  6: long form
	 * (14), +100 -> 108 (zigzag 200 = 0x48 0x03), end line 0, columns
	 * 1 and 5.  7: no location (15).  8: short form again: 108.
	 */
	static const uint8_t t[] = {
		0x80 | 0 << 3 | 1,  0x05,			  /* 0-1 */
		0x80 | 11 << 3 | 0, 0x02, 0x07,			  /* 2 */
		0x80 | 13 << 3 | 2, 0x07,			  /* 3-5 */
		0x80 | 14 << 3 | 0, 0x48, 0x03, 0x00, 0x01, 0x05, /* 6 */
		0x80 | 15 << 3 | 0,				  /* 7 */
		0x80 | 0 << 3 | 0,  0x01,			  /* 8 */
	};
	static const int want[] = { 10, 10, 11, 8, 8, 8, 108, -1, 108 };
	static const uint8_t corrupt[] = { 0x05, 0x80 };
	static const uint8_t endless[] = { 0x80 | 13 << 3, 0x7f, 0x7f, 0x7f,
					   0x7f,	   0x7f, 0x7f, 0x7f,
					   0x7f,	   0x7f };
	struct pycode c = { 0 };
	unsigned u;
	uint8_t rnd[256];
	int i, j;

	for (u = 0; u < 9; u++)
		CHECKF(pyrt_line_table(t, sizeof(t), 10, 2 * u) == want[u],
		       "unit %u: %d, not %d", u,
		       pyrt_line_table(t, sizeof(t), 10, 2 * u), want[u]);
	CHECK(pyrt_line_table(t, sizeof(t), 10, 18) == -1);
	CHECK(pyrt_line_table(t, sizeof(t), 10, -2) == -1);
	CHECK(pyrt_line_table(t, 0, 10, 0) == -1);
	CHECK(pyrt_line_table(corrupt, sizeof(corrupt), 1, 0) == -1);
	/* a varint that never ends stops with the table (and at 32 bits) */
	(void)pyrt_line_table(endless, sizeof(endless), 1, 0);
	/* a line pushed below 0 is no line */
	{
		static const uint8_t neg[] = { 0x80 | 13 << 3, 0x15 };
		CHECK(pyrt_line_table(neg, sizeof(neg), 3, 0) == -1);
	}
	/* pyrt_line(): the frame's bounds */
	c.linetable = (uint8_t *)t;
	c.linetable_len = sizeof(t);
	c.firstlineno = 10;
	c.ncodeunits = 9;
	c.firsttraceable = 2;
	CHECK(pyrt_line(&c, 2) == 11);
	CHECK(pyrt_line(&c, 1) == -1); /* incomplete: before RESUME */
	CHECK(pyrt_line(&c, -1) == -1);
	CHECK(pyrt_line(&c, 9) == -1);
	CHECK(pyrt_line(NULL, 3) == -1);
	/* random tables end, whatever they hold */
	srand(16);
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < (int)sizeof(rnd); j++)
			rnd[j] = (uint8_t)rand();
		(void)pyrt_line_table(rnd, (size_t)(rand() % 257), rand(),
				      rand() % 1024);
	}
}

/* ---- 2. a fake address space ---- */

#define FAKE_BASE 0x10000000ull
#define FAKE_SIZE (1u << 20)

static uint8_t *fake; /* FAKE_SIZE bytes that pose as FAKE_BASE.. */
static unsigned long fake_reads;

static int fake_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	fake_reads++;
	if (addr < FAKE_BASE || len > FAKE_SIZE ||
	    addr - FAKE_BASE > FAKE_SIZE - len)
		return -1;
	memcpy(buf, fake + (addr - FAKE_BASE), len);
	return 0;
}

static void fput64(uint64_t addr, uint64_t v)
{
	memcpy(fake + (addr - FAKE_BASE), &v, 8);
}

static void fput32(uint64_t addr, uint32_t v)
{
	memcpy(fake + (addr - FAKE_BASE), &v, 4);
}

/* Addresses in the fake space (3.11 layout, pyrt.c's table). */
#define F_RT (FAKE_BASE + 0x1000)
#define F_INTERP (FAKE_BASE + 0x2000)
#define F_TS(i) (FAKE_BASE + 0x3000 + 0x200 * (i))
#define F_CFRAME (FAKE_BASE + 0x5000)
#define F_FRAME(i) (FAKE_BASE + 0x6000 + 0x80 * (i))
#define F_CODE (FAKE_BASE + 0x9000)
#define F_STR(i) (FAKE_BASE + 0xa000 + 0x100 * (i))
#define F_BYTES (FAKE_BASE + 0xc000)
#define F_LONGSTR (FAKE_BASE + 0x10000)

static void fake_str_ascii(uint64_t at, const char *s)
{
	fput64(at + 16, strlen(s));
	fput32(at + 32, 1 << 2 | 1 << 5 | 1 << 6 | 1 << 7);
	memcpy(fake + (at + 48 - FAKE_BASE), s, strlen(s) + 1);
}

/* A plausible runtime: one interpreter, two threads, a 3-frame chain. */
static void fake_build(void)
{
	static const uint8_t table[] = { 0x80 | 13 << 3 | 7, 0x02 };
	int i;

	memset(fake, 0, FAKE_SIZE);
	fput64(F_RT + 40, F_INTERP);
	fput64(F_RT + 48, F_INTERP);
	fput64(F_INTERP + 16, F_TS(0));
	fput64(F_TS(0) + 8, F_TS(1));
	fput64(F_TS(0) + 16, F_INTERP);
	fput64(F_TS(0) + 56, F_CFRAME);
	fput64(F_TS(0) + 160, 4242);
	fput64(F_TS(1) + 0, F_TS(0));
	fput64(F_TS(1) + 16, F_INTERP);
	fput64(F_TS(1) + 160, 4243);
	fput64(F_CFRAME + 8, F_FRAME(0));
	for (i = 0; i < 3; i++) {
		fput64(F_FRAME(i) + 32, F_CODE);
		fput64(F_FRAME(i) + 48, i < 2 ? F_FRAME(i + 1) : 0);
		fput64(F_FRAME(i) + 56, F_CODE + 184 + 2 * i);
		fake[F_FRAME(i) + 68 - FAKE_BASE] = i == 2;
	}
	fput64(F_CODE + 16, 8);
	fput32(F_CODE + 72, 40);
	fput64(F_CODE + 112, F_STR(0));
	fput64(F_CODE + 120, F_STR(1));
	fput64(F_CODE + 128, F_STR(2));
	fput64(F_CODE + 136, F_BYTES);
	fake_str_ascii(F_STR(0), "fake.py");
	fake_str_ascii(F_STR(1), "f");
	fake_str_ascii(F_STR(2), "C.f");
	fput64(F_BYTES + 16, sizeof(table));
	memcpy(fake + (F_BYTES + 32 - FAKE_BASE), table, sizeof(table));
}

static struct pyrt *fake_open(void)
{
	char err[256];
	struct pyrt *rt = pyrt_open(0x030b02f0, F_RT, fake_read, NULL, err,
				    sizeof(err));

	CHECKF(rt != NULL, "%s", err);
	return rt;
}

static void test_fake_valid(void)
{
	struct pyrt_thread th[4];
	struct pyrt_frame fr[8];
	struct pycode c;
	pid_t tids[] = { 4243, 1, 4242 };
	char err[256];
	struct pyrt *rt;
	int n, st;

	fake_build();
	rt = fake_open();
	if (!rt)
		return;
	CHECK(pyrt_version(rt) == 0x030b);
	n = pyrt_threads(rt, th, 4, err, sizeof(err));
	CHECKF(n == 2, "%d: %s", n, err);
	CHECK(n == 2 && th[0].native_id == 4242 && th[1].native_id == 4243 &&
	      th[0].main_interp);
	CHECKF(pyrt_check(rt, tids, 3, err, sizeof(err)) == 0, "%s", err);
	CHECK(pyrt_check(rt, tids, 2, err, sizeof(err)) == -1 &&
	      errno == EINVAL && strstr(err, "4242"));
	n = pyrt_frames(rt, F_TS(0), fr, 8, &st);
	CHECKF(n == 3 && st == PYRT_END, "%d frames, status %d", n, st);
	CHECK(fr[0].lasti == 0 && fr[2].lasti == 2 && fr[2].is_entry &&
	      !fr[0].is_entry && fr[1].code == F_CODE);
	n = pyrt_frames(rt, F_TS(0), fr, 2, &st);
	CHECK(n == 2 && st == PYRT_TRUNCATED);
	n = pyrt_frames(rt, F_TS(1), fr, 8, &st); /* no cframe */
	CHECK(n == 0 && st == PYRT_END);
	CHECK(pyrt_code(rt, F_CODE, &c) == 0);
	CHECK(c.name && !strcmp(c.name, "f") && !strcmp(c.qualname, "C.f") &&
	      !strcmp(c.filename, "fake.py") && c.firstlineno == 40);
	CHECK(pyrt_line(&c, 3) == 41);
	pycode_free(&c);
	pyrt_close(rt);
}

/*
 * 3.13's _Py_DebugOffsets (3.13.0's values, at their places in the
 * table): accepted as they are; refused without the cookie, with
 * another version, free-threaded, or an offset outside its structure.
 */
static void test_fake_313(void)
{
	static const uint32_t tab[][2] = {
		{ 24, 0x30000 }, { 40, 632 },  { 48, 0x20000 }, { 64, 7264 },
		{ 72, 7344 },	 { 152, 304 }, { 160, 0 },	{ 168, 8 },
		{ 176, 16 },	 { 184, 72 },  { 200, 160 },	{ 224, 80 },
		{ 232, 8 },	 { 240, 0 },   { 248, 56 },	{ 264, 70 },
		{ 272, 208 },	 { 280, 112 }, { 288, 120 },	{ 296, 128 },
		{ 304, 136 },	 { 312, 68 },  { 344, 200 },	{ 512, 40 },
		{ 520, 16 },	 { 528, 32 },  { 536, 64 },	{ 544, 32 },
		{ 552, 16 },	 { 560, 40 },
	};
	char err[256];
	struct pyrt *rt;
	size_t i;

	fake_build();
	memcpy(fake + (F_RT - FAKE_BASE), "xdebugpy", 8);
	fput64(F_RT + 8, 0x030d00f0);
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		fput64(F_RT + tab[i][0], tab[i][1]);
	fput64(F_RT + 632, F_INTERP);
	rt = pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err));
	CHECKF(rt != NULL, "%s", err);
	CHECK(pyrt_version(rt) == 0x030d);
	pyrt_close(rt);
	fput64(F_RT + 16, 1);
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == ENOTSUP && strstr(err, "free-threaded"));
	fput64(F_RT + 16, 0);
	fput64(F_RT + 200, 400); /* native_thread_id past the tstate's size */
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL && strstr(err, "byte 200"));
	fput64(F_RT + 152, 1ull << 40); /* a huge size does not help */
	fput64(F_RT + 200, 1ull << 32);
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL);
	fput64(F_RT + 152, UINT64_MAX); /* nor one that wraps around */
	fput64(F_RT + 200, (uint64_t)-4);
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL);
	fput64(F_RT + 152, 304);
	fput64(F_RT + 200, 160);
	fput64(F_RT + 8, 0x030c00f0);
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL && strstr(err, "_Py_DebugOffsets"));
	fput64(F_RT + 8, 0x030d00f0);
	fake[F_RT - FAKE_BASE] = 'X';
	CHECK(!pyrt_open(0x030d00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL);
	fake_build();
}

static void test_fake_hostile(void)
{
	struct pyrt_thread th[4];
	struct pyrt_frame fr[64];
	struct pycode c;
	char err[256];
	struct pyrt *rt;
	int n, st, i;

	/* versions other than 3.11 to 3.13 are refused with their name */
	fake_build();
	CHECK(!pyrt_open(0x030e00f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == ENOTSUP && strstr(err, "3.14.0"));
	CHECK(!pyrt_open(0x030a0df0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == ENOTSUP && strstr(err, "3.10.13"));
	test_fake_313();
	CHECK(!pyrt_open(0x030b02f0, FAKE_BASE + 3 * FAKE_SIZE, fake_read, NULL,
			 err, sizeof(err)) &&
	      errno == EFAULT);
	fput64(F_RT + 40, 0); /* before Py_Initialize */
	CHECK(!pyrt_open(0x030b02f0, F_RT, fake_read, NULL, err, sizeof(err)) &&
	      errno == EINVAL);

	/* the interpreter list loops onto itself */
	fake_build();
	rt = fake_open();
	if (!rt)
		return;
	fput64(F_INTERP + 0, F_INTERP);
	CHECK(pyrt_threads(rt, th, 4, err, sizeof(err)) == -1 &&
	      errno == ELOOP);
	/* a thread list that loops back (prev does not follow) */
	fake_build();
	fput64(F_TS(1) + 8, F_TS(0));
	CHECK(pyrt_threads(rt, th, 4, err, sizeof(err)) == -1 &&
	      errno == EINVAL);
	fput64(F_TS(1) + 8, F_TS(1)); /* onto itself */
	CHECK(pyrt_threads(rt, th, 4, err, sizeof(err)) == -1);
	/* a thread state of another interpreter, one outside the space */
	fake_build();
	fput64(F_TS(1) + 16, F_RT);
	CHECK(pyrt_threads(rt, th, 4, err, sizeof(err)) == -1 &&
	      errno == EINVAL);
	fake_build();
	fput64(F_TS(0) + 8, FAKE_BASE + 2 * FAKE_SIZE);
	CHECK(pyrt_threads(rt, th, 4, err, sizeof(err)) == -1 &&
	      errno == EFAULT && strstr(err, "not readable"));
	/* no thread bound */
	fake_build();
	fput64(F_TS(0) + 160, 0);
	fput64(F_TS(1) + 160, 0);
	CHECK(pyrt_check(rt, NULL, 0, err, sizeof(err)) == -1 &&
	      errno == EINVAL);

	/* frame chains: onto itself, a loop of three, outside, misaligned */
	fake_build();
	fput64(F_FRAME(0) + 48, F_FRAME(0));
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECKF(n <= 2 && st == PYRT_LOOP, "%d %d", n, st);
	fake_build();
	fput64(F_FRAME(2) + 48, F_FRAME(0));
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECKF(n < 12 && st == PYRT_LOOP, "%d %d", n, st);
	fput64(F_FRAME(2) + 48, FAKE_BASE + 2 * FAKE_SIZE);
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECK(n == 3 && st == PYRT_UNREADABLE);
	fput64(F_FRAME(2) + 48, F_FRAME(0) + 4);
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECK(n == 3 && st == PYRT_BADPTR);
	fake_build();
	fput64(F_FRAME(1) + 56, F_CODE - 4096); /* instruction before code */
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECK(n == 1 && st == PYRT_BADPTR);
	n = pyrt_frames(rt, FAKE_BASE + 2 * FAKE_SIZE, fr, 64, &st);
	CHECK(n == 0 && st == PYRT_UNREADABLE);
	/* a long loop of 64 frames, read with max 10 000: capped */
	fake_build();
	for (i = 0; i < 64; i++) {
		fput64(F_FRAME(i) + 32, F_CODE);
		fput64(F_FRAME(i) + 48, F_FRAME((i + 1) % 64));
		fput64(F_FRAME(i) + 56, F_CODE + 184);
	}
	n = pyrt_frames(rt, F_TS(0), fr, 64, &st);
	CHECKF(n == 64 && (st == PYRT_LOOP || st == PYRT_TRUNCATED), "%d %d", n,
	       st);

	/* code objects: a huge line table, a negative size, long names */
	fake_build();
	fput64(F_BYTES + 16, 1ull << 40);
	CHECK(pyrt_code(rt, F_CODE, &c) == -1 && errno == EINVAL);
	pycode_free(&c);
	fput64(F_BYTES + 16, (uint64_t)-5);
	CHECK(pyrt_code(rt, F_CODE, &c) == -1 && errno == EINVAL);
	fake_build();
	fput64(F_CODE + 16, (uint64_t)-1);
	CHECK(pyrt_code(rt, F_CODE, &c) == -1 && errno == EINVAL);
	fake_build();
	fput64(F_STR(1) + 16, 1ull << 40); /* past the space: "?" */
	fput64(F_CODE + 128, F_LONGSTR);
	memset(fake + (F_LONGSTR + 48 - FAKE_BASE), 'x', 5000);
	fput64(F_LONGSTR + 16, 5000);
	fput32(F_LONGSTR + 32, 1 << 2 | 1 << 5 | 1 << 6 | 1 << 7);
	fput64(F_CODE + 112, F_STR(3)); /* not a compact str: "?" */
	CHECK(pyrt_code(rt, F_CODE, &c) == 0);
	CHECK(c.qualname && strlen(c.qualname) == PYRT_MAX_NAME);
	CHECK(c.name && strlen(c.name) <= PYRT_MAX_NAME);
	CHECK(c.filename && !strcmp(c.filename, "?"));
	pycode_free(&c);
	/* UCS-2 and UCS-4 strings become UTF-8 */
	fput64(F_STR(4) + 16, 2);
	fput32(F_STR(4) + 32, 2 << 2 | 1 << 5 | 1 << 7);
	fput32(F_STR(4) + 72, 0x00e9 | 0x20ac << 16); /* é€ */
	fput64(F_CODE + 120, F_STR(4));
	fput64(F_STR(5) + 16, 1);
	fput32(F_STR(5) + 32, 4 << 2 | 1 << 5 | 1 << 7);
	fput32(F_STR(5) + 72, 0x1f40d);
	fput64(F_CODE + 128, F_STR(5));
	CHECK(pyrt_code(rt, F_CODE, &c) == 0);
	CHECK(c.name && !strcmp(c.name, "\xc3\xa9\xe2\x82\xac"));
	CHECK(c.qualname && !strcmp(c.qualname, "\xf0\x9f\x90\x8d"));
	pycode_free(&c);

	/* memory of random pointers into itself: everything ends */
	srand(11);
	for (i = 0; i < (int)(FAKE_SIZE / 8); i++)
		fput64(FAKE_BASE + 8 * (uint64_t)i,
		       rand() % 4 ? FAKE_BASE + (uint64_t)(rand() %
							   (FAKE_SIZE / 8)) *
							8 :
				    (uint64_t)rand());
	for (i = 0; i < 2000; i++) {
		uint64_t a = FAKE_BASE +
			     (uint64_t)(rand() % (FAKE_SIZE / 8)) * 8;
		struct pyrt *r2 = pyrt_open(0x030b02f0, a, fake_read, NULL, err,
					    sizeof(err));
		if (r2) {
			(void)pyrt_threads(r2, th, 4, err, sizeof(err));
			pyrt_close(r2);
		}
		(void)pyrt_frames(rt, a, fr, 64, &st);
		if (pyrt_code(rt, a, &c) == 0)
			(void)pyrt_line(&c, rand() % 100);
		pycode_free(&c);
	}
	pyrt_close(rt);
}

/* pyrt_pages_read() over the fake space: the same bytes, held pages. */
static void test_pages(void)
{
	static struct pyrt_pages pc;
	uint8_t a[64], b[64];
	uint64_t at;
	int i, ok = 1;

	fake_build();
	for (i = 0; i < (int)FAKE_SIZE; i += 4)
		fput32(FAKE_BASE + (uint64_t)i, (uint32_t)i * 2654435761u);
	pyrt_pages_init(&pc, fake_read, NULL);
	srand(7);
	for (i = 0; i < 5000; i++) { /* crossing pages, evicting them */
		at = FAKE_BASE + (uint64_t)(rand() % (FAKE_SIZE - 64));
		if (i % 3 == 0)
			at = FAKE_BASE + 4096 * (uint64_t)(rand() % 20) - 17 +
			     4096;
		if (pyrt_pages_read(&pc, at, a, 40) != 0 ||
		    fake_read(NULL, at, b, 40) != 0 || memcmp(a, b, 40))
			ok = 0;
	}
	CHECK(ok);
	CHECK(pc.n <= PYRT_PAGES);
	/* the last page and the one past the space */
	CHECK(pyrt_pages_read(&pc, FAKE_BASE + FAKE_SIZE - 8, a, 16) != 0);
	CHECK(pyrt_pages_read(&pc, FAKE_BASE + FAKE_SIZE - 8, a, 8) == 0 &&
	      !memcmp(a, fake + FAKE_SIZE - 8, 8));
	CHECK(pyrt_pages_read(&pc, FAKE_BASE - 4, a, 8) != 0);
	CHECK(pyrt_pages_read(&pc, UINT64_MAX - 4, a, 8) != 0);
	pyrt_pages_reset(&pc);
	CHECK(pc.n == 0);
}

/* ---- 3. a live python3.11 ---- */

static const char script[] =
	"import os, sys, threading, time, traceback\n"
	"ready = threading.Event()\n"
	"tid = []\n"
	"def sleeper():\n"
	"    tid.append(threading.get_native_id())\n"
	"    ready.set()\n"
	"    time.sleep(1000)\n"
	"def waiter():\n"
	"    st = traceback.extract_stack()[:-1]\n"
	"    here = sys._getframe().f_lineno + 3\n"
	"    print('T', tid[0], 'waiter:%d' % here,\n"
	"          *['%s:%d' % (f.name, f.lineno) for f in reversed(st)],\n"
	"          flush=True); os.read(0, 1)\n"
	"def level1(x):\n"
	"    waiter()\n"
	"def run():\n"
	"    list(map(level1, [0]))\n"
	"def main():\n"
	"    threading.Thread(target=sleeper, daemon=True).start()\n"
	"    ready.wait()\n"
	"    run()\n"
	"main()\n";

struct live {
	pid_t pid;
	unsigned long reads, bytes;
};

static int live_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct live *lv = arg;
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	lv->reads++;
	lv->bytes += len;
	return process_vm_readv(lv->pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 :
									    -1;
}

/* _PyRuntime's and Py_Version's addresses in the file (0: not found). */
static int elf_syms(const char *path, uint64_t *runtime, uint64_t *version,
		    int *pie, uint64_t *first_vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *e;
	int fd;

	*runtime = *version = 0;
	*first_vaddr = UINT64_MAX;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph) < 0) {
		close(fd);
		return -1;
	}
	*pie = eh.e_type == ET_DYN;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < *first_vaddr)
			*first_vaddr = ph.p_vaddr & ~0xfffull;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0;
		     d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			GElf_Sym s;
			const char *n;
			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, "_PyRuntime"))
				*runtime = s.st_value;
			if (n && !strcmp(n, "Py_Version"))
				*version = s.st_value;
		}
	}
	elf_end(e);
	close(fd);
	return *runtime && *version ? 0 : -1;
}

/*
 * _PyRuntime's and Py_Version's run-time addresses in pid: from the
 * .dynsym of the python3.X or libpython3.X.so it maps.  0, or -1.
 */
static int find_runtime(pid_t pid, uint64_t *runtime, uint64_t *version,
			char *which, size_t wlen)
{
	char fn[64], line[4096];
	unsigned long long lo, off;
	uint64_t rs, vs, first;
	int pie, found = -1;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "r");
	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *base;
		if (!p || sscanf(line, "%llx-%*s %*s %llx", &lo, &off) != 2 ||
		    off != 0)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (strncmp(base, "python3", 7) &&
		    strncmp(base, "libpython3", 10))
			continue;
		if (elf_syms(p, &rs, &vs, &pie, &first) < 0)
			continue;
		*runtime = rs + (pie ? lo - first : 0);
		*version = vs + (pie ? lo - first : 0);
		snprintf(which, wlen, "%s", p);
		found = 0;
	}
	fclose(f);
	return found;
}

/*
 * Whether the main thread of pid sits in read(2) (/proc/PID/syscall);
 * -1 when the kernel does not say (no CONFIG_HAVE_ARCH_TRACEHOOK).
 */
static int in_read(pid_t pid)
{
	char fn[64], buf[64] = "";
	int fd;
	ssize_t n;

	snprintf(fn, sizeof(fn), "/proc/%d/syscall", (int)pid);
	fd = open(fn, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	return n > 2 && !strncmp(buf, "0 ", 2);
}

static size_t task_tids(pid_t pid, pid_t *tids, size_t max)
{
	char fn[64];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	snprintf(fn, sizeof(fn), "/proc/%d/task", (int)pid);
	dir = opendir(fn);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max)
		if (d->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(d->d_name);
	closedir(dir);
	return n;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The frames of tstate against "name:line" words of the script's line. */
static void check_chain(struct pyrt *rt, struct live *lv, uint64_t tstate,
			char *words)
{
	static const int entry[] = { 0, 1, 0, 0, 1 }; /* map() calls level1 */
	struct pyrt_frame fr[32];
	char *w, *save = NULL;
	int n, st, i = 0, k;

	n = pyrt_frames(rt, tstate, fr, 32, &st);
	CHECKF(n == 5 && st == PYRT_END, "%d frames, status %d", n, st);
	for (w = strtok_r(words, " \n", &save); w;
	     w = strtok_r(NULL, " \n", &save), i++) {
		struct pycode c;
		char got[PYRT_MAX_NAME + 16];
		if (i >= n)
			break;
		if (pyrt_code(rt, fr[i].code, &c) < 0) {
			CHECKF(0, "frame %d: code %#llx: %s", i,
			       (unsigned long long)fr[i].code, strerror(errno));
			continue;
		}
		snprintf(got, sizeof(got), "%s:%d", c.name,
			 pyrt_line(&c, fr[i].lasti));
		CHECKF(!strcmp(got, w), "frame %d: %s, not %s", i, got, w);
		CHECKF(fr[i].is_entry == (i < 5 ? entry[i] : 0),
		       "frame %d (%s): is_entry %d", i, w, fr[i].is_entry);
		if (i == 4)
			CHECK(!strcmp(c.filename, "<string>") &&
			      !strcmp(c.qualname, "<module>"));
		if (i == 1)
			CHECK(!strcmp(c.qualname, "level1") &&
			      c.firstlineno == 14);
		pycode_free(&c);
	}
	CHECKF(i == 5, "the script printed %d frames", i);

	/* the stop-window cost: reads and bytes of one walk, and its time */
	lv->reads = lv->bytes = 0;
	(void)pyrt_frames(rt, tstate, fr, 32, &st);
	printf("pyrt_frames, %d frames: %lu reads, %lu bytes\n", n, lv->reads,
	       lv->bytes);
	{
		struct pycode c;
		double t0 = now_ns();
		for (k = 0; k < 2000; k++)
			(void)pyrt_frames(rt, tstate, fr, 32, &st);
		printf("pyrt_frames: %.0f ns per call (process_vm_readv)\n",
		       (now_ns() - t0) / 2000);
		lv->reads = lv->bytes = 0;
		if (pyrt_code(rt, fr[0].code, &c) == 0) {
			printf("pyrt_code: %lu reads, %lu bytes\n", lv->reads,
			       lv->bytes);
			pycode_free(&c);
		}
	}
}

/*
 * The same walk through pyrt_pages_read(): the same frames, in fewer
 * reads underneath (printed, with the time per call).
 */
static void check_pages(uint32_t vword, uint64_t rtaddr, struct live *lv,
			uint64_t tstate)
{
	static struct pyrt_pages pc;
	struct pyrt_frame a[32], b[32];
	char err[256];
	struct pyrt *rt, *direct;
	int na, nb, sa, sb, k;
	double t0;

	pyrt_pages_init(&pc, live_read, lv);
	rt = pyrt_open(vword, rtaddr, pyrt_pages_read, &pc, err, sizeof(err));
	direct = pyrt_open(vword, rtaddr, live_read, lv, err, sizeof(err));
	CHECKF(rt && direct, "%s", err);
	if (!rt || !direct)
		goto out;
	pyrt_pages_reset(&pc);
	pc.reads = 0;
	lv->bytes = 0;
	na = pyrt_frames(rt, tstate, a, 32, &sa);
	printf("pyrt_frames through pyrt_pages_read: %lu reads, %lu bytes\n",
	       pc.reads, lv->bytes);
	nb = pyrt_frames(direct, tstate, b, 32, &sb);
	CHECKF(na == nb && sa == sb && na > 0, "%d/%d frames", na, nb);
	for (k = 0; k < na && k < nb; k++)
		CHECKF(a[k].frame == b[k].frame && a[k].code == b[k].code &&
			       a[k].lasti == b[k].lasti &&
			       a[k].is_entry == b[k].is_entry,
		       "frame %d differs", k);
	t0 = now_ns();
	for (k = 0; k < 2000; k++) {
		pyrt_pages_reset(&pc);
		(void)pyrt_frames(rt, tstate, a, 32, &sa);
	}
	printf("pyrt_frames through pyrt_pages_read: %.0f ns per call\n",
	       (now_ns() - t0) / 2000);
out:
	pyrt_close(rt);
	pyrt_close(direct);
}

static void check_sleeper(struct pyrt *rt, uint64_t tstate)
{
	struct pyrt_frame fr[32];
	struct pycode c;
	int n, st;

	n = pyrt_frames(rt, tstate, fr, 32, &st);
	CHECKF(n >= 2 && st == PYRT_END, "sleeper: %d frames, status %d", n,
	       st);
	if (n < 2)
		return;
	if (pyrt_code(rt, fr[0].code, &c) == 0) {
		CHECKF(!strcmp(c.name, "sleeper") &&
			       pyrt_line(&c, fr[0].lasti) == 7,
		       "sleeper's top frame: %s:%d", c.name,
		       pyrt_line(&c, fr[0].lasti));
		pycode_free(&c);
	}
	/* Thread._bootstrap, called by the C thread entry */
	CHECK(fr[n - 1].is_entry);
	if (pyrt_code(rt, fr[n - 1].code, &c) == 0) {
		CHECKF(!strcmp(c.qualname, "Thread._bootstrap"), "%s",
		       c.qualname);
		pycode_free(&c);
	}
}

static void live_checks(pid_t pid, char *line, unsigned minor)
{
	uint64_t rtaddr, veraddr, vword = 0;
	struct pyrt_thread th[16];
	struct live lv = { pid, 0, 0 };
	pid_t tids[64];
	size_t ntid;
	long sleeper_tid;
	char err[256], *words, image[4096];
	struct pyrt *rt;
	int n, i, found_main = -1, found_sleeper = -1;

	if (find_runtime(pid, &rtaddr, &veraddr, image, sizeof(image)) < 0) {
		CHECKF(0,
		       "no _PyRuntime or Py_Version in the .dynsym of an "
		       "image of %d",
		       (int)pid);
		return;
	}
	CHECK(live_read(&lv, veraddr, &vword, 8) == 0);
	printf("%s: Py_Version %#llx, _PyRuntime at %#llx\n", image,
	       (unsigned long long)vword, (unsigned long long)rtaddr);
	rt = pyrt_open((uint32_t)vword, rtaddr, live_read, &lv, err,
		       sizeof(err));
	CHECKF(rt != NULL, "pyrt_open: %s", err);
	if (!rt)
		return;
	CHECK(pyrt_version(rt) == (0x0300 | minor));
	n = pyrt_threads(rt, th, 16, err, sizeof(err));
	CHECKF(n == 2, "%d thread states: %s", n, err);
	if (sscanf(line, "T %ld", &sleeper_tid) != 1)
		sleeper_tid = -1;
	for (i = 0; i < n && i < 16; i++) {
		if (th[i].native_id == (uint64_t)pid)
			found_main = i;
		if ((long)th[i].native_id == sleeper_tid)
			found_sleeper = i;
	}
	CHECKF(found_main >= 0, "no thread state of the main thread %d",
	       (int)pid);
	CHECKF(found_sleeper >= 0, "no thread state of thread %ld",
	       sleeper_tid);
	ntid = task_tids(pid, tids, 64);
	CHECKF(pyrt_check(rt, tids, ntid, err, sizeof(err)) == 0, "%s", err);
	tids[0] = 1; /* a process whose threads are not the states' */
	CHECK(pyrt_check(rt, tids, 1, err, sizeof(err)) == -1);
	words = strstr(line, "waiter:");
	if (found_main >= 0 && words) {
		check_chain(rt, &lv, th[found_main].tstate, words);
		check_pages((uint32_t)vword, rtaddr, &lv,
			    th[found_main].tstate);
	}
	if (found_sleeper >= 0)
		check_sleeper(rt, th[found_sleeper].tstate);
	pyrt_close(rt);
}

/* 0 ran, 77 cannot run here (python is not 3.minor). */
static int test_live(const char *python, unsigned minor)
{
	char cmd[4200], want[32];
	int in[2], out[2], i, status;
	char line[4096] = "";
	ssize_t got = 0, r;
	pid_t pid;
	FILE *v;

	snprintf(cmd, sizeof(cmd),
		 "%s -c 'import sys; print(sys.version_info[:2])' 2>/dev/null",
		 python);
	snprintf(want, sizeof(want), "(3, %u)", minor);
	v = popen(cmd, "r");
	if (!v)
		return 77;
	if (!fgets(line, sizeof(line), v) ||
	    strncmp(line, want, strlen(want))) {
		pclose(v);
		return 77;
	}
	pclose(v);
	line[0] = '\0';
	if (pipe(in) < 0 || pipe(out) < 0)
		return 77;
	pid = fork();
	if (pid < 0)
		return 77;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(python, python, "-c", script, (char *)0);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	while (got < (ssize_t)sizeof(line) - 1 && !strchr(line, '\n')) {
		r = read(out[0], line + got, sizeof(line) - 1 - got);
		if (r <= 0)
			break;
		got += r;
		line[got] = '\0';
	}
	CHECKF(strchr(line, '\n') != NULL, "the script printed: %s", line);
	/* wait (bounded) until the main thread sits in os.read */
	for (i = 0; i < 500 && in_read(pid) == 0; i++)
		usleep(10000);
	if (in_read(pid) < 0)
		usleep(300000); /* no way to tell: give it time */
	CHECK(in_read(pid) != 0);
	printf("%s: %s", python, line);
	if (strchr(line, '\n'))
		live_checks(pid, line, minor);
	close(in[1]); /* os.read returns: the script ends */
	close(out[0]);
	for (i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 500) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return 0;
}

/*
 * More interpreters to read, when this machine has them: the paths in
 * PTPROF_TEST_PYTHONS (colon-separated, each ending in python3.X), else
 * pyenv's 3.11 to 3.13 (built with libpython3.X.so: the other way
 * _PyRuntime is found).
 */
static void test_more_pythons(void)
{
	const char *env = getenv("PTPROF_TEST_PYTHONS"), *home = getenv("HOME");
	char pat[4096], *list, *p, *save = NULL;
	glob_t g = { 0 };
	size_t i;

	if (env) {
		list = strdup(env);
		for (p = strtok_r(list, ":", &save); p;
		     p = strtok_r(NULL, ":", &save)) {
			char *dot = strrchr(p, '.');
			unsigned minor = dot ? (unsigned)atoi(dot + 1) : 0;
			CHECKF(test_live(p, minor) == 0,
			       "%s: not 3.%u or not runnable", p, minor);
		}
		free(list);
		return;
	}
	snprintf(pat, sizeof(pat),
		 "%s/.pyenv/versions/3.1[123].*/bin/python3.1[123]",
		 home ? home : "/root");
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *dot = strrchr(g.gl_pathv[i], '.');
		(void)test_live(g.gl_pathv[i], (unsigned)atoi(dot + 1));
	}
	globfree(&g);
}

int main(void)
{
	int live;

	fake = calloc(1, FAKE_SIZE);
	if (!fake)
		return 99;
	test_real_tables();
	test_made_tables();
	test_fake_valid();
	test_fake_hostile();
	test_pages();
	printf("fake reads: %lu\n", fake_reads);
	live = test_live("/usr/bin/python3", 11);
	test_more_pythons();
	free(fake);
	if (live == 77 && !unit_failures) {
		printf("test_pyrt: no CPython 3.11 at /usr/bin/python3: the "
		       "live part skipped\n");
		return 77;
	}
	return unit_result("test_pyrt");
}
