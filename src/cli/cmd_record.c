/*
 * cmd_record.c - ptprof -p PID and ptprof -- COMMAND: check, sample,
 * write the profile, summarise (cmds.h).
 *
 * Everything that can be refused is refused before the target is touched;
 * the profile is written in pieces (spill) while sampling, then committed;
 * the summary and the warnings come after, on stderr.  With -- COMMAND the
 * exit status is COMMAND's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/options.h"
#include "proc/launch.h"
#include "proc/maps.h"
#include "proc/procfs.h"
#include "profile/bgwrite.h"
#include "profile/outfile.h"
#include "profile/outname.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/profile_out.h"
#include "profile/stacktab.h"
#include "python/pyframes.h"
#include "report/report.h"
#include "sampler/sampler.h"
#include "sampler/sysbias.h"
#include "sampler/tselect.h"
#include "symbols/perfmap.h"
#include "util/timeutil.h"

/* profile_out_write's EINVAL: the path exists and is not a regular file;
 * EPERM on a link: somebody else's symbolic link, not followed, at FILE or
 * as one of its directories (outfile.h). */
static const char *output_error(const char *path, int err)
{
	static char why[PATH_MAX + 128];
	char link[PATH_MAX];
	struct stat st;

	if (err == EINVAL)
		return "not a regular file";
	if (err == EEXIST)
		return "the existing file cannot be kept: its .old name is taken "
		       "by a directory or another user's file (remove it or "
		       "choose another name)";
	if (err == EPERM &&
	    outfile_planted_link(path, link, sizeof(link)) == 1) {
		snprintf(why, sizeof(why),
			 "its directory '%s' is a symbolic link owned by another "
			 "user in a shared sticky directory (not followed)",
			 link);
		return why;
	}
	if (err == EPERM && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return "a symbolic link owned by another user (not followed)";
	return strerror(err);
}

static void check_output(const char *path)
{
	if (path && profile_out_check_writable(path))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s", path,
			output_error(path, errno));
}

/* -- COMMAND: what makes tracing impossible is said before it starts. */
static void check_launch(void)
{
	if (procfs_yama_scope() == 3)
		cli_die(EXIT_FAILURE,
			"cannot trace COMMAND: ptrace is disabled (kernel.yama.ptrace_scope = 3)");
}

static pid_t start_command(char **argv)
{
	char path[PATH_MAX];
	pid_t pid;

	if (launch_resolve(argv[0], path, sizeof(path))) {
		if (errno == ENOENT)
			cli_die(127, "%s: command not found", argv[0]);
		cli_die(126, "%s: cannot execute: %s", argv[0],
			strerror(errno));
	}
	pid = launch_start(path, argv);
	if (pid < 0)
		cli_die(errno == ENOENT ? 127 : 126, "%s: cannot execute: %s",
			argv[0], strerror(errno));
	return pid;
}

static double per_tick(uint64_t n, uint64_t ticks)
{
	return ticks ? (double)n / (double)ticks : 0;
}

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)(ns / NSEC_PER_USEC);
}

/* Why the run ended, for the summary line. */
static const char *end_reason(const struct sampler_stats *st, char *buf,
			      size_t size)
{
	switch (st->end) {
	case SAMPLER_END_DURATION:
		return "the duration (-d) was reached";
	case SAMPLER_END_TARGET_EXITED:
		return "the target exited";
	case SAMPLER_END_SIGNAL: {
		const char *name = sigabbrev_np(st->end_signal);

		if (name)
			snprintf(buf, size, "ptprof got SIG%s", name);
		else
			snprintf(buf, size, "ptprof got signal %d",
				 st->end_signal);
		return buf;
	}
	case SAMPLER_END_ERROR:
		break;
	}
	return "an error";
}

static void print_summary(const struct options *o,
			  const struct sampler_stats *st, size_t records,
			  const struct procset *ps, const char *const names[2],
			  unsigned long files)
{
	char nfiles[64] = "";

	uint64_t mean = st->ticks ? st->pause_total_ns / st->ticks : 0;
	size_t procs = procset_sampled_pids(ps);
	char why[64], nprocs[40] = "";

	if (o->quiet)
		return;
	if (procs > 1)
		snprintf(nprocs, sizeof(nprocs), "%zu processes, ", procs);
	if (files > 1)
		snprintf(nfiles, sizeof(nfiles), " (the last of %lu files)",
			 files);
	/* cli_msg(): the output names are escaped there (textsafe.h). */
	cli_msg("%llu ticks (%llu missed), %llu samples, %s%llu threads, "
		"%zu distinct stacks, %.1f threads stopped/tick, pause mean "
		"%llu us max %llu us p50 %llu us p99 %llu us, %.2f%% of %.1f s; "
		"ended: %s; wrote %s%s%s%s",
		(unsigned long long)st->ticks,
		(unsigned long long)st->missed_ticks,
		(unsigned long long)st->samples, nprocs,
		(unsigned long long)st->threads_seen, records,
		per_tick(st->threads_stopped, st->ticks), us(mean),
		us(st->pause_max_ns), us(sampler_pause_quantile(st, 0.5)),
		us(sampler_pause_quantile(st, 0.99)),
		st->elapsed_ns ? 100.0 * (double)st->pause_total_ns /
					 (double)st->elapsed_ns :
				 0.0,
		(double)st->elapsed_ns / NSEC_PER_SEC,
		end_reason(st, why, sizeof(why)), names[0],
		names[1] ? " and " : "", names[1] ? names[1] : "", nfiles);
}

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

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC +
	       (uint64_t)tv->tv_usec * NSEC_PER_USEC;
}

/* ns / n, 0 when n is 0. */
static unsigned long long mean_ns(uint64_t ns, uint64_t n)
{
	return n ? (unsigned long long)(ns / n) : 0;
}

/* Frame-pointer steps through code without unwind info (fpstep.h), and
 * the unwind time per stack with and without them. */
static void print_fp_stats(const struct unwinder_counters *u)
{
	fprintf(stderr,
		"ptprof: stats: frame-pointer steps %llu; stacks ended by a "
		"refused step: bad frame pointer %llu, unreadable %llu, "
		"return address not executable %llu, step limit %llu; "
		"unwind time per stack: mean %llu ns (%llu stacks), with "
		"frame-pointer steps %llu ns (%llu), without %llu ns\n",
		(unsigned long long)u->fp_steps,
		(unsigned long long)u->fp_stop_bad_fp,
		(unsigned long long)u->fp_stop_unreadable,
		(unsigned long long)u->fp_stop_not_exec,
		(unsigned long long)u->fp_stop_limit,
		mean_ns(u->unwind_ns, u->unwinds),
		(unsigned long long)u->unwinds,
		mean_ns(u->unwind_fp_ns, u->unwinds_fp),
		(unsigned long long)u->unwinds_fp,
		mean_ns(u->unwind_ns - u->unwind_fp_ns,
			u->unwinds - u->unwinds_fp));
}

/* --stats with --wall: the threads read without a stop (issue 17), and
 * why the others were stopped. */
static void print_peek_stats(const struct options *o,
			     const struct sampler_stats *st)
{
	uint64_t tried = st->peeked + st->peek_running + st->peek_changed +
			 st->peek_failed + st->peek_refused;

	if (!o->stats || !o->wall)
		return;
	if (o->no_peek) {
		fprintf(stderr, "ptprof: stats: peeks none (--no-peek)\n");
		return;
	}
	fprintf(stderr,
		"ptprof: stats: threads read without a stop (peeked) %llu "
		"(after a retry %llu), %.1f us per peek; stopped instead: "
		"running %llu, ran between the reads %llu, unreadable %llu, "
		"unwind needed a register %llu\n",
		(unsigned long long)st->peeked,
		(unsigned long long)st->peek_retried,
		tried ? (double)st->peek_ns / NSEC_PER_USEC / (double)tried : 0,
		(unsigned long long)st->peek_running,
		(unsigned long long)st->peek_changed,
		(unsigned long long)st->peek_failed,
		(unsigned long long)st->peek_refused);
}

/* --stats: the Python half (issue 16), when a CPython runtime was met. */
static void print_py_stats(const struct sampler_stats *st)
{
	const uint64_t *w = st->py_status;

	if (!st->py_procs && !st->py_refused)
		return;
	fprintf(stderr,
		"ptprof: stats: python: processes read %llu, refused %llu; "
		"stacks merged %llu, kept native: mismatch %llu, no entry "
		"frame %llu, walk not ended %llu, stale %llu, no thread state %llu "
		"(thread states read again %llu); frames unnamed %llu; walks "
		"%llu (end %llu, truncated %llu, unreadable %llu, bad pointer "
		"%llu, loop %llu), %.2f us and %.2f reads per walk; code "
		"objects read %llu (cache flushed %llu)\n",
		(unsigned long long)st->py_procs,
		(unsigned long long)st->py_refused,
		(unsigned long long)st->py_merged,
		(unsigned long long)st->py_mismatch,
		(unsigned long long)st->py_no_entry,
		(unsigned long long)st->py_unended,
		(unsigned long long)st->py_stale,
		(unsigned long long)st->py_no_tstate,
		(unsigned long long)st->py_refreshes,
		(unsigned long long)st->py_unnamed,
		(unsigned long long)st->py_walks, (unsigned long long)w[0],
		(unsigned long long)w[1], (unsigned long long)w[2],
		(unsigned long long)w[3], (unsigned long long)w[4],
		st->py_walks ? (double)st->py_walk_ns / NSEC_PER_USEC /
				       (double)st->py_walks :
			       0,
		st->py_walks ?
			(double)st->py_page_reads / (double)st->py_walks :
			0,
		(unsigned long long)st->py_code_reads,
		(unsigned long long)st->py_code_flushes);
}

/* " NAME MEAN/P50" of a phase of the stop window, in us (ptprof(1),
 * --stats); "NAME -" when it was never timed. */
static int phase_text(char *buf, size_t len, const struct sampler_stats *st,
		      enum sampler_phase ph, const char *name)
{
	const struct sampler_phase_stat *p = &st->phase[ph];

	if (!p->n)
		return snprintf(buf, len, "%s -", name);
	return snprintf(buf, len, "%s %.1f/%.1f/%.0f", name,
			(double)p->total_ns / NSEC_PER_USEC / (double)p->n,
			(double)sampler_phase_quantile(st, ph, 0.5) /
				NSEC_PER_USEC,
			(double)p->max_ns / NSEC_PER_USEC);
}

/* --stats: the stop window of a thread by phase (sampler.h). */
static void print_phase_stats(const struct sampler_stats *st)
{
	static const char *const names[SAMPLER_PHASES] = {
		[SAMPLER_PH_STOP] = "interrupt to stop reaped",
		[SAMPLER_PH_REGS] = "GETREGS",
		[SAMPLER_PH_STACK] = "stack copy",
		[SAMPLER_PH_PY] = "Python frames",
		[SAMPLER_PH_SECCOMP] = "seccomp guard",
		[SAMPLER_PH_DETACH] = "detach",
		[SAMPLER_PH_HELD] = "held (stop reaped to detach)",
		[SAMPLER_PH_WINDOW] = "whole (interrupt to detach)",
	};
	char t[SAMPLER_PHASES][80];
	uint64_t copies = st->phase[SAMPLER_PH_STACK].n;

	for (int i = 0; i < SAMPLER_PHASES; i++)
		phase_text(t[i], sizeof(t[i]), st, (enum sampler_phase)i,
			   names[i]);
	fprintf(stderr,
		"ptprof: stats: stop window per thread, mean/p50/max us: %s, %s, "
		"%s (%.0f bytes mean, %llu max, %llu copied again), %s, %s, "
		"%s; %s; %s; waits spun %llu, stops reaped spinning %llu\n",
		t[SAMPLER_PH_STOP], t[SAMPLER_PH_REGS], t[SAMPLER_PH_STACK],
		copies ? (double)st->stack_bytes / (double)copies : 0.0,
		(unsigned long long)st->stack_bytes_max,
		(unsigned long long)st->stack_hint_missed, t[SAMPLER_PH_PY],
		t[SAMPLER_PH_SECCOMP], t[SAMPLER_PH_DETACH], t[SAMPLER_PH_HELD],
		t[SAMPLER_PH_WINDOW], (unsigned long long)st->stops_spun,
		(unsigned long long)st->stops_caught_spinning);
}

/* --stats: what the summary leaves out, one "ptprof: stats:" line each. */
static void print_stats(const struct options *o, const struct sampler_stats *st)
{
	const struct unwinder_counters *u = &st->unwind;
	struct rusage ru;
	double cpu_us = 0;

	if (!o->stats)
		return;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu_us = (double)((timeval_ns(&ru.ru_utime) +
				   timeval_ns(&ru.ru_stime)) /
				  NSEC_PER_USEC);
	fprintf(stderr,
		"ptprof: stats: threads stopped %llu, spared %llu (not due), "
		"not selected %llu, late %llu (%llu sampled when they "
		"stopped; progress put off for their stops %llu), stacks "
		"%llu, samples reusing a last stack %llu, "
		"sweeps of quiet threads %llu, samples given at the end %llu, "
		"CPU time in no sample %.3f s\n",
		(unsigned long long)st->threads_stopped,
		(unsigned long long)st->threads_spared,
		(unsigned long long)st->threads_unselected,
		(unsigned long long)st->late_threads,
		(unsigned long long)st->late_captured,
		(unsigned long long)st->progress_deferred,
		(unsigned long long)st->stacks,
		(unsigned long long)st->reused_samples,
		(unsigned long long)st->sweeps,
		(unsigned long long)st->settled_samples,
		(double)st->unsampled_ns / NSEC_PER_SEC);
	fprintf(stderr,
		"ptprof: stats: ptprof cpu %.0f us, %.1f us per stack; pause "
		"per stopped thread %.1f us; one unwind (from the copy) p50 "
		"%u us, p99 %u us\n",
		cpu_us, st->stacks ? cpu_us / (double)st->stacks : 0,
		st->threads_stopped ?
			(double)st->pause_total_ns / NSEC_PER_USEC /
				(double)st->threads_stopped :
			0,
		sampler_unwind_quantile(st, 0.5),
		sampler_unwind_quantile(st, 0.99));
	fprintf(stderr,
		"ptprof: stats: stop latency (interrupt to stop reaped) p50 "
		"%llu us, p90 %llu us, p99 %llu us, max %llu us; stacks at a "
		"system call's exit %llu of %llu (%.1f%% of samples), "
		"samples moved by the correction %llu (to a call's caller "
		"%llu)\n",
		us(sampler_stop_quantile(st, 0.5)),
		us(sampler_stop_quantile(st, 0.9)),
		us(sampler_stop_quantile(st, 0.99)), us(st->stop_lat_max_ns),
		(unsigned long long)st->stacks_at_syscall,
		(unsigned long long)st->stacks,
		st->samples ? 100.0 * (double)st->samples_at_syscall /
				      (double)st->samples :
			      0.0,
		(unsigned long long)st->samples_moved,
		(unsigned long long)st->samples_to_caller);
	print_phase_stats(st);
	fprintf(stderr,
		"ptprof: stats: unwinder reads: stack copy %llu, module "
		"images %llu, target %llu; tables built %llu, missing %llu, "
		"from .debug_frame %llu (FDEs %llu, skipped %llu); "
		"libunwind cache size %s; unsafe unwind rules refused %llu, "
		"unwinds over budget %llu\n",
		(unsigned long long)u->mem_from_stack,
		(unsigned long long)u->mem_from_module,
		(unsigned long long)u->mem_from_target,
		(unsigned long long)u->tables_built,
		(unsigned long long)u->tables_missing,
		(unsigned long long)u->tables_debug_frame,
		(unsigned long long)u->debug_frame_fdes,
		(unsigned long long)u->debug_frame_skipped,
		u->cache_size_set == 0 ? "set" : "refused (default kept)",
		(unsigned long long)u->cfi_refused,
		(unsigned long long)u->budget_cuts);
	print_fp_stats(u);
}

/* The images by samples, most first: --stats shows the top ones. */
static int by_samples(const void *a, const void *b)
{
	const struct proc_image *x = *(const struct proc_image *const *)a;
	const struct proc_image *y = *(const struct proc_image *const *)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

#define STATS_PROCESSES 10

/* --stats of a run over several processes: how they were found, the
 * busiest, the skipped. */
static void print_process_stats(const struct sampler_stats *st,
				const struct procset *ps)
{
	size_t n = procset_count(ps);
	const struct proc_image **v;

	if (n < 2 && !st->discovery)
		return;
	fprintf(stderr,
		"ptprof: stats: processes found %llu, skipped %llu, images "
		"%zu\n",
		(unsigned long long)st->procs_found,
		(unsigned long long)st->procs_skipped, n);
	if (st->discovery)
		fprintf(stderr,
			"ptprof: stats: descendants found by %s: %llu events, "
			"%llu children files read, %llu rescans\n",
			st->discovery, (unsigned long long)st->tree.events,
			(unsigned long long)st->tree.scans,
			(unsigned long long)st->tree.resyncs);
	v = malloc(n * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = procset_at(ps, i);
	qsort(v, n, sizeof(*v), by_samples);
	for (size_t i = 0; i < n && i < STATS_PROCESSES && v[i]->samples; i++)
		fprintf(stderr,
			"ptprof: stats: process %d (%s): %llu samples, %llu "
			"threads stopped\n",
			(int)v[i]->pid, v[i]->comm,
			(unsigned long long)v[i]->samples,
			(unsigned long long)v[i]->threads_stopped);
	for (size_t i = 0; i < n; i++)
		if (v[i]->skipped)
			fprintf(stderr,
				"ptprof: stats: process %d (%s) skipped: %s\n",
				(int)v[i]->pid, v[i]->comm, v[i]->skip_why);
	free(v);
}

/* Descendants were to be followed but could not be, even with -q. */
static void warn_no_tree(const struct sampler_stats *st)
{
	if (st->tree_errno)
		cli_msg("warning: child processes were not followed: they "
			"cannot be found on this system (%s)",
			strerror(st->tree_errno));
}

/* Processes of the set not sampled: the first, and why, even with -q. */
static void warn_skipped(const struct procset *ps)
{
	const struct proc_image *first = NULL;
	size_t n = 0;

	for (size_t i = 0; i < procset_count(ps); i++) {
		const struct proc_image *im = procset_at(ps, i);

		if (im->skipped && !n++)
			first = im;
	}
	if (n == 1)
		cli_msg("warning: process %d (%s) was not sampled: %s",
			(int)first->pid, first->comm, first->skip_why);
	else if (n > 1)
		cli_msg("warning: %zu processes were not sampled: process %d "
			"(%s): %s, ...",
			n, (int)first->pid, first->comm, first->skip_why);
}

/* Shell convention: the command's status, or 128+N if signal N killed it. */
static int command_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAILURE;
}

/* -- COMMAND: after sampling, hand a signal meant for ptprof on to the
 * command (a terminal already sent it to both), then wait for it. */
static int finish_command(pid_t child, const struct sampler_stats *st,
			  const sigset_t *stop)
{
	int status;

	if (st->child_reaped)
		return command_status(st->child_status);
	if (st->end == SAMPLER_END_SIGNAL && st->end_signal_code != SI_KERNEL)
		kill(child, st->end_signal);
	if (launch_wait(child, stop, &status)) {
		cli_msg("lost track of COMMAND (PID %d): %s", (int)child,
			strerror(errno));
		return EXIT_FAILURE;
	}
	return command_status(status);
}

/*
 * Continuous profiling (--rotate, SIGUSR2): the run is cut into periods,
 * one file (of each output) per period.  Between two ticks (the progress
 * hook, rotate_tick()), a period that is due is handed to a writer child
 * (bgwrite.h), which has a copy of the builders and the process set and
 * writes the files while the sampler goes on; the parent empties its
 * builders and the next period starts with the next tick, so every
 * sample is in exactly one file.  The last period is written by ptprof
 * itself at the end, after the writers still under way have finished.
 */
struct period {
	uint64_t duration_ns;
	bool others; /* samples of processes other than the root */
	bool py;     /* stacks with Python frames */
};

/* A file this run wrote (--keep prunes the oldest). */
struct kept_file {
	unsigned long seq;
	char *path;
	bool ours; /* path was our regular file when written: dev, ino */
	dev_t dev;
	ino_t ino;
};

/* Rotation figures for --stats. */
struct rotate_stats {
	uint64_t rotations, forked;
	uint64_t hold_ns, hold_max_ns; /* the sampler held by rotate() */
	uint64_t missed_after;	       /* ticks missed in the 250 ms after */
	uint64_t missed_at;	       /* missed_ticks at the last rotation */
	bool counting;		       /* ... not yet added to missed_after */
	uint64_t failed;	       /* periods with a file unwritten */
	/* ptprof's heap in use (malloc's, not RSS: freed memory the heap
	 * keeps is not in it) after each rotation emptied the tables: the
	 * first, largest and last, to tell a leak (it climbs with every
	 * period) from caches filling up (it stops); 0: not known */
	size_t heap_first, heap_max, heap_last;
};

struct rotation {
	pid_t pid;	    /* %p: the first process */
	unsigned long seq;  /* the period's number, from 1 */
	bool numbered;	    /* --rotate, or a SIGUSR2 came */
	bool out_renamed;   /* names numbered after out was opened */
	bool asked;	    /* SIGUSR2 waits for its rotation */
	uint64_t start_ns;  /* the period's start (monotonic) */
	uint64_t next_due;  /* --rotate: the next rotation (monotonic) */
	uint64_t others_at; /* other_samples() at the period's start */
	uint64_t py_at;	    /* stats->py_merged at the period's start */
	struct period per;  /* the period being written */
	char legacy[PATH_MAX], pprof[PATH_MAX]; /* the period's names */
	const struct procset *ps;		/* the run's */
	sigset_t usr2;
	struct bgwrite bg;
	/* the names each writer under way writes, by bgwrite slot tag */
	struct kept_file inflight[BGWRITE_MAX][3];
	struct kept_file *kept[3]; /* --keep: written, oldest first */
	size_t nkept[3];
	unsigned long files; /* periods written */
	struct rotate_stats rs;
};

/*
 * The output file, written in pieces: a long run with many distinct
 * stacks spills them to the (temporary) file as gperftools does, instead
 * of holding them all in memory.
 */
struct output {
	const struct options *o;
	struct stacktab *tab;
	struct profile_out *out; /* NULL until the first spill */
	size_t records;		 /* records written so far */
	struct pprof_out *pprof; /* with a pprof output */
	struct timespec start;	 /* wall clock at the start, for pprof */
	char *all_path; /* BASE.pb.gz, when written (write_all_processes()) */
	/* the perf maps read for the pprof writer (image_jit()), by image */
	const struct procset *ps; /* the run's, while the pprof is written */
	struct perfmap **jit;
	size_t njit;
	bool launched;	     /* COMMAND's processes: ours, of our uid */
	struct pyframes *py; /* Python frames' names (NULL: --no-python) */
	struct rotation rot;
};

/* Distinct stacks kept in memory before they go to the file. */
#define SPILL_AT 50000

static int open_output(struct output *w)
{
	if (!w->out)
		w->out = profile_out_open(w->rot.legacy, NSEC_PER_SEC /
								 NSEC_PER_USEC /
								 w->o->hz);
	return w->out ? 0 : -1;
}

/* Without a legacy output the table only counts distinct stacks. */
static int spill(void *arg)
{
	struct output *w = arg;

	if (w->o->legacy_output &&
	    (open_output(w) || profile_out_add(w->out, w->tab)))
		return -1;
	w->records += stacktab_distinct(w->tab);
	stacktab_clear(w->tab);
	return 0;
}

/* The target's root directory while it is there ("/proc/PID/root"), to
 * open its files as it saw them; NULL once it is gone. */
static const char *target_root(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/%d/root/", (int)pid);
	if (access(buf, X_OK))
		return NULL;
	buf[strlen(buf) - 1] = '\0';
	return buf;
}

/*
 * The maps of the root process for the legacy file, which holds its
 * samples only: one image, as ever, or the union of its images (it
 * exec'd), in the order they came, as one struct maps held them before
 * images (a later image's mapping replaces an earlier one it overlaps),
 * with the build IDs each had.  *merged is to be freed by the caller.
 */
static const struct maps *root_maps(const struct procset *ps,
				    struct maps **merged)
{
	pid_t pid = procset_at(ps, 0)->pid;
	size_t n = 0, len;
	char *text;
	FILE *f;

	*merged = NULL;
	for (size_t i = 0; i < procset_count(ps); i++)
		n += procset_at(ps, i)->pid == pid;
	if (n == 1)
		return procset_at(ps, 0)->maps;
	*merged = maps_new();
	for (size_t i = 0; *merged && i < procset_count(ps); i++) {
		const struct proc_image *im = procset_at(ps, i);

		if (im->pid != pid || !(f = open_memstream(&text, &len)))
			continue;
		maps_write(im->maps, f);
		if (fclose(f) == 0 && maps_update(*merged, text, len) == 0)
			maps_copy_build_ids(*merged, im->maps);
		free(text);
	}
	return *merged ? *merged : procset_at(ps, 0)->maps;
}

static int write_legacy(struct output *w, const struct procset *ps)
{
	struct maps *merged;
	int rc = spill(w);

	if (!w->o->legacy_output)
		return rc;
	/* Spilled to under the name it had before a SIGUSR2 numbered it. */
	if (rc == 0 && w->out && w->rot.out_renamed)
		rc = profile_out_retarget(w->out, w->rot.legacy);
	if (rc == 0) {
		rc = profile_out_close_pid(w->out, root_maps(ps, &merged),
					   procset_at(ps, 0)->pid);
		maps_free(merged);
	} else if (w->out) {
		profile_out_abort(w->out);
	}
	w->out = NULL;
	if (rc == 0)
		return 0;
	cli_msg("cannot write output file '%s': %s", w->rot.legacy,
		output_error(w->rot.legacy, errno));
	return -1;
}

/* Samples of processes other than the root (image 0's PID). */
static uint64_t other_samples(const struct procset *ps)
{
	pid_t root = procset_at(ps, 0)->pid;
	uint64_t n = 0;

	for (size_t i = 0; i < procset_count(ps); i++)
		if (procset_at(ps, i)->pid != root)
			n += procset_at(ps, i)->samples;
	return n;
}

/* pprof_meta.root_of (arg: the procset): the image's process's root
 * while it is there and still is that image (its newest, not ended);
 * NULL otherwise: its PID may be another process's by now. */
static const char *image_root(void *arg, const struct proc_image *im, char *buf,
			      size_t len)
{
	const struct procset *ps = arg;

	return procset_image_root(ps, im, buf, len);
}

/*
 * The perf map of image im: while its process lives (and is that image),
 * through its root (perfmap_load_pid()); once gone, only a launched
 * COMMAND's (or its children's), which ran as us, from our /tmp.  A
 * process named with -p that is gone ran as a uid not recorded: its map
 * cannot be checked, and is not read.
 */
static struct perfmap *jit_load(const struct output *w,
				const struct procset *ps,
				const struct proc_image *im, char *err,
				size_t len)
{
	char buf[64];

	if (procset_image_root(ps, im, buf, sizeof(buf)))
		return perfmap_load_pid(im->pid, err, len);
	if (w->launched)
		return perfmap_load_gone(im->pid, geteuid(), err, len);
	errno = ENOENT;
	return NULL;
}

/* pprof_meta.jit_of (arg: the output): read at the first JIT address of
 * an image, and again when it does not name one (the runtime appends as
 * it compiles).  A map refused is one warning line (no map at all, the
 * runtime's flag not given, is none); the map read before is kept. */
static const struct perfmap *image_jit(void *arg, const struct proc_image *im,
				       bool reread)
{
	struct output *w = arg;
	const struct procset *ps = w->ps;
	struct perfmap *m, **v;
	char err[512];

	if (!w->jit) {
		v = calloc(procset_count(ps) + 1, sizeof(*v));
		if (!v)
			return NULL;
		w->jit = v;
		w->njit = procset_count(ps);
	}
	if (im->index >= w->njit || (w->jit[im->index] && !reread))
		return im->index < w->njit ? w->jit[im->index] : NULL;
	m = jit_load(w, ps, im, err, sizeof(err));
	if (!m) {
		if (!reread && errno != ENOENT)
			cli_msg("perf map of %s (%d): %s", im->comm,
				(int)im->pid, err);
		return w->jit[im->index];
	}
	if (!reread && perfmap_malformed(m))
		cli_msg("perf map of %s (%d): %zu malformed lines skipped",
			im->comm, (int)im->pid, perfmap_malformed(m));
	perfmap_free(w->jit[im->index]);
	w->jit[im->index] = m;
	return m;
}

static void free_jit(struct output *w)
{
	for (size_t i = 0; i < w->njit; i++)
		perfmap_free(w->jit[i]);
	free(w->jit);
}

/* The pprof protobuf at path, every image with its own mappings. */
static int write_pprof_to(struct output *w, const char *path,
			  const struct procset *ps, const struct period *per)
{
	struct pprof_meta meta = {
		.period_ns = NSEC_PER_SEC / w->o->hz,
		.wall = w->o->wall,
		.time_nanos = (int64_t)w->start.tv_sec * NSEC_PER_SEC +
			      w->start.tv_nsec,
		.duration_nanos = (int64_t)per->duration_ns,
		.root_of = image_root,
		.root_arg = (void *)ps,
		.jit_of = image_jit,
		.jit_arg = w,
		.py = w->py,
	};

	w->ps = ps;
	if (pprof_out_write_file(path, w->pprof, ps, &meta) == 0)
		return 0;
	cli_msg("cannot write output file '%s': %s", path,
		output_error(path, errno));
	return -1;
}

/* BASE.pb.gz beside the legacy FILE (BASE: FILE without ".prof"). */
static char *all_processes_path(const char *legacy)
{
	size_t n = strlen(legacy);
	char *path;

	if (n > 5 && !strcmp(legacy + n - 5, ".prof"))
		n -= 5;
	path = malloc(n + sizeof(".pb.gz"));
	if (!path)
		cli_die(EXIT_FAILURE, "out of memory");
	memcpy(path, legacy, n);
	strcpy(path + n, ".pb.gz");
	return path;
}

/*
 * The legacy format holds one address space: FILE has the root process's
 * samples only.  When others have samples and no pprof output was asked
 * for, all of them go to BASE.pb.gz too, and the user is told (one line).
 * So do stacks with Python frames, which FILE holds unnamed.
 */
static int write_all_processes(struct output *w, const struct procset *ps,
			       const struct period *per)
{
	char *path;
	int rc;

	/* (Python frames too: the legacy file cannot name them.) */
	if (w->o->pprof_output || !w->o->legacy_output || !w->pprof ||
	    (!per->others && !per->py))
		return 0;
	path = all_processes_path(w->rot.legacy);
	rc = write_pprof_to(w, path, ps, per);
	free(w->all_path);
	w->all_path = NULL;
	if (rc == 0)
		w->all_path = path;
	else
		free(path);
	return rc;
}

/* After the summary: what the legacy FILE holds, and where the rest is. */
static void say_all_processes(const struct output *w, const struct procset *ps,
			      const struct sampler_stats *st)
{
	pid_t pid = procset_at(ps, 0)->pid;
	const struct proc_image *im = procset_find(ps, pid);
	size_t sampled = procset_sampled_pids(ps);
	char all[40] = "samples";

	if (!w->all_path || !other_samples(ps))
		return; /* written for Python frames: warn_python() says so */
	if (sampled > 1)
		snprintf(all, sizeof(all), "%zu processes", sampled);
	/* Rotated: each period's legacy file has its BASE.pb.gz. */
	cli_msg("%s%s holds %s (%d) only: %llu of %llu samples; the "
		"gperftools format holds one process; all %s are in %s%s",
		w->rot.files > 1 ? "each file like " : "", w->rot.legacy,
		im->comm, (int)pid,
		(unsigned long long)(st->samples - other_samples(ps)),
		(unsigned long long)st->samples, all,
		w->rot.files > 1 ? "the .pb.gz beside it, like " : "",
		w->all_path);
}

/* What write_period() wrote (bits) and whether something failed. */
#define WROTE_LEGACY 1
#define WROTE_PPROF 2
#define WROTE_ALL 4
#define WROTE_FAILED 8

/* The period's files: WROTE_* bits. */
static int write_period(struct output *w, const struct procset *ps,
			const struct period *per)
{
	int done = 0;

	if (write_legacy(w, ps))
		done |= WROTE_FAILED;
	else if (w->o->legacy_output)
		done |= WROTE_LEGACY;
	if (w->o->pprof_output) {
		if (write_pprof_to(w, w->rot.pprof, ps, per))
			done |= WROTE_FAILED;
		else
			done |= WROTE_PPROF;
	}
	if (write_all_processes(w, ps, per))
		done |= WROTE_FAILED;
	else if (w->all_path)
		done |= WROTE_ALL;
	return done;
}

/* A pprof output collects samples by thread as the sampler hands them;
 * so does a run that may cover several processes, for BASE.pb.gz. */
static void want_pprof(struct output *w, struct sampler_config *cfg)
{
	clock_gettime(CLOCK_REALTIME, &w->start);
	if (!w->o->pprof_output && !w->o->children && w->o->npids < 2)
		return;
	w->pprof = pprof_out_new(w->o->max_depth);
	if (!w->pprof)
		cli_die(EXIT_FAILURE, "out of memory");
	cfg->on_stack = pprof_out_add;
	cfg->on_stack_arg = w->pprof;
	cfg->want_names = true;
}

/* ---- rotation (--rotate, SIGUSR2, --keep) ---- */

/* name (an -o, perhaps a template: outname.h) of period seq into buf. */
static int expand_name(const char *name, pid_t pid, time_t start,
		       unsigned long seq, bool numbered, char *buf, size_t len)
{
	struct outname_vars v = { .pid = pid, .start = start, .seq = seq };

	return outname_expand(name, &v, numbered, buf, len);
}

/* The current period's names; numbered when the run rotates. */
static void period_names(struct output *w)
{
	struct rotation *r = &w->rot;
	const struct options *o = w->o;

	if (o->legacy_output &&
	    expand_name(o->legacy_output, r->pid, w->start.tv_sec, r->seq,
			r->numbered, r->legacy, sizeof(r->legacy)))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s",
			o->legacy_output, strerror(errno));
	if (o->pprof_output &&
	    expand_name(o->pprof_output, r->pid, w->start.tv_sec, r->seq,
			r->numbered, r->pprof, sizeof(r->pprof)))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s",
			o->pprof_output, strerror(errno));
}

/* Before the target is touched: the first file's name as it will be (a
 * COMMAND's PID is not known yet: ptprof's own stands in for %p), and
 * room for a long run's sequence numbers. */
static void check_output_name(const struct options *o, const char *name)
{
	pid_t pid = o->action == ACTION_RECORD_PID ? o->pids[0] : getpid();
	char buf[PATH_MAX];

	if (!name)
		return;
	if (expand_name(name, pid, time(NULL), 1000000000UL, true, buf,
			sizeof(buf)))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s", name,
			strerror(errno));
	expand_name(name, pid, time(NULL), 1, o->rotate_s > 0, buf,
		    sizeof(buf));
	check_output(buf);
}

/* The names a period's writer writes, by WROTE_* bit: for --keep. */
static void note_names(struct output *w, struct kept_file *names)
{
	struct rotation *r = &w->rot;

	names[0].path = w->o->legacy_output ? strdup(r->legacy) : NULL;
	names[1].path = w->o->pprof_output ? strdup(r->pprof) : NULL;
	names[2].path = w->o->legacy_output && !w->o->pprof_output && w->pprof ?
				all_processes_path(r->legacy) :
				NULL;
	for (int k = 0; k < 3; k++)
		names[k].seq = r->seq;
}

/* Is the file at path a regular file of the effective user's (its
 * identity into *st)?  Not a link, nor anybody else's. */
static bool kept_is_ours(const char *path, struct stat *st)
{
	return lstat(path, st) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid();
}

/* Remove f if its name still holds the very file written under it: in a
 * shared directory (/tmp) the name may have been moved away (a shipping
 * loop) and taken by another user's file since, which root must leave. */
static void kept_remove(const struct kept_file *f)
{
	struct stat st;

	if (!f->ours || !kept_is_ours(f->path, &st) || st.st_dev != f->dev ||
	    st.st_ino != f->ino)
		return;
	if (unlink(f->path) && errno != ENOENT)
		cli_msg("--keep: cannot remove '%s': %s", f->path,
			strerror(errno));
}

/* --keep: one more file of output k; the oldest beyond keep removed (only
 * files this run wrote, by the names it wrote them under, and only while
 * they are still those files).  Takes path. */
static void keep_file(struct output *w, int k, unsigned long seq, char *path)
{
	struct rotation *r = &w->rot;
	struct kept_file *v;
	struct stat st;
	size_t i;

	if (!w->o->keep || !path) {
		free(path);
		return;
	}
	v = realloc(r->kept[k], (r->nkept[k] + 1) * sizeof(*v));
	if (!v) {
		free(path);
		return;
	}
	r->kept[k] = v;
	/* Writers may end out of order: oldest (lowest seq) first. */
	for (i = r->nkept[k]; i > 0 && v[i - 1].seq > seq; i--)
		v[i] = v[i - 1];
	v[i] = (struct kept_file){ .seq = seq, .path = path };
	if (kept_is_ours(path, &st))
		v[i].ours = true, v[i].dev = st.st_dev, v[i].ino = st.st_ino;
	r->nkept[k]++;
	while (r->nkept[k] > w->o->keep) {
		kept_remove(&v[0]);
		free(v[0].path);
		memmove(v, v + 1, --r->nkept[k] * sizeof(*v));
	}
}

/* A period written (result: WROTE_* bits, or -1 when its writer died):
 * its files join the kept ones. */
static void period_written(struct output *w, struct kept_file *names,
			   int result)
{
	static const int bit[3] = { WROTE_LEGACY, WROTE_PPROF, WROTE_ALL };

	if (result < 0 || (result & WROTE_FAILED))
		w->rot.rs.failed++;
	w->rot.files++;
	for (int k = 0; k < 3; k++) {
		if (result >= 0 && (result & bit[k]))
			keep_file(w, k, names[k].seq, names[k].path);
		else
			free(names[k].path);
		names[k].path = NULL;
	}
}

/* bgwrite_done_fn: tag is the writer's slot in rot.inflight, which is
 * free again after. */
static void writer_done(void *arg, unsigned long tag, int result, int err)
{
	struct output *w = arg;

	if (result < 0)
		cli_msg("the writer of period %lu died before it wrote its "
			"files: %s",
			w->rot.inflight[tag][0].seq, strerror(err));
	period_written(w, w->rot.inflight[tag], result);
	w->rot.inflight[tag][0].seq = 0;
}

/* In the writer child: the period's files (bgwrite_fn). */
static int write_in_child(void *arg)
{
	struct output *w = arg;

	return write_period(w, w->rot.ps, &w->rot.per);
}

/* A free slot of rot.inflight (its seq 0): there are as many as writers
 * may be under way, and rotate() is called with one free at least. */
static unsigned long free_inflight(const struct rotation *r)
{
	for (unsigned long i = 0; i < BGWRITE_MAX; i++)
		if (!r->inflight[i][0].seq)
			return i;
	return 0;
}

/* The heap in use now, into rs (glibc's mallinfo2(); nothing without). */
static void note_heap(struct rotate_stats *rs)
{
#ifdef HAVE_MALLINFO2
	size_t used = mallinfo2().uordblks;

	if (!rs->heap_first)
		rs->heap_first = used;
	if (used > rs->heap_max)
		rs->heap_max = used;
	rs->heap_last = used;
#else
	(void)rs;
#endif
}

/* The period ends here: hand it to a writer (or write it here when no
 * child can be forked), then start the next with empty builders. */
static void rotate(struct output *w, const struct sampler_stats *st,
		   uint64_t now)
{
	struct rotation *r = &w->rot;
	unsigned long slot = free_inflight(r);
	int result;

	if (!r->numbered) { /* a SIGUSR2 without --rotate: from now on */
		r->numbered = true;
		r->out_renamed = w->out != NULL;
		period_names(w);
	}
	r->per = (struct period){
		.duration_ns = now - r->start_ns,
		.others = other_samples(r->ps) > r->others_at,
		.py = st->py_merged > r->py_at,
	};
	note_names(w, r->inflight[slot]);
	r->inflight[slot][0].seq = r->seq;
	/* Flushed first: the child writes what the stream holds. */
	if (w->out)
		profile_out_flush(w->out);
	if (bgwrite_start(&r->bg, slot, write_in_child, w) == 0) {
		r->rs.forked++;
		profile_out_release(w->out);
	} else {
		result = write_period(w, r->ps, &r->per);
		period_written(w, r->inflight[slot], result);
		r->inflight[slot][0].seq = 0;
	}
	w->out = NULL;
	r->out_renamed = false;
	stacktab_clear(w->tab);
	w->records = 0;
	if (w->pprof)
		pprof_out_reset(w->pprof);
	r->seq++;
	clock_gettime(CLOCK_REALTIME, &w->start);
	r->start_ns = mono_now_ns();
	r->others_at = other_samples(r->ps);
	r->py_at = st->py_merged;
	r->asked = false;
	period_names(w);
	if (w->o->stats)
		note_heap(&r->rs);
}

/*
 * Between ticks (the progress hook): collect the writers that ended, and
 * rotate when --rotate's time came or a SIGUSR2 did.  A period lasts a
 * second at least (%t names files to the second), and waits while
 * BGWRITE_MAX writers are still under way (the disk is behind: the
 * period goes on, nothing is lost).  Measured for --stats: how long the
 * sampler was held, and the ticks missed by the next call (250 ms).
 */
static void rotate_tick(struct output *w, const struct sampler_stats *st)
{
	static const struct timespec zero = { 0, 0 };
	struct rotation *r = &w->rot;
	uint64_t now = mono_now_ns(), t;

	bgwrite_poll(&r->bg, writer_done, w);
	if (r->rs.counting) {
		r->rs.missed_after += st->missed_ticks - r->rs.missed_at;
		r->rs.counting = false;
	}
	/* Blocked, so it waits here, never killing ptprof (its default). */
	if (sigtimedwait(&r->usr2, NULL, &zero) == SIGUSR2)
		r->asked = true;
	if (!r->asked && !(w->o->rotate_s && now >= r->next_due))
		return;
	if (now - r->start_ns < NSEC_PER_SEC || r->bg.busy == BGWRITE_MAX)
		return;
	rotate(w, st, now);
	while (w->o->rotate_s && r->next_due <= now)
		r->next_due += (uint64_t)w->o->rotate_s * NSEC_PER_SEC;
	t = mono_now_ns() - now;
	r->rs.rotations++;
	r->rs.hold_ns += t;
	if (t > r->rs.hold_max_ns)
		r->rs.hold_max_ns = t;
	r->rs.missed_at = st->missed_ticks;
	r->rs.counting = true;
}

/* SIGUSR2 blocked with the stop signals, before COMMAND starts (it gets
 * an empty mask): from then on it waits for rotate_tick(), where it
 * rotates, instead of killing ptprof (its default action). */
static void rotate_block_signal(struct output *w)
{
	sigemptyset(&w->rot.usr2);
	sigaddset(&w->rot.usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &w->rot.usr2, NULL);
}

/* Before sampling: the first period and its names. */
static void rotate_start(struct output *w, const struct sampler_config *cfg,
			 const struct procset *ps)
{
	struct rotation *r = &w->rot;

	r->pid = cfg->pids[0];
	r->seq = 1;
	r->numbered = w->o->rotate_s > 0;
	r->ps = ps;
	r->start_ns = mono_now_ns();
	r->next_due = r->start_ns + (uint64_t)w->o->rotate_s * NSEC_PER_SEC;
	bgwrite_init(&r->bg);
	period_names(w);
}

/* After sampling: the writers still under way, then the last period,
 * written here.  Returns write_period()'s bits. */
static int rotate_finish(struct output *w, const struct procset *ps,
			 const struct sampler_stats *st, uint64_t end_ns)
{
	struct rotation *r = &w->rot;
	struct kept_file names[3];
	int result;

	bgwrite_wait(&r->bg, writer_done, w);
	r->per = (struct period){
		.duration_ns = r->seq == 1 ? st->elapsed_ns :
					     end_ns - r->start_ns,
		.others = other_samples(ps) > r->others_at,
		.py = st->py_merged > r->py_at,
	};
	note_names(w, names);
	result = write_period(w, ps, &r->per);
	period_written(w, names, result);
	return result;
}

static void rotate_free(struct output *w)
{
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < w->rot.nkept[k]; i++)
			free(w->rot.kept[k][i].path);
		free(w->rot.kept[k]);
	}
}

/* --stats: what the rotations cost the sampler. */
static void print_rotate_stats(const struct options *o, const struct output *w)
{
	const struct rotate_stats *rs = &w->rot.rs;

	if (!o->stats || !rs->rotations)
		return;
	fprintf(stderr,
		"ptprof: stats: rotations %llu (by a writer child %llu), "
		"sampler held %.0f us mean, %.0f us max; ticks missed within "
		"250 ms after %llu; periods with a file unwritten %llu\n",
		(unsigned long long)rs->rotations,
		(unsigned long long)rs->forked,
		(double)rs->hold_ns / NSEC_PER_USEC / (double)rs->rotations,
		(double)rs->hold_max_ns / NSEC_PER_USEC,
		(unsigned long long)rs->missed_after,
		(unsigned long long)rs->failed);
	if (rs->heap_first)
		fprintf(stderr,
			"ptprof: stats: heap in use after a rotation: first "
			"%zu kB, max %zu kB, last %zu kB\n",
			rs->heap_first / 1024, rs->heap_max / 1024,
			rs->heap_last / 1024);
}

/*
 * --top N: the table of the profile just written, with the binaries
 * opened through the target's root while it is still there.  It goes to
 * stdout unless stdout is COMMAND's: with -- COMMAND, to stderr after the
 * summary (as time(1) does), so that `ptprof --top=9 -- xz -c f > f.xz`
 * neither loses the table nor writes it into f.xz.
 */
static void top_table(const struct options *o, const char *path, pid_t pid,
		      bool launched)
{
	char buf[64];
	const char *root = target_root(pid, buf, sizeof(buf));

	fflush(stderr);
	cmd_report_top(path, o->top, root, launched ? stderr : stdout);
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

/*
 * What is watched while sampling, through the sampler's progress hook
 * (called between ticks, every WATCH_EVERY_NS): the progress line on a
 * terminal, and the target's CPU time for warn_children().
 */
#define WATCH_EVERY_NS (250 * NSEC_PER_MSEC) /* 4 redraws a second */

struct watch {
	pid_t pid;
	int tty;    /* the progress line's terminal (O_NONBLOCK), or -1 */
	bool drawn; /* a progress line is on the terminal */
	bool ttou_blocked; /* SIGTTOU blocked while sampling; old_mask before */
	sigset_t old_mask;
	/* The target's CPU time when sampling started (zero for COMMAND,
	 * read at once for -p) and as last read, at last_at (monotonic). */
	struct procfs_cpu first, last;
	bool have_first;
	uint64_t last_at;
	uint64_t end_at; /* when sampling ended (a launched COMMAND reaped) */
	struct output *out;  /* rotated between ticks (rotate_tick()) */
	uint64_t writers_ns; /* the CPU time of its writers (bgwrite.h) */
};

/*
 * The progress line must never hold the sampler, nor with it a thread
 * whose stop came late:
 *  - the terminal is opened again, non-blocking, for the line alone (fd 2
 *    itself stays as it is: COMMAND shares its open file), so a terminal
 *    held by ^S or a slow link drops the line instead of blocking;
 *  - a background job's write to a terminal with `stty tostop` gets
 *    SIGTTOU, whose default action would stop ptprof between ticks
 *    without the release of late threads that SIGTSTP gets.  SIGTTOU is
 *    blocked while sampling (the kernel then lets the write through
 *    rather than stop the writer; COMMAND was started with an empty
 *    mask), and the line is not drawn from the background of a terminal
 *    with tostop set, whose user asked background jobs to keep quiet.
 *    (Without tostop a background ptprof draws, as under `timeout`,
 *    which puts its command in a process group of its own.)
 */
static void watch_write(const struct watch *w, const char *buf, size_t len)
{
	struct termios t;

	if (w->tty < 0)
		return;
	if (tcgetpgrp(w->tty) != getpgrp() &&
	    (tcgetattr(w->tty, &t) || (t.c_lflag & TOSTOP)))
		return;
	(void)!write(w->tty, buf, len);
}

/* "\r" and "\033[K" (clear to the end of the line): redrawn in place. */
static void watch_draw(struct watch *w, const struct sampler_stats *st)
{
	char line[160];
	int n = snprintf(line, sizeof(line),
			 "\rptprof: %.1f s, %llu samples, %llu threads, %llu "
			 "missed ticks\033[K",
			 (double)st->elapsed_ns / NSEC_PER_SEC,
			 (unsigned long long)st->samples,
			 (unsigned long long)st->threads_seen,
			 (unsigned long long)st->missed_ticks);

	if (n > 0 && (size_t)n < sizeof(line)) {
		watch_write(w, line, (size_t)n);
		w->drawn = true;
	}
}

static void watch_read(struct watch *w)
{
	struct procfs_cpu c;

	if (procfs_cpu_times(w->pid, &c))
		return; /* gone: the last reading stands */
	w->last = c;
	w->last_at = mono_now_ns();
}

static void watch_progress(void *arg, const struct sampler_stats *st)
{
	struct watch *w = arg;

	watch_read(w);
	if (w->tty >= 0)
		watch_draw(w, st);
	if (w->out)
		rotate_tick(w->out, st);
}

/* Before sampling: the first reading (-p), or zero (COMMAND, just
 * started: the unknown thread count stands for every CPU). */
static void watch_start(struct watch *w, const struct options *o,
			struct sampler_config *cfg)
{
	sigset_t ttou;

	memset(w, 0, sizeof(*w));
	w->pid = cfg->pids[0];
	w->tty = -1;
	if (!o->quiet && isatty(STDERR_FILENO)) {
		w->tty = open("/proc/self/fd/2",
			      O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		w->ttou_blocked = sigprocmask(SIG_BLOCK, &ttou, &w->old_mask) ==
				  0;
	}
	w->last_at = mono_now_ns();
	w->last.threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (cfg->child)
		w->have_first = true;
	else if (procfs_cpu_times(w->pid, &w->first) == 0)
		w->last = w->first, w->have_first = true;
	cfg->progress = watch_progress;
	cfg->progress_arg = w;
	cfg->progress_ns = WATCH_EVERY_NS;
}

/* After sampling: erase the progress line, read the target once more. */
static void watch_end(struct watch *w)
{
	if (w->drawn)
		watch_write(w, "\r\033[K", 4);
	w->drawn = false;
	if (w->ttou_blocked)
		sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
	w->ttou_blocked = false;
	if (w->tty >= 0)
		close(w->tty);
	w->tty = -1;
	w->end_at = mono_now_ns();
	watch_read(w);
}

/* RUSAGE_CHILDREN is COMMAND's tree's CPU time and that of the writers
 * of rotated files (bgwrite.h), which is taken off. */
static uint64_t rusage_tree_ns(const struct watch *w, const struct rusage *ru)
{
	uint64_t all = timeval_ns(&ru->ru_utime) + timeval_ns(&ru->ru_stime);

	return all > w->writers_ns ? all - w->writers_ns : 0;
}

/* Notable: half a second, and a tenth of the target's CPU time. */
#define CHILD_CPU_MIN_NS (500 * NSEC_PER_MSEC)

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
static uint64_t children_cpu(const struct watch *w,
			     const struct sampler_stats *st)
{
	uint64_t kids, gap, own, all;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int busy = w->last.threads;
	struct rusage ru;

	/* Counters that went backwards: the PID is another process's now. */
	kids = w->last.children_ns >= w->first.children_ns ?
		       w->last.children_ns - w->first.children_ns :
		       0;
	if (!st->child_reaped || getrusage(RUSAGE_CHILDREN, &ru))
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
static uint64_t tree_cpu(const struct watch *w, const struct sampler_stats *st)
{
	struct rusage ru;

	if (st->child_reaped && getrusage(RUSAGE_CHILDREN, &ru) == 0)
		return rusage_tree_ns(w, &ru);
	if (!w->have_first || w->last.self_ns < w->first.self_ns ||
	    w->last.children_ns < w->first.children_ns)
		return 0;
	return w->last.self_ns - w->first.self_ns + w->last.children_ns -
	       w->first.children_ns;
}

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
static void warn_children(const struct options *o, const struct watch *w,
			  const struct sampler_stats *st)
{
	uint64_t kids = w->have_first ? children_cpu(w, st) : 0;
	uint64_t own = w->last.self_ns >= w->first.self_ns ?
			       w->last.self_ns - w->first.self_ns :
			       0;
	char who[64];

	if (o->children) {
		warn_tree_unprofiled(o, st, tree_cpu(w, st));
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
static void warn_syscall_bias(const struct options *o, const struct watch *w,
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

/* Everything that can be refused, before the target is touched. */
static void check_record(const struct options *o, struct tselect *sel,
			 struct sampler_config *cfg)
{
	if (o->action == ACTION_RECORD_PID)
		cli_check_targets(o);
	else
		check_launch();
	check_output_name(o, o->legacy_output);
	check_output_name(o, o->pprof_output);
	cli_select_threads(o, sel, cfg);
}

/* The summary's distinct stacks: the records of the legacy table, which
 * holds the root's stacks only; with other processes sampled, those the
 * pprof builder holds, told apart by process and thread. */
static size_t distinct_stacks(const struct output *w, const struct procset *ps)
{
	if (w->pprof && other_samples(ps))
		return pprof_out_samples(w->pprof);
	return w->records;
}

/*
 * Python frames (issue 16) are read only for a pprof output (-o
 * NAME.pb.gz, --format=pprof, or the BASE.pb.gz of a run over several
 * processes): the gperftools format has addresses and maps, no names,
 * so a legacy-only file would hold [py] PCs (pyframes.h) that nothing
 * can name.  Such a run keeps today's native stacks and only tells the
 * CPython processes it met, for a note; --no-python neither.
 */
static void want_python(struct output *w, struct sampler_config *cfg)
{
	if (w->o->no_python)
		return;
	if (!w->pprof) {
		cfg->py_detect = true;
		return;
	}
	w->py = cfg->pyframes = pyframes_new(0);
	if (!w->py)
		cli_die(EXIT_FAILURE, "out of memory");
}

/* Python frames: a runtime refused (one line, the first); frames not
 * read for want of a pprof output, or unnamed in the legacy file. */
static void warn_python(const struct output *w, const struct sampler_stats *st)
{
	if (st->py_warning[0])
		cli_msg("%s", st->py_warning);
	if (st->py_detected)
		cli_msg("process %d runs CPython: %s holds its native stacks "
			"only (the gperftools format cannot name Python "
			"frames); record with -o FILE.pb.gz for them",
			(int)st->py_detected_pid, w->rot.legacy);
	else if (st->py_merged && w->o->legacy_output &&
		 (w->o->pprof_output || w->all_path))
		cli_msg("%s holds Python frames as unnamed addresses (the "
			"gperftools format has no names); they are named in %s",
			w->rot.legacy,
			w->o->pprof_output ? w->rot.pprof : w->all_path);
}

/* After a run written out: the summary, the warnings, --stats, --top. */
static void report_run(const struct options *o, const struct output *w,
		       const struct watch *watch, const struct tselect *sel,
		       const struct sampler_stats *st, const struct procset *ps)
{
	/* The last files' names, the first -o's first. */
	const char *legacy = o->legacy_output ? w->rot.legacy : NULL;
	const char *pprof = o->pprof_output ? w->rot.pprof : NULL;
	const char *names[2] = { legacy ? legacy : pprof,
				 legacy ? pprof : NULL };

	if (o->output != o->legacy_output)
		names[0] = pprof, names[1] = legacy;
	print_summary(o, st, distinct_stacks(w, ps), ps, names, w->rot.files);
	say_all_processes(w, ps, st);
	warn_foreign(st);
	warn_fd_limit(st);
	warn_unsampled(o, st);
	cli_warn_seccomp(st);
	warn_unselected(sel, st);
	warn_children(o, watch, st);
	warn_syscall_bias(o, watch, st);
	warn_skipped(ps);
	warn_no_tree(st);
	warn_python(w, st);
	print_stats(o, st);
	print_peek_stats(o, st);
	print_rotate_stats(o, w);
	if (o->stats)
		print_py_stats(st);
	if (o->stats)
		print_process_stats(st, ps);
	/* Python frames merged: the legacy file holds them as bare
	 * addresses, BASE.pb.gz names them; the table comes from it. */
	if (o->top)
		top_table(o,
			  w->all_path && st->py_merged ? w->all_path : names[0],
			  watch->pid, o->action == ACTION_RECORD_COMMAND);
}

int cmd_record(const struct options *o)
{
	struct sampler_config cfg = { .spill = spill, .spill_at = SPILL_AT };
	struct sampler_stats st;
	struct stacktab *tab = stacktab_new(o->max_depth);
	struct procset *ps = procset_new();
	struct output w = { .o = o, .tab = tab };
	struct watch watch;
	struct tselect sel;
	sigset_t stop;
	pid_t child = 0;
	int rc = 0, failed, unwritten = 0;

	if (!tab || !ps)
		cli_die(EXIT_FAILURE, "out of memory");
	cli_sampler_config(o, &cfg);
	check_record(o, &sel, &cfg);
	want_pprof(&w, &cfg);
	want_python(&w, &cfg);
	cli_block_stop_signals(&stop);
	rotate_block_signal(&w);
	cfg.stop_signals = &stop;
	cfg.spill_arg = &w;
	if (o->action == ACTION_RECORD_COMMAND) {
		cfg.child = child = start_command(o->command);
		cfg.pids = &child;
		cfg.npids = 1;
		w.launched = true;
	}
	/* The legacy file holds the first process's samples (procset.h). */
	cfg.tab_pid = cfg.pids[0];
	rotate_start(&w, &cfg, ps);
	/* After COMMAND has started: it keeps the limit it was given (a
	 * program that select()s breaks on descriptors past 1023). */
	cli_raise_fd_limit();
	watch_start(&watch, o, &cfg);
	watch.out = &w;
	failed = sampler_run(&cfg, tab, ps, &st);
	watch_end(&watch);
	if (failed)
		cli_sampling_failed(&cfg, &st);
	if ((!failed || st.ticks) && !st.seccomp_refused && procset_count(ps))
		unwritten = rotate_finish(&w, ps, &st, watch.end_at) &
			    WROTE_FAILED;
	else if (w.out)
		profile_out_abort(w.out);
	bgwrite_wait(&w.rot.bg, writer_done, &w);
	watch.writers_ns = w.rot.bg.cpu_ns;
	if (!failed && !unwritten)
		report_run(o, &w, &watch, &sel, &st, ps);
	if (cfg.child)
		rc = finish_command(cfg.child, &st, &stop);
	if ((failed || unwritten) && cfg.child)
		cli_msg("%s exited with status %d", o->command[0], rc);
	tselect_free(&sel);
	stacktab_free(tab);
	pprof_out_free(w.pprof);
	pyframes_free(w.py);
	free_jit(&w);
	free(w.all_path);
	rotate_free(&w);
	procset_free(ps);
	/* A rotated period unwritten (its writer said why): a failure too. */
	return failed || unwritten || w.rot.rs.failed ? EXIT_FAILURE : rc;
}
