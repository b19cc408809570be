/*
 * inlview - test target for inlined frames (issue 29): a hot loop in a
 * function the compiler always inlines.
 *
 *   main -> outer -> mix (inlined into outer: no frame on the machine
 *                         stack, a DW_TAG_inlined_subroutine in DWARF)
 *
 *   inlview [SECONDS]   print "ready", burn CPU for SECONDS of wall time
 *                       (default 60), exit 0; or until killed.
 *   inlview --stop      print "ready", then spin in mix until killed
 *                       (for ptprof dump: every stop lands in mix).
 *
 * Nearly all the CPU time is in mix's loop, so a report that shows
 * inlined frames has "mix (inline)" as its top row, above outer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x,
							 unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		x ^= x >> 29;
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOIPA void outer(unsigned n)
{
	sink = mix(sink, n);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	double end;

	printf("ready\n");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "--stop"))
		for (;;)
			outer(~0u);
	end = now() + (argc > 1 ? strtod(argv[1], NULL) : 60.0);
	while (now() < end)
		outer(100000u);
	KEEP_FRAME();
	return 0;
}
