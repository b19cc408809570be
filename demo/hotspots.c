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

/* A loop written out in each hot function, so each is its own leaf. */
#define SPIN(units)                                                          \
	do {                                                                 \
		uint64_t x_ = sink;                                          \
		for (unsigned i_ = 0; i_ < (units) * 100000u; i_++)          \
			x_ = x_ * 6364136223846793005ULL +                   \
			     1442695040888963407ULL;                         \
		sink = x_;                                                   \
	} while (0)

/* Each hot function ends with a store, not a tail call, so it keeps its
 * own frame and the caller chain main -> hot function is visible. */
static __attribute__((noinline)) void parse_records(void)
{
	SPIN(6);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void checksum(void)
{
	SPIN(3);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void compress_block(void)
{
	SPIN(1);
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
