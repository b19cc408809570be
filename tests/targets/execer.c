/*
 * execer - a target that keeps calling execve() from a non-leader thread.
 *
 *   execer N
 *
 * main starts a thread that, after 50 ms, execs this program again with
 * N-1 (the kernel kills main and moves the thread into the leader's PID);
 * main meanwhile burns CPU.  At N = 0 it prints "done" and exits 0.  A
 * profiler that seizes threads while one of them execs must neither
 * deadlock nor leave anything traced.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char self[4096];
static int left;

static void *exec_later(void *arg)
{
	struct timespec ts = { 0, 50 * 1000000L };
	char n[16];

	(void)arg;
	nanosleep(&ts, NULL);
	snprintf(n, sizeof(n), "%d", left - 1);
	execl(self, self, n, (char *)NULL);
	perror("execl");
	exit(2);
}

int main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	pthread_t th;
	ssize_t len;

	left = argc > 1 ? atoi(argv[1]) : 20;
	if (left <= 0) {
		printf("done\n");
		return 0;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 2;
	self[len] = '\0';
	if (left == 1000000)
		return 3;
	pthread_create(&th, NULL, exec_later, NULL);
	for (;;)
		x++;
}
