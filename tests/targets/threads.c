/*
 * threads - test target: N busy threads, each burning CPU in a function of
 * its own (busy_one, busy_two, busy_three), while the main thread blocks in
 * pthread_join.  Prints nothing.
 *
 *   threads [N [SECONDS]]   N = 1..3 (default 3); run SECONDS (default 30),
 *                           exit 0; or until killed.
 *
 * A test knows the threads are up when /proc/PID/task has N+1 entries.
 * noipa keeps GCC from folding the three look-alike functions into one.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

static double end_time;
volatile uint64_t sink1, sink2, sink3;

/* The loop is in each busy function itself, so it is the leaf. */
#define BUSY(sink, mul)                                                      \
	do {                                                                 \
		uint64_t x_ = sink;                                          \
		while (now() < end_time) {                                   \
			for (unsigned i_ = 0; i_ < 20000u; i_++)             \
				x_ = x_ * (mul) + 1442695040888963407ULL;    \
			sink = x_;                                           \
		}                                                            \
	} while (0)

NOIPA void *busy_one(void *arg)
{
	BUSY(sink1, 6364136223846793005ULL);
	KEEP_FRAME();
	return arg;
}

NOIPA void *busy_two(void *arg)
{
	BUSY(sink2, 2862933555777941757ULL);
	KEEP_FRAME();
	return arg;
}

NOIPA void *busy_three(void *arg)
{
	BUSY(sink3, 3935559000370003845ULL);
	KEEP_FRAME();
	return arg;
}

int main(int argc, char **argv)
{
	void *(*const fn[])(void *) = { busy_one, busy_two, busy_three };
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[3];

	if (n < 1 || n > 3) {
		fprintf(stderr, "threads: N must be 1..3\n");
		return 2;
	}
	end_time = now() + (argc > 2 ? strtod(argv[2], NULL) : 30.0);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL)) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
