/*
 * chaos.h - what the chaos suite's signals targets share (besides
 * tests/targets/target.h): one slice of CPU burning, inlined into the
 * caller so that the caller's name is the leaf a profile shows.
 */
#ifndef PTPROF_CHAOS_H
#define PTPROF_CHAOS_H

#include <stdint.h>

/* 20000 steps of an LCG from x: about 20 us of pure user time. */
static inline __attribute__((always_inline)) uint64_t burn_slice(uint64_t x)
{
	for (unsigned i = 0; i < 20000u; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

#endif /* PTPROF_CHAOS_H */
