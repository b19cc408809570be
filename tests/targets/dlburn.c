/*
 * dlburn - the shared library the dlcloser target dlopens by path.
 *
 * dlburn_run(secs) burns about secs seconds of CPU time (secs *
 * SPINS_PER_SEC rounds, 30 s of wall time at most) in dlburn_spin, a function
 * of this library (noipa: a test looks for its name), and returns how
 * many rounds it did.  Compiled with -DDLBURN_SPIN=NAME, the spinning
 * function gets another name (a second library for the same target).
 */
#include <stdint.h>

#include "target.h"

#ifndef DLBURN_SPIN
#define DLBURN_SPIN dlburn_spin
#endif

volatile uint64_t dlburn_sink;

NOIPA void DLBURN_SPIN(void)
{
	uint64_t x = dlburn_sink;

	SPIN(x, 50000u);
	dlburn_sink = x;
	KEEP_FRAME();
}

unsigned long dlburn_run(double secs)
{
	double calls = secs * SPINS_PER_SEC / 50000, wall_end = now() + 30;
	unsigned long rounds = 0;

	for (; calls > 0 && now() < wall_end; calls--) {
		DLBURN_SPIN();
		rounds++;
	}
	return rounds;
}
