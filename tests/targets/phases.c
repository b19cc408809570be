/*
 * phases - test target: one thread that runs phase_a, sleeps, then runs
 * phase_b, so that a profile sliced by time (report --from/--to, the
 * flame graph's time strip) shows A in one window and B in another.
 *
 *   phases A_SECONDS GAP_SECONDS B_SECONDS
 *
 * Spins in phase_a for A_SECONDS of wall time, sleeps GAP_SECONDS, spins
 * in phase_b for B_SECONDS, then exits.  Prints, each on its own line
 * and flushed, "start NS" when it starts, "a_end NS" when phase A ends
 * and "b_start NS" when phase B starts: NS is CLOCK_REALTIME in ns since
 * the epoch, the clock a profile's sample times are in, so a test can
 * tell where the phases lie in a profile whatever the machine's load.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

volatile uint64_t sink;

static void say(const char *what)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("%s %lld%09ld\n", what, (long long)ts.tv_sec, ts.tv_nsec);
	fflush(stdout);
}

/* Spin for s seconds of wall time. */
static void spin_for(double s)
{
	double end = now() + s;
	uint64_t x = sink;

	while (now() < end)
		SPIN(x, 100000);
	sink = x;
}

NOIPA void phase_a(double s)
{
	spin_for(s);
	KEEP_FRAME();
}

NOIPA void phase_b(double s)
{
	spin_for(s);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	struct timespec gap;
	double g;

	if (argc != 4) {
		fprintf(stderr,
			"usage: phases A_SECONDS GAP_SECONDS B_SECONDS\n");
		return 2;
	}
	say("start");
	phase_a(atof(argv[1]));
	say("a_end");
	g = atof(argv[2]);
	gap.tv_sec = (time_t)g;
	gap.tv_nsec = (long)((g - (double)gap.tv_sec) * 1e9);
	while (nanosleep(&gap, &gap))
		;
	say("b_start");
	phase_b(atof(argv[3]));
	return 0;
}
