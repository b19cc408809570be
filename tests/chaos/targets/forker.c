/*
 * forker - a target that forks, vforks and execs, and starts threads by
 * pthread_create() and by a raw clone(), round after round, then execs
 * itself from a non-leader thread to finish.
 *
 *   forker ROUNDS wait|go
 *
 * With "wait" it prints "ready" and waits for SIGUSR1 (30 s at most)
 * first.  A thread spins in busy() all along.  Each round, main:
 *  - fork()s a child that checks its own TracerPid is 0 (exit 3 if not),
 *    spins a little and exits 0; while it lives main reads the child's
 *    State and TracerPid (neither stopped nor traced), then reaps it;
 *  - vfork()s a child that execs /bin/true (exit 0 expected);
 *  - starts a pthread that spins, and joins it;
 *  - clone()s a raw thread (CLONE_VM|CLONE_THREAD|..., own stack, no TLS
 *    of its own) that spins and exits, and waits for its TID to clear.
 * After ROUNDS rounds (or 20 s), a new thread execs this program as
 * "forker final F V T C P" (counts of each and of problems seen); the new
 * image spins 0.8 s in after_exec(), reading its own TracerPid all along
 * (traced for more than MAX_TRACED_S in a row is wrong: a profiler holds
 * it only for a tick), checks the counts and prints "result ok ..."
 * (exit 0) or what is wrong (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../targets/target.h"

#define CLONE_STACK (256 * 1024)

static uint64_t sink;
static long rounds, forks, vforks, threads, clones, problems;
static char self[4096];

NOIPA void spin(unsigned n)
{
	uint64_t x = __atomic_load_n(&sink, __ATOMIC_RELAXED);

	for (unsigned i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__atomic_store_n(&sink, x, __ATOMIC_RELAXED);
	KEEP_FRAME();
}

static void *busy(void *arg)
{
	(void)arg;
	for (;;)
		spin(100000);
	return NULL;
}

/* "State: X" and "TracerPid: N" of /proc/PID/status; -1 if unreadable. */
static int read_status(pid_t pid, char *state, long *tracer)
{
	char path[64], line[256];
	FILE *f;
	int got = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "State: %c", state) == 1)
			got |= 1;
		else if (sscanf(line, "TracerPid: %ld", tracer) == 1)
			got |= 2;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

static void problem(const char *what, long n)
{
	fprintf(stderr, "forker: %s (%ld)\n", what, n);
	problems++;
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void do_fork(void)
{
	pid_t pid = fork();
	char state = '?';
	long tracer = -1;
	int rc;

	if (pid == 0) {
		if (read_status(getpid(), &state, &tracer) || tracer != 0)
			_exit(3);
		spin(200000);
		_exit(0);
	}
	if (pid < 0) {
		problem("fork failed", errno);
		return;
	}
	/* The child is usually still there: it must be neither traced nor
	 * stopped (a zombie or gone already is fine). */
	if (read_status(pid, &state, &tracer) == 0 &&
	    (tracer != 0 || state == 't' || state == 'T'))
		problem(state == 't' || state == 'T' ? "child stopped" :
		       "child traced", tracer);
	rc = reap(pid);
	if (rc != 0)
		problem("forked child's status", rc);
	forks++;
}

static void do_vfork(void)
{
	pid_t pid = vfork();
	int rc;

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		problem("vfork failed", errno);
		return;
	}
	rc = reap(pid);
	if (rc != 0)
		problem("vforked /bin/true's status", rc);
	vforks++;
}

static void *thread_main(void *arg)
{
	(void)arg;
	spin(100000);
	return NULL;
}

static void do_thread(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, thread_main, NULL)) {
		problem("pthread_create failed", 0);
		return;
	}
	pthread_join(th, NULL);
	threads++;
}

/* Runs on the raw clone's own stack with the creator's TLS: no errno, no
 * stdio, only the spin and an atomic store. */
static int raw_main(void *arg)
{
	spin(100000);
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
	return 0; /* glibc's clone() then calls exit(2): this thread only */
}

static void do_clone(void)
{
	static char *stack;
	static volatile pid_t ctid;
	static int ran;
	pid_t tid;

	if (!stack) {
		stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED) {
			stack = NULL;
			problem("mmap of the clone stack failed", errno);
			return;
		}
	}
	ran = 0;
	tid = clone(raw_main, stack + CLONE_STACK,
		    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			    CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
			    CLONE_CHILD_CLEARTID,
		    &ran, (pid_t *)&ctid, NULL, (pid_t *)&ctid);
	if (tid < 0) {
		problem("clone failed", errno);
		return;
	}
	/* The kernel clears ctid and wakes the futex when the thread is
	 * gone (its stack is then free again). */
	for (;;) {
		pid_t v = ctid;

		if (v == 0)
			break;
		syscall(SYS_futex, &ctid, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	if (!__atomic_load_n(&ran, __ATOMIC_ACQUIRE))
		problem("raw clone did not run", tid);
	clones++;
}

static void *exec_final(void *arg)
{
	char a[5][24];

	(void)arg;
	snprintf(a[0], sizeof(a[0]), "%ld", forks);
	snprintf(a[1], sizeof(a[1]), "%ld", vforks);
	snprintf(a[2], sizeof(a[2]), "%ld", threads);
	snprintf(a[3], sizeof(a[3]), "%ld", clones);
	snprintf(a[4], sizeof(a[4]), "%ld", problems);
	fflush(NULL);
	execl(self, self, "final", a[0], a[1], a[2], a[3], a[4], (char *)NULL);
	perror("forker: execl");
	_exit(2);
}

/* A tick holds a thread a few ms at most, even on a loaded machine. */
#define MAX_TRACED_S 0.25

NOIPA int after_exec(char **argv)
{
	long n = atol(argv[2]), tracer;
	double end = now() + 0.8, t, since = 0, longest = 0;
	char state;

	while ((t = now()) < end) {
		spin(100000);
		if (read_status(getpid(), &state, &tracer) || tracer == 0)
			since = 0;
		else if (!since)
			since = t;
		else if (t - since > longest)
			longest = t - since;
	}
	if (longest > MAX_TRACED_S) {
		printf("result wrong: traced for %.0f ms in a row after the exec\n",
		       longest * 1000);
		return 1;
	}
	if (n < 1 || atol(argv[3]) != n || atol(argv[4]) != n ||
	    atol(argv[5]) != n || atol(argv[6]) != 0) {
		printf("result wrong: forks %s vforks %s threads %s clones %s problems %s\n",
		       argv[2], argv[3], argv[4], argv[5], argv[6]);
		return 1;
	}
	printf("result ok: %ld rounds of fork, vfork+exec, thread, clone; exec from a thread\n",
	       n);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th;
	ssize_t len;
	double end;

	if (argc == 7 && !strcmp(argv[1], "final"))
		return after_exec(argv);
	if (argc != 3)
		return 2;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 2;
	self[len] = '\0';
	rounds = atol(argv[1]);
	if (!strcmp(argv[2], "wait")) {
		sigset_t set;
		struct timespec ts = { 1, 0 };

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready\n");
		fflush(stdout);
		end = now() + 30;
		/* sigtimedwait() may return EINTR under a tracer. */
		while (now() < end && sigtimedwait(&set, NULL, &ts) != SIGUSR1)
			;
	}
	pthread_create(&th, NULL, busy, NULL);
	end = now() + 20;
	for (long r = 0; r < rounds && now() < end; r++) {
		do_fork();
		do_vfork();
		do_thread();
		do_clone();
	}
	/* The exec comes from a thread that is not the leader: the kernel
	 * kills main and busy and gives the thread the leader's PID. */
	pthread_create(&th, NULL, exec_final, NULL);
	for (;;)
		pause();
}
