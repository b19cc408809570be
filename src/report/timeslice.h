/*
 * timeslice.h - a profile cut to a window of time: ptprof report
 * --from=SEC --to=SEC.
 *
 * A window is [from, to) in nanoseconds after the profile's start
 * (struct profile.time_nanos, pprof's Profile.time_nanos); a record is
 * in it when its time (profile_record.time_ns: its "time" label, the
 * start of its tick's slot, pprof_out.h) minus the start is.  So a
 * window is exact to a slot: --from=1.005 keeps the samples of the
 * slot that starts at 1.000 s out, and those of the slot at 1.010 s in.
 *
 * Contract: no state; never prints or exits.  timeslice_parse_sec() and
 * timeslice_check() write one sentence (no newline) into err on bad
 * input and return -1 (errno EINVAL).  Times a file gives are any int64:
 * a difference that does not fit is outside every window, never
 * undefined behaviour.
 */
#ifndef PTPROF_TIMESLICE_H
#define PTPROF_TIMESLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h"

/* The largest SEC accepted: about 292 years of nanoseconds in an int64. */
#define TIMESLICE_MAX_SEC 9.2e9

struct timeslice {
	int64_t from_ns; /* 0: from the start */
	int64_t to_ns;	 /* INT64_MAX: to the end */
};

/*
 * SEC: a decimal number of seconds, fractions allowed ("1.5", ".25",
 * "10"), 0 to TIMESLICE_MAX_SEC, into *ns (rounded to the nearest ns).
 * No sign, exponent, hex, "inf" or "nan"; opt names the option in the
 * error ("--from").
 */
int timeslice_parse_sec(const char *arg, const char *opt, int64_t *ns,
			char *err, size_t errlen);

/* A window [from_ns, to_ns) that holds something: from before to. */
int timeslice_check(const struct timeslice *w, char *err, size_t errlen);

/* The ns from start to t (both ns since the epoch, any int64): 0 when t
 * is before start; exact up to 2^64 - 1, never an overflow. */
uint64_t timeslice_after(int64_t t, int64_t start);

/* Is a record of time t in w, for a profile that starts at start?
 * (t 0, no time: never; before start: as at the start, 0 s, as the
 * time strip has it: a slot that began before the run.) */
bool timeslice_has(const struct timeslice *w, int64_t start, int64_t t);

/* Whether p can be cut (below): 0, else -1 with err and errno EINVAL.
 * Of several files merged, each is asked before the merge: a file that
 * cannot be cut (a legacy one) would lose all its samples unsaid. */
int timeslice_usable(const struct profile *p, const char *path, char *err,
		     size_t errlen);

/*
 * Keep only p's records in w (the others are dropped, order kept;
 * total_samples recounted); how many are left.  -1 with err and errno
 * EINVAL, p untouched, when p cannot be cut: it has no start
 * (time_nanos 0: a legacy profile, or a protobuf without one) or no
 * sample times (no record has a "time" label).  path names the file in
 * err.
 */
ssize_t timeslice_keep(struct profile *p, const struct timeslice *w,
		       const char *path, char *err, size_t errlen);

#endif /* PTPROF_TIMESLICE_H */
