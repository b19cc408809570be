/*
 * sysloop - a loop of a little work and one cheap system call, as a
 * server's loop is: main -> sys_loop -> work (SPIN) and -> do_call ->
 * pread (of a small unlinked temporary file) or getppid.  Usage: sysloop pread|getppid SECONDS [SPINS].
 *
 * It measures its own split: CLOCK_MONOTONIC (the vDSO, no system call)
 * around each call and at the start of each round, so that the share of
 * its time spent in the calls is known without a profiler, and prints it
 * at the end:
 *   "syscall_share PERCENT calls N"
 * PERCENT is the median call over the median round (of the last 65536):
 * medians, because on a busy machine a round that was preempted (which
 * happens most at a call's exit, where the kernel looks whether to
 * reschedule) counts the time it waited, which is no CPU time.
 * A ptrace stop lands at the next return to user mode, which for this
 * loop is almost always the call's exit: a profiler that does not
 * correct for it puts nearly all samples in do_call.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

static int fd = -1;
static int use_pread;

NOIPA void work(uint64_t *x, unsigned spins)
{
	SPIN(*x, spins);
	KEEP_FRAME();
}

NOIPA long do_call(void)
{
	char buf[64];
	long r;

	if (use_pread)
		r = (long)pread(fd, buf, sizeof(buf), 0);
	else
		r = (long)getppid();
	KEEP_FRAME();
	return r;
}

#define KEEP 65536
static uint64_t call_ns[KEEP], round_ns[KEEP];

NOIPA void sys_loop(double seconds, unsigned spins)
{
	uint64_t x = 1, calls = 0, t0 = now_ns(), start = t0, a, b, n;
	uint64_t end = t0 + (uint64_t)(seconds * 1e9);

	do {
		work(&x, spins);
		a = now_ns();
		do_call();
		b = now_ns();
		call_ns[calls % KEEP] = b - a;
		round_ns[calls % KEEP] = b - start;
		start = b;
		calls++;
	} while (b < end);
	n = calls < KEEP ? calls : KEEP;
	printf("syscall_share %.1f calls %llu x %llu\n",
	       100.0 * median(call_ns, n) / median(round_ns, n),
	       (unsigned long long)calls, (unsigned long long)(x & 1));
	fflush(stdout);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/sysloopXXXXXX";
	double seconds = argc > 2 ? atof(argv[2]) : 2.0;
	unsigned spins = argc > 3 ? (unsigned)atoi(argv[3]) : 10000;

	if (argc < 2 ||
	    (strcmp(argv[1], "pread") && strcmp(argv[1], "getppid"))) {
		fprintf(stderr,
			"usage: sysloop pread|getppid SECONDS [SPINS]\n");
		return 2;
	}
	use_pread = !strcmp(argv[1], "pread");
	if (use_pread) {
		fd = mkstemp(path);
		if (fd < 0 || write(fd, path, sizeof(path)) < 0) {
			perror("sysloop");
			return 1;
		}
		unlink(path);
	}
	printf("ready\n");
	fflush(stdout);
	sys_loop(seconds, spins);
	return 0;
}
