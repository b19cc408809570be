/*
 * chain - test target: a fixed call chain burning CPU in its leaf,
 *
 *   main -> level_one -> level_two -> level_three -> leaf_spin
 *
 *   chain [SECONDS]    print "ready", burn CPU for SECONDS (default 30),
 *                      exit 0; or until killed.
 *
 * Every sample whose leaf is leaf_spin must unwind to exactly that chain.
 * No function ends in a tail call (an empty asm follows each call), and
 * noipa keeps GCC from inlining, cloning or folding them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void leaf_spin(void)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < 50000u; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	KEEP_FRAME();
}

NOIPA void level_three(void)
{
	leaf_spin();
	KEEP_FRAME();
}

NOIPA void level_two(void)
{
	level_three();
	KEEP_FRAME();
}

NOIPA void level_one(void)
{
	level_two();
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	/* About SECONDS of CPU time (a busy machine makes the run longer,
	 * not smaller), SECONDS + 30 of wall time at most. */
	double secs = argc > 1 ? strtod(argv[1], NULL) : 30.0;
	double rounds = secs * SPINS_PER_SEC / 50000, end = now() + secs + 30;

	printf("ready\n");
	fflush(stdout);
	for (; rounds > 0 && now() < end; rounds--)
		level_one();
	return 0;
}
