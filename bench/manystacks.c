/*
 * manystacks - a target whose samples have ever new stacks.
 *
 *   manystacks THREADS SECONDS
 *
 * Each thread walks random paths through 16 look-alike recursive
 * functions, 8 to 24 levels deep, and burns a little CPU at the bottom:
 * 16^8 and more possible chains, so a profile of it keeps finding new
 * ones and a profiler that keeps every distinct stack in memory grows
 * without bound.  Exits 0 after SECONDS.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*step_fn)(unsigned depth, uint64_t *rng);

static step_fn steps[16];
static volatile int stop;

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void bottom(void)
{
	volatile unsigned x = 0;

	for (unsigned i = 0; i < 20000; i++)
		x += i;
}

#define STEP(n)                                                              \
	static __attribute__((noinline)) void step##n(unsigned depth,        \
						      uint64_t *rng)         \
	{                                                                    \
		if (depth == 0)                                              \
			bottom();                                            \
		else                                                         \
			steps[next(rng) & 15](depth - 1, rng);               \
		__asm__ volatile("" ::: "memory");                           \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)

static void *worker(void *arg)
{
	uint64_t rng = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;

	while (!stop)
		steps[next(&rng) & 15](8 + next(&rng) % 17, &rng);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	unsigned secs = argc > 2 ? (unsigned)atoi(argv[2]) : 600;
	step_fn all[16] = { step0, step1, step2,  step3,  step4,  step5,
			    step6, step7, step8,  step9,  step10, step11,
			    step12, step13, step14, step15 };
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	struct timespec ts = { secs, 0 };

	for (int i = 0; i < 16; i++)
		steps[i] = all[i];
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	printf("ready\n");
	fflush(stdout);
	nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
