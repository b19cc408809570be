/*
 * record_summary.h - what a recording says when it is over, on stderr:
 * the summary line (unless -q), the warnings and notes (record_warn.h),
 * and with --stats the figures the summary leaves out, one "ptprof:
 * stats:" line each (ptprof(1) documents them).
 *
 * All of it reads a finished run, described by a struct record_run whose
 * pointers are the caller's, and only prints.
 */
#ifndef PTPROF_RECORD_SUMMARY_H
#define PTPROF_RECORD_SUMMARY_H

struct cpuwatch;
struct options;
struct procset;
struct recwrite;
struct sampler_stats;
struct tselect;

/* A recording written out, for what is said after it. */
struct record_run {
	const struct options *o;
	const struct sampler_stats *st;
	const struct procset *ps;
	const struct recwrite *w;   /* the files written (recwrite.h) */
	const struct cpuwatch *cpu; /* the target's CPU time (cpuwatch.h) */
	const struct tselect *sel;  /* the threads selected (tselect.h) */
};

/* The summary line (not with -q). */
void record_summary_line(const struct record_run *run);

/* --stats: the figures, one line each (nothing without --stats). */
void record_summary_stats(const struct record_run *run);

#endif /* PTPROF_RECORD_SUMMARY_H */
