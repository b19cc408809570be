/*
 * sandboxed - chaos target: a process under a seccomp filter, with
 * threads that sleep in clock_nanosleep() in a loop and one that burns
 * CPU, and that checks that none of its sleeps ever failed.
 *
 *   sandboxed FILTER SECS [late]
 *   sandboxed run COMMAND [ARG...]
 *
 * FILTER says what the filter does with restart_syscall (the call the
 * kernel resumes an interrupted sleep with after a ptrace stop):
 *   kill   SECCOMP_RET_KILL_PROCESS (the process dies of SIGSYS)
 *   errno  SECCOMP_RET_ERRNO(EPERM) (the sleep fails with EPERM)
 *   allow  allowed; the filter only refuses mount() (with EPERM)
 * The filter is installed with PR_SET_NO_NEW_PRIVS (no privilege needed)
 * before the threads start, so every thread has it; with "late", each
 * thread installs it on itself about one second after "ready", between
 * two sleeps (no SECCOMP_FILTER_FLAG_TSYNC: see docs/RELIABILITY.md), as
 * a program that sandboxes itself after its start does.
 *
 * "run" installs the "allow" filter and execs COMMAND under it (a ptprof
 * that runs under seccomp itself, as in a container).
 *
 * Threads: sb-sleep1..3 burn about 0.5 ms of CPU, then sleep 1 ms
 * (relative), in a loop: in CPU mode too they are due a sample, and a
 * stop often lands in their sleep; sb-burn burns CPU in sandboxed_burn
 * (and, never sleeping, has no use for the filter with "late"); the main
 * thread sleeps 10 ms at a time.  Prints
 * "ready" once the threads run, and after SECS seconds (1..60), or once a
 * file "stop" appears in its current directory (tests/chaos/stacks.sh),
 * "sandboxed: sleeps=N failed=F" and exits 0 if no sleep failed (F = 0),
 * else 3.  Killed by the filter, it dies of SIGSYS (exit status 159).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"
#include "chaos.h"

static volatile int done;
static const char *filter;   /* argv[1] */
static volatile int late_go; /* "late": install it now, each thread */
static volatile uint64_t sink;
static uint64_t sleeps, failed; /* under lock */
static int first_errno;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int install(const char *what)
{
	uint32_t action = strcmp(what, "kill") == 0 ? SECCOMP_RET_KILL_PROCESS :
			  strcmp(what, "errno") == 0 ? SECCOMP_RET_ERRNO |
							       EPERM :
						       SECCOMP_RET_ALLOW;
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_restart_syscall, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mount, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof(prog) / sizeof(prog[0]), prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
}

/* One relative sleep; a failure (EINTR included: no signal handler is
 * installed, so nothing may interrupt it) is counted. */
static void nap(long ns)
{
	struct timespec ts = { 0, ns };
	int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);

	pthread_mutex_lock(&lock);
	sleeps++;
	if (rc) {
		failed++;
		if (!first_errno)
			first_errno = rc;
	}
	pthread_mutex_unlock(&lock);
}

static void *sleeper(void *arg)
{
	char name[16];
	uint64_t x = (uint64_t)(intptr_t)arg;

	snprintf(name, sizeof(name), "sb-sleep%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	int installed = 0;

	while (!done) {
		if (late_go && !installed) {
			if (install(filter))
				abort();
			installed = 1;
		}
		for (int i = 0; i < 25; i++)
			x = burn_slice(x);
		sink += x;
		nap(1000000);
	}
	return NULL;
}

NOIPA void sandboxed_burn(void)
{
	uint64_t x = sink;

	while (!done)
		x = burn_slice(x);
	sink = x;
}

static void *burner(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sb-burn");
	sandboxed_burn();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	int secs = argc >= 3 ? atoi(argv[2]) : 0;
	int late = argc >= 4 && strcmp(argv[3], "late") == 0;
	struct timespec end;

	if (argc >= 3 && strcmp(argv[1], "run") == 0) {
		if (install("allow") == 0)
			execvp(argv[2], argv + 2);
		perror("sandboxed: run");
		return 127;
	}
	if (argc < 3 || secs < 1 || secs > 60 ||
	    (strcmp(argv[1], "kill") && strcmp(argv[1], "errno") &&
	     strcmp(argv[1], "allow"))) {
		fprintf(stderr,
			"usage: sandboxed kill|errno|allow SECS [late]\n"
			"       sandboxed run COMMAND [ARG...]\n");
		return 2;
	}
	filter = argv[1];
	if (!late && install(argv[1])) {
		perror("sandboxed: seccomp");
		return 2;
	}
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, sleeper, (void *)(intptr_t)(i + 1));
	pthread_create(&t[3], NULL, burner, NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; late && i < 100; i++)
		nap(10000000);
	late_go = late;
	if (late && install(argv[1])) {
		perror("sandboxed: seccomp");
		return 2;
	}
	for (;;) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec) ||
		    access("stop", F_OK) == 0)
			break;
		nap(10000000);
	}
	done = 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("sandboxed: sleeps=%llu failed=%llu%s%s\n",
	       (unsigned long long)sleeps, (unsigned long long)failed,
	       failed ? " first error: " : "",
	       failed ? strerror(first_errno) : "");
	return failed ? 3 : 0;
}
