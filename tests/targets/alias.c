/*
 * alias - test target: work that cycles at 100 Hz, locked to the clock.
 *
 *   alias SECONDS    print "ready", then for SECONDS of wall time burn CPU
 *                    in slice_a during the even 5 ms slices of
 *                    CLOCK_MONOTONIC (absolute: [0, 5 ms), [10, 15 ms)...)
 *                    and in slice_b during the odd ones; exit 0.
 *
 * Half the time in each, in a 10 ms cycle: a profiler ticking every 10 ms
 * on a fixed grid sees one phase of the cycle only, and the split it
 * reports is anywhere from 0/100 to 100/0 (tests/alias.test).  The slices
 * are absolute, so a thread that lost the CPU to another job resumes in
 * the slice the clock says, not one shifted by its delay.
 *
 * The clock is polled between bounded chunks of SPIN (about 10 us each):
 * CLOCK_MONOTONIC is read through the vDSO, no system call (with the tsc
 * clocksource; a VM whose clocksource has no vDSO read makes it one, every
 * 10 us), since CPU mode puts samples on system calls far beyond the time
 * they take (target.h).  A slice ends at most one chunk late.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

#define SLICE_NS 5000000ULL
#define CHUNK 10000u /* SPIN rounds between two clock reads: ~10 us */

volatile uint64_t sink;

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Burn until the clock reaches until (the end of this slice).  The two
 * differ in their constant: noipa (NOIPA) keeps them apart anyway. */
NOIPA void slice_a(uint64_t until)
{
	uint64_t x = sink;

	while (mono_ns() < until)
		SPIN(x, CHUNK);
	sink = x;
	KEEP_FRAME();
}

NOIPA void slice_b(uint64_t until)
{
	uint64_t x = sink ^ 1;

	while (mono_ns() < until)
		SPIN(x, CHUNK);
	sink = x;
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 5.0;
	uint64_t end, t;

	if (!(secs > 0 && secs < 3600)) {
		fprintf(stderr, "usage: alias SECONDS (0 < SECONDS < 3600)\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	end = mono_ns() + (uint64_t)(secs * 1e9);
	while ((t = mono_ns()) < end) {
		uint64_t slice = t / SLICE_NS;

		if (slice & 1)
			slice_b((slice + 1) * SLICE_NS);
		else
			slice_a((slice + 1) * SLICE_NS);
	}
	return 0;
}
