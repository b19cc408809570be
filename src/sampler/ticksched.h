/*
 * ticksched.h - when the sampler ticks: a fixed grid of one slot per
 * period, each slot's deadline jittered within its period.
 *
 * Work that cycles at the tick rate (or a multiple of it) would be seen at
 * one phase only by ticks that fall exactly every period: a thread that
 * alternates between two functions every 5 ms, locked to the clock, was
 * seen 99/1 at 100 Hz.  So slot k (k >= 1) of a run that started at
 * start has its deadline at start + k * period + an offset drawn anew for
 * each slot, uniform in [-period/2, +period/2): each tick falls at a
 * uniform phase of any cycle, and the split comes out right.  Slot 0 is
 * at start itself.  The grid does not move: the mean rate is the
 * period's, and the deadlines (strictly increasing: two offsets differ by
 * less than a period) never drift from it, however late ticks are.
 *
 * Two neighbouring offsets can put two deadlines close together; a tick
 * never starts less than an eighth of a period after the one before it
 * (ticksched_next()): such a deadline is pushed back that far, which
 * happens to about 1 tick in 130 and skews no phase measurably (a split
 * of 50/50 simulated: within 0.1 point).
 *
 * A slot whose deadline passed while another tick was being taken, or
 * before the sampler woke, is missed: ticksched_take() counts them, and
 * its tick is never caught up in a burst.
 *
 * The offsets come from a splitmix64 sequence (a Weyl sequence through
 * hash_mix64(), the murmur3 finaliser, hash.h): a few instructions a tick,
 * own code rather than a library, seeded by the caller (getrandom(), or
 * the clock if that fails).
 *
 * Contract: plain data, not thread-safe, never fails, never prints.
 * Times are CLOCK_MONOTONIC nanoseconds; period_ns > 0.
 */
#ifndef PTPROF_TICKSCHED_H
#define PTPROF_TICKSCHED_H

#include <stdint.h>

struct ticksched {
	uint64_t start, period_ns;
	uint64_t slot;	   /* the next slot to tick for */
	uint64_t deadline; /* ... its (jittered) deadline */
	uint64_t last;	   /* when the last tick started; 0: none yet */
	uint64_t rng;	   /* splitmix64 state */
};

/* Plan a run that starts at start: slot 0's deadline is start. */
void ticksched_init(struct ticksched *t, uint64_t start, uint64_t period_ns,
		    uint64_t seed);

/* When the next tick may start: its slot's deadline, or an eighth of a
 * period after the last tick started, whichever is later. */
uint64_t ticksched_next(const struct ticksched *t);

/* A tick starts at now (>= ticksched_next()): it is the next slot's.
 * Plans the slot after it, and returns how many slots in between had
 * their deadlines pass (<= now) without a tick: missed. */
uint64_t ticksched_take(struct ticksched *t, uint64_t now);

/* The run ends at until, with no tick taken since: how many slots had
 * their deadlines pass (<= until) since the last tick.  (Without it a run
 * that ended behind schedule, a long unwind or a stall before its end,
 * said fewer ticks missed than were.) */
uint64_t ticksched_missed(const struct ticksched *t, uint64_t until);

/* From the last tick taken on, ticks fall on a grid of period_ns (> 0):
 * the grid starts afresh at that tick (its slot 0), the next slot's
 * deadline drawn within the new period, the slots counted from there
 * (--max-overhead: sampler_budget.h).  Before any tick: as if the run
 * had been planned so.  Rates never bunch: the next tick still starts at
 * least an eighth of the new period after the last. */
void ticksched_set_period(struct ticksched *t, uint64_t period_ns);

/* A seed for ticksched_init(): from getrandom(), or the clock. */
uint64_t ticksched_seed(void);

#endif /* PTPROF_TICKSCHED_H */
