/*
 * idlers - idle processes for a profiler to carry: the benchmark's
 * "idle siblings".
 *
 *   idlers [-t SECS] N T
 *
 * Forks N processes, each with T threads that block for good: the main
 * thread in pause(), T-1 others on a condition variable nobody signals.
 * Once every thread of every child runs it prints two lines on stdout,
 *
 *   pids P1,P2,...,PN
 *   ready
 *
 * and waits.  On SIGTERM, SIGINT or SIGHUP (or after SECS seconds with
 * -t) it sends SIGKILL to each of its children by PID, reaps them and
 * exits 0.  Each child has PR_SET_PDEATHSIG SIGKILL, so none outlives the
 * parent however it ends; the child checks its parent is still the one
 * that forked it after setting that, since a parent that died before the
 * prctl() would never send the signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS 4096
#define MAX_THREADS 1024
#define THREAD_STACK (64 * 1024)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER,
		      up = PTHREAD_COND_INITIALIZER;
static int started;

static void *block(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	started++;
	pthread_cond_signal(&up);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

/* A child: T-1 blocked threads, one byte on fd when they all run, then
 * pause() for good. */
static void child(pid_t parent, int fd, int nthreads)
{
	pthread_attr_t attr;
	pthread_t th;
	char c = 1;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&th, &attr, block, NULL) != 0)
			_exit(1);
	/* A thread counts itself and waits on cv under mu, which the wait
	 * releases: once the count is complete and the main thread holds mu,
	 * every thread is blocked in its wait. */
	pthread_mutex_lock(&mu);
	while (started < nthreads - 1)
		pthread_cond_wait(&up, &mu);
	pthread_mutex_unlock(&mu);
	if (write(fd, &c, 1) != 1)
		_exit(1);
	close(fd);
	for (;;)
		pause();
}

static void kill_all(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
}

/* Wait up to 30 s for one byte from each of the n children. */
static int wait_started(int fd, int n)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];

	while (n > 0) {
		ssize_t r;

		if (poll(&p, 1, 30000) <= 0)
			return -1;
		r = read(fd, buf,
			 (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf));
		if (r <= 0)
			return -1;
		n -= (int)r;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: idlers [-t SECS] N T  (1 <= N <= %d, "
		"1 <= T <= %d)\n",
		MAX_PROCS, MAX_THREADS);
	return 2;
}

int main(int argc, char **argv)
{
	static pid_t pids[MAX_PROCS];
	int nprocs, nthreads, fds[2], c, sig, n = 0;
	unsigned limit = 0;
	pid_t self = getpid();
	sigset_t set;

	while ((c = getopt(argc, argv, "t:")) != -1) {
		if (c != 't')
			return usage();
		limit = (unsigned)atoi(optarg);
	}
	if (argc - optind != 2)
		return usage();
	nprocs = atoi(argv[optind]);
	nthreads = atoi(argv[optind + 1]);
	if (nprocs < 1 || nprocs > MAX_PROCS || nthreads < 1 ||
	    nthreads > MAX_THREADS)
		return usage();
	/* Blocked before the first fork: the signals that end the parent
	 * wait in sigwait() below, even if they come while it forks.  The
	 * children unblock them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe(fds) != 0) {
		perror("idlers: pipe");
		return 1;
	}
	for (; n < nprocs; n++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("idlers: fork");
			kill_all(pids, n);
			return 1;
		}
		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			close(fds[0]);
			child(self, fds[1], nthreads);
		}
		pids[n] = pid;
	}
	close(fds[1]);
	if (wait_started(fds[0], nprocs) != 0) {
		fprintf(stderr, "idlers: the children did not all start\n");
		kill_all(pids, n);
		return 1;
	}
	close(fds[0]);
	printf("pids ");
	for (int i = 0; i < n; i++)
		printf(i ? ",%d" : "%d", (int)pids[i]);
	printf("\nready\n");
	fflush(stdout);
	if (limit)
		alarm(limit);
	while (sigwait(&set, &sig) != 0)
		;
	kill_all(pids, n);
	return 0;
}
