/*
 * test_sampler_budget - --max-overhead's control (sampler_budget.h), on
 * a simulated target: one busy thread stopped at every tick, each stop
 * holding it HELD ns after a stop latency of LAT us, its CPU time the
 * wall time less its stops; 1000 Hz asked, a 1% budget:
 *  - 43 us a stop (4.3% at 1000 Hz): the rate is lowered after the
 *    first 8 ticks (their stops held over 1% of their time already), to
 *    where the overhead is 0.5 to 1% (the aim: 0.8%),
 *    and then stays put however the stops vary (+-25% from tick to tick:
 *    the hysteresis band);
 *  - the stops get cheap (4 us): the rate goes back up, at most doubled a
 *    window, to the rate asked and never above it;
 *  - 2 ms a stop: the rate stops at the floor (max(8 periods, 64 ms) / 3
 *    apart: 47 Hz) and the run says it stayed over the budget;
 *  - a stop latency of 5 ms (a thread waiting for a CPU) counts as
 *    BUDGET_STOP_CAP_US, the held time in full;
 *  - --wall weights: whole periods a tick, their mean the scale, the
 *    slots missed before a tick counted in its weight;
 *  - the mean, minimum and final rates reported;
 *  - ticksched_set_period(): the grid restarts at the last tick, its
 *    deadlines within half a new period of the new grid points.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sampler/sampler.h"
#include "sampler/sampler_budget.h"
#include "sampler/ticksched.h"
#include "unit.h"
#include "util/timeutil.h"

#define BASE NSEC_PER_MSEC /* 1000 Hz asked */
#define START (1000 * NSEC_PER_SEC)

static struct sampler_stats st;

struct sim {
	struct sampler_budget b;
	uint64_t now, cpu, changes;
	uint64_t rng;
};

/* One stop of held_ns after a latency of lat_us, in the stats. */
static void stop(uint64_t held_ns, unsigned lat_us)
{
	st.phase[SAMPLER_PH_HELD].total_ns += held_ns;
	st.stop_lat_n++;
	st.stop_lat_hist[lat_us < PAUSE_FINE_US ? lat_us : PAUSE_FINE_US]++;
}

/* A pseudo-random factor in [1 - spread, 1 + spread]. */
static double noise(struct sim *m, double spread)
{
	m->rng = m->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return 1 +
	       spread * ((double)(m->rng >> 11) / (double)(1ULL << 53) * 2 - 1);
}

/* secs of ticks at the budget's period, each stopping the busy thread
 * for held_ns (times the noise) after lat_us. */
static void run(struct sim *m, double secs, uint64_t held_ns, unsigned lat_us,
		double spread)
{
	uint64_t end = m->now + (uint64_t)(secs * NSEC_PER_SEC);

	while (m->now < end) {
		uint64_t period = sampler_budget_period(&m->b);
		uint64_t h = (uint64_t)((double)held_ns * noise(m, spread));
		/* A stop slower than the cap: the thread waited for a CPU,
		 * and its CPU time is all there. */
		uint64_t all = h + (lat_us < BUDGET_STOP_CAP_US ?
					    lat_us * NSEC_PER_USEC :
					    0);

		stop(h, lat_us);
		m->now += period;
		m->cpu += period > all ? period - all : 0;
		if (sampler_budget_tick(&m->b, &st, m->now)) {
			m->changes += sampler_budget_close(&m->b, &st, m->now,
							   m->cpu);
			m->cpu = 0;
		}
	}
}

/* The overhead the current rate gives held_ns + lat_us a tick. */
static double overhead_now(const struct sim *m, uint64_t held_ns,
			   unsigned lat_us)
{
	double all = (double)held_ns + lat_us * (double)NSEC_PER_USEC;

	return all / (double)sampler_budget_period(&m->b);
}

static void start(struct sim *m)
{
	memset(&st, 0, sizeof(st));
	memset(m, 0, sizeof(*m));
	m->now = START;
	m->rng = 7;
	sampler_budget_init(&m->b, 0.01, BASE, m->now, &st);
}

static void check_lowered_and_held(void)
{
	struct sim m;
	double over;

	start(&m);
	CHECK(sampler_budget_period(&m.b) == BASE);
	CHECK(fabs(st.budget.hz_asked - 1000) < 1e-6);
	/* 43 us a tick: 4.3%, lowered after 8 ticks (held over 1% of
	 * their wall time already), not 200 ms. */
	run(&m, 0.0085, 33000, 10, 0);
	CHECKF(st.budget.lowered == 1 && st.budget.windows == 1,
	       "lowered %llu times in %llu windows of 8.5 ms",
	       (unsigned long long)st.budget.lowered,
	       (unsigned long long)st.budget.windows);
	run(&m, 0.25, 33000, 10, 0);
	over = overhead_now(&m, 33000, 10);
	CHECKF(st.budget.lowered == 1, "lowered %llu times",
	       (unsigned long long)st.budget.lowered);
	CHECKF(over > 0.005 && over <= 0.01, "overhead %.4f after a window",
	       over);
	/* Then it stays, with +-25% from tick to tick. */
	m.changes = 0;
	run(&m, 20, 33000, 10, 0.25);
	CHECKF(m.changes == 0, "%llu changes in 20 s",
	       (unsigned long long)m.changes);
	over = overhead_now(&m, 33000, 10);
	CHECKF(over > 0.005 && over <= 0.01, "overhead %.4f", over);
	CHECKF(st.budget.hz_min > 150 && st.budget.hz_min < 250, "min %.1f Hz",
	       st.budget.hz_min);
	CHECK(!st.budget.floor_over);
	sampler_budget_end(&m.b, &st, m.now);
	CHECKF(fabs(st.budget.hz_final -
		    1e9 / (double)sampler_budget_period(&m.b)) < 1,
	       "final %.1f Hz", st.budget.hz_final);
	/* Mean over time: 0.25 s at 1000 Hz, 20 s at the lower rate. */
	CHECKF(st.budget.hz_mean > st.budget.hz_final &&
		       st.budget.hz_mean < st.budget.hz_final + 15,
	       "mean %.1f Hz, final %.1f", st.budget.hz_mean,
	       st.budget.hz_final);
	CHECK(st.budget.windows > 90 && st.budget.windows_over == 1);

	/* Cheaper stops: back up, at most doubled a window, capped at the
	 * rate asked. */
	for (int w = 0; w < 20; w++) {
		uint64_t before = sampler_budget_period(&m.b);

		run(&m, 0.2, 3000, 1, 0);
		CHECKF(sampler_budget_period(&m.b) * 2 + 1 >= before,
		       "window %d: %llu ns after %llu", w,
		       (unsigned long long)sampler_budget_period(&m.b),
		       (unsigned long long)before);
	}
	CHECKF(sampler_budget_period(&m.b) == BASE, "period %llu ns",
	       (unsigned long long)sampler_budget_period(&m.b));
	CHECK(st.budget.raised >= 2);
}

static void check_floor(void)
{
	struct sim m;

	start(&m);
	run(&m, 3, 2 * NSEC_PER_MSEC, 10, 0);
	CHECKF(fabs(1e9 / (double)sampler_budget_period(&m.b) - 46.875) < 0.1,
	       "%llu ns at the floor",
	       (unsigned long long)sampler_budget_period(&m.b));
	CHECKF(fabs(st.budget.hz_floor - 46.875) < 0.1, "floor %.2f Hz",
	       st.budget.hz_floor);
	CHECK(st.budget.floor_over);
	/* 100 Hz asked: max(8 periods, 64 ms) = 80 ms; a third of it. */
	memset(&st, 0, sizeof(st));
	sampler_budget_init(&m.b, 0.01, 10 * NSEC_PER_MSEC, START, &st);
	CHECKF(fabs(st.budget.hz_floor - 37.5) < 0.01, "floor %.2f Hz",
	       st.budget.hz_floor);
}

/* A 5 ms stop latency counts as the cap: 0 held + 100 us a tick at 1000
 * Hz is 100 / (1000 + 100), lowered to 0.8%. */
static void check_stop_cap(void)
{
	struct sim m;
	double want = 0.1 / 1.1 / 0.008;

	start(&m);
	run(&m, 0.2, 0, 5000, 0);
	CHECKF(fabs((double)sampler_budget_period(&m.b) / BASE - want) <
		       want * 0.05,
	       "scale %.2f, expected about %.2f",
	       (double)sampler_budget_period(&m.b) / BASE, want);
}

static void check_wall_weights(void)
{
	struct sampler_budget b;
	uint64_t sum = 0;

	memset(&st, 0, sizeof(st));
	sampler_budget_init(&b, 0.01, BASE, START, &st);
	CHECK(sampler_budget_weight(&b, 0) == 1);
	CHECK(sampler_budget_weight(&b, 3) == 4); /* 3 slots missed */
	b.scale = 2.5;
	b.wall_acc = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t w = sampler_budget_weight(&b, 0);

		CHECKF(w == 2 || w == 3, "weight %llu", (unsigned long long)w);
		sum += w;
	}
	CHECKF(sum >= 2499 && sum <= 2501, "%llu periods in 1000 ticks",
	       (unsigned long long)sum);
}

static void check_set_period(void)
{
	struct ticksched t;
	uint64_t at, prev, sum = 0, n = 1000, period = 4 * BASE;

	ticksched_init(&t, START, BASE, 42);
	ticksched_take(&t, ticksched_next(&t));
	at = ticksched_next(&t);
	ticksched_take(&t, at);
	ticksched_set_period(&t, period);
	prev = at;
	for (uint64_t k = 1; k <= n; k++) {
		uint64_t next = ticksched_next(&t);
		int64_t off = (int64_t)(next - at) - (int64_t)(k * period);

		CHECKF(off >= -(int64_t)period / 2 && off < (int64_t)period / 2,
		       "tick %llu: offset %lld", (unsigned long long)k,
		       (long long)off);
		CHECK(next >= prev + period / 8);
		sum += next - prev;
		prev = next;
		CHECK(ticksched_take(&t, next) == 0);
	}
	CHECKF(sum / n > period - period / 100 &&
		       sum / n < period + period / 100,
	       "mean interval %llu", (unsigned long long)(sum / n));
}

int main(void)
{
	check_lowered_and_held();
	check_floor();
	check_stop_cap();
	check_wall_weights();
	check_set_period();
	return unit_result("test_sampler_budget");
}
