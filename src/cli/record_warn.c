/*
 * record_warn.c - the warnings and notes after a recording (see
 * record_warn.h).
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/record_summary.h"
#include "cli/record_warn.h"
#include "proc/cpuwatch.h"
#include "proc/fsguard.h"
#include "profile/procset.h"
#include "profile/recwrite.h"
#include "report/report.h"
#include "sampler/sampler.h"
#include "sampler/sysbias.h"
#include "sampler/tselect.h"
#include "symbols/framename.h"
#include "util/timeutil.h"

/* Threads another tracer held were not sampled: say so, even with -q. */
static void warn_foreign(const struct sampler_stats *st)
{
	const char *comm = st->foreign_comm;

	if (!st->foreign_traced)
		return;
	if (st->foreign_traced == 1)
		cli_msg("warning: thread %d was not sampled: it is traced by PID "
			"%d (%s)",
			(int)st->foreign_tid, (int)st->foreign_tracer, comm);
	else
		cli_msg("warning: %llu threads were not sampled: they are traced "
			"by another process (thread %d by PID %d (%s), ...)",
			(unsigned long long)st->foreign_traced,
			(int)st->foreign_tid, (int)st->foreign_tracer, comm);
}

/* Descriptors ran short (RLIMIT_NOFILE): what it cost, once each. */
static void warn_fd_limit(const struct sampler_stats *st)
{
	struct rlimit rl;
	char lim[32] = "?";

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu",
			 (unsigned long long)rl.rlim_cur);
	if (st->threads_unread)
		cli_msg("warning: %llu thread%s not sampled at some ticks: "
			"%s CPU time could not be read (%s; ulimit -n %s)",
			(unsigned long long)st->threads_unread,
			st->threads_unread == 1 ? " was" : "s were",
			st->threads_unread == 1 ? "its" : "their",
			strerror(st->unread_errno), lim);
	if (st->threads_unkept)
		cli_msg("warning: the /proc files of %llu thread%s were "
			"reopened at every tick: too few file descriptors to "
			"keep them open (ulimit -n %s)",
			(unsigned long long)st->threads_unkept,
			st->threads_unkept == 1 ? "" : "s", lim);
}

/*
 * CPU mode: CPU time the target used that no stack could be given (threads
 * never caught running, or that exited between two readings): the profile
 * misses it, so say how much when it is 0.1 s and 5% of the total or more.
 */
static void warn_unsampled(const struct options *o,
			   const struct sampler_stats *st)
{
	double period = 1.0 / (o->hz ? o->hz : 100);
	double in = (double)st->samples * period;
	double out = (double)st->unsampled_ns / NSEC_PER_SEC;

	/* A tenth of a second at least: a shell that only forked and waited
	 * used a few ms, all of them unsampled (children.test). */
	if (o->wall || out < 0.1 || out * 20 < in + out)
		return;
	cli_msg("warning: %.2f s of the target's CPU time (%.0f%%) is in no "
		"sample: its threads ran in bursts never caught at a tick",
		out, 100.0 * out / (in + out));
}

/*
 * CPU mode: ptprof's own rows (framename.h), when one holds 1% of the
 * samples or more: a profile whose rows hide 1% of the time is still read
 * right, but the user should know the row is there and why.
 * "[CPU time not caught running]": threads that ran in bursts that ended
 * before a stop could take them (cpuacct.h, "Caught running").
 * "[CPU time of no stack]": processes or threads that ended before a
 * stack of theirs was taken (a shell's short commands, a compiler's
 * passes).
 */
static void note_own_row(const struct options *o,
			 const struct sampler_stats *st, uint64_t n,
			 enum framename_own kind, const char *why)
{
	/* A note, not a warning: -q, which asks for no summary, has none. */
	if (o->quiet || o->wall || !st->samples || n * 100 < st->samples)
		return;
	cli_msg("note: %.0f%% of the samples are \"%s\": %s",
		100.0 * (double)n / (double)st->samples,
		framename_own_name(framename_own_pc(kind)), why);
}

/* Descendants were to be followed but could not be, even with -q. */
static void warn_no_tree(const struct sampler_stats *st)
{
	if (st->tree_errno)
		cli_msg("warning: child processes were not followed: they "
			"cannot be found on this system (%s)",
			strerror(st->tree_errno));
}

/* Files on a filesystem that stopped answering (proc/fsguard.h): one
 * line for each such filesystem, even with -q. */
static void warn_hung_fs(void)
{
	const struct fsguard_hung *h;

	for (size_t i = 0; (h = fsguard_hung_get(i)); i++)
		cli_msg("warning: %s was not read: its filesystem (%s, device "
			"%u:%u) did not answer in %d s; its unwind tables, "
			"symbols and build ID are missing (%lu later reads "
			"there not tried)",
			h->path, h->type, major(h->dev), minor(h->dev),
			FSGUARD_QUIET_MS / 1000, h->refused);
}

/*
 * Processes of the set not sampled: one, and why, even with -q.  One
 * skipped after samples of it were taken (one that came to be traced by
 * its parent, PTRACE_TRACEME, or whose CPU time became unreadable) is in
 * the profile up to then: the line says so rather than "not sampled".
 * The process named is one never sampled when there is one.  The counts
 * are the whole run's: those freed at rotations are in
 * procset_retired(), which keeps the first and the first never sampled.
 */
static void warn_skipped(const struct procset *ps)
{
	const struct proc_image *first = NULL;
	size_t n = procset_retired(ps)->skipped;
	size_t partly = procset_retired(ps)->skipped_partly;

	for (size_t i = 0; i < procset_count(ps); i++) {
		const struct proc_image *im = procset_at(ps, i);

		if (!im->skipped)
			continue;
		n++;
		partly += im->samples > 0;
		if (!first || (first->samples && !im->samples))
			first = im;
	}
	if (n == 1 && first->samples)
		cli_msg("warning: process %d (%s) was not sampled after its "
			"first %llu samples: %s",
			(int)first->pid, first->comm,
			(unsigned long long)first->samples, first->skip_why);
	else if (n == 1)
		cli_msg("warning: process %d (%s) was not sampled: %s",
			(int)first->pid, first->comm, first->skip_why);
	else if (n > 1 && partly)
		cli_msg("warning: %zu processes were not sampled: process %d "
			"(%s): %s, ... (%zu of them after their first samples)",
			n, (int)first->pid, first->comm, first->skip_why,
			partly);
	else if (n > 1)
		cli_msg("warning: %zu processes were not sampled: process %d "
			"(%s): %s, ...",
			n, (int)first->pid, first->comm, first->skip_why);
}

/* After the summary: what the legacy FILE holds when other processes
 * than the root had samples (the process with the most: recwrite.h), and
 * where the rest is.  Rotated: each period's file holds its own busiest
 * process, and has its BASE.pb.gz; the last one is named. */
static void say_all_processes(const struct recwrite *w,
			      const struct procset *ps)
{
	const struct proc_image *im = procset_find(ps, w->legacy_pid);
	const char *rest = w->all_path	     ? w->all_path :
			   w->o.pprof_output ? w->rot.pprof :
					       NULL;
	bool rotated = w->rot.files > 1;
	size_t sampled = procset_sampled_pids(ps);
	char all[40] = "samples", head[PATH_MAX + 128];

	if (!w->o.legacy_output || !w->period_samples || !im)
		return; /* no other: BASE.pb.gz for Python frames (warn_python) */
	snprintf(head, sizeof(head), "%s%s%s holds %s (%d)",
		 rotated ? "each file holds the process with the most samples "
			   "of its period; the last, " :
			   "",
		 w->rot.legacy, rotated ? "," : "", im->comm, (int)im->pid);
	if (w->legacy_samples == w->period_samples) {
		cli_msg("%s, the only process with samples%s", head,
			rotated ? " in its period" : "");
		return;
	}
	if (!rest)
		return;
	if (sampled > 1 && !rotated)
		snprintf(all, sizeof(all), "%zu processes", sampled);
	cli_msg("%s only%s: %llu of %llu samples; the gperftools format holds "
		"one process; all %s are in %s%s",
		head, rotated ? "" : ", the process with the most samples",
		(unsigned long long)w->legacy_samples,
		(unsigned long long)w->period_samples, all,
		rotated ? "the .pb.gz beside each, like " : "", rest);
}

/* A selection that never picked a thread: say so, even with -q. */
static void warn_unselected(const struct tselect *sel,
			    const struct sampler_stats *st)
{
	if (tselect_active(sel) && !st->stacks)
		cli_msg("warning: no thread selected by %s%s%s was sampled",
			sel->ntids ? "-t" : "",
			sel->ntids && sel->have_re ? " or " : "",
			sel->have_re ? "--thread-name" : "");
}

/* Notable: half a second, and a tenth of the target's CPU time. */
#define CHILD_CPU_MIN_NS (500 * NSEC_PER_MSEC)

/*
 * Children followed: the tree's CPU time (the target's own and its
 * waited-for descendants') against the profile's.  A process found at the
 * tick after its fork and gone within a tick or two (a compiler driver,
 * as(1), a shell's short commands) leaves its time out, or part of it;
 * so does one that ended before its first reading.  What the sampler
 * counted as in no sample is warned about apart (warn_unsampled()).
 */
static void warn_tree_unprofiled(const struct options *o,
				 const struct sampler_stats *st, uint64_t tree)
{
	uint64_t in = st->samples * (NSEC_PER_SEC / (o->hz ? o->hz : 100)) +
		      st->unsampled_ns;
	double out;

	/* Time left out on purpose or said so already: a selection, threads
	 * or processes left alone (skipped, another tracer's, seccomp). */
	if (o->wall || tree <= in || o->ntids || o->thread_name ||
	    st->procs_skipped || st->seccomp_unsafe || st->foreign_traced)
		return;
	out = (double)(tree - in) / NSEC_PER_SEC;
	if (out < 0.1 || out * 20 < (double)tree / NSEC_PER_SEC)
		return;
	cli_msg("warning: %.2f s of the %.2f s of CPU time the process tree "
		"used (%.0f%%) is not in the profile: processes that lived "
		"only a tick or two, found or read too late (see ptprof(1), "
		"--children)",
		out, (double)tree / NSEC_PER_SEC,
		100.0 * out * NSEC_PER_SEC / (double)tree);
}

/* Work done in child processes is not in the profile: say so, and how
 * to profile it, even with -q. */
static void warn_children(const struct options *o, const struct cpuwatch *w,
			  const struct sampler_stats *st)
{
	uint64_t kids = w->have_first ?
				cpuwatch_children_ns(w, st->child_reaped) :
				0;
	uint64_t own = w->last.self_ns >= w->first.self_ns ?
			       w->last.self_ns - w->first.self_ns :
			       0;
	char who[64];

	if (o->children) {
		warn_tree_unprofiled(o, st,
				     cpuwatch_tree_ns(w, st->child_reaped));
		return;
	}
	if (kids < CHILD_CPU_MIN_NS || kids < (own + kids) / 10)
		return;
	if (o->action == ACTION_RECORD_COMMAND)
		snprintf(who, sizeof(who), "%s's",
			 report_base_name(o->command[0]));
	else
		snprintf(who, sizeof(who), "process %d's", (int)o->pid);
	cli_msg("warning: %s child processes used %.1f s of CPU time that was "
		"not profiled (ptprof follows only the process it starts or "
		"attaches to); profile the busy child with -p PID",
		who, (double)kids / NSEC_PER_SEC);
}

/*
 * CPU mode: samples that landed at system call exits far more often than
 * the target was in the kernel, and so few in user code that the
 * correction is unsure (sysbias.h): say so, with both shares, even with
 * -q.
 */
static void warn_syscall_bias(const struct options *o, const struct cpuwatch *w,
			      const struct sampler_stats *st)
{
	struct sysbias b;

	if (o->wall || !w->have_first || w->last.self_ns < w->first.self_ns ||
	    w->last.sys_ns < w->first.sys_ns ||
	    !sysbias_judge(st->stacks, st->samples, st->samples_at_syscall,
			   w->last.self_ns - w->first.self_ns,
			   w->last.sys_ns - w->first.sys_ns, &b))
		return;
	cli_msg("warning: %.0f%% of samples landed at a system call's exit "
		"while the threads spent %.0f%% of their CPU time in the "
		"kernel: their time in user code went to the few stacks "
		"stopped in user code, which favour the code just after the "
		"calls (see ptprof(1), SYSTEM CALL BIAS)",
		100 * b.at_syscall, 100 * b.in_kernel);
}

/* Python frames: a runtime refused (one line, the first); frames not
 * read for want of a pprof output, or unnamed in the legacy file. */
static void warn_python(const struct recwrite *w,
			const struct sampler_stats *st)
{
	if (st->py_warning[0])
		cli_msg("%s", st->py_warning);
	if (st->py_detected)
		cli_msg("process %d runs CPython: %s holds its native stacks "
			"only (the gperftools format cannot name Python "
			"frames); record with -o FILE.pb.gz for them",
			(int)st->py_detected_pid, w->rot.legacy);
	else if (st->py_merged && w->o.legacy_output &&
		 (w->o.pprof_output || w->all_path))
		cli_msg("%s holds Python frames as unnamed addresses (the "
			"gperftools format has no names); they are named in %s",
			w->rot.legacy,
			w->o.pprof_output ? w->rot.pprof : w->all_path);
}

void record_warn(const struct record_run *run)
{
	const struct options *o = run->o;
	const struct sampler_stats *st = run->st;

	say_all_processes(run->w, run->ps);
	warn_foreign(st);
	warn_fd_limit(st);
	warn_unsampled(o, st);
	note_own_row(o, st, st->uncaught_samples, FRAMENAME_OWN_NOT_CAUGHT,
		     "threads that ran in bursts shorter than a stop takes "
		     "(--stats: stop latency)");
	note_own_row(o, st, st->nostack_samples, FRAMENAME_OWN_NO_STACK,
		     "processes or threads that ended before a stack of theirs "
		     "was taken (their names are on the samples)");
	cli_warn_seccomp(st);
	warn_unselected(run->sel, st);
	warn_children(o, run->cpu, st);
	warn_syscall_bias(o, run->cpu, st);
	warn_skipped(run->ps);
	warn_hung_fs();
	warn_no_tree(st);
	warn_python(run->w, st);
}
