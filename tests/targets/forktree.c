/*
 * forktree - test target: many short processes, each born, burning a
 * little CPU time and gone between a profiler's ticks.
 *
 *   forktree N MS FILE
 *                      fork N children at once; each execs this program
 *                      ("forktree child MS"), burns MS ms of its own CPU
 *                      time in burn_child() and exits; wait for them all,
 *                      then write to FILE the CPU time they used in all
 *                      (getrusage(RUSAGE_CHILDREN), user + system, in
 *                      seconds) and exit 0.
 *
 * Bounded: N at most 200, MS at most 1000, and every process exits by
 * itself after 60 s (alarm).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void burn_child(double seconds)
{
	uint64_t x = sink;

	while (cpu_now() < seconds)
		SPIN(x, 20000u);
	sink = x;
	KEEP_FRAME();
}

static int report_cpu(const char *path)
{
	struct rusage ru;
	FILE *f = fopen(path, "w");

	if (!f || getrusage(RUSAGE_CHILDREN, &ru))
		return 2;
	fprintf(f, "%.6f\n",
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) /
				1e6);
	return fclose(f) ? 2 : 0;
}

int main(int argc, char **argv)
{
	long n, ms;
	int bad = 0;

	alarm(60);
	if (argc == 3 && !strcmp(argv[1], "child")) {
		burn_child(strtol(argv[2], NULL, 10) / 1e3);
		KEEP_FRAME();
		return 0;
	}
	if (argc != 4) {
		fputs("usage: forktree N MS FILE\n", stderr);
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	ms = strtol(argv[2], NULL, 10);
	if (n < 1 || n > 200 || ms < 1 || ms > 1000) {
		fputs("forktree: N in 1..200, MS in 1..1000\n", stderr);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "child", argv[2],
			      (char *)NULL);
			_exit(3);
		}
	}
	for (long i = 0; i < n; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	return bad ? 2 : report_cpu(argv[3]);
}
