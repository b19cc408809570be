/*
 * sampler_stats.c - --stats: the pause's, the stop latency's and the
 * stop phases' histograms, the peeks' outcomes, and the quantiles
 * sampler.h exports from them.  Counting only: a few adds in the stop
 * window.
 */
#include "config.h"

#include <errno.h>

#include "sampler/sampler.h"
#include "sampler/sampler_int.h"
#include "util/timeutil.h"

/* The pause's buckets: 1 us below PAUSE_FINE_US, then 100 us. */
static void count_in(uint32_t *hist, uint64_t ns)
{
	uint64_t us = ns / NSEC_PER_USEC;
	size_t b = us < PAUSE_FINE_US ?
			   us :
			   PAUSE_FINE_US + (us - PAUSE_FINE_US) / 100;

	hist[b < PAUSE_BUCKETS ? b : PAUSE_BUCKETS - 1]++;
}

/* From PTRACE_INTERRUPT to the stop's report (waitpid()), for --stats:
 * how long a stop takes to land, which tells how far from the moment of
 * the tick a sample can be (SYSTEM CALL BIAS in ptprof(1)). */
void sampler_stats_stop_latency(struct sampler_stats *st, uint64_t ns)
{
	st->stop_lat_n++;
	if (ns > st->stop_lat_max_ns)
		st->stop_lat_max_ns = ns;
	count_in(st->stop_lat_hist, ns);
}

/* A phase's bucket (sampler.h): ns itself below 2 * PHASE_SUB, else
 * e * PHASE_SUB + (ns >> e), with ns >> e in [PHASE_SUB, 2 * PHASE_SUB). */
static size_t phase_bucket(uint64_t ns)
{
	unsigned e = 0;

	while ((ns >> e) >= 2 * PHASE_SUB)
		e++;
	return e ? e * PHASE_SUB + (size_t)(ns >> e) : (size_t)ns;
}

/* The largest value in bucket b, plus one (ns). */
static uint64_t phase_bucket_top(size_t b)
{
	size_t e = b < 2 * PHASE_SUB ? 0 : b / PHASE_SUB - 1;

	return e ? (uint64_t)(b - e * PHASE_SUB + 1) << e : (uint64_t)b + 1;
}

/* One phase of a thread's stop window (sampler.h, enum sampler_phase). */
static void count_phase_ns(struct sampler_stats *st, enum sampler_phase ph,
			   uint64_t ns)
{
	struct sampler_phase_stat *p = &st->phase[ph];
	size_t b = phase_bucket(ns);

	p->n++;
	p->total_ns += ns;
	if (ns > p->max_ns)
		p->max_ns = ns;
	p->hist[b < PHASE_BUCKETS ? b : PHASE_BUCKETS - 1]++;
}

static void count_phase(struct sampler_stats *st, enum sampler_phase ph,
			uint64_t from, uint64_t to)
{
	count_phase_ns(st, ph, to > from ? to - from : 0);
}

/* The phases of a stop asked for, from the readings note_stop() took
 * (a 0 reading: that step was not taken). */
void sampler_stats_phases(struct sampler_stats *st, const struct capture *cap,
			  const struct thread *th, const uint64_t t[5],
			  bool captured, bool py)
{
	enum { REAPED, COPIED, PY, GUARDED, DETACHED };

	count_phase(st, SAMPLER_PH_STOP, th->intr_ns, t[REAPED]);
	if (captured) {
		count_phase_ns(st, SAMPLER_PH_REGS, cap->regs_ns);
		count_phase_ns(st, SAMPLER_PH_STACK, cap->copy_ns);
		st->stack_bytes += cap->copied;
		if (cap->copied > st->stack_bytes_max)
			st->stack_bytes_max = cap->copied;
	}
	if (py)
		count_phase(st, SAMPLER_PH_PY, t[COPIED], t[PY]);
	if (t[GUARDED])
		count_phase(st, SAMPLER_PH_SECCOMP, t[PY], t[GUARDED]);
	count_phase(st, SAMPLER_PH_DETACH, t[GUARDED] ? t[GUARDED] : t[PY],
		    t[DETACHED]);
	count_phase(st, SAMPLER_PH_HELD, t[REAPED], t[DETACHED]);
	count_phase(st, SAMPLER_PH_WINDOW, th->intr_ns, t[DETACHED]);
}

void sampler_stats_pause(struct sampler_stats *st, uint64_t ns)
{
	st->ticks++;
	st->pause_total_ns += ns;
	if (ns > st->pause_max_ns)
		st->pause_max_ns = ns;
	count_in(st->pause_hist, ns);
}

/* A peek's outcome, for --stats; errno as the peek or unwind left it. */
void sampler_stats_peek(struct sampler_stats *st, enum peek_result r,
			bool again)
{
	switch (r) {
	case PEEK_OK:
		st->peeked++;
		st->peek_retried += again;
		break;
	case PEEK_RUNNING:
		st->peek_running++;
		break;
	case PEEK_CHANGED:
		st->peek_changed++;
		break;
	case PEEK_FAILED:
		/* A thread that is gone is no failure: its seize says so. */
		if (errno != ESRCH && errno != ENOENT)
			st->peek_failed++;
		break;
	}
}

unsigned sampler_unwind_quantile(const struct sampler_stats *st, double q)
{
	uint64_t n = 0, seen = 0, want;

	for (size_t b = 0; b < UNWIND_BUCKETS; b++)
		n += st->unwind_hist[b];
	if (!n)
		return 0;
	want = (uint64_t)(q * (double)n + 0.5);
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < UNWIND_BUCKETS; b++) {
		seen += st->unwind_hist[b];
		if (seen >= want)
			return (unsigned)b + 1;
	}
	return UNWIND_BUCKETS;
}

/* The q-quantile of n values counted in hist (the pause's buckets):
 * the bucket's upper bound, at most max_ns. */
static uint64_t hist_quantile(const uint32_t *hist, uint64_t n, uint64_t max_ns,
			      double q)
{
	uint64_t want = (uint64_t)(q * (double)n + 0.5), seen = 0;

	if (!n)
		return 0;
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < PAUSE_BUCKETS; b++) {
		uint64_t hi_us = b < PAUSE_FINE_US ?
					 b + 1 :
					 PAUSE_FINE_US +
						 (b - PAUSE_FINE_US + 1) * 100;

		seen += hist[b];
		if (seen >= want)
			return hi_us * NSEC_PER_USEC < max_ns ?
				       hi_us * NSEC_PER_USEC :
				       max_ns;
	}
	return max_ns;
}

uint64_t sampler_pause_quantile(const struct sampler_stats *st, double q)
{
	return hist_quantile(st->pause_hist, st->ticks, st->pause_max_ns, q);
}

uint64_t sampler_phase_quantile(const struct sampler_stats *st,
				enum sampler_phase ph, double q)
{
	const struct sampler_phase_stat *p = &st->phase[ph];
	uint64_t want = (uint64_t)(q * (double)p->n + 0.5), seen = 0;

	if (!p->n)
		return 0;
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < PHASE_BUCKETS - 1; b++) {
		seen += p->hist[b];
		if (seen >= want)
			return phase_bucket_top(b) < p->max_ns ?
				       phase_bucket_top(b) :
				       p->max_ns;
	}
	return p->max_ns;
}

uint64_t sampler_stop_quantile(const struct sampler_stats *st, double q)
{
	return hist_quantile(st->stop_lat_hist, st->stop_lat_n,
			     st->stop_lat_max_ns, q);
}
