/*
 * vforker - a thread that ptrace cannot stop promptly.
 *
 *   vforker SECONDS CHILD_MS
 *
 * A second thread loops: vfork() a child that sleeps CHILD_MS ms and
 * exits.  While the child runs, the vfork()ing thread waits in the kernel
 * in a killable (not interruptible) sleep: a PTRACE_INTERRUPT only takes
 * effect when the child exits, so that thread's stop is late.  The main
 * thread meanwhile burns CPU in spin_main, counting loops.  After SECONDS
 * it stops the vfork thread, joins it and exits 7, printing its loop count
 * ("loops N").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

static atomic_int stop;
static int child_ms;

static void *vfork_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pid_t pid = vfork();

		if (pid == 0) {
			struct timespec ts = { 0, child_ms * 1000000L };

			nanosleep(&ts, NULL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return NULL;
}

__attribute__((noinline)) unsigned long spin_main(double end)
{
	volatile unsigned long loops = 0;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			loops++;
	return loops;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	pthread_t th;
	unsigned long loops;

	child_ms = argc > 2 ? atoi(argv[2]) : 40;
	pthread_create(&th, NULL, vfork_loop, NULL);
	printf("ready\n");
	fflush(stdout);
	loops = spin_main(now() + secs);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("loops %lu\n", loops);
	return 7;
}
