/*
 * test_scan - the number scanners of util/scan.h on bounds, overflow,
 * digits out of case, and text that ends mid-number (no NUL read).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "util/scan.h"

/* scan_hex on s: how far it went, -1 when it failed unmoved, -2 when
 * it failed moved (never). */
static int hex(const char *s, size_t max, unsigned flags, uint64_t *v)
{
	const char *p = s;

	if (scan_hex(&p, s + strlen(s), max, flags, v))
		return p == s ? -1 : -2;
	return (int)(p - s);
}

static int dec(const char *s, uint64_t max, uint64_t *v)
{
	const char *p = s;

	if (scan_dec(&p, s + strlen(s), max, v))
		return p == s ? -1 : -2;
	return (int)(p - s);
}

static int sint(const char *s, int64_t min, int64_t max, int64_t *v)
{
	const char *p = s;

	if (scan_int(&p, s + strlen(s), min, max, v))
		return p == s ? -1 : -2;
	return (int)(p - s);
}

static void check_hex(void)
{
	uint64_t v = 7;

	CHECK(scan_hex_digit('0') == 0 && scan_hex_digit('f') == 15);
	CHECK(scan_hex_digit('F') == 15 && scan_hex_digit('g') == -1);
	CHECK(hex("7f00 x", 16, 0, &v) == 4 && v == 0x7f00);
	CHECK(hex("ffffffffffffffff", 16, 0, &v) == 16 && v == UINT64_MAX);
	CHECK(hex("10000000000000000", 16, 0, &v) == -1); /* 17 digits */
	CHECK(hex("123456789", 8, 0, &v) == -1);	  /* over max */
	CHECK(hex("12345678:", 8, 0, &v) == 8 && v == 0x12345678);
	CHECK(hex("AbC", 16, 0, &v) == 3 && v == 0xabc);
	CHECK(hex("ab", 16, SCAN_LOWER, &v) == 2 && v == 0xab);
	v = 9;
	CHECK(hex("AB", 16, SCAN_LOWER, &v) == -1 && v == 9); /* untouched */
	CHECK(hex("aB", 16, SCAN_LOWER, &v) == 1 && v == 0xa);
	CHECK(hex("", 16, 0, &v) == -1 && hex("x1", 16, 0, &v) == -1);
	/* the end is respected: "12" of "1234" */
	{
		const char *s = "1234", *p = s;

		CHECK(scan_hex(&p, s + 2, 16, 0, &v) == 0 && v == 0x12 &&
		      p == s + 2);
	}
}

static void check_dec(void)
{
	uint64_t v = 3;
	int64_t i = 3;

	CHECK(dec("0", UINT64_MAX, &v) == 1 && v == 0);
	CHECK(dec("18446744073709551615 ", UINT64_MAX, &v) == 20 &&
	      v == UINT64_MAX);
	CHECK(dec("18446744073709551616", UINT64_MAX, &v) == -1);
	CHECK(dec("99999999999999999999999", UINT64_MAX, &v) == -1);
	CHECK(dec("2147483647", INT32_MAX, &v) == 10 && v == INT32_MAX);
	CHECK(dec("2147483648", INT32_MAX, &v) == -1);
	CHECK(dec("-1", UINT64_MAX, &v) == -1 && dec("", 9, &v) == -1);
	CHECK(dec("10", 9, &v) == -1 && dec("9", 9, &v) == 1 && v == 9);
	CHECK(sint("-2147483648", INT32_MIN, INT32_MAX, &i) == 11 &&
	      i == INT32_MIN);
	CHECK(sint("-2147483649", INT32_MIN, INT32_MAX, &i) == -1);
	CHECK(sint("2147483647\n", INT32_MIN, INT32_MAX, &i) == 10 &&
	      i == INT32_MAX);
	CHECK(sint("-9223372036854775808", INT64_MIN, INT64_MAX, &i) == 20 &&
	      i == INT64_MIN);
	CHECK(sint("9223372036854775808", INT64_MIN, INT64_MAX, &i) == -1);
	CHECK(sint("-0", INT32_MIN, INT32_MAX, &i) == 2 && i == 0);
	CHECK(sint("-1", 0, 10, &i) == -1 && sint("-", -5, 5, &i) == -1);
	CHECK(sint("3", -10, -5, &i) == -1 && sint("-3", -10, -5, &i) == -1);
	CHECK(sint("-7", -10, -5, &i) == 2 && i == -7);
}

int main(void)
{
	check_hex();
	check_dec();
	return unit_result("test_scan");
}
