/*
 * options_value.c - the values options share (options_int.h): whole
 * and decimal numbers, the -p and -t lists, --top, the --thread-name pattern.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/options_int.h"
#include "profile/procset.h"
#include "util/errbuf.h"
#include "util/grow.h"

/* Parse a whole decimal number in [min, max]; -1 if anything else. */
int options_value_ulong(const char *s, unsigned long min, unsigned long max,
			unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int options_value_decimal(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789"), frac = 0;
	char *end;
	double v;

	/* One number grammar for every option: decimal digits, with a
	 * fraction (no sign, blank, hex float, exponent, inf or nan, which
	 * strtod() would take). */
	if (s[digits] == '.')
		frac = strspn(s + digits + 1, "0123456789");
	if (digits + frac == 0 ||
	    s[digits + (s[digits] == '.' ? 1 + frac : 0)] != '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The next item of a comma-separated list at *p, into num, *p moved past
 * it; whether another item follows.  An item too long for num is cut
 * and ends in "...", which no number check takes. */
static bool list_item(const char **p, char *num, size_t size)
{
	size_t n = strcspn(*p, ",");

	if (n < size)
		snprintf(num, size, "%.*s", (int)n, *p);
	else
		snprintf(num, size, "%.*s...", (int)size - 4, *p);
	*p += n;
	return *(*p)++ == ',';
}

/* The next PID of -p, s the whole argument: a positive number, not
 * given yet, within the cap (perf's convention: -p 1,2 -p 3). */
int options_value_pid(const char *num, const char *s, struct options *o,
		      char *err, size_t len)
{
	unsigned long v;
	pid_t *np;

	if (options_value_ulong(num, 1, INT_MAX, &v))
		return strchr(s, ',') ?
			       errbuf_fail(err, len, EINVAL,
					   "invalid PID '%s' in -p '%s': expected positive numbers separated by commas",
					   num, s) :
			       errbuf_fail(err, len, EINVAL,
					   "invalid PID '%s': expected a positive number",
					   s);
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == (pid_t)v)
			return errbuf_fail(
				err, len, EINVAL,
				"PID %lu is given twice with -p: name each process once",
				v);
	if (o->npids == PROCSET_MAX_LIVE)
		return errbuf_fail(err, len, EINVAL,
				   "too many PIDs: -p takes at most %d processes",
				   PROCSET_MAX_LIVE);
	np = grow_array(o->pids, &o->pids_cap_, o->npids + 1, sizeof(*np));
	if (!np)
		return errbuf_fail(err, len, ENOMEM, "out of memory");
	o->pids = np;
	o->pids[o->npids++] = (pid_t)v;
	o->pid = o->pids[0];
	return 0;
}

/* -p PID[,PID...], -t TID[,TID...]: each item to add(). */
int options_value_list(const char *s, options_add_fn add, struct options *o,
		       char *err, size_t len)
{
	const char *p = s;
	char num[24];
	bool more;

	do {
		more = list_item(&p, num, sizeof(num));
		if (add(num, s, o, err, len))
			return -1;
	} while (more);
	return 0;
}

/* The next TID of -t, s the whole argument. */
int options_value_tid(const char *num, const char *s, struct options *o,
		      char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(num, 1, INT_MAX, &v))
		return errbuf_fail(
			err, len, EINVAL,
			"invalid TID '%s' in -t '%s': expected positive numbers separated by commas",
			num, s);
	if (o->ntids == OPTIONS_MAX_TIDS)
		return errbuf_fail(err, len, EINVAL,
				   "too many TIDs: -t takes at most %d",
				   OPTIONS_MAX_TIDS);
	o->tids[o->ntids++] = (pid_t)v;
	return 0;
}

/* Bounds on a --thread-name pattern: glibc's regcomp() expands every
 * counted repetition, so '(a{1,1000}){1,1000}' grows to about 1 GB and
 * does not answer for minutes.  A thread name is at most 15 bytes: no
 * useful pattern comes near these. */
#define RE_MAX_LEN 256	  /* bytes of pattern */
#define RE_MAX_COUNT 255  /* the largest count of a {m,n} */
#define RE_MAX_SIZE 10000 /* atoms once every {m,n} is expanded */

#define RE_MAX_DEPTH 32

/* The count a "{m}", "{m,}" or "{m,n}" at *p stands for (its largest
 * copy count; "{m,}" as m + 1), p moved past it; -1 when it is not a
 * count (then regcomp() judges it), RE_MAX_COUNT + 1 when too large. */
static long re_count(const char **p)
{
	const char *q = *p + 1;
	long m = 0, n;

	if (*q < '0' || *q > '9')
		return -1;
	while (*q >= '0' && *q <= '9' && m <= RE_MAX_COUNT)
		m = m * 10 + (*q++ - '0');
	n = m;
	if (*q == ',') {
		q++;
		n = m + 1;
		if (*q >= '0' && *q <= '9') {
			n = 0;
			while (*q >= '0' && *q <= '9' && n <= RE_MAX_COUNT)
				n = n * 10 + (*q++ - '0');
		}
	}
	if (*q != '}') {
		if (m > RE_MAX_COUNT || n > RE_MAX_COUNT)
			return RE_MAX_COUNT + 1;
		return -1;
	}
	*p = q;
	return n > m ? n : m;
}

/* A size bound for what regcomp() makes of ERE s: atoms, with groups and
 * counted repetitions multiplied out.  A sentence in why when it is too
 * large; 0 when it is not (malformed patterns are left to regcomp()). */
static int re_too_large(const char *s, char *why, size_t len)
{
	double total[RE_MAX_DEPTH + 1] = { 0 }, last[RE_MAX_DEPTH + 1] = { 0 };
	int d = 0;
	long c;

	if (strlen(s) > RE_MAX_LEN)
		return errbuf_fail(why, len, EINVAL, "longer than %d bytes",
				   RE_MAX_LEN);
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '(':
			if (d == RE_MAX_DEPTH)
				return errbuf_fail(why, len, EINVAL,
						   "groups nested deeper than %d",
						   RE_MAX_DEPTH);
			total[++d] = 0;
			last[d] = 0;
			continue;
		case ')':
			if (d == 0)
				break; /* regcomp() will say */
			last[d - 1] = total[d];
			total[d - 1] += total[d];
			d--;
			continue;
		case '{':
			c = re_count(&p);
			if (c > RE_MAX_COUNT)
				return errbuf_fail(why, len, EINVAL,
						   "a repetition count above %d",
						   RE_MAX_COUNT);
			if (c > 1) {
				total[d] += last[d] * (double)(c - 1);
				last[d] *= (double)c;
			}
			if (c >= 0)
				continue;
			break;
		case '\\':
			if (p[1])
				p++;
			break;
		case '[':
			/* A bracket expression is one atom: skip to its ']' (a
			 * ']' first, after an optional '^', is a member). */
			p += p[1] == '^' ? 2 : 1;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return 0;
			break;
		case '*':
		case '+':
		case '?':
		case '|':
			continue;
		}
		last[d] = 1;
		total[d] += 1;
		if (total[d] > RE_MAX_SIZE)
			break;
	}
	for (int i = 0; i <= d; i++)
		if (total[i] > RE_MAX_SIZE)
			return errbuf_fail(why, len, EINVAL,
					   "more than %d characters' worth once "
					   "its repetitions are expanded",
					   RE_MAX_SIZE);
	return 0;
}

int options_value_thread_name(const char *s, struct options *o, char *err,
			      size_t len)
{
	regex_t re;
	char why[128];
	int rc;

	if (re_too_large(s, why, sizeof(why)))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --thread-name '%s': %s", s, why);
	rc = regcomp(&re, s, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return errbuf_fail(err, len, EINVAL,
				   "invalid --thread-name '%s': %s", s, why);
	}
	regfree(&re);
	o->thread_name = s;
	return 0;
}

int options_value_top(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, 0, 1000000, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --top '%s': expected 0..1000000",
				   s);
	o->top = (unsigned)v;
	return 0;
}
