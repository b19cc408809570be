/*
 * inl - test target for inlined frames (issue 29): the hot loop mix() is
 * always_inline, inlined into outer() (noipa), called from main().
 * Built -O2 -g (tests/inline.mk): the DWARF holds mix as a
 * DW_TAG_inlined_subroutine of outer, and no symbol names it.
 *
 *   inl [SECONDS]   burn about SECONDS of CPU time (default 3; rounds,
 *                   not a clock: a busy machine makes the run longer; 30
 *                   s more of wall time at most), print the result, exit 0.
 *
 * Nearly every sample is in mix's loop: google-pprof, perf and eu-stack
 * -i show mix (inlined) above outer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

volatile uint64_t sink;

/* The hot loop: a 64-bit mixer, too long to finish between two ticks. */
static inline __attribute__((always_inline)) uint64_t mix(uint64_t x,
							  unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		x ^= x >> 31;
		x *= 0x7fb5d329728ea185ULL;
		x ^= x >> 27;
	}
	return x;
}

NOIPA static uint64_t outer(uint64_t seed)
{
	uint64_t x = mix(seed, 1000000);

	KEEP_FRAME();
	return x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, end = now() + secs + 30;
	/* one round of outer: ~1e6 iterations, ~2 ms */
	unsigned long rounds = (unsigned long)(secs * 450), r;
	uint64_t x = sink;

	for (r = 0; r < rounds && now() < end; r++)
		x = outer(x + r);
	sink = x;
	printf("%llu\n", (unsigned long long)x);
	return 0;
}
