/*
 * record_warn.h - the warnings and notes after a recording's summary
 * line, on stderr, even with -q: what the profile misses and why (threads
 * another tracer held, descriptors short, CPU time in no sample or in
 * child processes, the system call bias, processes skipped or not
 * followed, Python frames), and where the samples of the processes the
 * legacy file cannot hold went.  Each is one line, said only when it
 * applies; nothing fails.
 */
#ifndef PTPROF_RECORD_WARN_H
#define PTPROF_RECORD_WARN_H

#include "cli/record_summary.h"

/* Every warning of the run that applies, in a fixed order. */
void record_warn(const struct record_run *run);

#endif /* PTPROF_RECORD_WARN_H */
