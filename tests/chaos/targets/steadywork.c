/*
 * steadywork - chaos target: busy threads that check their own results,
 * to show that a profiler stopping them (and whatever happens to the
 * profiler meanwhile) changes neither their state nor their answers.
 *
 *   steadywork NTHREADS MAXSECS
 *
 * NTHREADS (1..8) threads repeat one round of integer and floating-point
 * work (the general and SSE registers both carry live values across the
 * loop) and compare each round's result with the one main() computed
 * before they started: a register or stack word changed under a thread
 * shows as a bad round.  Prints "ready" once the threads run.  SIGUSR1
 * ends the run (or MAXSECS, 1..600, does); then it prints
 * "steadywork: ok rounds=R bad=0 ended=signal" and exits 0, or "FAIL"
 * and exits 1 if a round was bad or no thread finished one.  The main
 * thread waits in sigtimedwait meanwhile; SIGTSTP keeps its default
 * action (the process stops).
 *
 * With STEADYWORK_PROGRESS=FILE in the environment the threads' round
 * counters live in FILE (MAX_THREADS 64-bit counters, mapped shared), so
 * a test can read from outside whether any thread ran its own code: CPU
 * time cannot tell, as it grows also while the kernel works for a stopped
 * thread (a ptrace stop and release of a group-stopped thread runs
 * kernel code, and its CPU time moves across a clock-tick boundary now
 * and then).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"

#define MAX_THREADS 8
#define ROUND_ITERS 200000u

static volatile int stop;
static uint64_t reference;
static uint64_t own_rounds[MAX_THREADS], *rounds = own_rounds;
static uint64_t bad[MAX_THREADS];

/* One round: an LCG and a floating-point recurrence, mixed. */
NOIPA static uint64_t steady_round(uint64_t seed)
{
	uint64_t x = seed;
	double d = 1.0, e = 0.5;

	for (unsigned i = 0; i < ROUND_ITERS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		d = d * 1.0000001 + (double)(x >> 40) * 1e-12;
		e = e * 0.9999999 + d * 1e-9;
	}
	KEEP_FRAME();
	return x ^ (uint64_t)(d * 1e6) ^ ((uint64_t)(e * 1e9) << 1);
}

/* STEADYWORK_PROGRESS=FILE: keep rounds[] in FILE (see above). */
static int map_progress(void)
{
	const char *path = getenv("STEADYWORK_PROGRESS");
	size_t len = MAX_THREADS * sizeof(uint64_t);
	void *p;
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		perror(path);
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return -1;
	}
	rounds = p;
	return 0;
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;

	while (!stop) {
		if (steady_round(42) != reference)
			__atomic_add_fetch(&bad[me], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&rounds[me], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0;
	int maxsecs = argc == 3 ? atoi(argv[2]) : 0;
	pthread_t th[MAX_THREADS];
	struct timespec left;
	sigset_t set;
	uint64_t r = 0, b = 0;
	double end;
	const char *ended = "time";

	if (n < 1 || n > MAX_THREADS || maxsecs < 1 || maxsecs > 600) {
		fprintf(stderr,
			"usage: steadywork NTHREADS(1..8) MAXSECS(1..600)\n");
		return 2;
	}
	if (map_progress())
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	reference = steady_round(42);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	printf("ready\n");
	fflush(stdout);
	end = now() + maxsecs;
	while (now() < end) {
		double rest = end - now();

		left.tv_sec = (time_t)rest;
		left.tv_nsec = (long)((rest - (double)left.tv_sec) * 1e9);
		if (sigtimedwait(&set, NULL, &left) == SIGUSR1) {
			ended = "signal";
			break;
		}
	}
	stop = 1;
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		r += rounds[i];
		b += bad[i];
	}
	printf("steadywork: %s rounds=%llu bad=%llu ended=%s\n",
	       b || !r ? "FAIL" : "ok", (unsigned long long)r,
	       (unsigned long long)b, ended);
	return b || !r ? 1 : 0;
}
