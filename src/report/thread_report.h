/*
 * thread_report.h - a profile's samples by thread or by process: the
 * tables of ptprof report --threads and --processes, and the --thread
 * and --pid filters of the other reports.
 *
 * Threads come from the records' tid and thread name (profile_read.h),
 * which only a pprof protobuf profile carries (profile.threads); callers
 * check that first.  Samples without thread labels (a protobuf of
 * another tool) make one row with TID "-" and no name.  A thread is its TID; when it was seen under several
 * names (it renamed itself), the row shows the name it had in the most
 * samples.
 *
 * Processes likewise come from the records' pid and process name
 * (process_id and process_name labels, profile.processes); a process is
 * its PID, shown with the name it had in the most samples (a process that
 * exec'd had several: make -> sh -> gcc), and samples without the labels
 * (a legacy profile, an older ptprof's protobuf) make one row with PID
 * "-" and no name.
 *
 * Contract: never prints elsewhere than the stream given, never exits.
 * thread_report_write() returns 0, or -1 with errno (a write error,
 * ENOMEM).
 */
#ifndef PTPROF_THREAD_REPORT_H
#define PTPROF_THREAD_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "profile/profile_read.h"

/*
 * "Total: N samples", a header, then one row per thread, most samples
 * first (then by TID): samples, % of all samples, TID, name.
 */
int thread_report_write(const struct profile *p, FILE *out);

/*
 * Keep only the records of one thread: sel is a TID when it is all
 * digits (and then also matches a thread of that name), else a thread
 * name.  Returns the number of records kept; total_samples follows.
 */
size_t thread_report_keep(struct profile *p, const char *sel);

/* The same by process: samples, %, PID, name. */
int thread_report_write_processes(const struct profile *p, FILE *out);

/* Keep only the records of one process (all its images): sel is a PID
 * when all digits (then also a process of that name), else a process
 * name, which keeps every process of that name. */
size_t thread_report_keep_process(struct profile *p, const char *sel);

#endif /* PTPROF_THREAD_REPORT_H */
