/*
 * cpuburn - test target: burn a fixed amount of CPU time, however busy
 * the machine is.
 *
 *   cpuburn SECONDS [FILE]
 *                      burn CPU in burn_cpu() until this (one-threaded)
 *                      process has used SECONDS of CPU time (target.h's
 *                      cpu_now()), then exit 0; with FILE, first write
 *                      there the CPU time it used in all (getrusage(),
 *                      user + system, in seconds).
 *
 * A target that runs for a wall-clock time gets less CPU time on a loaded
 * machine; a test that counts CPU time needs this one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void burn_cpu(double seconds)
{
	uint64_t x = sink;

	while (cpu_now() < seconds)
		SPIN(x, 1000000u);
	sink = x;
	KEEP_FRAME();
}

/* The CPU time used, as the kernel counts it for the process. */
static void report_cpu(const char *path)
{
	struct rusage ru;
	FILE *f = fopen(path, "w");

	if (!f || getrusage(RUSAGE_SELF, &ru))
		exit(2);
	fprintf(f, "%.6f\n",
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
				1e6);
	if (fclose(f))
		exit(2);
}

int main(int argc, char **argv)
{
	burn_cpu(argc > 1 ? strtod(argv[1], NULL) : 1.0);
	if (argc > 2)
		report_cpu(argv[2]);
	KEEP_FRAME();
	return 0;
}
