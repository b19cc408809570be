/*
 * topmix - test target for ptprof top: a caller high in cum, low in flat.
 *
 *   main -> outer -> hot_inner   (about 3/4 of the CPU time)
 *   main -> outer                (about 1/4, in outer's own loop)
 *
 *   topmix [SECONDS]   print "ready", burn CPU for SECONDS of wall time
 *                      (default 60), exit 0; or until killed.
 *
 * Sorted by flat, hot_inner comes before outer; by cum, outer (and main)
 * before hot_inner.  A wall-clock bound, so that a test can wait for the
 * exit however busy the machine is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void hot_inner(void)
{
	uint64_t x = sink;

	SPIN(x, 30000u);
	sink = x;
	KEEP_FRAME();
}

NOIPA void outer(void)
{
	uint64_t x = sink;

	hot_inner();
	SPIN(x, 10000u);
	sink = x;
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? strtod(argv[1], NULL) : 60.0);

	printf("ready\n");
	fflush(stdout);
	while (now() < end)
		for (int i = 0; i < 100; i++)
			outer();
	KEEP_FRAME();
	return 0;
}
