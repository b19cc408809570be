/*
 * timeslice.c - a profile cut to a window of time (see timeslice.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/timeslice.h"
#include "util/errbuf.h"

/* Digits with at most one '.', and at least one digit. */
static bool plain_decimal(const char *s)
{
	bool dot = false, digit = false;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digit = true;
		else if (*s == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

int timeslice_parse_sec(const char *arg, const char *opt, int64_t *ns,
			char *err, size_t errlen)
{
	double v;
	char *end;

	if (!plain_decimal(arg)) {
		errbuf_set(err, errlen,
			   "%s wants a number of seconds from the profile's "
			   "start (e.g. 1.5), not '%s'",
			   opt, arg);
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !isfinite(v) || v > TIMESLICE_MAX_SEC) {
		errbuf_set(err, errlen,
			   "%s: %s seconds is too far (at most %g)", opt, arg,
			   TIMESLICE_MAX_SEC);
		errno = EINVAL;
		return -1;
	}
	*ns = (int64_t)(v * 1e9 + 0.5); /* v >= 0: rounded */
	return 0;
}

int timeslice_check(const struct timeslice *w, char *err, size_t errlen)
{
	if (w->from_ns < w->to_ns)
		return 0;
	errbuf_set(err, errlen,
		   "--from (%.9g s) must be before --to (%.9g s): the window "
		   "is empty",
		   (double)w->from_ns / 1e9, (double)w->to_ns / 1e9);
	errno = EINVAL;
	return -1;
}

uint64_t timeslice_after(int64_t t, int64_t start)
{
	/* t - start in two's complement, read unsigned: exact when t >=
	 * start, whatever the signs */
	return t >= start ? (uint64_t)t - (uint64_t)start : 0;
}

bool timeslice_has(const struct timeslice *w, int64_t start, int64_t t)
{
	uint64_t d;

	if (!t || w->from_ns < 0 || w->to_ns <= 0)
		return false;
	/* A time before the start counts as the start: the first slot of
	 * a ptprof file starts up to a slot before time_nanos (the slot is
	 * the tick's time rounded down), and the time strip puts such a
	 * time in its first slot too (report.c). */
	d = timeslice_after(t, start);
	return d >= (uint64_t)w->from_ns && d < (uint64_t)w->to_ns;
}

int timeslice_usable(const struct profile *p, const char *path, char *err,
		     size_t errlen)
{
	if (p->time_nanos && p->times)
		return 0;
	errbuf_set(err, errlen,
		   "%s has no %s: --from and --to need a pprof profile "
		   "with sample times, as ptprof writes",
		   path,
		   !p->time_nanos ? "start time (Profile.time_nanos)" :
				    "sample times (\"time\" labels)");
	errno = EINVAL;
	return -1;
}

ssize_t timeslice_keep(struct profile *p, const struct timeslice *w,
		       const char *path, char *err, size_t errlen)
{
	size_t k = 0;

	if (timeslice_usable(p, path, err, errlen))
		return -1;
	p->total_samples = 0;
	for (size_t i = 0; i < p->nrecords; i++) {
		if (!timeslice_has(w, p->time_nanos, p->records[i].time_ns))
			continue;
		p->records[k++] = p->records[i];
		p->total_samples += p->records[i].count;
	}
	p->nrecords = k;
	return (ssize_t)k;
}
