/*
 * dier - a target that ends its whole thread group at a moment chosen by
 * the test, from a thread chosen by the test, while a profiler stops its
 * threads.
 *
 *   dier NBUSY WHO DELAY_US
 *
 * Starts NBUSY threads spinning in spin(), one blocked in read() on a
 * pipe and one in 1 ms nanosleep()s, prints "ready" and waits for SIGUSR1
 * (30 s at most).  Then, after DELAY_US microseconds, exit_group(42) is
 * called by WHO:
 *   main     the main thread (it spins until then)
 *   busy     the last busy thread, in the middle of its spinning
 *   blocked  the reader, woken by a byte main writes to the pipe
 *   zleader  busy thread 0, after main has left with pthread_exit() at
 *            once: from the moment the leader shows as a zombie until
 *            the exit, thread 0 spins in orphan_spin() (a zombie leader
 *            while sampled, then the group exits); it prints "leader is
 *            a zombie" when it sees it.  It dlopen()s libm.so.6 then and
 *            calls its cbrt() from orphan_spin(): a mapping new since the
 *            leader died, that a profiler must read the maps and the
 *            file of to unwind through
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"

#define MAX_BUSY 8

static uint64_t sink;
static int pipefd[2];
static volatile double exit_at; /* 0 until SIGUSR1 */
static int who_busy = -1;	/* the busy thread that exits, or -1 */
static int zleader;

NOIPA void spin(void)
{
	uint64_t x = __atomic_load_n(&sink, __ATOMIC_RELAXED);

	for (unsigned i = 0; i < 20000u; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__atomic_store_n(&sink, x, __ATOMIC_RELAXED);
	KEEP_FRAME();
}

/* exit_group(): every thread of the process ends at once. */
static void end_group(void)
{
	syscall(SYS_exit_group, 42);
}

static double (*cbrt_fn)(double);
static volatile double cube = 27.0;

NOIPA void orphan_spin(void)
{
	spin();
	if (cbrt_fn)
		for (int i = 0; i < 100; i++)
			cube = cbrt_fn(cube) * cbrt_fn(cube) * cbrt_fn(cube);
	KEEP_FRAME();
}

/* The state letter of the leader (from any thread, /proc/self is the
 * thread group), or '?'. */
static char leader_state(void)
{
	char buf[512], *p = NULL;
	FILE *f = fopen("/proc/self/stat", "r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			p = strrchr(buf, ')');
		fclose(f);
	}
	return p && p[1] == ' ' ? p[2] : '?';
}

static void spin_until_exit(void)
{
	while (!exit_at)
		spin();
	while (zleader && now() < exit_at && leader_state() != 'Z')
		spin();
	if (zleader && now() < exit_at) {
		void *libm = dlopen("libm.so.6", RTLD_NOW);

		if (libm)
			cbrt_fn = (double (*)(double))dlsym(libm, "cbrt");
		printf("leader is a zombie%s\n", cbrt_fn ? "" : " (no libm)");
		fflush(stdout);
	}
	while (now() < exit_at)
		if (zleader)
			orphan_spin();
		else
			spin();
	end_group();
}

static void *busy_main(void *arg)
{
	int idx = (int)(intptr_t)arg;

	if (idx == who_busy)
		spin_until_exit();
	for (;;)
		spin();
	return NULL;
}

static void *reader_main(void *arg)
{
	char c;

	(void)arg;
	if (read(pipefd[0], &c, 1) == 1 && c == 'x')
		end_group();
	for (;;)
		pause();
	return NULL;
}

static void *sleeper_main(void *arg)
{
	struct timespec ts = { 0, 1000000L };

	(void)arg;
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int nbusy = argc > 1 ? atoi(argv[1]) : 2, i;
	const char *who = argc > 2 ? argv[2] : "main";
	double delay = argc > 3 ? atol(argv[3]) / 1e6 : 0.1, end;
	struct timespec ts = { 1, 0 };
	pthread_t th;
	sigset_t set;

	if (nbusy < 1 || nbusy > MAX_BUSY || pipe(pipefd))
		return 2;
	if (!strcmp(who, "busy"))
		who_busy = nbusy - 1;
	else if (!strcmp(who, "zleader"))
		who_busy = 0, zleader = 1;
	else if (strcmp(who, "main") && strcmp(who, "blocked"))
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < nbusy; i++)
		pthread_create(&th, NULL, busy_main, (void *)(intptr_t)i);
	pthread_create(&th, NULL, reader_main, NULL);
	pthread_create(&th, NULL, sleeper_main, NULL);
	printf("ready\n");
	fflush(stdout);
	/* sigtimedwait() may return EINTR under a tracer. */
	end = now() + 30;
	while (now() < end && sigtimedwait(&set, NULL, &ts) != SIGUSR1)
		;
	exit_at = now() + delay;
	if (!strcmp(who, "zleader"))
		pthread_exit(NULL);
	if (!strcmp(who, "main"))
		spin_until_exit();
	while (now() < exit_at)
		spin();
	if (!strcmp(who, "blocked") && write(pipefd[1], "x", 1) != 1)
		return 2;
	for (;;) /* the exit comes from another thread */
		spin();
}
