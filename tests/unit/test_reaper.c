/*
 * test_reaper.c - the exec deadlock that reaper.h's watchdog is for, on
 * the real kernel.
 *
 * The test forks a target with three threads: the leader, a sleeper and
 * an execer.  It seizes the sleeper and holds it in a ptrace-stop, then
 * lets the execer call execve(): the kernel kills the sleeper, which,
 * being traced, stays a zombie until its tracer wait()s for it, while the
 * exec waits for it holding the target's cred_guard_mutex.  The test then
 * seizes the leader, which needs that mutex, without wait()ing itself.
 * Without the watchdog this blocks forever (an alarm ends the test after
 * 10 s, as failed); with it, the seize returns within a second and the
 * sleeper's exit comes out of reaper_next().  The target is the test's
 * own child, killed by PID at the end.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/reaper.h"
#include "util/timeutil.h"
#include "unit.h"

static int go_fd;    /* read end: the execer waits for the test's go */
static int ready_fd; /* write end: the sleeper reports its TID */

static void *sleeper(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	(void)!write(ready_fd, &tid, sizeof(tid));
	for (;;)
		pause();
	return NULL;
}

static void *execer(void *arg)
{
	char c;

	(void)arg;
	if (read(go_fd, &c, 1) == 1)
		execl("/bin/sleep", "sleep", "2", (char *)NULL);
	_exit(3);
}

static pid_t target_pid;

/* The bound: a seize still blocked after 10 s is the deadlock. */
static void on_alarm(int sig)
{
	static const char msg[] =
		"test_reaper: PTRACE_SEIZE still blocked after 10 s: deadlock\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	kill(target_pid, SIGKILL);
	_exit(1);
}

static void __attribute__((noreturn)) target(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, sleeper, NULL);
	pthread_create(&b, NULL, execer, NULL);
	for (;;)
		pause();
}

int main(void)
{
	int ready[2], go[2], status;
	pid_t pid, tid;
	bool exited = false;
	struct reap_event ev;
	uint64_t t0;
	long r;

	CHECK(reaper_start() == 0);
	if (pipe(ready) || pipe(go))
		return 99;
	ready_fd = ready[1];
	go_fd = go[0];
	pid = fork();
	if (pid == 0)
		target();
	target_pid = pid;
	signal(SIGALRM, on_alarm);
	alarm(10);
	if (read(ready[0], &tid, sizeof(tid)) != sizeof(tid))
		return 99;

	/* Hold the sleeper in a ptrace-stop. */
	CHECK(ptrace(PTRACE_SEIZE, tid, 0, 0) == 0);
	CHECK(ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0);
	CHECK(waitpid(tid, &status, __WALL) == tid && WIFSTOPPED(status));

	/* Start the exec and let it reach the wait for the sleeper. */
	(void)!write(go[1], "g", 1);
	usleep(300 * 1000);

	t0 = mono_now_ns();
	reaper_seize_begin();
	r = ptrace(PTRACE_SEIZE, pid, 0, 0);
	reaper_seize_end();
	CHECKF(mono_now_ns() - t0 < NSEC_PER_SEC,
	       "the seize took %.0f ms (the watchdog looks every 20 ms)",
	       (double)(mono_now_ns() - t0) / 1e6);
	(void)r; /* succeeds (after the exec) or fails: either is fine */

	/* The sleeper's death was reaped for us, and is handed out. */
	for (int i = 0; i < 100 && !exited; i++) {
		while (reaper_next(&ev))
			if (ev.pid == tid &&
			    (WIFEXITED(ev.status) || WIFSIGNALED(ev.status)))
				exited = true;
		if (!exited)
			reaper_wait(10 * NSEC_PER_MSEC);
	}
	CHECKF(exited, "no exit report for the sleeper %d", tid);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
	return unit_result("reaper");
}
