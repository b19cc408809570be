/*
 * stacked - chaos target: a process under as many seccomp filters as the
 * kernel takes (RELIABILITY case 51), each one instruction that allows
 * everything, with a thread that burns CPU and one that sleeps 1 ms at a
 * time (so that a ptrace stop often finds a restart_syscall pending).
 *
 *   stacked NFILTERS SECS
 *
 * Installs up to NFILTERS filters (PR_SET_NO_NEW_PRIVS, no privilege
 * needed) until the kernel refuses one (ENOMEM: its total of 32768
 * instructions, 4 of them counted per filter, allows 6,553 one-instruction
 * filters), then starts the threads and prints "filters=N ready".  After
 * SECS seconds (1..120), or once a file "stop" appears in its current
 * directory, prints "stacked: filters=N sleeps=S failed=F" and exits 0 if
 * no sleep failed, else 3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
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
static volatile uint64_t sink;
static uint64_t sleeps, failed;

/* The busy thread, named st-burn; its frame is the leaf a test counts. */
NOIPA void *stacked_burn(void *arg)
{
	uint64_t x = sink + (uint64_t)(uintptr_t)arg;

	pthread_setname_np(pthread_self(), "st-burn");
	while (!done)
		x = burn_slice(x);
	sink = x;
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	(void)arg;
	pthread_setname_np(pthread_self(), "st-sleep");
	while (!done) {
		sleeps++;
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL))
			failed++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog fp = { 1, &allow };
	int want = argc == 3 ? atoi(argv[1]) : 0;
	int secs = argc == 3 ? atoi(argv[2]) : 0;
	int n = 0;
	double end;
	pthread_t t[2];

	if (want < 1 || secs < 1 || secs > 120) {
		fprintf(stderr, "usage: stacked NFILTERS SECS\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("stacked: PR_SET_NO_NEW_PRIVS");
		return 2;
	}
	while (n < want &&
	       syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == 0)
		n++;
	if (n == 0) {
		perror("stacked: seccomp");
		return 2;
	}
	pthread_create(&t[0], NULL, stacked_burn, NULL);
	pthread_create(&t[1], NULL, sleeper, NULL);
	printf("filters=%d ready\n", n);
	fflush(stdout);
	end = now() + secs;
	while (now() < end && access("stop", F_OK) != 0)
		usleep(10000);
	done = 1;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("stacked: filters=%d sleeps=%llu failed=%llu\n", n,
	       (unsigned long long)sleeps, (unsigned long long)failed);
	return failed ? 3 : 0;
}
