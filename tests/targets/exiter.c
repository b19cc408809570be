/*
 * exiter - test target: burns CPU in burn() for a while, then ends the way
 * it is told, to check that `ptprof -- COMMAND` returns COMMAND's status.
 *
 *   exiter SECONDS CODE   print "ready", burn about SECONDS of CPU time,
 *                         exit(CODE)
 *   exiter SECONDS term   ... then kill itself with SIGTERM (status 143)
 *   exiter SECONDS segv   ... then store through a null pointer: a real
 *                         SIGSEGV (status 139)
 *   exiter SECONDS usr1   print "ready", then for SECONDS send itself
 *                         SIGUSR1 again and again (each caught before the
 *                         next is sent); exit 0 if every one reached the
 *                         handler, else say how many were lost and exit 1.
 *                         A tracer that swallows a signal reported to it
 *                         while the thread was seized loses some.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

volatile uint64_t sink;
volatile uintptr_t null_address; /* 0, unknown to the compiler */

/* About seconds of CPU time, seconds + 30 of wall time at most. */
NOIPA void burn(double seconds)
{
	double rounds = seconds * SPINS_PER_SEC / 20000, end = now() + seconds + 30;
	uint64_t x = sink;

	for (; rounds > 0 && now() < end; rounds--)
		for (unsigned i = 0; i < 20000u; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	KEEP_FRAME();
}

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

/* kill() of self delivers the signal before it returns (it is unblocked),
 * so caught == sent after every call unless one was lost. */
NOIPA int signal_self(double seconds)
{
	double end = now() + seconds;
	long sent = 0;

	signal(SIGUSR1, on_usr1);
	while (now() < end) {
		kill(getpid(), SIGUSR1);
		sent++;
	}
	if (sent == 0 || caught != sent) {
		fprintf(stderr, "exiter: %ld of %ld SIGUSR1 lost\n",
			sent - (long)caught, sent);
		return 1;
	}
	printf("exiter: all %ld SIGUSR1 arrived\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: exiter SECONDS CODE|term|segv\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(argv[2], "usr1"))
		return signal_self(strtod(argv[1], NULL));
	burn(strtod(argv[1], NULL));
	if (!strcmp(argv[2], "term")) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		signal(SIGTERM, SIG_DFL);
		kill(getpid(), SIGTERM);
	} else if (!strcmp(argv[2], "segv")) {
		signal(SIGSEGV, SIG_DFL);
		*(volatile int *)null_address = 1;
	} else {
		return atoi(argv[2]);
	}
	fprintf(stderr, "exiter: still alive after '%s'\n", argv[2]);
	return 98;
}
