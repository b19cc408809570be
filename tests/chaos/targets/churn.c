/*
 * churn - a target that creates and joins threads as fast as it can.
 *
 *   churn TOTAL CONC
 *
 * Prints "ready" and waits for SIGUSR1 (30 s at most), then creates TOTAL
 * threads, CONC at a time (a batch is created, then joined), each of which
 * spins briefly in spin() and adds its number to a shared sum.  Then it
 * prints "churn done threads=N sum=S" and "result ok" if N is TOTAL and S
 * is 0+1+...+TOTAL-1, and waits for SIGUSR1 again (30 s at most) before
 * exiting 0 (1 if the result was wrong).  The churn itself stops after
 * 40 s whatever TOTAL is.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../targets/target.h"

#define MAX_CONC 64

static uint64_t sum;
static uint64_t sink;

NOIPA void spin(void)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < 2000u; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__atomic_store_n(&sink, x, __ATOMIC_RELAXED);
	KEEP_FRAME();
}

static void *worker(void *arg)
{
	spin();
	__atomic_fetch_add(&sum, (uint64_t)(uintptr_t)arg, __ATOMIC_RELAXED);
	return NULL;
}

/* Wait for SIGUSR1 (blocked), at most 30 s; sigtimedwait() may return
 * EINTR when a tracer interrupts it. */
static void wait_usr1(const sigset_t *set)
{
	double end = now() + 30;

	while (now() < end) {
		struct timespec ts = { 1, 0 };

		if (sigtimedwait(set, NULL, &ts) == SIGUSR1)
			return;
	}
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 20000;
	long conc = argc > 2 ? atol(argv[2]) : 8, n = 0;
	pthread_t th[MAX_CONC];
	double end;
	sigset_t set;
	int ok;

	if (total < 1 || conc < 1 || conc > MAX_CONC)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	wait_usr1(&set);
	end = now() + 40;
	while (n < total && now() < end) {
		long k, m = total - n < conc ? total - n : conc;

		for (k = 0; k < m; k++)
			if (pthread_create(&th[k], NULL, worker,
					   (void *)(uintptr_t)(n + k))) {
				perror("pthread_create");
				return 1;
			}
		for (k = 0; k < m; k++)
			pthread_join(th[k], NULL);
		n += m;
	}
	ok = n == total && sum == (uint64_t)total * (uint64_t)(total - 1) / 2;
	printf("churn done threads=%ld sum=%llu\n%s\n", n,
	       (unsigned long long)sum, ok ? "result ok" : "result wrong");
	fflush(stdout);
	wait_usr1(&set);
	return ok ? 0 : 1;
}
