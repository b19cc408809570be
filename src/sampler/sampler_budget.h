/*
 * sampler_budget.h - --max-overhead (issue 30): the tick rate lowered,
 * and raised back towards the rate asked, to keep the time ptprof's
 * stops take from the target under a budget.
 *
 * The overhead, over a window of BUDGET_WINDOW_NS (shorter when the
 * stops are already over the budget: sampler_budget_tick()), is
 *
 *     held / (cpu + held)
 *
 * held: the time the target's threads spent stopped by ptprof, each stop
 * from its PTRACE_INTERRUPT to its PTRACE_DETACH (sampler.h's phases:
 * HELD, plus the stop latency counted up to BUDGET_STOP_CAP_US: a thread
 * whose stop takes longer to land was not running but waiting for a
 * CPU, as when the target has more runnable threads than there are CPUs,
 * and that wait is not ptprof's doing);
 * cpu: the CPU time the sampled processes used meanwhile (their CPU
 * clocks, read by the caller).
 * So for one busy thread it is the share of its wall time spent stopped;
 * for several, the share of the time they ran or would have run.
 * ptprof's own CPU time is not in it (on a machine whose CPUs are all
 * busy, it is taken from someone too: --stats says how much).
 *
 * Control: ticks fall on a grid of period base x scale (ticksched.h),
 * scale in [1, scale_max]; at the end of each window:
 *  - over the budget: the scale grows at once so that the window's
 *    overhead at the new rate would be BUDGET_AIM of the budget (the same
 *    stops, fewer of them: the overhead goes as the rate);
 *  - under half the budget: the scale shrinks towards that aim, the rate
 *    at most doubled in one window, never above the rate asked;
 *  - between: unchanged.  The band keeps one window's noise from moving
 *    the rate; a change is one jump, so it does not oscillate.
 * The scale is at most max(8 periods, 64 ms) / 3 in periods (37.5 Hz at
 * 100 Hz asked, 47 Hz at 1000): cpuacct.c gives up on a carry beyond
 * that bound (CARRY_MAX, CARRY_MAX_NS), and a busy thread's carry at a
 * check is up to two (jittered) tick intervals.  A target still over
 * the budget there is sampled at that rate, and the run says so.
 *
 * Weights stay right at any rate (ptprof(1), --max-overhead): in CPU
 * mode a stack counts for the CPU time its thread used since its
 * previous stack, in periods of the rate asked (cpuacct.h), however far
 * apart the ticks; with --wall each stack of a tick counts for the
 * periods the tick stands for, missed slots before it included
 * (sampler_budget_weight()).
 *
 * Contract: plain data, not thread-safe, never fails, never prints.  Its
 * figures go into the run's stats (struct sampler_budget_stats, in
 * sampler.h).  Times are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef PTPROF_SAMPLER_BUDGET_H
#define PTPROF_SAMPLER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "sampler/sampler.h"
#include "util/timeutil.h"

#define BUDGET_WINDOW_NS (200 * NSEC_PER_MSEC)
#define BUDGET_WINDOW_TICKS 8
#define BUDGET_STOP_CAP_US 100
#define BUDGET_AIM 0.8

struct sampler_budget {
	double max;	  /* the budget, a fraction of 1 (0.01: 1%) */
	uint64_t base_ns; /* the period asked */
	double scale, scale_max;
	double wall_acc; /* --wall: periods not yet given to a tick */
	/* The window: since when, its ticks, and the stats' figures at its
	 * start (held time, stop latencies below the cap). */
	uint64_t win_start, win_ticks;
	uint64_t held_base, lat_n_base;
	uint32_t lat_base[BUDGET_STOP_CAP_US];
	/* The mean rate: since when the current rate holds, and the sum of
	 * rate x time before it. */
	uint64_t start, since;
	double hz_ns;
};

/* Start the budget max (a fraction, > 0) at now, for a run asked to tick
 * every base_ns; its figures into st->budget. */
void sampler_budget_init(struct sampler_budget *b, double max, uint64_t base_ns,
			 uint64_t now, struct sampler_stats *st);

/* A tick was taken (its stops are in st): true when the window is over
 * at now, and sampler_budget_close() is due: after BUDGET_WINDOW_TICKS
 * ticks and BUDGET_WINDOW_NS, or as soon as BUDGET_WINDOW_TICKS ticks
 * have held the threads longer than the budget of the window's wall time
 * (so a rate far over the budget is lowered within a few ticks). */
bool sampler_budget_tick(struct sampler_budget *b,
			 const struct sampler_stats *st, uint64_t now);

/* End the window at now, cpu_ns the CPU time the target used in it: the
 * overhead judged, the rate changed if need be, a new window begun.
 * True when the period changed (sampler_budget_period()). */
bool sampler_budget_close(struct sampler_budget *b, struct sampler_stats *st,
			  uint64_t now, uint64_t cpu_ns);

/* The period the ticks should fall at now. */
uint64_t sampler_budget_period(const struct sampler_budget *b);

/* --wall: the samples each stack of the next tick counts for: the
 * periods asked that the tick stands for, its own slot and the missed
 * slots before it (missed: ticksched_take()), whole, the fractions
 * carried from tick to tick (so the mean is the scale).  At least 1.
 * (Without the missed slots, a phase sampled at a high rate, where a
 * loaded machine misses more ticks, would weigh less than one sampled
 * at a low rate.) */
uint64_t sampler_budget_weight(struct sampler_budget *b, uint64_t missed);

/* The run ended at now: the mean and final rates into st->budget. */
void sampler_budget_end(struct sampler_budget *b, struct sampler_stats *st,
			uint64_t now);

#endif /* PTPROF_SAMPLER_BUDGET_H */
