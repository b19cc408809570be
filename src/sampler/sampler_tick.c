/*
 * sampler_tick.c - one tick of the sampling loop: the process set
 * watched, the due threads seized and each process's interrupted
 * (sampler_seize.c), the world stopped (collect the stops, mark the rest LATE: sampler_stops.c,
 * sampler_late.c), the captures unwound (sampler_record.c), then the
 * sweep.  The first tick decides on the whole target's seccomp filters.
 */
#include "config.h"

#include <errno.h>

#include "sampler/sampler_int.h"
#include "util/timeutil.h"

/* How long a tick waits for its stops (at most a quarter period) unless
 * the caller says (sampler_config.stop_window_ns); see
 * sampler_stops_collect(). */
#define STOP_WINDOW_NS (500 * NSEC_PER_USEC)

/*
 * Interrupt, then sample and release each thread as its stop comes.  The
 * pause is from the first PTRACE_INTERRUPT to the last detach of a thread
 * sampled this tick (0 if none stopped): how long the target was held.
 */
static uint64_t stop_the_world(struct sampler *s)
{
	bool spin = sampler_stops_spin_worth(s);
	uint64_t t0, window = STOP_WINDOW_NS;

	/* The copies were warmed, and each process's threads interrupted,
	 * as they were seized (sampler_stops.c). */
	t0 = mono_now_ns();
	if (window > s->period_ns / 4)
		window = s->period_ns / 4;
	if (s->cfg->stop_window_ns)
		window = s->cfg->stop_window_ns;
	s->st->stops_spun += spin;
	sampler_stops_interrupt_all(s);
	sampler_stops_collect(s, t0 + window, spin ? t0 + s->spin_ns : 0);
	sampler_late_mark(s);
	s->seizing = false;
	sampler_record_unwind_queued(s);
	if (s->pause_from && s->pause_from < t0)
		t0 = s->pause_from;
	return s->last_detach_ns > t0 ? s->last_detach_ns - t0 : 0;
}

/* Has the run nothing left to sample: every process of the set skipped
 * before one was sampled?  Then it fails as one refused process did. */
static int check_refused_all(struct sampler *s)
{
	if (s->set.nprocs || s->sampled_any || !s->st->procs_skipped)
		return 0;
	errno = EPERM;
	return -1;
}

int sampler_tick(struct sampler *s)
{
	uint64_t pause;

	s->tick++;
	s->tick_ns = mono_now_ns();
	s->tick_real_ns = real_now_ns();
	if (sampler_procs_watch(s))
		return -1;
	if (s->target_gone)
		return check_refused_all(s);
	if (sampler_seize_all(s)) {
		int err = errno;

		stop_the_world(s); /* release whatever was seized */
		errno = err;
		return -1;
	}
	if (!s->nactive && !sampler_procs_roots_left(s)) {
		sampler_procs_finish_gone(s);
		return 0; /* no tick: nothing was there to sample */
	}
	pause = stop_the_world(s);
	sampler_stats_pause(s->st, pause);
	/* The first tick decides on the whole target: a probe that missed
	 * the window (a busy machine) is waited for, as at the end. */
	if (s->tick == 1 && sampler_late_probes(s))
		sampler_late_release(s);
	if (s->tick == 1 && s->st->seccomp_unsafe) {
		/* Refused at the start: nothing is sampled (sampler.h). */
		s->st->seccomp_refused = true;
		errno = EACCES;
		return -1;
	}
	sampler_late_sweep(s);
	sampler_procs_finish_gone(s);
	return check_refused_all(s);
}
