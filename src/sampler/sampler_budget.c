/*
 * sampler_budget.c - --max-overhead: the overhead judged window by
 * window, and the tick rate it calls for (see sampler_budget.h).
 */
#include "config.h"

#include <string.h>

#include "sampler/cpuacct.h"
#include "sampler/sampler_budget.h"

/* The rate of a scale, in Hz. */
static double hz_of(const struct sampler_budget *b, double scale)
{
	return (double)NSEC_PER_SEC / ((double)b->base_ns * scale);
}

/* The window starts at now, from the stats' figures so far. */
static void window_start(struct sampler_budget *b,
			 const struct sampler_stats *st, uint64_t now)
{
	b->win_start = now;
	b->win_ticks = 0;
	b->held_base = st->phase[SAMPLER_PH_HELD].total_ns;
	b->lat_n_base = st->stop_lat_n;
	memcpy(b->lat_base, st->stop_lat_hist, sizeof(b->lat_base));
}

/*
 * The window's held time: each stop's HELD phase, plus its latency up
 * to the cap.  The latencies are counted in 1 us buckets
 * (st->stop_lat_hist, which starts with BUDGET_STOP_CAP_US of them):
 * those below the cap count for their bucket's middle, the rest for the
 * cap.
 */
static uint64_t window_held(const struct sampler_budget *b,
			    const struct sampler_stats *st)
{
	uint64_t held = st->phase[SAMPLER_PH_HELD].total_ns - b->held_base;
	uint64_t n = st->stop_lat_n - b->lat_n_base, below = 0;

	for (size_t i = 0; i < BUDGET_STOP_CAP_US; i++) {
		uint64_t k = st->stop_lat_hist[i] - b->lat_base[i];

		below += k;
		held += k * (i * NSEC_PER_USEC + NSEC_PER_USEC / 2);
	}
	if (n > below)
		held += (n - below) * BUDGET_STOP_CAP_US * NSEC_PER_USEC;
	return held;
}

void sampler_budget_init(struct sampler_budget *b, double max, uint64_t base_ns,
			 uint64_t now, struct sampler_stats *st)
{
	/* a third of the bound on a carry between two grid points */
	uint64_t bound = cpuacct_carry_bound(base_ns);

	memset(b, 0, sizeof(*b));
	b->max = max;
	b->base_ns = base_ns ? base_ns : 1;
	b->scale = 1;
	b->scale_max = (double)bound / 3 / (double)b->base_ns;
	if (b->scale_max < 1)
		b->scale_max = 1;
	b->start = b->since = now;
	window_start(b, st, now);
	st->budget.max = max;
	st->budget.hz_asked = st->budget.hz_min = st->budget.hz_mean =
		st->budget.hz_final = hz_of(b, 1);
	st->budget.hz_floor = hz_of(b, b->scale_max);
}

bool sampler_budget_tick(struct sampler_budget *b,
			 const struct sampler_stats *st, uint64_t now)
{
	uint64_t span = now - b->win_start;

	b->win_ticks++;
	if (b->win_ticks < BUDGET_WINDOW_TICKS)
		return false;
	/* Held already more than the budget of the window's wall time: at
	 * least one thread may be over, so judge now rather than go on at
	 * a rate that may cost several times the budget (at the start,
	 * 200 ms at 2000 Hz cost 8% of them). */
	return span >= BUDGET_WINDOW_NS ||
	       (double)window_held(b, st) > b->max * (double)span;
}

/* The scale the window's overhead calls for, or the current one. */
static double new_scale(const struct sampler_budget *b, double over)
{
	double aim = BUDGET_AIM * b->max, want;

	if (over > b->max)
		want = b->scale * over / aim;
	else if (over < b->max / 2 && b->scale > 1)
		want = over > 0 ? b->scale * over / aim : 1;
	else
		return b->scale;
	if (want < b->scale / 2)
		want = b->scale / 2; /* the rate at most doubled at once */
	if (want < 1)
		want = 1;
	if (want > b->scale_max)
		want = b->scale_max;
	return want;
}

bool sampler_budget_close(struct sampler_budget *b, struct sampler_stats *st,
			  uint64_t now, uint64_t cpu_ns)
{
	struct sampler_budget_stats *bs = &st->budget;
	uint64_t held = window_held(b, st);
	double over = held ? (double)held / (double)(cpu_ns + held) : 0;
	double scale = new_scale(b, over);
	bool changed = scale != b->scale;

	bs->windows++;
	bs->held_ns += held;
	bs->cpu_ns += cpu_ns;
	if (over > bs->worst)
		bs->worst = over;
	if (over > b->max) {
		bs->windows_over++;
		bs->floor_over |= b->scale >= b->scale_max;
	}
	if (changed) {
		b->hz_ns += hz_of(b, b->scale) * (double)(now - b->since);
		b->since = now;
		if (scale > b->scale)
			bs->lowered++;
		else
			bs->raised++;
		b->scale = scale;
		if (hz_of(b, scale) < bs->hz_min)
			bs->hz_min = hz_of(b, scale);
	}
	window_start(b, st, now);
	return changed;
}

uint64_t sampler_budget_period(const struct sampler_budget *b)
{
	return (uint64_t)((double)b->base_ns * b->scale + 0.5);
}

uint64_t sampler_budget_weight(struct sampler_budget *b, uint64_t missed)
{
	uint64_t w;

	b->wall_acc += b->scale * (double)(1 + missed);
	w = (uint64_t)b->wall_acc;
	if (w < 1)
		w = 1;
	b->wall_acc -= (double)w;
	return w;
}

void sampler_budget_end(struct sampler_budget *b, struct sampler_stats *st,
			uint64_t now)
{
	double hz_ns = b->hz_ns + hz_of(b, b->scale) * (double)(now - b->since);

	st->budget.hz_final = hz_of(b, b->scale);
	st->budget.hz_mean = now > b->start ? hz_ns / (double)(now - b->start) :
					      st->budget.hz_final;
}
