/*
 * wait_report.h - a --wall profile's time summed by what it waited for:
 * ptprof report --waits (issue 28).
 *
 * A --wall pprof profile labels each sample of a thread blocked in a
 * system call with its wait's kind (wait, a string: "mutex", "io",
 * "poll", "sleep", ...) and, for a lock or a join, the thread it waited
 * on (wait_holder, a TID): pprof_out.h, profile.h.  The report has one
 * row per (kind, holder), the rows with most samples first (then by
 * kind, then holder): its share of all the profile's samples, its time
 * (samples times the period; samples when the profile has no period),
 * the kind, "held by thread TID (NAME)" when a holder is known (NAME:
 * the thread_name the profile gives that TID most often, when any), and
 * "from FRAME": the waiters' innermost frame that is not the C
 * library's (libc, libpthread, the dynamic loader, the vDSO), the one
 * with most samples in the row ("and N more" when others had some too).
 * Then one line for the samples in no wait (running, or not labelled).
 *
 * A kind is printed only when it is lower-case letters (at most 15),
 * else "?"; names are escaped (textsafe.h).  Frames are named as the
 * table names them (framename.h; the profile's own names for what no
 * file names), by each record's space's symbolizer.
 *
 * Contract: never prints elsewhere than out, never exits; 0, or -1 with
 * errno (ENOMEM, a write error).  top: rows at most (0: all).  A profile
 * without wait labels gives the header and the line of samples in no
 * wait: the caller says why (wait_report_has_waits()).
 */
#ifndef PTPROF_WAIT_REPORT_H
#define PTPROF_WAIT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"
#include "symbols/symbolize.h"

/* Does some record of p carry a wait label? */
bool wait_report_has_waits(const struct profile *p);

/* The table; syms as report_build() takes them (report.h). */
int wait_report_write(const struct profile *p, struct symbolizer *const *syms,
		      FILE *out, size_t top);

#endif /* PTPROF_WAIT_REPORT_H */
