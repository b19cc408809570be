/*
 * contend - test target: N threads (default 4) share one mutex, each
 * looping lock, nanosleep(200 us), unlock, nanosleep(50 us): a busy lock
 * that changes hands every few hundred microseconds and is never
 * deadlocked.  ptprof dump must never report a deadlock on it
 * (tests/dump-waits.test).  Prints "ready" once every thread runs; exits
 * 0 by itself after SECS seconds (default 60).
 *
 *   contend [N [SECS]]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int started;

static void pause_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		pthread_mutex_lock(&lock);
		pause_ns(200000);
		pthread_mutex_unlock(&lock);
		pause_ns(50000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	int secs = argc > 2 ? atoi(argv[2]) : 60;
	pthread_t th;

	if (n < 1 || n > 64 || secs < 1) {
		fprintf(stderr, "usage: contend [N (1-64) [SECS]]\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&th, NULL, worker, NULL)) {
			fprintf(stderr, "contend: pthread_create failed\n");
			return 1;
		}
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n)
		pause_ns(1000000);
	printf("ready\n");
	fflush(stdout);
	pause_ns(0);
	for (int i = 0; i < secs * 10; i++)
		pause_ns(100000000);
	return 0;
}
