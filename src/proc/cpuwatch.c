/*
 * cpuwatch.c - the CPU time of a profiled process and its children (see
 * cpuwatch.h).
 */
#include "config.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "proc/cpuwatch.h"
#include "proc/procfs.h"
#include "util/timeutil.h"

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC +
	       (uint64_t)tv->tv_usec * NSEC_PER_USEC;
}

int cpuwatch_self_ns(uint64_t *ns)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	*ns = timeval_ns(&ru.ru_utime) + timeval_ns(&ru.ru_stime);
	return 0;
}

void cpuwatch_start(struct cpuwatch *w, pid_t pid, bool launched)
{
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->last_at = mono_now_ns();
	w->last.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (launched)
		w->have_first = true;
	else if (procfs_cpu_times(w->pid, &w->first) == 0)
		w->last = w->first, w->have_first = true;
}

void cpuwatch_read(struct cpuwatch *w)
{
	struct procfs_cpu c;

	if (procfs_cpu_times(w->pid, &c))
		return; /* gone: the last reading stands */
	w->last = c;
	w->last_at = mono_now_ns();
}

/* RUSAGE_CHILDREN is COMMAND's tree's CPU time and that of the writers
 * of rotated files (bgwrite.h), which is taken off. */
static uint64_t rusage_tree_ns(const struct cpuwatch *w,
			       const struct rusage *ru)
{
	uint64_t all = timeval_ns(&ru->ru_utime) + timeval_ns(&ru->ru_stime);

	return all > w->writers_ns ? all - w->writers_ns : 0;
}

/*
 * CPU time the target's child processes used during the run: the
 * children it waited for (reaped) add their CPU time, and their own
 * reaped descendants', to its cutime and cstime.  So, from the readings
 * of /proc/PID/stat, the growth of those.  But a COMMAND that ptprof
 * reaped during the run is gone before its last children's time could be
 * read (`sh -c 'xz ...'` reaps xz and exits at once): then ptprof's own
 * RUSAGE_CHILDREN is COMMAND's CPU time with all of its reaped
 * descendants', and COMMAND's own share is its last reading plus what its
 * threads, at most one per CPU, can have used from then until it was
 * reaped: an upper bound, so that a single busy process is never taken
 * for its children.  A child still running at the end is not counted.
 */
uint64_t cpuwatch_children_ns(const struct cpuwatch *w, bool reaped)
{
	uint64_t kids, gap, own, all;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int busy = w->last.threads;
	struct rusage ru;

	/* Counters that went backwards: the PID is another process's now. */
	kids = w->last.children_ns >= w->first.children_ns ?
		       w->last.children_ns - w->first.children_ns :
		       0;
	if (!reaped || getrusage(RUSAGE_CHILDREN, &ru))
		return kids;
	if (cpus > 0 && busy > cpus)
		busy = (int)cpus;
	gap = (w->end_at - w->last_at) * (uint64_t)(busy > 0 ? busy : 1);
	own = w->last.self_ns + gap;
	all = rusage_tree_ns(w, &ru);
	if (all > own + kids)
		kids = all - own;
	return kids;
}

/* The tree's CPU time over the run: with COMMAND reaped, all it and its
 * waited-for descendants used (RUSAGE_CHILDREN: ptprof has no other
 * child but the writers, taken off); with -p, the growth of the root's own and children's times. */
uint64_t cpuwatch_tree_ns(const struct cpuwatch *w, bool reaped)
{
	struct rusage ru;

	if (reaped && getrusage(RUSAGE_CHILDREN, &ru) == 0)
		return rusage_tree_ns(w, &ru);
	if (!w->have_first || w->last.self_ns < w->first.self_ns ||
	    w->last.children_ns < w->first.children_ns)
		return 0;
	return w->last.self_ns - w->first.self_ns + w->last.children_ns -
	       w->first.children_ns;
}

void cpuwatch_end(struct cpuwatch *w)
{
	w->end_at = mono_now_ns();
	cpuwatch_read(w);
}
