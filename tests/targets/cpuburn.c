/*
 * cpuburn - test target: burn a fixed amount of CPU time, however busy
 * the machine is.
 *
 *   cpuburn SECONDS    burn CPU in burn_cpu() until this process has used
 *                      SECONDS of CPU time (CLOCK_PROCESS_CPUTIME_ID),
 *                      then exit 0.
 *
 * A target that runs for a wall-clock time gets less CPU time on a loaded
 * machine; a test that counts CPU time needs this one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

volatile uint64_t sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOIPA void burn_cpu(double seconds)
{
	uint64_t x = sink;

	while (cpu_now() < seconds)
		SPIN(x, 100000u);
	sink = x;
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	burn_cpu(argc > 1 ? strtod(argv[1], NULL) : 1.0);
	KEEP_FRAME();
	return 0;
}
