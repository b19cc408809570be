/*
 * test_leb128 - the one LEB128 reader and writer (util/leb128.h): DWARF's
 * examples (DWARF 4, figures 22 and 23), every boundary of 64 bits
 * (values that just fit, that are one bit too wide, padded encodings),
 * the bounds (len, max bytes), where *pos is left on failure, and a
 * round trip of writer and reader over many values.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "util/leb128.h"

static int rd_u(const uint8_t *b, size_t len, size_t max, uint64_t *v,
		size_t *pos)
{
	*pos = 0;
	return leb128_read_u64(b, len, pos, max, v);
}

static int rd_s(const uint8_t *b, size_t len, size_t max, int64_t *v,
		size_t *pos)
{
	*pos = 0;
	return leb128_read_s64(b, len, pos, max, v);
}

/* DWARF 4's figures 22 (unsigned) and 23 (signed). */
static void test_dwarf_examples(void)
{
	static const struct {
		uint8_t b[3];
		size_t n;
		uint64_t v;
	} u[] = {
		{ { 2 }, 1, 2 },	 { { 127 }, 1, 127 },
		{ { 0x80, 1 }, 2, 128 }, { { 0x81, 1 }, 2, 129 },
		{ { 0x82, 1 }, 2, 130 }, { { 0xb9, 100 }, 2, 12857 },
	};
	static const struct {
		uint8_t b[3];
		size_t n;
		int64_t v;
	} s[] = {
		{ { 2 }, 1, 2 },	 { { 0x7e }, 1, -2 },
		{ { 0xff, 0 }, 2, 127 }, { { 0x81, 0x7f }, 2, -127 },
		{ { 0x80, 1 }, 2, 128 }, { { 0x80, 0x7f }, 2, -128 },
		{ { 0x81, 1 }, 2, 129 }, { { 0xff, 0x7e }, 2, -129 },
	};
	uint8_t b[LEB128_MAX_BYTES];
	uint64_t v;
	int64_t sv;
	size_t pos;

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		CHECK(rd_u(u[i].b, u[i].n, 0, &v, &pos) == 0);
		CHECKF(v == u[i].v && pos == u[i].n, "u[%zu]", i);
		CHECK(leb128_put_u64(b, u[i].v) == u[i].n);
		CHECK(!memcmp(b, u[i].b, u[i].n));
	}
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		CHECK(rd_s(s[i].b, s[i].n, 0, &sv, &pos) == 0);
		CHECKF(sv == s[i].v && pos == s[i].n, "s[%zu]", i);
		CHECK(leb128_put_s64(b, s[i].v) == s[i].n);
		CHECK(!memcmp(b, s[i].b, s[i].n));
	}
}

/* 64 bits: what fits is 0, what does not is 1 with its low bits. */
static void test_overflow(void)
{
	uint8_t max[10] = { 0xff, 0xff, 0xff, 0xff, 0xff,
			    0xff, 0xff, 0xff, 0xff, 0x01 };
	uint8_t wide[10] = { 0xff, 0xff, 0xff, 0xff, 0xff,
			     0xff, 0xff, 0xff, 0xff, 0x03 };
	uint8_t pad[12] = { 0x81, 0x80, 0x80, 0x80, 0x80, 0x80,
			    0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	uint8_t far[12] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			    0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	uint8_t smin[10] = { 0x80, 0x80, 0x80, 0x80, 0x80,
			     0x80, 0x80, 0x80, 0x80, 0x7f };
	uint8_t sbig[10] = { 0xff, 0xff, 0xff, 0xff, 0xff,
			     0xff, 0xff, 0xff, 0xff, 0x00 };
	uint8_t sm1[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			    0xff, 0xff, 0xff, 0xff, 0x7f };
	uint64_t v;
	int64_t sv;
	size_t pos;

	CHECK(rd_u(max, 10, 10, &v, &pos) == 0 && v == UINT64_MAX && pos == 10);
	CHECK(rd_u(wide, 10, 10, &v, &pos) == 1 && v == UINT64_MAX &&
	      pos == 10);
	CHECK(rd_u(pad, 12, 0, &v, &pos) == 0 && v == 1 && pos == 12);
	CHECK(rd_u(far, 12, 0, &v, &pos) == 1 && v == 0 && pos == 12);
	CHECK(rd_s(smin, 10, 0, &sv, &pos) == 0 && sv == INT64_MIN);
	/* 2^63 - 1 fits; 2^64 - 1 (positive: bit 6 of the last byte clear)
	 * does not */
	CHECK(rd_s(sbig, 10, 0, &sv, &pos) == 0 && sv == INT64_MAX);
	CHECK(rd_s(sm1, 11, 0, &sv, &pos) == 0 && sv == -1 && pos == 11);
	CHECK(rd_s(max, 10, 0, &sv, &pos) == 1);
}

/* The bounds: len and max; *pos past what was read, *v 0. */
static void test_bounds(void)
{
	uint8_t cont[6] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	uint64_t v = 7;
	int64_t sv = 7;
	size_t pos;

	CHECK(rd_u(cont, 0, 0, &v, &pos) == -1 && v == 0 && pos == 0);
	CHECK(rd_u(cont, 3, 0, &v, &pos) == -1 && pos == 3);
	CHECK(rd_u(cont, 6, 5, &v, &pos) == -1 && v == 0 && pos == 5);
	CHECK(rd_u(cont, 6, 6, &v, &pos) == 0 && v == 1ull << 35 && pos == 6);
	CHECK(rd_s(cont, 4, 0, &sv, &pos) == -1 && sv == 0 && pos == 4);
	pos = 6; /* at the end already */
	CHECK(leb128_read_u64(cont, 6, &pos, 0, &v) == -1 && pos == 6);
	pos = 5; /* from the middle */
	CHECK(leb128_read_u64(cont, 6, &pos, 1, &v) == 0 && v == 1 && pos == 6);
}

/* Writer then reader, over powers of two and their neighbours. */
static void test_round_trip(void)
{
	uint8_t b[LEB128_MAX_BYTES];
	size_t n, pos;
	uint64_t v;
	int64_t sv;

	for (unsigned k = 0; k < 64; k++)
		for (int d = -1; d <= 1; d++) {
			uint64_t x = (1ull << k) + (uint64_t)(int64_t)d;
			int64_t y = (int64_t)x;

			n = leb128_put_u64(b, x);
			CHECKF(n <= LEB128_MAX_BYTES &&
				       n == (unsigned)(x ? (64 -
							    __builtin_clzll(x) +
							    6) / 7 :
							   1),
			       "u 2^%u%+d: %zu bytes", k, d, n);
			CHECKF(rd_u(b, n, LEB128_MAX_BYTES, &v, &pos) == 0 &&
				       v == x && pos == n,
			       "u 2^%u%+d", k, d);
			n = leb128_put_s64(b, y);
			CHECK(n <= LEB128_MAX_BYTES);
			CHECKF(rd_s(b, n, LEB128_MAX_BYTES, &sv, &pos) == 0 &&
				       sv == y && pos == n,
			       "s 2^%u%+d", k, d);
			if (y == INT64_MIN)
				continue; /* no -y */
			n = leb128_put_s64(b, -y);
			CHECKF(rd_s(b, n, LEB128_MAX_BYTES, &sv, &pos) == 0 &&
				       sv == -y && pos == n,
			       "s -(2^%u%+d)", k, d);
		}
}

int main(void)
{
	test_dwarf_examples();
	test_overflow();
	test_bounds();
	test_round_trip();
	return unit_result("test_leb128");
}
