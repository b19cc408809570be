/*
 * target.h - what the test targets share.
 *
 * now(): CLOCK_MONOTONIC in seconds, for targets that run for a given
 * time.  A test that counts CPU-mode samples wants an amount of CPU time
 * that does not shrink on a busy machine: SPINS_PER_SEC rounds of SPIN
 * are about a second of CPU time (on the development VM), so a target
 * burns a number of rounds, with now() only as a bound.  cpu_now(), the
 * thread's CPU-time clock, is exact but a system call, not the vDSO, and
 * CPU mode puts far more samples on a system call than the time it takes
 * (30% of them for one check per millisecond of spinning, under load):
 * only targets whose stacks are not counted use it.  now_ns():
 * CLOCK_MONOTONIC in ns; median(): of n values, which it sorts (for
 * timings on a busy machine, where a preempted one counts the time it
 * waited).  NOIPA keeps GCC from merging, cloning or inlining a function
 * whose name a test looks for; KEEP_FRAME() after a call keeps it from
 * becoming a tail call (which would drop the caller's frame); SPIN()
 * burns CPU.  Header-only,
 * so each target stays one self-contained program.
 */
#ifndef PTPROF_TARGET_H
#define PTPROF_TARGET_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define NOIPA __attribute__((noipa))
#else
#define NOIPA __attribute__((noinline))
#endif
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")
/* SPIN(x, n): n rounds of a 64-bit LCG on the uint64_t lvalue x, to burn
 * CPU.  A macro, not an inline function: pprof would name the inlined
 * function, not the caller a test looks for. */
#define SPIN(x, n)                                                         \
	do {                                                               \
		for (unsigned spin_i_ = 0; spin_i_ < (n); spin_i_++)       \
			(x) = (x) * 6364136223846793005ULL +               \
			      1442695040888963407ULL;                      \
	} while (0)

#define SPINS_PER_SEC 1e9

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline double median(uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? (double)v[n / 2] : 0;
}

#endif /* PTPROF_TARGET_H */
