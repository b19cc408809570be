/*
 * wakeblock - test target: threads that wake every few milliseconds and
 * block again, counting every early return a profiler's stop causes.
 *
 *   wakeblock [-b BUSY] [-w MS] [-d SECS] N
 *
 * N threads (1..1000) block in turn, each in one call with a timeout of
 * MS milliseconds (1..600000, default 10) that it calls again when it
 * times out: thread i in
 *   i % 3 == 0  epoll_wait() on an epoll set of its own, left empty
 *               (wb_epoll_loop),
 *   i % 3 == 1  pthread_cond_timedwait() on a condition variable nobody
 *               signals (futex with a timeout; wb_cond_loop),
 *   i % 3 == 2  read() on a socket nothing is written to, with
 *               SO_RCVTIMEO (wb_sock_loop).
 * BUSY more threads (0..64) burn CPU in wb_burn.  A ptrace stop of a
 * thread asleep in epoll_wait() or in a socket read with a timeout makes
 * the call return EINTR (the kernel does not restart either); a
 * condition wait restarts, so a stop shows there only as a wake-up that
 * came early (a return of 0: nobody signals).  Each is counted, and the
 * call made again.  No signal handler is installed: only stops show.
 *
 * Prints "ready" once every thread has made its call at least once.  On
 * SIGUSR1, SIGTERM or SIGINT (blocked in every thread, waited for by the
 * main thread), or after SECS seconds (1..600, default 60), the threads
 * end after their next timeout; then it prints one line
 *   "wakeblock: epoll=E cond=C read=R wakes=W"
 * (the early returns of each kind, and the timeouts of all threads: how
 * often they woke) and exits 0.  SIGUSR2 prints that line so far, and
 * it runs on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

#define MAX_THREADS 1000
#define MAX_BUSY 64

static int wake_ms = 10;
static atomic_int finished, started;
static atomic_ulong early_epoll, early_cond, early_read, wakes;
volatile uint64_t sink;

static void print_counts(void)
{
	printf("wakeblock: epoll=%lu cond=%lu read=%lu wakes=%lu\n",
	       atomic_load(&early_epoll), atomic_load(&early_cond),
	       atomic_load(&early_read), atomic_load(&wakes));
	fflush(stdout);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

NOIPA void wb_epoll_loop(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev;

	if (ep < 0)
		die("epoll_create1");
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&finished)) {
		int n = epoll_wait(ep, &ev, 1, wake_ms);

		if (n < 0 && errno == EINTR)
			atomic_fetch_add(&early_epoll, 1);
		else if (n == 0)
			atomic_fetch_add(&wakes, 1);
	}
	KEEP_FRAME();
	close(ep);
}

NOIPA void wb_cond_loop(void)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t cv;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cv, &ca);
	atomic_fetch_add(&started, 1);
	pthread_mutex_lock(&mu);
	while (!atomic_load(&finished)) {
		struct timespec ts;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)wake_ms * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		rc = pthread_cond_timedwait(&cv, &mu, &ts);
		if (rc == ETIMEDOUT)
			atomic_fetch_add(&wakes, 1);
		else
			atomic_fetch_add(&early_cond, 1); /* nobody signals */
	}
	pthread_mutex_unlock(&mu);
	KEEP_FRAME();
}

NOIPA void wb_sock_loop(void)
{
	int sv[2];
	struct timeval tv = { .tv_sec = wake_ms / 1000,
			      .tv_usec = (wake_ms % 1000) * 1000 };
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die("setsockopt");
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&finished)) {
		ssize_t n = read(sv[0], &c, 1);

		if (n < 0 && errno == EINTR)
			atomic_fetch_add(&early_read, 1);
		else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			atomic_fetch_add(&wakes, 1);
	}
	KEEP_FRAME();
	close(sv[0]);
	close(sv[1]);
}

NOIPA void wb_burn(void)
{
	uint64_t x = sink;

	atomic_fetch_add(&started, 1);
	while (!atomic_load(&finished)) {
		SPIN(x, 100000);
		sink = x;
	}
	KEEP_FRAME();
}

static void *blocker(void *arg)
{
	switch ((int)(intptr_t)arg % 3) {
	case 0:
		wb_epoll_loop();
		break;
	case 1:
		wb_cond_loop();
		break;
	default:
		wb_sock_loop();
		break;
	}
	return NULL;
}

static void *burner(void *arg)
{
	(void)arg;
	wb_burn();
	return NULL;
}

static long number(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "wakeblock: bad %s '%s' (%ld..%ld)\n", what, s,
			lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static pthread_t th[MAX_THREADS + MAX_BUSY];
	long n, busy = 0, secs = 60;
	struct timespec left;
	sigset_t set;
	double end;
	int opt, total;

	while ((opt = getopt(argc, argv, "b:w:d:")) != -1) {
		if (opt == 'b')
			busy = number(optarg, 0, MAX_BUSY, "-b");
		else if (opt == 'w')
			wake_ms = (int)number(optarg, 1, 600000, "-w");
		else if (opt == 'd')
			secs = number(optarg, 1, 600, "-d");
		else
			exit(2);
	}
	if (optind != argc - 1) {
		fprintf(stderr,
			"usage: wakeblock [-b BUSY] [-w MS] [-d SECS] N\n");
		return 2;
	}
	n = number(argv[optind], 1, MAX_THREADS, "N");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by the threads */
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, blocker, (void *)(intptr_t)i))
			die("pthread_create");
	for (long i = 0; i < busy; i++)
		if (pthread_create(&th[n + i], NULL, burner, NULL))
			die("pthread_create");
	total = (int)(n + busy);
	end = now() + 30;
	while (atomic_load(&started) < total && now() < end)
		usleep(1000);
	if (atomic_load(&started) < total) {
		fprintf(stderr, "wakeblock: threads did not start\n");
		return 2;
	}
	/* Each blocked thread is in its call, or about to be. */
	usleep(wake_ms < 100 ? 2000 * (useconds_t)wake_ms : 200000);
	printf("ready\n");
	fflush(stdout);
	end = now() + (double)secs;
	for (;;) {
		double rest = end - now();

		if (rest <= 0)
			break;
		left.tv_sec = (time_t)rest;
		left.tv_nsec = (long)((rest - (double)left.tv_sec) * 1e9);
		/* EINTR (a stop of ours, at the first --wall tick of a
		 * --no-peek run): wait on for the rest. */
		int sig = sigtimedwait(&set, NULL, &left);

		if (sig == SIGUSR2)
			print_counts();
		else if (sig > 0)
			break;
	}
	atomic_store(&finished, 1);
	for (long i = 0; i < n + busy; i++)
		pthread_join(th[i], NULL);
	print_counts();
	return 0;
}
