/*
 * cpuburn - test target: burn a fixed amount of CPU time, however busy
 * the machine is.
 *
 *   cpuburn SECONDS    burn CPU in burn_cpu() until this (one-threaded)
 *                      process has used SECONDS of CPU time (target.h's
 *                      cpu_now()), then exit 0.
 *
 * A target that runs for a wall-clock time gets less CPU time on a loaded
 * machine; a test that counts CPU time needs this one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "target.h"

volatile uint64_t sink;

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
