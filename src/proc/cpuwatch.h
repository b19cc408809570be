/*
 * cpuwatch.h - the CPU time of a profiled process and of its children,
 * read from /proc/PID/stat while it is sampled, for the warnings about
 * time the profile misses (a command's children, a tree followed).
 *
 * The caller owns the struct; cpuwatch_start() fills it.  A reading that
 * fails (the process is gone) leaves the last one standing; nothing here
 * fails otherwise, and nothing prints.
 */
#ifndef PTPROF_CPUWATCH_H
#define PTPROF_CPUWATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/procfs.h"

struct cpuwatch {
	pid_t pid;
	/* The target's CPU time when sampling started (zero for COMMAND,
	 * read at once for -p) and as last read, at last_at (monotonic). */
	struct procfs_cpu first, last;
	bool have_first;
	uint64_t last_at;
	uint64_t end_at; /* when sampling ended (a launched COMMAND reaped) */
	uint64_t writers_ns; /* caller: the CPU time of its writers (bgwrite.h) */
};

/* Before sampling pid: the first reading (-p), or zero (launched, a
 * COMMAND just started: the unknown thread count stands for every
 * CPU). */
void cpuwatch_start(struct cpuwatch *w, pid_t pid, bool launched);

/* A reading now (between ticks). */
void cpuwatch_read(struct cpuwatch *w);

/* After sampling: the end noted, and the last reading. */
void cpuwatch_end(struct cpuwatch *w);

/* The CPU time the target's child processes used during the run;
 * reaped: ptprof reaped the launched COMMAND during the run. */
uint64_t cpuwatch_children_ns(const struct cpuwatch *w, bool reaped);

/* The tree's CPU time over the run (the target's own and its waited-for
 * descendants'); 0 when not known. */
uint64_t cpuwatch_tree_ns(const struct cpuwatch *w, bool reaped);

/* ptprof's own CPU time (RUSAGE_SELF) into *ns: 0, or -1 with errno. */
int cpuwatch_self_ns(uint64_t *ns);

#endif /* PTPROF_CPUWATCH_H */
