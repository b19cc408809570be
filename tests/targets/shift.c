/*
 * shift - test target: burns CPU in two leaf functions in a ratio given
 * on the command line, for the profiles report --diff compares.
 *
 *   shift A B SECONDS  burn about SECONDS of this process's CPU time,
 *                      A parts of it in burn_a() and B parts in burn_b()
 *                      (both under main()), then exit 0.
 *
 * Work is in rounds: burn_a() spins A units, burn_b() B units, each unit
 * of a random size (the same for both in a round, so the ratio holds
 * round by round, and no periodic sampler locks onto a phase, as in
 * split.c).  The run ends on CPU time (cpu_now(), read every 32 rounds),
 * so a busy machine makes it longer, never smaller.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

#define UNIT 20000u /* spins in a unit, on average: ~25 us */

volatile uint64_t sink;

/* name(units, n): units units of n spins; burn_a and burn_b are the
 * same code, two functions. */
#define BURN(name)                                   \
	NOIPA void name(unsigned units, unsigned n)  \
	{                                            \
		uint64_t x = sink;                   \
                                                     \
		for (unsigned i = 0; i < units; i++) \
			SPIN(x, n);                  \
		sink = x;                            \
		KEEP_FRAME();                        \
	}

BURN(burn_a)
BURN(burn_b)

int main(int argc, char **argv)
{
	unsigned a, b;
	double secs;
	uint64_t rng = 88172645463325252ULL ^ now_ns();

	if (argc != 4)
		return 2;
	a = (unsigned)strtoul(argv[1], NULL, 10);
	b = (unsigned)strtoul(argv[2], NULL, 10);
	secs = strtod(argv[3], NULL);
	if (a + b == 0 || a > 1000 || b > 1000)
		return 2;
	/* The CPU clock read once in 32 rounds (~4 ms), not every round:
	 * a system call every 125 us made ptprof give burn_b 0.91-0.98 of
	 * a 1:4 run and burn_a at times nothing (perf: 0.78), an accuracy
	 * defect of ptprof's on syscall-heavy loops (issue 26), which the
	 * tests of --diff are not about. */
	for (unsigned r = 0; (r & 31) || cpu_now() < secs; r++) {
		unsigned n;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		n = UNIT / 2 + (unsigned)(rng % UNIT);
		burn_a(a, n);
		burn_b(b, n);
	}
	return 0;
}
