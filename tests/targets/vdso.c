/*
 * vdso - spends its time calling clock_gettime(), whose body lives in the
 * kernel's vDSO (a mapping with no file), from a known chain:
 * main -> clock_loop -> clock_gettime -> [vdso].  Runs argv[1] seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

__attribute__((noinline)) void clock_loop(double end)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 1000; i++)
			clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (now() < end);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;

	printf("ready\n");
	fflush(stdout);
	clock_loop(now() + seconds);
	return 0;
}
