/*
 * ticksched.c - when the sampler ticks (see ticksched.h).
 */
#include "config.h"

#include <sys/random.h>
#include <unistd.h>

#include "sampler/ticksched.h"
#include "util/hash.h"
#include "util/timeutil.h"

/* splitmix64's increment (2^64 / the golden ratio, odd). */
#define WEYL_STEP 0x9e3779b97f4a7c15ULL

/* A deadline is at least this far after the last tick's start. */
static uint64_t min_gap(const struct ticksched *t)
{
	return t->period_ns / 8;
}

/* The deadline of slot k >= 1: its grid point plus a uniform offset in
 * [-period/2, +period/2).  The offset is the top 32 bits of a draw scaled
 * to the period (a period is under 2^32 ns: -f 1 is 1 s, and
 * --max-overhead stretches a period to 8/3 s at most: sampler_budget.h). */
static uint64_t draw_deadline(struct ticksched *t, uint64_t k)
{
	uint64_t r = hash_mix64(t->rng += WEYL_STEP) >> 32;
	uint64_t off = (r * t->period_ns) >> 32;

	return t->start + k * t->period_ns + off - t->period_ns / 2;
}

void ticksched_init(struct ticksched *t, uint64_t start, uint64_t period_ns,
		    uint64_t seed)
{
	*t = (struct ticksched){ .start = start,
				 .period_ns = period_ns ? period_ns : 1,
				 .deadline = start,
				 .rng = seed };
}

uint64_t ticksched_next(const struct ticksched *t)
{
	uint64_t floor = t->last ? t->last + min_gap(t) : 0;

	return t->deadline > floor ? t->deadline : floor;
}

uint64_t ticksched_take(struct ticksched *t, uint64_t now)
{
	uint64_t missed = 0, half = t->period_ns / 2, grid;

	t->last = now;
	t->slot++;
	/* Slots whose latest possible deadline (grid + period/2) has
	 * passed are missed whatever their offsets: counted at once, not
	 * drawn one by one (after a long suspension there are many). */
	grid = t->start + t->slot * t->period_ns;
	if (now >= grid + half) {
		uint64_t n = (now - grid - half) / t->period_ns + 1;

		missed += n;
		t->slot += n;
	}
	/* The next slot's grid point is now past now - period/2: its
	 * deadline may have passed, the one after it's cannot have. */
	t->deadline = draw_deadline(t, t->slot);
	if (t->deadline <= now) {
		missed++;
		t->slot++;
		t->deadline = draw_deadline(t, t->slot);
	}
	return missed;
}

uint64_t ticksched_missed(const struct ticksched *t, uint64_t until)
{
	struct ticksched c = *t;

	if (until < t->deadline)
		return 0;
	/* As if a tick were taken at until: the slot it would be for is
	 * missed too. */
	return ticksched_take(&c, until) + 1;
}

void ticksched_set_period(struct ticksched *t, uint64_t period_ns)
{
	t->period_ns = period_ns ? period_ns : 1;
	if (!t->last) {
		/* No tick yet: slot 0 is at the start, as planned. */
		if (t->slot)
			t->deadline = draw_deadline(t, t->slot);
		return;
	}
	/* The tick just taken is slot 0 of the new grid: its next slot's
	 * deadline is at least half a new period after it. */
	t->start = t->last;
	t->slot = 1;
	t->deadline = draw_deadline(t, 1);
}

uint64_t ticksched_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	/* No entropy yet (early boot) or no getrandom(): the clock will do,
	 * the offsets need not be secret, only unrelated to the target. */
	return mono_now_ns() ^ ((uint64_t)getpid() << 32);
}
