/*
 * bursts - test target: N threads, each burning CPU in short bursts and
 * sleeping between them, so that a thread may never use half a sampling
 * period between two ticks.
 *
 *   bursts N BURST_US SLEEP_US SECONDS
 *
 * Prints "ready" once the N threads are up, all blocked; SIGUSR1 starts
 * them.  Each then spins in burst_work for about BURST_US of CPU time
 * (rounds of SPIN, see target.h: a busy machine makes a burst longer, not
 * smaller) and sleeps SLEEP_US in nanosleep, from a phase of its own
 * (SLEEP_US 0: it never sleeps), for SECONDS of wall time; then it blocks
 * for good.  Once all have, the process prints "done" and waits to be
 * killed, using no CPU time: a test reads its CPU time before SIGUSR1 and
 * after "done", and that is the time of the bursts, wherever a profiler
 * starts and ends.  Exits by itself after SECONDS + 60.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

static double end_time;
static double burst_us, sleep_us;
volatile uint64_t sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int up, going, finished;

NOIPA void burst_work(uint64_t rounds)
{
	uint64_t x = sink;

	while (rounds > 0) {
		unsigned n = rounds < 20000 ? (unsigned)rounds : 20000u;

		SPIN(x, n);
		rounds -= n;
	}
	sink = x;
	KEEP_FRAME();
}

static void sleep_for(double us)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(us / 1e6);
	ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
	while (nanosleep(&ts, &ts))
		;
}

static void *burster(void *arg)
{
	uint64_t rounds = (uint64_t)(burst_us * SPINS_PER_SEC / 1e6);

	pthread_mutex_lock(&lock);
	up++;
	pthread_cond_broadcast(&cond);
	while (!going)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* A phase of its own, so that the threads do not burst together. */
	if (sleep_us > 0)
		sleep_for(sleep_us * (double)((uintptr_t)arg % 97) / 97);
	while (now() < end_time) {
		burst_work(rounds);
		if (sleep_us > 0)
			sleep_for(sleep_us);
	}
	pthread_mutex_lock(&lock);
	finished++;
	pthread_cond_broadcast(&cond);
	for (;;)
		pthread_cond_wait(&cond, &lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 4 ? atoi(argv[1]) : 0;
	double secs = argc > 4 ? atof(argv[4]) : 0;
	pthread_attr_t attr;
	pthread_t t;
	sigset_t set;
	int sig;

	if (n < 1 || n > 2000 || secs <= 0) {
		fprintf(stderr,
			"usage: bursts N(1..2000) BURST_US SLEEP_US SECONDS\n");
		return 2;
	}
	burst_us = atof(argv[2]);
	sleep_us = atof(argv[3]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &attr, burster, (void *)(uintptr_t)i)) {
			fprintf(stderr, "bursts: pthread_create failed\n");
			return 1;
		}
	pthread_mutex_lock(&lock);
	while (up < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	puts("ready");
	fflush(stdout);
	alarm((unsigned)secs + 60);
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 1;
	pthread_mutex_lock(&lock);
	end_time = now() + secs;
	going = 1;
	pthread_cond_broadcast(&cond);
	while (finished < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	puts("done");
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
