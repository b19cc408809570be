/*
 * hotspots - the demo target: burns CPU for N seconds (default 3) in
 * functions with known shares, so a profile has an answer to check:
 * about 60% in parse_records, 30% in checksum and 10% in compress_block.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* Inlined into each caller, so each hot function is its own leaf. */
static inline __attribute__((always_inline)) void spin(unsigned units)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < units * 100000u; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

/* Each hot function ends with a store, not a tail call, so it keeps its
 * own frame and the caller chain main -> hot function is visible. */
static __attribute__((noinline)) void parse_records(void)
{
	spin(6);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void checksum(void)
{
	spin(3);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void compress_block(void)
{
	spin(1);
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	double end = now() + seconds;

	while (now() < end) {
		parse_records();
		checksum();
		compress_block();
	}
	printf("hotspots: done (%.1f s)\n", seconds);
	return 0;
}
