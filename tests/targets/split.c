/*
 * split - test target: burns CPU in two leaf functions whose work is in a
 * known 3:1 ratio, hot_a (75%) and hot_b (25%).
 *
 *   split [SECONDS]    print "ready", burn about SECONDS of CPU time
 *                      (default 30; SECONDS * SPINS_PER_SEC rounds, so a
 *                      busy machine makes the run longer, not smaller;
 *                      SECONDS + 30 of wall time at most), exit 0; or
 *                      until killed.
 *
 * Each leaf holds its own loop, so a sample taken while it burns has that
 * leaf as its innermost frame.  Both leaves are reached through two callers,
 * route_left and route_right, so no caller frame is shared by nearly every
 * sample (pprof drops such a frame in some views).  Every function ends with
 * an empty asm after its last call, so no call is a tail call that would
 * erase a frame, and noipa keeps GCC from inlining, cloning (hot_a.isra.0)
 * or folding identical functions into one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "target.h"

/* Iterations in one unit of work: ~25 us on average, far below a 5 ms
 * tick.  Each round draws its unit size at random (hot_a and hot_b get the
 * same one, so the 3:1 ratio holds exactly, round by round): with a fixed
 * size the rounds would be periodic, and a periodic sampler could lock onto
 * their phase and see a skewed ratio. */
#define UNIT 20000u

volatile uint64_t sink;

/* The same loop body in both leaves: their time is in the ratio of n (this
 * file's own SPIN, with the sink built in, not target.h's). */
#undef SPIN
#define SPIN(n)                                                              \
	do {                                                                 \
		uint64_t x_ = sink;                                          \
		for (unsigned i_ = 0; i_ < (n); i_++)                        \
			x_ = x_ * 6364136223846793005ULL +                   \
			     1442695040888963407ULL;                         \
		sink = x_;                                                   \
	} while (0)

NOIPA void hot_a(unsigned n)
{
	SPIN(3 * n);
	KEEP_FRAME();
}

NOIPA void hot_b(unsigned n)
{
	SPIN(n);
	KEEP_FRAME();
}

NOIPA void route_left(unsigned n)
{
	hot_a(n);
	hot_b(n);
	KEEP_FRAME();
}

NOIPA void route_right(unsigned n)
{
	hot_b(n);
	hot_a(n);
	KEEP_FRAME();
}

/* xorshift64: a unit size in [UNIT/2, 3*UNIT/2). */
static unsigned next_unit(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return UNIT / 2 + (unsigned)(x % UNIT);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 30.0;
	double end = now() + secs + 30;
	/* A round is route_left and route_right: 8 units, UNIT on average. */
	double rounds = secs * SPINS_PER_SEC / (8.0 * UNIT);
	uint64_t rng = 88172645463325252ULL ^ (uint64_t)(now() * 1e9);

	printf("ready\n");
	fflush(stdout);
	for (; rounds > 0 && now() < end; rounds--) {
		route_left(next_unit(&rng));
		route_right(next_unit(&rng));
	}
	return 0;
}
