/*
 * waker - test target: N threads that sleep, then wake one after another
 * and each burn CPU for a while, so a sampler has to notice threads that
 * were idle long enough to be left unread.
 *
 *   waker N IDLE_SECS BURN_SECS
 *
 * All N threads block on a condition variable.  After IDLE_SECS the main
 * thread wakes thread 0, which spins in woken_burn for about BURN_SECS of
 * CPU time (BURN_SECS * SPINS_PER_SEC rounds, so a busy machine makes the
 * burn longer, not smaller; 30 s of wall time at most) and goes
 * back to sleep; then thread 1, and so on, up to thread 2 (three burns in
 * all, whatever N).  Then all exit, and the process prints "done" and
 * exits 0.  The main thread sleeps in nanosleep meanwhile.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

#define BURNS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn = -1; /* the thread whose turn it is to burn; -2: all end */
static double burn_secs;
volatile uint64_t sink;

NOIPA void woken_burn(void)
{
	double rounds = burn_secs * SPINS_PER_SEC / 20000, wall_end = now() + 30;
	uint64_t x = sink;

	for (; rounds > 0 && now() < wall_end; rounds--) {
		for (unsigned i = 0; i < 20000u; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
	KEEP_FRAME();
}

static void *sleeper(void *arg)
{
	int me = (int)(intptr_t)arg;

	pthread_mutex_lock(&lock);
	for (;;) {
		while (turn != me && turn != -2)
			pthread_cond_wait(&cond, &lock);
		if (turn == -2)
			break;
		pthread_mutex_unlock(&lock);
		woken_burn();
		pthread_mutex_lock(&lock);
		turn = -1;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void sleep_for(double secs)
{
	struct timespec ts = { (time_t)secs,
			       (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0;
	double idle = argc > 3 ? atof(argv[2]) : 0;
	pthread_t *t;

	if (n < BURNS || n > 1000 || idle < 0) {
		fprintf(stderr, "usage: waker N(3..1000) IDLE_SECS BURN_SECS\n");
		return 2;
	}
	burn_secs = atof(argv[3]);
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, sleeper, (void *)(intptr_t)i);
	for (int b = 0; b < BURNS; b++) {
		sleep_for(idle);
		pthread_mutex_lock(&lock);
		turn = b;
		pthread_cond_broadcast(&cond);
		while (turn != -1)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	turn = -2;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	puts("done");
	return 0;
}
