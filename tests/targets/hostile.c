/*
 * hostile - test target: names chosen to attack whoever prints them.  A
 * thread names itself "a\nb" ESC "[31mc" 0xff (prctl PR_SET_NAME) and
 * burns CPU in ptprof_hostile_symbol_marker_padded_for_the_new_bytes,
 * a name a test then patches in a copy of this binary, bytes of the same
 * length, into one with a newline, a forged folded stack, ESC and 0xff
 * (see tests/hostile-names.test).  The main thread blocks in
 * pthread_join.
 *
 *   hostile [SECONDS]   run SECONDS (default 30), exit 0; prints "ready"
 *                       once the thread has its name.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "target.h"

static double end_time;
volatile uint64_t sink;

NOIPA void ptprof_hostile_symbol_marker_padded_for_the_new_bytes(void)
{
	uint64_t x = sink;

	while (now() < end_time) {
		SPIN(x, 20000u);
		sink = x;
	}
	KEEP_FRAME();
}

static void *worker(void *arg)
{
	/* 10 bytes: the kernel keeps 15, and stores them as they are. */
	prctl(PR_SET_NAME, "a\nb\x1b[31mc\xff", 0, 0, 0);
	puts("ready");
	fflush(stdout);
	ptprof_hostile_symbol_marker_padded_for_the_new_bytes();
	KEEP_FRAME();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	end_time = now() + (argc > 1 ? atof(argv[1]) : 30);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
