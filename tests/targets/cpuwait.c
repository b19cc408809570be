/*
 * cpuwait - test target for CPU vs wall profiles and thread selection.
 *
 *   cpuwait SECONDS [PART]
 *
 * The main thread (named "waiter") sleeps in waitfn; a thread named
 * "burner" burns CPU in cpufn without a break.  With PART (a percentage,
 * 1..99), a third thread named "parter" burns PART% of a core in partfn:
 * PART ms of CPU, then 100 - PART ms asleep, over and over.  Everything
 * ends after SECONDS, exit 0.  A test knows the threads are up when
 * /proc/PID/task has 2 (or 3) entries named as above.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

static double end_time;
static int part;
volatile uint64_t sink1, sink2;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

NOIPA void *cpufn(void *arg)
{
	uint64_t x = sink1;

	while (now() < end_time) {
		for (unsigned i = 0; i < 20000u; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink1 = x;
	}
	KEEP_FRAME();
	return arg;
}

/* Burn until this thread has used `ms` more of CPU time (not wall time:
 * on a busy machine the share must still be PART% of what it gets). */
NOIPA void partburn(double ms)
{
	double until = thread_cpu() + ms / 1e3;
	uint64_t x = sink2;

	while (thread_cpu() < until)
		for (unsigned i = 0; i < 2000u; i++)
			x = x * 2862933555777941757ULL + 3037000493ULL;
	sink2 = x;
	KEEP_FRAME();
}

NOIPA void *partfn(void *arg)
{
	struct timespec rest = { 0, (100 - part) * 1000000L };

	pthread_setname_np(pthread_self(), "parter");
	while (now() < end_time) {
		partburn(part);
		nanosleep(&rest, NULL);
	}
	KEEP_FRAME();
	return arg;
}

NOIPA void waitfn(void)
{
	struct timespec ts = { 0, 50000000L };

	while (now() < end_time)
		nanosleep(&ts, NULL);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	pthread_t burner, parter;

	if (argc < 2)
		return 2;
	end_time = now() + atof(argv[1]);
	part = argc > 2 ? atoi(argv[2]) : 0;
	if (part < 0 || part > 99)
		return 2;
	if (pthread_create(&burner, NULL, cpufn, NULL))
		return 1;
	pthread_setname_np(burner, "burner");
	if (part && pthread_create(&parter, NULL, partfn, NULL))
		return 1;
	pthread_setname_np(pthread_self(), "waiter");
	waitfn();
	pthread_join(burner, NULL);
	if (part)
		pthread_join(parter, NULL);
	return 0;
}
