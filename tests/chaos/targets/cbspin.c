/*
 * cbspin - the shared library the truncator target dlopens by path.
 *
 * cbspin_run(secs, cb) burns about secs seconds of CPU time in
 * cbspin_spin, a function of this library, then calls cb with its own
 * frame still on the stack: the unwinder has to go through this
 * library's unwind tables to get from cb back to main.
 */
#include <stdint.h>

#include "../../targets/target.h"

volatile uint64_t cbspin_sink;

NOIPA void cbspin_spin(void)
{
	uint64_t x = cbspin_sink;

	SPIN(x, 50000u);
	cbspin_sink = x;
	KEEP_FRAME();
}

NOIPA void cbspin_run(double secs, void (*cb)(void))
{
	double calls = secs * SPINS_PER_SEC / 50000, wall_end = now() + 30;

	for (; calls > 0 && now() < wall_end; calls--)
		cbspin_spin();
	cb();
	KEEP_FRAME();
}
