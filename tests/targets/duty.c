/*
 * duty - test target: N threads that burn CPU in bursts and sleep in
 * clock_nanosleep between them (a service at normal load: a request
 * handled, then back to the call it waits in), and its own measure of
 * where its CPU time went, to check a profiler against (issue 26).
 *
 *   duty [-k] N BURST_US SLEEP_US SECONDS
 *
 * Each thread runs rounds: burn_work() spins about BURST_US of CPU time
 * (rounds of SPIN, see target.h: a busy machine makes a burst longer in
 * wall time, not smaller), then sleeps SLEEP_US in clock_nanosleep
 * (SLEEP_US 0: it never sleeps, a duty cycle of 100%).  A thread runs
 * SECONDS * 1e6 / (BURST_US + SLEEP_US) rounds (at least one), from a
 * phase of its own (thread i first sleeps i/N of a round), and stops
 * early only after 4 * SECONDS + 30 s of wall time.  Then the process
 * prints its measure and exits 0.
 *
 * -k: print "ready" once the threads are up and wait for SIGUSR1 before
 * the rounds; after them print the measure and "done", each thread
 * asleep in clock_nanosleep from the end of its rounds until killed (a
 * run that ends in the sleep; it exits by itself after 4 * SECONDS +
 * 120 s).
 *
 * The measure, one line each:
 *   burn_share P     burn_work's share of the threads' CPU time, %:
 *                    the burns' CPU time over the threads' (each one's
 *                    CLOCK_THREAD_CPUTIME_ID from the start to the end of
 *                    its rounds: the kernel's time in the sleeps counts,
 *                    5-10% at 0.5 ms bursts on the development VM)
 *   burn_wall P      the burns' share of the threads' wall time, %
 *                    (what --wall should give burn_work)
 *   cpu_ms T burn_ms B process_ms P rounds R measured M
 *                    the threads' CPU time, the burns', the process's
 *                    (CLOCK_PROCESS_CPUTIME_ID at the end: start-up and
 *                    the main thread included)
 * The burns' CPU time is read with CLOCK_THREAD_CPUTIME_ID around one
 * burn in every MEASURE_EVERY of a thread (the first included), and
 * scaled by rounds over measured rounds: that clock is a system call,
 * not the vDSO, and a profiler's stops are drawn to a system call's exit
 * (ptprof(1), SYSTEM CALL BIAS), so it is read seldom enough not to be a
 * place of its own in a profile.  The wall clock (now(), vDSO) is read
 * around every burn.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

#define MEASURE_EVERY 8
#define MAX_THREADS 64

struct worker {
	pthread_t tid;
	int index;
	uint64_t rounds, measured;
	double burn_cpu;  /* seconds, over the measured rounds */
	double burn_wall; /* seconds, over every round */
	double wall;	  /* seconds, from the first round to the last */
	double cpu;	  /* seconds of CPU time, from the start to the end */
};

static int nthreads, keep;
static double burst_us, sleep_us, secs;
static double give_up; /* now() after which the rounds stop */
volatile uint64_t sink;
/* The threads and main meet at up (all started), go (the rounds begin)
 * and over (all done). */
static pthread_barrier_t up, go, over;

/* BURST_US of spinning (SPIN's unsigned count: up to ~4 s); noipa and a
 * frame of its own: the name a test looks for. */
NOIPA void burn_work(unsigned spins)
{
	uint64_t x = sink;

	SPIN(x, spins);
	sink = x;
	KEEP_FRAME();
}

/* us microseconds in clock_nanosleep, to a deadline: a signal that cuts
 * it short does not make it longer. */
static void sleep_us_for(double us)
{
	struct timespec ts;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = ts.tv_nsec + (long long)(us * 1e3);
	ts.tv_sec += (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	unsigned spins = (unsigned)(burst_us * SPINS_PER_SEC / 1e6);
	uint64_t want = (uint64_t)(secs * 1e6 / (burst_us + sleep_us));
	double t0;

	if (want < 1)
		want = 1;
	pthread_barrier_wait(&up);
	pthread_barrier_wait(&go);
	w->cpu = cpu_now();
	if (sleep_us > 0)
		sleep_us_for((burst_us + sleep_us) * w->index / nthreads);
	t0 = now();
	while (w->rounds < want && now() < give_up) {
		int measure = w->rounds % MEASURE_EVERY == 0;
		double c0 = measure ? cpu_now() : 0, b0 = now();

		burn_work(spins);
		w->burn_wall += now() - b0;
		if (measure) {
			w->burn_cpu += cpu_now() - c0;
			w->measured++;
		}
		w->rounds++;
		if (sleep_us > 0)
			sleep_us_for(sleep_us);
	}
	w->wall = now() - t0;
	w->cpu = cpu_now() - w->cpu;
	pthread_barrier_wait(&over);
	/* -k: the thread that burned, asleep until killed (bounded). */
	for (int i = 0; keep && i < 3600; i++)
		sleep_us_for(1e6);
	return NULL;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: duty [-k] N(1..%d) BURST_US(0..4e6) SLEEP_US(>=0) "
		"SECONDS(>0)\n",
		MAX_THREADS);
	return 2;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	double burn_cpu = 0, burn_wall = 0, wall = 0, cpu = 0, proc;
	uint64_t rounds = 0, measured = 0;
	struct timespec ts;
	sigset_t set;
	int sig;

	if (argc > 1 && strcmp(argv[1], "-k") == 0) {
		keep = 1;
		argv++;
		argc--;
	}
	if (argc != 5)
		return usage();
	nthreads = atoi(argv[1]);
	burst_us = atof(argv[2]);
	sleep_us = atof(argv[3]);
	secs = atof(argv[4]);
	if (nthreads < 1 || nthreads > MAX_THREADS || burst_us <= 0 ||
	    burst_us > 4e6 || sleep_us < 0 || secs <= 0 || secs > 3600)
		return usage();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&up, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&over, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].tid, NULL, worker, &w[i])) {
			fprintf(stderr, "duty: pthread_create failed\n");
			return 1;
		}
	}
	pthread_barrier_wait(&up);
	if (keep) {
		alarm((unsigned)(4 * secs) + 120);
		puts("ready");
		fflush(stdout);
		if (sigwait(&set, &sig) || sig != SIGUSR1)
			return 1;
	}
	give_up = now() + 4 * secs + 30;
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&over);
	for (int i = 0; i < nthreads; i++) {
		if (w[i].measured > 0)
			burn_cpu += w[i].burn_cpu * (double)w[i].rounds /
				    (double)w[i].measured;
		burn_wall += w[i].burn_wall;
		wall += w[i].wall;
		cpu += w[i].cpu;
		rounds += w[i].rounds;
		measured += w[i].measured;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	proc = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	printf("burn_share %.1f\n",
	       cpu > 0 && burn_cpu < cpu ? 100 * burn_cpu / cpu : 100);
	printf("burn_wall %.1f\n", wall > 0 ? 100 * burn_wall / wall : 0);
	printf("cpu_ms %.1f burn_ms %.1f process_ms %.1f rounds %llu "
	       "measured %llu\n",
	       cpu * 1e3, burn_cpu * 1e3, proc * 1e3,
	       (unsigned long long)rounds, (unsigned long long)measured);
	if (!keep)
		return 0;
	puts("done");
	fflush(stdout);
	sigwait(&set, &sig);
	return 0;
}
