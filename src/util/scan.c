/*
 * scan.c - hex and decimal fields of hostile text (see scan.h).
 */
#include "config.h"

#include <stdbool.h>

#include "util/scan.h"

int scan_hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int scan_hex(const char **p, const char *end, size_t max_digits, unsigned flags,
	     uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t n = 0;
	int d;

	if (max_digits > 16)
		max_digits = 16;
	for (; s < end && (d = scan_hex_digit(*s)) >= 0; s++) {
		if ((flags & SCAN_LOWER) && *s >= 'A' && *s <= 'F')
			break;
		if (++n > max_digits)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*out = v;
	*p = s;
	return 0;
}

/* Digits at *p whose value is at most max, into *v; the end of them. */
static const char *dec(const char *s, const char *end, uint64_t max,
		       uint64_t *v, bool *ok)
{
	const char *start = s;

	*v = 0;
	*ok = true;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (*v > (max - d) / 10 || d > max)
			*ok = false;
		else
			*v = *v * 10 + d;
	}
	*ok = *ok && s > start;
	return s;
}

int scan_dec(const char **p, const char *end, uint64_t max, uint64_t *out)
{
	uint64_t v;
	bool ok;
	const char *s = dec(*p, end, max, &v, &ok);

	if (!ok)
		return -1;
	*out = v;
	*p = s;
	return 0;
}

int scan_int(const char **p, const char *end, int64_t min, int64_t max,
	     int64_t *out)
{
	const char *s = *p;
	bool neg = s < end && *s == '-', ok;
	uint64_t v, bound;
	int64_t r;

	if (neg)
		s++;
	if (neg ? min >= 0 : max < 0)
		return -1;
	/* the magnitude the bound on its side allows */
	bound = neg ? (uint64_t) - (min + 1) + 1 : (uint64_t)max;
	s = dec(s, end, bound, &v, &ok);
	if (!ok)
		return -1;
	r = neg ? (v ? -(int64_t)(v - 1) - 1 : 0) : (int64_t)v;
	if (r < min || r > max)
		return -1;
	*out = r;
	*p = s;
	return 0;
}
