/*
 * blockwait - chaos target: threads blocked in the kernel with long
 * timeouts, which count every early return (EINTR, a spurious wake-up)
 * while one thread burns CPU, to show what a profiler's stops do to them.
 *
 *   blockwait SECS [EXTRA]
 *
 * Threads (named for /proc/PID/task/TID/comm), blocked until the end:
 *   bw-epoll   epoll_wait on an eventfd, timeout SECS + 10 s
 *   bw-read    read on an empty pipe
 *   bw-cond    pthread_cond_wait (a return with nothing to see: spurious)
 *   bw-nsleep  nanosleep for SECS + 10 s
 *   bw-cnsleep clock_nanosleep to SECS + 10 s from the start (absolute)
 *   bw-burn    burns CPU in blockwait_burn until the end
 *   bw-idle    EXTRA (0..2000, default 0) more threads as bw-epoll, each
 *              on an epoll instance of its own, counted with it (many
 *              idle threads: tests/chaos/fd-limit.test)
 * The main thread waits in sigtimedwait for SIGUSR1 (blocked in every
 * thread), which ends the run, or for SECS (1..60) seconds; then it wakes
 * the first three (eventfd, pipe, condition variable) and cancels the
 * sleepers.  Each blocked call that returns early is counted and called
 * again; the wake-up at the end is the normal one.  No signal handler is installed, so a call
 * the kernel restarts after a stop (read, futex, nanosleep) never shows:
 * only what the program itself sees counts.  Prints "ready" once the
 * threads are started, then at the end one line
 *   "blockwait: epoll=E read=R cond=C nsleep=N cnsleep=K"
 * (the early returns of each) and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"
#include "chaos.h"

static struct timespec end_ts; /* CLOCK_MONOTONIC, for the sleepers */
static double secs;
static int efd, pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int woken;
static volatile int finished;
static unsigned long early_epoll, early_read, early_cond, early_nsleep,
	early_cnsleep;
volatile uint64_t sink;

/* Wait on the eventfd, through an epoll instance of our own. */
static void epoll_loop(void)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };

	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	while (epoll_wait(ep, &ev, 1, (int)(secs * 1000) + 10000) != 1)
		__atomic_fetch_add(&early_epoll, 1, __ATOMIC_RELAXED);
}

static void *epoll_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bw-epoll");
	epoll_loop();
	return NULL;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bw-idle");
	epoll_loop();
	return NULL;
}

/* EXTRA idle threads, small stacks: they only wait. */
static pthread_t *start_idle(long extra)
{
	pthread_t *t = calloc((size_t)extra + 1, sizeof(*t));
	pthread_attr_t attr;

	if (!t)
		return NULL;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < extra; i++)
		if (pthread_create(&t[i], &attr, idle_thread, NULL)) {
			perror("blockwait: idle thread");
			exit(2);
		}
	pthread_attr_destroy(&attr);
	return t;
}

static void *read_thread(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "bw-read");
	while (read(pipefd[0], &c, 1) != 1)
		early_read++;
	return NULL;
}

static void *cond_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bw-cond");
	pthread_mutex_lock(&lock);
	for (;;) {
		pthread_cond_wait(&cond, &lock);
		if (woken)
			break;
		early_cond++;
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *nsleep_thread(void *arg)
{
	struct timespec ts = { (time_t)secs + 10,
			       (long)((secs - (double)(time_t)secs) * 1e9) };

	(void)arg;
	pthread_setname_np(pthread_self(), "bw-nsleep");
	while (nanosleep(&ts, &ts))
		early_nsleep++;
	return NULL;
}

static void *cnsleep_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bw-cnsleep");
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end_ts, NULL))
		early_cnsleep++;
	return NULL;
}

NOIPA static void blockwait_burn(void)
{
	while (!finished)
		sink = burn_slice(sink);
	KEEP_FRAME();
}

static void *burn_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "bw-burn");
	blockwait_burn();
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { epoll_thread,	 read_thread,	 cond_thread,
				  nsleep_thread, cnsleep_thread, burn_thread };
	pthread_t th[sizeof(fn) / sizeof(fn[0])];
	uint64_t one = 1;
	size_t n = sizeof(fn) / sizeof(fn[0]);
	struct timespec wait = { 0, 0 };
	pthread_t *idle;
	long extra = argc == 3 ? atol(argv[2]) : 0;
	sigset_t set;

	if (argc < 2 || argc > 3 || (secs = atof(argv[1])) < 1 || secs > 60 ||
	    extra < 0 || extra > 2000) {
		fprintf(stderr,
			"usage: blockwait SECS(1..60) [EXTRA(0..2000)]\n");
		return 2;
	}
	efd = eventfd(0, 0);
	if (efd < 0 || pipe(pipefd)) {
		perror("blockwait");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end_ts);
	end_ts.tv_sec += (time_t)secs + 10;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (size_t i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fn[i], NULL);
	idle = start_idle(extra);
	if (!idle) {
		perror("blockwait");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	wait.tv_sec = (time_t)secs;
	while (sigtimedwait(&set, NULL, &wait) < 0 && errno == EINTR)
		;
	finished = 1;
	/* The sleepers cannot be woken but by a signal: cancel them (the
	 * call does not return, so it counts nothing). */
	pthread_cancel(th[3]);
	pthread_cancel(th[4]);
	if (write(efd, &one, sizeof(one)) != sizeof(one) ||
	    write(pipefd[1], "x", 1) != 1)
		perror("blockwait: wake");
	pthread_mutex_lock(&lock);
	woken = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (long i = 0; i < extra; i++)
		pthread_join(idle[i], NULL);
	free(idle);
	printf("blockwait: epoll=%lu read=%lu cond=%lu nsleep=%lu cnsleep=%lu\n",
	       early_epoll, early_read, early_cond, early_nsleep,
	       early_cnsleep);
	return 0;
}
