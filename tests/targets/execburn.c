/*
 * execburn - test target: a thread that burns CPU time and then calls
 * execve(), while the leader sleeps.
 *
 *   execburn MS
 *
 * Prints "ready" with its second thread up and blocked; SIGUSR1 starts
 * it: it burns MS ms of its own CPU time in burn_work and execs this
 * program as "execburn idle", which takes the leader's PID (the kernel's
 * de_thread()), prints "done" and waits to be killed, using no CPU time.
 * The process's CPU time (utime + stime of /proc/PID/stat) then holds the
 * burn: a profiler must count it once, not again under the leader's TID
 * that the exec'ing thread took.  Exits by itself after 120 s.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

static char self[4096];
static double burn_s;
volatile uint64_t sink;

NOIPA void burn_work(void)
{
	uint64_t x = sink;
	double end = cpu_now() + burn_s;

	while (cpu_now() < end)
		SPIN(x, 20000u);
	sink = x;
	KEEP_FRAME();
}

static void *burner(void *arg)
{
	sigset_t *set = arg;
	int sig;

	if (sigwait(set, &sig) || sig != SIGUSR1)
		_exit(1);
	burn_work();
	execl(self, self, "idle", (char *)NULL);
	_exit(1);
}

int main(int argc, char **argv)
{
	sigset_t set;
	pthread_t t;
	ssize_t n;

	alarm(120);
	if (argc == 2 && !strcmp(argv[1], "idle")) {
		puts("done");
		fflush(stdout);
		for (;;)
			pause();
	}
	burn_s = argc == 2 ? atof(argv[1]) / 1e3 : 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (burn_s <= 0 || n <= 0) {
		fprintf(stderr, "usage: execburn MS\n");
		return 2;
	}
	self[n] = '\0';
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, burner, &set)) {
		fprintf(stderr, "execburn: pthread_create failed\n");
		return 1;
	}
	puts("ready");
	fflush(stdout);
	for (;;)
		pause();
}
