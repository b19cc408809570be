/*
 * zleader - a live process whose main thread has exited.
 *
 *   zleader SECONDS
 *
 * main starts a worker that burns about SECONDS of CPU time in worker_spin
 * (SECONDS * SPINS_PER_SEC rounds, SECONDS + 30 of wall time at most) and then
 * exits the process, and calls pthread_exit(): /proc/PID/stat then shows
 * the leader as a zombie (Z) although the process runs on.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

static double seconds;

volatile uint64_t sink;

__attribute__((noinline)) void worker_spin(double secs)
{
	double rounds = secs * SPINS_PER_SEC / 20000, end = now() + secs + 30;
	uint64_t x = sink;

	for (; rounds > 0 && now() < end; rounds--)
		SPIN(x, 20000u);
	sink = x;
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	(void)arg;
	worker_spin(seconds);
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t th;

	seconds = argc > 1 ? atof(argv[1]) : 3.0;
	pthread_create(&th, NULL, worker, NULL);
	printf("ready\n");
	fflush(stdout);
	pthread_exit(NULL);
}
