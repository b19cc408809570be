/*
 * traceme - chaos target: children that ask to be traced by their parent,
 * as a debugger launcher or a sandbox's helper does (RELIABILITY case 50).
 *
 *   traceme N BURN_US
 *
 * Forks N children (1..100000), two alive at a time; each burns about
 * BURN_US microseconds of CPU (0..100000), so that a profiler's tick finds
 * it running, then calls ptrace(PTRACE_TRACEME) and exits 0 if the call
 * succeeded, 1 if it failed with EPERM (the kernel's answer to a thread
 * already traced, by a profiler that holds it at that moment), 2 on
 * another error.  Prints "traceme: children=N eperm=E other=O" and exits
 * 0 if every call succeeded, else 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../targets/target.h"
#include "chaos.h"

static volatile uint64_t sink;

NOIPA static void child(double burn_s)
{
	double end = now() + burn_s;
	uint64_t x = (uint64_t)getpid();

	while (now() < end)
		SPIN(x, 2000);
	sink = x;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		_exit(0);
	_exit(errno == EPERM ? 1 : 2);
}

/* Wait for one child; count how it ended. */
static void reap(unsigned long *eperm, unsigned long *other)
{
	int status;

	if (wait(&status) < 0) {
		perror("traceme: wait");
		exit(2);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
		(*eperm)++;
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		(*other)++;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0;
	long burn_us = argc == 3 ? atol(argv[2]) : -1;
	unsigned long eperm = 0, other = 0;
	int alive = 0;

	if (n < 1 || n > 100000 || burn_us < 0 || burn_us > 100000) {
		fprintf(stderr, "usage: traceme N BURN_US\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid;

		if (alive == 2) {
			reap(&eperm, &other);
			alive--;
		}
		pid = fork();
		if (pid < 0) {
			perror("traceme: fork");
			return 2;
		}
		if (pid == 0)
			child((double)burn_us / 1e6);
		alive++;
	}
	while (alive-- > 0)
		reap(&eperm, &other);
	printf("traceme: children=%ld eperm=%lu other=%lu\n", n, eperm, other);
	return eperm || other ? 3 : 0;
}
