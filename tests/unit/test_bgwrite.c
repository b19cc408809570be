/*
 * test_bgwrite - writers forked while the sampler goes on (profile/
 * bgwrite.h): each writer's result comes back to done() exactly once
 * with its tag; a writer that dies (SIGKILL of its own, by its PID)
 * gives -1 and EPIPE; past BGWRITE_MAX writers at once bgwrite_start()
 * fails with EAGAIN and starts nothing; bgwrite_poll() never blocks;
 * the writer runs at BGWRITE_NICE with every signal blocked; its CPU time
 * is added up; no zombie is left.  Every wait is bounded.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile/bgwrite.h"
#include "unit.h"

struct got {
	int n;
	unsigned long tag[16];
	int result[16], err[16];
};

static void done(void *arg, unsigned long tag, int result, int err)
{
	struct got *g = arg;

	if (g->n < 16) {
		g->tag[g->n] = tag;
		g->result[g->n] = result;
		g->err[g->n] = err;
	}
	g->n++;
}

static int ret_arg(void *arg)
{
	return (int)(intptr_t)arg;
}

/* What the writer sees: its nice (+ 100) and whether SIGTERM is blocked
 * (+ 1000). */
static int env_of(void *arg)
{
	sigset_t set;
	int r;

	(void)arg;
	errno = 0;
	r = getpriority(PRIO_PROCESS, 0) + 100;
	sigprocmask(SIG_SETMASK, NULL, &set);
	return r + (sigismember(&set, SIGTERM) ? 1000 : 0);
}

/* Burn about 50 ms of CPU, then 7. */
static int burn(void *arg)
{
	struct timespec a, b;
	volatile unsigned x = 0;

	(void)arg;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec <
		 50000000L);
	return 7;
}

static int sleep_long(void *arg)
{
	(void)arg;
	sleep(30);
	return 1;
}

/* Has pid blocked its signals yet (SigBlk in /proc/PID/status not 0)?
 * Waits 5 s at most. */
static int wait_blocked(pid_t pid)
{
	char path[64], line[128];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		int blocked = 0;

		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "SigBlk:", 7))
				blocked = strspn(line + 7, "\t 0\n") !=
					  strlen(line + 7);
		if (f)
			fclose(f);
		if (blocked)
			return 0;
		usleep(50000);
	}
	return -1;
}

static void test_results(void)
{
	struct bgwrite b;
	struct got g = { 0 };

	bgwrite_init(&b);
	CHECK(b.busy == 0 && b.cpu_ns == 0);
	CHECK(bgwrite_start(&b, 11, ret_arg, (void *)(intptr_t)0) == 0);
	CHECK(bgwrite_start(&b, 12, ret_arg, (void *)(intptr_t)-1) == 0);
	CHECK(bgwrite_start(&b, 13, env_of, NULL) == 0);
	CHECK(bgwrite_start(&b, 14, burn, NULL) == 0);
	CHECK(b.busy == 4);
	/* a fifth at once: EAGAIN, nothing started */
	errno = 0;
	CHECK(bgwrite_start(&b, 15, ret_arg, NULL) == -1 && errno == EAGAIN);
	CHECK(b.busy == 4);
	bgwrite_wait(&b, done, &g);
	CHECK(b.busy == 0 && g.n == 4);
	for (int i = 0; i < g.n && i < 16; i++) {
		switch (g.tag[i]) {
		case 11:
			CHECK(g.result[i] == 0);
			break;
		case 12:
			CHECK(g.result[i] == -1);
			break;
		case 13:
			CHECKF(g.result[i] == 100 + BGWRITE_NICE + 1000,
			       "nice and mask: %d", g.result[i]);
			break;
		case 14:
			CHECK(g.result[i] == 7);
			break;
		default:
			CHECKF(0, "tag %lu", g.tag[i]);
		}
	}
	CHECKF(b.cpu_ns >= 40000000, "writers' CPU %llu ns",
	       (unsigned long long)b.cpu_ns);
	/* all reaped: no child left */
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* A writer killed before it answers: -1, EPIPE.  poll() does not block
 * while it runs. */
static void test_killed(void)
{
	struct bgwrite b;
	struct got g = { 0 };
	struct timespec t0, t1;
	pid_t pid;

	bgwrite_init(&b);
	CHECK(bgwrite_start(&b, 21, sleep_long, NULL) == 0);
	pid = b.slot[0].pid;
	CHECK(pid > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bgwrite_poll(&b, done, &g);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(g.n == 0 && b.busy == 1);
	CHECK(t1.tv_sec - t0.tv_sec < 2);
	/* SIGTERM is blocked in the writer: only SIGKILL ends it */
	if (pid > 0) {
		/* once it has blocked them (a signal before that would be
		 * the fork's, not the writer's) */
		CHECK(wait_blocked(pid) == 0);
		kill(pid, SIGTERM);
		usleep(100000);
		bgwrite_poll(&b, done, &g);
		CHECK(g.n == 0 && b.busy == 1);
		kill(pid, SIGKILL);
	}
	for (int i = 0; i < 100 && g.n == 0; i++) {
		usleep(50000);
		bgwrite_poll(&b, done, &g);
	}
	CHECK(g.n == 1 && g.tag[0] == 21 && g.result[0] == -1 &&
	      g.err[0] == EPIPE);
	CHECK(b.busy == 0);
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

int main(void)
{
	test_results();
	test_killed();
	return unit_result("test_bgwrite");
}
