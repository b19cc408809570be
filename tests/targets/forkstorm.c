/*
 * forkstorm - test target: process trees that cost a profiler memory
 * (issue 27, items 8 and 10).
 *
 *   forkstorm storm N US
 *            fork N children one after another, each spinning US µs of
 *            its own CPU time then exiting, each reaped before the next
 *            is forked; prints "done" and exits 0.
 *   forkstorm zombies N MS SECS
 *            fork N children, each burning MS ms of its own CPU time then
 *            exiting, never reaped (zombies until this process exits);
 *            then the main thread spins in busy() for SECS seconds of
 *            wall time; prints "done" and exits 0 (its zombies go with it).
 *   forkstorm idle N SECS
 *            fork N children that block in pause(); prints "ready", sleeps
 *            SECS seconds, SIGKILLs each child by PID, reaps them, exits 0.
 *
 * Every child has PR_SET_PDEATHSIG SIGKILL (and checks its parent is still
 * the one that forked it) and an alarm of 120 s, the parent one of 30
 * minutes: none outlives the test.
 * Bounded: N at most 100000, US at most 100000, MS at most 1000, SECS at
 * most 600.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void burn_child(double seconds)
{
	uint64_t x = sink;

	while (cpu_now() < seconds)
		SPIN(x, 2000u);
	sink = x;
	KEEP_FRAME();
}

NOIPA void busy(double secs)
{
	uint64_t x = sink;
	double end = now() + secs;

	while (now() < end)
		SPIN(x, 200000u);
	sink = x;
	KEEP_FRAME();
}

/* In a child: die with the parent, and after 120 s in any case. */
static void child_setup(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	alarm(120);
}

static long arg(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < lo || v > hi) {
		fprintf(stderr, "forkstorm: %s: out of %ld..%ld\n", s, lo, hi);
		exit(2);
	}
	return v;
}

static int storm(long n, long us)
{
	pid_t me = getpid();

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 2;
		if (pid == 0) {
			child_setup(me);
			burn_child(us / 1e6);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid)
			return 2;
	}
	puts("done");
	return 0;
}

static int zombies(long n, long ms, long secs)
{
	pid_t me = getpid();

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			child_setup(me);
			burn_child(ms / 1e3);
			_exit(0);
		}
	}
	busy((double)secs);
	puts("done");
	return 0;
}

static int idle(long n, long secs)
{
	pid_t me = getpid(), *pids = calloc((size_t)n, sizeof(*pids));

	if (!pids)
		return 2;
	for (long i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 2;
		if (pids[i] == 0) {
			child_setup(me);
			for (;;)
				pause();
		}
	}
	puts("ready");
	fflush(stdout);
	sleep((unsigned)secs);
	for (long i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (long i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	alarm(1800);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "storm"))
		return storm(arg(argv[2], 1, 100000), arg(argv[3], 0, 100000));
	if (argc == 5 && !strcmp(argv[1], "zombies"))
		return zombies(arg(argv[2], 1, 100000), arg(argv[3], 0, 1000),
			       arg(argv[4], 0, 600));
	if (argc == 4 && !strcmp(argv[1], "idle"))
		return idle(arg(argv[2], 1, 100000), arg(argv[3], 0, 600));
	fputs("usage: forkstorm storm N US | zombies N MS SECS | idle N SECS\n",
	      stderr);
	return 2;
}
