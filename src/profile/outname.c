/*
 * outname.c - output file names: %p %t %n %% and the sequence number
 * appended to a rotated name (outname.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile/outname.h"
#include "util/errbuf.h"

#define OUTNAME_SEQ_DIGITS 4

int outname_check(const char *name, char *err, size_t errlen)
{
	for (const char *p = name; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'p' || p[1] == 't' || p[1] == 'n' || p[1] == '%') {
			p++;
			continue;
		}
		if (!p[1])
			errbuf_set(err, errlen,
				   "'%%' at the end of output name '%s': use "
				   "%%p, %%t, %%n or %%%%",
				   name);
		else
			errbuf_set(err, errlen,
				   "unknown directive '%%%c' in output name "
				   "'%s': use %%p, %%t, %%n or %%%%",
				   p[1], name);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Whether name holds the directive %c (not a "%%c"). */
static bool outname_has(const char *name, char c)
{
	for (const char *p = name; *p; p++)
		if (*p == '%' && p[1]) {
			if (p[1] == c)
				return true;
			p++;
		}
	return false;
}

bool outname_unique(const char *name)
{
	return outname_has(name, 'n') || outname_has(name, 't');
}

bool outname_is_template(const char *name)
{
	return strchr(name, '%') != NULL;
}

/* Append the text of s (n bytes) at out[*at]; ENAMETOOLONG past len. */
static int outname_put(char *out, size_t len, size_t *at, const char *s,
		       size_t n)
{
	if (n >= len - *at) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
	return 0;
}

/* The text one directive stands for, into buf. */
static size_t outname_directive(char c, const struct outname_vars *v, char *buf,
				size_t len)
{
	struct tm tm;

	switch (c) {
	case 'p':
		return (size_t)snprintf(buf, len, "%d", (int)v->pid);
	case 'n':
		return (size_t)snprintf(buf, len, "%0*lu", OUTNAME_SEQ_DIGITS,
					v->seq);
	case 't':
		if (!gmtime_r(&v->start, &tm))
			return (size_t)snprintf(buf, len, "%lld",
						(long long)v->start);
		return strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
	default:
		buf[0] = c;
		return 1;
	}
}

/* Where the extension of out starts (its length, without one). */
static size_t outname_ext_at(const char *out)
{
	const char *base = strrchr(out, '/');
	size_t n = strlen(out);
	const char *dot;

	base = base ? base + 1 : out;
	if (n >= 6 && !strcmp(out + n - 6, ".pb.gz"))
		return n - (size_t)(base - out) > 6 ? n - 6 : n;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return n;
	return (size_t)(dot - out);
}

/* The sequence number inserted before the extension of out. */
static int outname_number(char *out, size_t len, unsigned long seq)
{
	size_t at = outname_ext_at(out), n = strlen(out);
	char num[32];
	int k = snprintf(num, sizeof(num), ".%0*lu", OUTNAME_SEQ_DIGITS, seq);

	if (n + (size_t)k >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memmove(out + at + k, out + at, n - at + 1);
	memcpy(out + at, num, (size_t)k);
	return 0;
}

int outname_expand(const char *name, const struct outname_vars *v, bool number,
		   char *out, size_t len)
{
	size_t at = 0;
	char buf[64];

	if (!len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[0] = '\0';
	for (const char *p = name; *p; p++) {
		const char *lit = p;

		if (*p == '%' && p[1]) {
			size_t k = outname_directive(p[1], v, buf, sizeof(buf));

			if (outname_put(out, len, &at, buf, k))
				return -1;
			p++;
			continue;
		}
		if (outname_put(out, len, &at, lit, 1))
			return -1;
	}
	if (number && !outname_unique(name))
		return outname_number(out, len, v->seq);
	return 0;
}
