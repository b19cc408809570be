/*
 * sysloop - a loop of a little work and one cheap system call, as a
 * server's loop is: main -> sys_loop -> work (SPIN) and -> do_call ->
 * pread (of a small unlinked temporary file) or getppid.  Usage: sysloop pread|getppid SECONDS [SPINS].
 *
 * It measures its own split: CLOCK_MONOTONIC (the vDSO, no system call)
 * around each call, so that the share of its time spent in the calls is
 * known without a profiler, and prints it at the end:
 *   "syscall_share PERCENT calls N"
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOIPA void sys_loop(double seconds, unsigned spins)
{
	uint64_t x = 1, in_call = 0, calls = 0, t0 = mono_ns(), t1, a, b;
	uint64_t end = t0 + (uint64_t)(seconds * 1e9);

	do {
		work(&x, spins);
		a = mono_ns();
		do_call();
		b = mono_ns();
		in_call += b - a;
		calls++;
	} while (b < end);
	t1 = mono_ns();
	printf("syscall_share %.1f calls %llu x %llu\n",
	       100.0 * (double)in_call / (double)(t1 - t0),
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
