/*
 * deeprec - test target: deep mutual recursion, for unwinding tests.
 *
 *   deeprec [SECONDS [SPIN]]
 *              print "ready", then over and over: recurse through
 *              rec_even/rec_odd to a depth drawn between 50 and 300, burn
 *              CPU in spin() at the bottom for SPIN iterations (default
 *              700000, about 1 ms), return all the way up; exit 0 after
 *              SECONDS (default 30), or when killed.
 *
 * Every recursive frame holds a 256-byte local array, so a frame takes
 * 272 bytes (at -O2) and a stack deeper than ~120 frames no longer fits in
 * ptprof's 32 KiB stack copy: its outer frames are unwound from memory
 * read beyond the copy.  Nearly all the time is spent in spin() at the
 * bottom, so nearly every sample sees the whole stack.  No call is a tail
 * call (the frame's array is used after the call), and noipa keeps GCC
 * from inlining, cloning or merging the functions.  Nothing in the loop
 * makes a system call or a vDSO call (the end comes from SIGALRM), so a
 * sample never lands outside this binary.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "target.h"

#define MIN_DEPTH 50
#define MAX_DEPTH 300
/* Default iterations of spin(): about 1 ms.  The whole stack is rebuilt
 * that often, so memory beyond a stack copy goes stale that fast. */
#define SPIN_ITERS 700000u

volatile uint64_t sink;
static volatile sig_atomic_t done;
static unsigned spin_iters = SPIN_ITERS;

NOIPA uint64_t spin(unsigned n)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	KEEP_FRAME();
	return x;
}

NOIPA uint64_t rec_odd(int depth);

NOIPA uint64_t rec_even(int depth)
{
	volatile char pad[256];
	uint64_t r;

	pad[0] = (char)depth;
	pad[255] = (char)(depth >> 8);
	r = depth > 0 ? rec_odd(depth - 1) : spin(spin_iters);
	KEEP_FRAME();
	return r + (uint64_t)pad[0] + (uint64_t)pad[255];
}

NOIPA uint64_t rec_odd(int depth)
{
	volatile char pad[256];
	uint64_t r;

	pad[0] = (char)depth;
	pad[255] = (char)(depth >> 8);
	r = depth > 0 ? rec_even(depth - 1) : spin(spin_iters);
	KEEP_FRAME();
	return r ^ ((uint64_t)pad[0] + (uint64_t)pad[255]);
}

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	unsigned secs = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 30;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct sigaction sa = { .sa_handler = on_alarm };

	if (argc > 2)
		spin_iters = (unsigned)strtoul(argv[2], NULL, 10);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(secs ? secs : 30);
	printf("ready\n");
	fflush(stdout);
	while (!done) {
		int depth;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		depth = MIN_DEPTH + (int)((seed >> 33) % (MAX_DEPTH - MIN_DEPTH + 1));
		sink += rec_even(depth);
	}
	return 0;
}
