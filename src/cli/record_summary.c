/*
 * record_summary.c - after a recording: the summary line and the --stats
 * lines (see record_summary.h).
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/record_summary.h"
#include "proc/cpuwatch.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/recwrite.h"
#include "sampler/sampler.h"
#include "util/timeutil.h"

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

/* --max-overhead: the share measured over the run's windows, in %. */
static double budget_measured_pct(const struct sampler_budget_stats *b)
{
	uint64_t all = b->held_ns + b->cpu_ns;

	return all ? 100.0 * (double)b->held_ns / (double)all : 0;
}

/* --max-overhead, for the summary line: the rate it ran at and why
 * ("" without it). */
static const char *budget_text(const struct sampler_stats *st, char *buf,
			       size_t size)
{
	const struct sampler_budget_stats *b = &st->budget;
	double pct = 100 * b->max, got = budget_measured_pct(b);

	if (b->max <= 0)
		return "";
	if (!b->windows)
		snprintf(buf, size,
			 "; rate %.0f Hz kept: the run ended before its first "
			 "overhead window (200 ms)",
			 b->hz_asked);
	else if (b->floor_over)
		snprintf(buf, size,
			 "; rate lowered to %.0f Hz (asked %.0f, mean %.0f), "
			 "the lowest it may go, and still over the %g%% "
			 "overhead budget at times (measured %.2f%%)",
			 b->hz_min, b->hz_asked, b->hz_mean, pct, got);
	else if (b->lowered && b->hz_final < b->hz_asked)
		snprintf(buf, size,
			 "; rate lowered to %.0f Hz (asked %.0f, min %.0f, "
			 "mean %.0f) to stay under %g%% overhead (measured "
			 "%.2f%%)",
			 b->hz_final, b->hz_asked, b->hz_min, b->hz_mean, pct,
			 got);
	else if (b->lowered)
		snprintf(buf, size,
			 "; rate lowered at times (min %.0f Hz, mean %.0f) to "
			 "stay under %g%% overhead, %.0f Hz at the end "
			 "(measured %.2f%%)",
			 b->hz_min, b->hz_mean, pct, b->hz_final, got);
	else
		snprintf(buf, size,
			 "; rate %.0f Hz kept: overhead %.2f%%, %s the %g%% "
			 "budget",
			 b->hz_asked, got, got > pct ? "over" : "under", pct);
	return buf;
}

static void print_summary(const struct options *o,
			  const struct sampler_stats *st, size_t records,
			  const struct procset *ps, const char *const names[2],
			  unsigned long files)
{
	char nfiles[64] = "";

	uint64_t mean = st->ticks ? st->pause_total_ns / st->ticks : 0;
	size_t procs = procset_sampled_pids(ps);
	char why[64], nprocs[40] = "", budget[256];

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
		"%llu us max %llu us p50 %llu us p99 %llu us, %.2f%% of %.1f s%s; "
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
		budget_text(st, budget, sizeof(budget)),
		end_reason(st, why, sizeof(why)), names[0],
		names[1] ? " and " : "", names[1] ? names[1] : "", nfiles);
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
	cli_print("ptprof: stats: frame-pointer steps %llu; stacks ended by a "
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
		cli_print("ptprof: stats: peeks none (--no-peek)\n");
		return;
	}
	cli_print("ptprof: stats: threads read without a stop (peeked) %llu "
		  "(after a retry %llu), %.1f us per peek; stopped instead: "
		  "running %llu, ran between the reads %llu, unreadable %llu, "
		  "unwind needed a register %llu\n",
		  (unsigned long long)st->peeked,
		  (unsigned long long)st->peek_retried,
		  tried ? (double)st->peek_ns / NSEC_PER_USEC / (double)tried :
			  0,
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
	cli_print("ptprof: stats: python: processes read %llu, refused %llu; "
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
	cli_print("ptprof: stats: stop window per thread, mean/p50/max us: %s, %s, "
		  "%s (%.0f bytes mean, %llu max, %llu copied again), %s, %s, "
		  "%s; %s; %s; waits spun %llu, stops reaped spinning %llu\n",
		  t[SAMPLER_PH_STOP], t[SAMPLER_PH_REGS], t[SAMPLER_PH_STACK],
		  copies ? (double)st->stack_bytes / (double)copies : 0.0,
		  (unsigned long long)st->stack_bytes_max,
		  (unsigned long long)st->stack_hint_missed, t[SAMPLER_PH_PY],
		  t[SAMPLER_PH_SECCOMP], t[SAMPLER_PH_DETACH],
		  t[SAMPLER_PH_HELD], t[SAMPLER_PH_WINDOW],
		  (unsigned long long)st->stops_spun,
		  (unsigned long long)st->stops_caught_spinning);
}

/* --stats with --max-overhead: the rates, the windows, the overhead. */
static void print_budget_stats(const struct sampler_stats *st)
{
	const struct sampler_budget_stats *b = &st->budget;

	if (b->max <= 0)
		return;
	cli_print("ptprof: stats: overhead budget %g%%: rate asked %.0f Hz, "
		  "lowest allowed %.0f Hz; ran at min %.0f, mean %.1f, final "
		  "%.0f Hz; lowered %llu times, raised %llu; windows %llu, "
		  "over the budget %llu (worst %.2f%%); overhead measured "
		  "%.3f%% (threads held %.1f ms, target CPU time %.3f s)\n",
		  100 * b->max, b->hz_asked, b->hz_floor, b->hz_min, b->hz_mean,
		  b->hz_final, (unsigned long long)b->lowered,
		  (unsigned long long)b->raised, (unsigned long long)b->windows,
		  (unsigned long long)b->windows_over, 100 * b->worst,
		  budget_measured_pct(b), (double)b->held_ns / NSEC_PER_MSEC,
		  (double)b->cpu_ns / NSEC_PER_SEC);
}

/* --stats: what the summary leaves out, one "ptprof: stats:" line each. */
static void print_stats(const struct options *o, const struct sampler_stats *st)
{
	const struct unwinder_counters *u = &st->unwind;
	uint64_t self_ns;
	double cpu_us = 0;

	if (!o->stats)
		return;
	if (cpuwatch_self_ns(&self_ns) == 0)
		cpu_us = (double)(self_ns / NSEC_PER_USEC);
	cli_print("ptprof: stats: threads stopped %llu, spared %llu (not due), "
		  "not selected %llu, late %llu (%llu sampled when they "
		  "stopped; progress put off for their stops %llu), stacks "
		  "%llu, samples reusing a last stack %llu, "
		  "sweeps of quiet threads %llu, samples given at the end %llu, "
		  "CPU time in no sample %.3f s; stops that cut a sleep short "
		  "(no stack for the CPU time) %llu, samples not caught "
		  "running %llu, samples of no stack %llu (of processes "
		  "never read %llu)\n",
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
		  (double)st->unsampled_ns / NSEC_PER_SEC,
		  (unsigned long long)st->stops_in_sleep,
		  (unsigned long long)st->uncaught_samples,
		  (unsigned long long)st->nostack_samples,
		  (unsigned long long)st->nostack_unread_samples);
	cli_print("ptprof: stats: ptprof cpu %.0f us, %.1f us per stack; pause "
		  "per stopped thread %.1f us; one unwind (from the copy) p50 "
		  "%u us, p99 %u us\n",
		  cpu_us, st->stacks ? cpu_us / (double)st->stacks : 0,
		  st->threads_stopped ?
			  (double)st->pause_total_ns / NSEC_PER_USEC /
				  (double)st->threads_stopped :
			  0,
		  sampler_unwind_quantile(st, 0.5),
		  sampler_unwind_quantile(st, 0.99));
	cli_print("ptprof: stats: stop latency (interrupt to stop reaped) p50 "
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
	cli_print("ptprof: stats: unwinder reads: stack copy %llu, module "
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
	print_budget_stats(st);
}

#define STATS_PROCESSES 10

/* --stats of a run over several processes: how they were found, the
 * busiest, the skipped. */
static void print_process_stats(const struct sampler_stats *st,
				const struct procset *ps)
{
	size_t n = procset_count(ps);
	const struct procset_retired *ret = procset_retired(ps);
	const struct proc_image **v;

	if (n + ret->images < 2 && !st->discovery)
		return;
	/* the images freed at rotations (procset_retire()) said when any */
	cli_print("ptprof: stats: processes found %llu, skipped %llu, images "
		  "%zu",
		  (unsigned long long)st->procs_found,
		  (unsigned long long)st->procs_skipped, n + ret->images);
	if (ret->images)
		cli_print(" (%zu ended ones freed at rotations, %zu held)",
			  ret->images, n);
	cli_print("\n");
	if (st->discovery)
		cli_print("ptprof: stats: descendants found by %s: %llu events, "
			  "%llu children files read, %llu rescans\n",
			  st->discovery, (unsigned long long)st->tree.events,
			  (unsigned long long)st->tree.scans,
			  (unsigned long long)st->tree.resyncs);
	v = malloc(n * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = procset_at(ps, i);
	qsort(v, n, sizeof(*v), procset_cmp_busiest);
	for (size_t i = 0; i < n && i < STATS_PROCESSES && v[i]->samples; i++)
		cli_print("ptprof: stats: process %d (%s): %llu samples, %llu "
			  "threads stopped\n",
			  (int)v[i]->pid, v[i]->comm,
			  (unsigned long long)v[i]->samples,
			  (unsigned long long)v[i]->threads_stopped);
	for (size_t i = 0; i < n; i++)
		if (v[i]->skipped)
			cli_print("ptprof: stats: process %d (%s) skipped: %s\n",
				  (int)v[i]->pid, v[i]->comm, v[i]->skip_why);
	if (ret->skipped)
		cli_print("ptprof: stats: %zu more skipped processes ended and "
			  "were freed at rotations\n",
			  ret->skipped);
	free(v);
}

/* --stats: what the rotations cost the sampler. */
static void print_rotate_stats(const struct options *o,
			       const struct recwrite *w)
{
	const struct rotate_stats *rs = &w->rot.rs;

	if (!o->stats || !rs->rotations)
		return;
	cli_print("ptprof: stats: rotations %llu (by a writer child %llu), "
		  "sampler held %.0f us mean, %.0f us max; ticks missed within "
		  "250 ms after %llu; periods with a file unwritten %llu\n",
		  (unsigned long long)rs->rotations,
		  (unsigned long long)rs->forked,
		  (double)rs->hold_ns / NSEC_PER_USEC / (double)rs->rotations,
		  (double)rs->hold_max_ns / NSEC_PER_USEC,
		  (unsigned long long)rs->missed_after,
		  (unsigned long long)rs->failed);
	if (rs->heap_first)
		cli_print("ptprof: stats: heap in use after a rotation: first "
			  "%zu kB, max %zu kB, last %zu kB\n",
			  rs->heap_first / 1024, rs->heap_max / 1024,
			  rs->heap_last / 1024);
}

/* The summary's distinct stacks: the records of the legacy table, which
 * holds the root's stacks only; with other processes sampled, those the
 * pprof builder holds, told apart by process and thread. */
static size_t distinct_stacks(const struct recwrite *w,
			      const struct procset *ps)
{
	if (w->pprof && recwrite_other_samples(ps))
		return pprof_out_samples(w->pprof);
	return w->records;
}

void record_summary_line(const struct record_run *run)
{
	const struct options *o = run->o;
	const struct recwrite *w = run->w;
	/* The last files' names, the first -o's first. */
	const char *legacy = o->legacy_output ? w->rot.legacy : NULL;
	const char *pprof = o->pprof_output ? w->rot.pprof : NULL;
	const char *names[2] = { legacy ? legacy : pprof,
				 legacy ? pprof : NULL };

	if (o->output != o->legacy_output)
		names[0] = pprof, names[1] = legacy;
	print_summary(o, run->st, distinct_stacks(w, run->ps), run->ps, names,
		      w->rot.files);
}

void record_summary_stats(const struct record_run *run)
{
	const struct options *o = run->o;

	print_stats(o, run->st);
	print_peek_stats(o, run->st);
	print_rotate_stats(o, run->w);
	if (o->stats)
		print_py_stats(run->st);
	if (o->stats)
		print_process_stats(run->st, run->ps);
}
