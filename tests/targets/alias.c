/*
 * alias - test target: work that cycles at 100 Hz, locked to the clock.
 *
 *   alias SECONDS    print "ready", then for SECONDS of wall time burn CPU
 *                    in slice_a during the even 5 ms slices of
 *                    CLOCK_MONOTONIC (absolute: [0, 5 ms), [10, 15 ms)...)
 *                    and in slice_b during the odd ones; print "ran N% of
 *                    the time" (its CPU time over that wall time) and
 *                    "slice_a: W% of the time, R% of the time run" (its
 *                    own measure of where it was: see below); exit 0.
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
 *
 * On a busy machine the split is not 50/50: a thread that waits for a CPU
 * stays where the scheduler took the CPU away, mostly at its scheduler
 * ticks (every 4 ms with HZ=250, 3 of every 5 in one half of the 10 ms
 * cycle), and resumes in the slice the clock says.  So the target measures
 * where it was: each interval between two clock reads goes to the slice
 * that read the clock at its end, and an interval over GAP_NS (it did not
 * run throughout) counts as waiting.  W is slice_a's share of all the
 * time, waits included (what --wall samples), R its share of the time
 * run; the time main() takes between slices counts for neither.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "target.h"

#define SLICE_NS 5000000ULL
#define CHUNK 10000u   /* SPIN rounds between two clock reads: ~10 us */
#define GAP_NS 200000u /* a longer interval between reads was a wait */

volatile uint64_t sink;
/* Where the time went, by slice (0: slice_a, 1: slice_b), in ns. */
static uint64_t last_read, wall_ns[2], run_ns[2];

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read the clock for slice s: the interval since the last read was its. */
static inline uint64_t read_for(int s)
{
	uint64_t t = mono_ns(), d = t - last_read;

	wall_ns[s] += d;
	if (d <= GAP_NS)
		run_ns[s] += d;
	last_read = t;
	return t;
}

/* Burn until the clock reaches until (the end of this slice).  The two
 * differ in their constant: noipa (NOIPA) keeps them apart anyway. */
NOIPA void slice_a(uint64_t until)
{
	uint64_t x = sink;

	while (read_for(0) < until)
		SPIN(x, CHUNK);
	sink = x;
	KEEP_FRAME();
}

NOIPA void slice_b(uint64_t until)
{
	uint64_t x = sink ^ 1;

	while (read_for(1) < until)
		SPIN(x, CHUNK);
	sink = x;
	KEEP_FRAME();
}

static double share(const uint64_t *ns)
{
	return ns[0] + ns[1] ? 100.0 * (double)ns[0] / (double)(ns[0] + ns[1]) :
			       50.0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 5.0;
	uint64_t start, end, t;
	struct rusage ru;
	double cpu;

	if (!(secs > 0 && secs < 3600)) {
		fprintf(stderr, "usage: alias SECONDS (0 < SECONDS < 3600)\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	start = mono_ns();
	end = start + (uint64_t)(secs * 1e9);
	while ((t = last_read = mono_ns()) < end) {
		uint64_t slice = t / SLICE_NS;

		if (slice & 1)
			slice_b((slice + 1) * SLICE_NS);
		else
			slice_a((slice + 1) * SLICE_NS);
	}
	if (getrusage(RUSAGE_SELF, &ru))
		return 1;
	cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("ran %.0f%% of the time\n", 100 * cpu / ((t - start) / 1e9));
	printf("slice_a: %.1f%% of the time, %.1f%% of the time run\n",
	       share(wall_ns), share(run_ns));
	return 0;
}
