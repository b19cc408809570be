/*
 * killee - a target for the ptprof-killed chaos case: busy threads that
 * check their own arithmetic and blocked threads that check their wakeups,
 * so that a tracer dying in the middle of a tick shows as a wrong result.
 *
 *   killee NBUSY
 *
 * Prints "ready" once its threads run.  NBUSY threads each compute chunk
 * after chunk of an LCG chain (CHUNK steps in a loop) and check each one
 * against the chain's closed form (one multiply-add); a reader thread
 * blocks in read() on a pipe, a waiter in pthread_cond_wait(), a sleeper
 * in 200 ms nanosleep()s.  SIGUSR1 (or 120 s at most) ends the run: main
 * wakes everything, joins and prints "result ok chunks=N" (exit 0) or
 * what went wrong (exit 1).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"

#define MAX_BUSY 16
#define CHUNK 200000u

static volatile int stop;
static int pipefd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int woken;

/* CHUNK steps of the LCG are x -> mul * x + add. */
static uint64_t mul, add;

struct busy {
	pthread_t th;
	unsigned idx;
	uint64_t chunks, wrong;
};

NOIPA uint64_t chunk_value(uint64_t x)
{
	for (unsigned i = 0; i < CHUNK; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	KEEP_FRAME();
	return x;
}

static void *busy_main(void *arg)
{
	struct busy *b = arg;

	while (!stop) {
		uint64_t x0 = b->idx * 0x9e3779b97f4a7c15ULL + b->chunks;

		if (chunk_value(x0) != mul * x0 + add)
			b->wrong++;
		b->chunks++;
	}
	return NULL;
}

static char got_byte;

static void *reader_main(void *arg)
{
	(void)arg;
	/* read() is restarted after a ptrace stop: it returns only the byte. */
	if (read(pipefd[0], &got_byte, 1) != 1)
		got_byte = 0;
	return NULL;
}

static void *waiter_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!woken)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *sleeper_main(void *arg)
{
	struct timespec ts = { 0, 200 * 1000000L };

	(void)arg;
	while (!stop)
		nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	struct busy b[MAX_BUSY] = { 0 };
	unsigned nbusy = argc > 1 ? (unsigned)atoi(argv[1]) : 2, i;
	pthread_t rd, wt, sl;
	sigset_t set;
	uint64_t total = 0;
	double end;
	int bad = 0;

	if (nbusy < 1 || nbusy > MAX_BUSY || pipe(pipefd))
		return 2;
	add = chunk_value(0);
	mul = chunk_value(1) - add;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by the threads */
	for (i = 0; i < nbusy; i++) {
		b[i].idx = i;
		pthread_create(&b[i].th, NULL, busy_main, &b[i]);
	}
	pthread_create(&rd, NULL, reader_main, NULL);
	pthread_create(&wt, NULL, waiter_main, NULL);
	pthread_create(&sl, NULL, sleeper_main, NULL);
	printf("ready\n");
	fflush(stdout);
	/* sigtimedwait() may return EINTR when a tracer interrupts it. */
	end = now() + 120;
	while (now() < end) {
		struct timespec ts = { 1, 0 };

		if (sigtimedwait(&set, NULL, &ts) == SIGUSR1)
			break;
	}
	stop = 1;
	if (write(pipefd[1], "k", 1) != 1)
		return 2;
	pthread_mutex_lock(&mu);
	woken = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (i = 0; i < nbusy; i++)
		pthread_join(b[i].th, NULL);
	pthread_join(rd, NULL);
	pthread_join(wt, NULL);
	pthread_join(sl, NULL);
	if (got_byte != 'k') {
		printf("reader got %d, expected 'k'\n", got_byte);
		bad = 1;
	}
	for (i = 0; i < nbusy; i++) {
		if (b[i].wrong) {
			printf("thread %u: %llu of %llu chunks wrong\n", i,
			       (unsigned long long)b[i].wrong,
			       (unsigned long long)b[i].chunks);
			bad = 1;
		}
		total += b[i].chunks;
	}
	if (bad)
		return 1;
	printf("result ok chunks=%llu\n", (unsigned long long)total);
	return 0;
}
