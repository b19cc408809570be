/*
 * timeutil.h - monotonic (and wall-clock) time in nanoseconds.
 *
 * Contract: header-only, no state, async-signal-safe (clock_gettime is).
 * All sampler deadlines are absolute CLOCK_MONOTONIC nanoseconds so that a
 * late tick never shifts the ones after it.
 */
#ifndef PTPROF_TIMEUTIL_H
#define PTPROF_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

static inline uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time (CLOCK_REALTIME), ns since the Unix epoch: what a
 * profile stamps its samples with; never for deadlines (it may step). */
static inline int64_t real_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec;
}

static inline struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (long)(ns % NSEC_PER_SEC);
	return ts;
}

#endif /* PTPROF_TIMEUTIL_H */
