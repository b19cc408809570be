/*
 * test_ticksched - the tick schedule (ticksched.h), at 100 Hz:
 *  - slot 0 is at the start; every later deadline is within half a period
 *    of its grid point, so the grid never drifts: 100,000 ticks taken on
 *    time end within half a period of start + 100,000 periods;
 *  - the offsets are spread over the whole period (each tenth of it gets
 *    10 +- 1% of them) with a mean of 0 +- 1% of a period;
 *  - no tick may start less than an eighth of a period after the last;
 *  - missed ticks: a tick taken 3.25 periods late misses the slots whose
 *    deadlines passed (2 or 3, as their offsets fall), and a suspension of
 *    an hour is counted at once (360,000 slots, give or take one); a run
 *    that ends 10.6 periods after its last tick missed 10 or 11;
 *  - two seeds give two sequences.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "sampler/ticksched.h"
#include "util/timeutil.h"
#include "unit.h"

#define PERIOD (10 * NSEC_PER_MSEC)
#define START (1000 * NSEC_PER_SEC)
#define TICKS 100000

static void check_grid(void)
{
	struct ticksched t;
	uint64_t bins[10] = { 0 }, missed = 0, prev = 0, closest = PERIOD;
	int64_t sum = 0;

	ticksched_init(&t, START, PERIOD, 42);
	CHECK(ticksched_next(&t) == START);
	for (uint64_t k = 0; k < TICKS; k++) {
		uint64_t at = ticksched_next(&t);
		int64_t off = (int64_t)(t.deadline - START - k * PERIOD);

		CHECKF(t.slot == k, "slot %llu at tick %llu",
		       (unsigned long long)t.slot, (unsigned long long)k);
		if (k > 0) {
			CHECKF(off >= -(int64_t)PERIOD / 2 &&
				       off < (int64_t)PERIOD / 2,
			       "tick %llu: offset %lld", (unsigned long long)k,
			       (long long)off);
			bins[(off + (int64_t)PERIOD / 2) * 10 /
			     (int64_t)PERIOD]++;
			sum += off;
			CHECK(at > prev);
			if (at - prev < closest)
				closest = at - prev;
		}
		prev = at;
		missed += ticksched_take(&t, at);
	}
	CHECKF(missed == 0, "%llu missed", (unsigned long long)missed);
	CHECKF(closest >= PERIOD / 8, "two ticks %llu ns apart",
	       (unsigned long long)closest);
	for (int i = 0; i < 10; i++)
		CHECKF(bins[i] > TICKS / 100 * 9 && bins[i] < TICKS / 100 * 11,
		       "tenth %d of the period: %llu of %d offsets", i,
		       (unsigned long long)bins[i], TICKS);
	CHECKF(sum / TICKS > -(int64_t)PERIOD / 100 &&
		       sum / TICKS < (int64_t)PERIOD / 100,
	       "mean offset %lld ns", (long long)(sum / TICKS));
	CHECKF(t.deadline + PERIOD / 2 > START + (uint64_t)TICKS * PERIOD &&
		       t.deadline <
			       START + (uint64_t)TICKS * PERIOD + PERIOD / 2,
	       "deadline %llu after %d ticks",
	       (unsigned long long)(t.deadline - START), TICKS);
}

static void check_missed(void)
{
	struct ticksched t, u;
	uint64_t m, hour = 3600 * NSEC_PER_SEC;

	ticksched_init(&t, START, PERIOD, 7);
	CHECK(ticksched_take(&t, START) == 0);
	/* Slot 1 taken 3.25 periods late (at start + 4.25 periods): slots
	 * 2 and 3 passed for sure, slot 4 (grid start + 4 periods) if its
	 * offset fell before + 0.25 period. */
	m = ticksched_take(&t, START + PERIOD * 17 / 4);
	CHECKF(m == 2 || m == 3, "%llu missed", (unsigned long long)m);
	CHECK(t.deadline > START + PERIOD * 17 / 4);
	CHECK(ticksched_next(&t) >= START + PERIOD * 17 / 4 + PERIOD / 8);
	/* An hour away: counted at once. */
	m = ticksched_take(&t, ticksched_next(&t) + hour);
	CHECKF(m + 1 >= hour / PERIOD && m <= hour / PERIOD + 1,
	       "%llu missed in an hour", (unsigned long long)m);
	CHECK(t.deadline > START + hour);
	/* The run ends 10.6 periods after a tick, with none since: the
	 * next 10 slots' deadlines passed (each within half a period of its
	 * grid point), the 11th's may have; nothing is taken. */
	ticksched_init(&t, START, PERIOD, 9);
	ticksched_take(&t, START);
	u = t;
	m = ticksched_missed(&t, START + PERIOD * 106 / 10);
	CHECKF(m == 10 || m == 11, "%llu missed at the end",
	       (unsigned long long)m);
	CHECK(!memcmp(&t, &u, sizeof(t)));
	/* Before the next deadline: none. */
	CHECK(ticksched_missed(&t, t.deadline - 1) == 0);
	CHECK(ticksched_missed(&t, t.deadline) == 1);
	/* Another seed, other offsets. */
	ticksched_init(&t, START, PERIOD, 1);
	ticksched_init(&u, START, PERIOD, 2);
	ticksched_take(&t, START);
	ticksched_take(&u, START);
	CHECK(t.deadline != u.deadline);
	CHECK(ticksched_seed() != ticksched_seed());
}

int main(void)
{
	check_grid();
	check_missed();
	return unit_result("test_ticksched");
}
