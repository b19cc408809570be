/*
 * zleader - a live process whose main thread has exited.
 *
 *   zleader SECONDS
 *
 * main starts a worker that burns CPU in worker_spin for SECONDS and then
 * exits the process, and calls pthread_exit(): /proc/PID/stat then shows
 * the leader as a zombie (Z) although the process runs on.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

static double seconds;

__attribute__((noinline)) void worker_spin(double end)
{
	volatile unsigned long x = 0;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			x++;
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	(void)arg;
	worker_spin(now() + seconds);
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
