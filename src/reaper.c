/*
 * reaper.c - a thread that wait()s so the sampling thread need not
 * (see reaper.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reaper.h"

static int pipe_rd = -1, pipe_wr = -1, wake_fd = -1;
static atomic_bool idle;

static void post(pid_t pid, int status)
{
	struct reap_event ev = { pid, status };

	/* 8 bytes < PIPE_BUF: atomic; blocks only if ptprof falls far behind */
	while (write(pipe_wr, &ev, sizeof(ev)) < 0 && errno == EINTR)
		;
}

/*
 * With nothing to wait for, sleep on the eventfd.  The flag is raised
 * before a last non-blocking look, so a seize made meanwhile is either
 * seen by that look or sees the flag and kicks.
 */
static void sleep_until_kicked(void)
{
	uint64_t v;
	int status;
	pid_t r;

	atomic_store(&idle, true);
	r = waitpid(-1, &status, __WALL | WNOHANG);
	if (r >= 0 || errno != ECHILD) {
		atomic_store(&idle, false);
		if (r > 0)
			post(r, status);
		return;
	}
	while (read(wake_fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
	atomic_store(&idle, false);
}

static void *reap(void *arg)
{
	(void)arg;
	for (;;) {
		int status;
		pid_t r = waitpid(-1, &status, __WALL);

		if (r > 0)
			post(r, status);
		else if (errno == ECHILD)
			sleep_until_kicked();
	}
	return NULL;
}

static int spawn(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	rc = pthread_create(&th, &attr, reap, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

int reaper_start(void)
{
	int fds[2];

	if (pipe_rd >= 0)
		return 0;
	wake_fd = eventfd(0, EFD_CLOEXEC);
	if (wake_fd < 0 || pipe2(fds, O_CLOEXEC))
		return -1;
	pipe_rd = fds[0];
	pipe_wr = fds[1];
	fcntl(pipe_rd, F_SETFL, O_NONBLOCK);
	return spawn();
}

int reaper_fd(void)
{
	return pipe_rd;
}

/*
 * Events are read from the pipe 64 at a time: one read() per batch, and a
 * short batch means the pipe is empty, so no read() just to see EAGAIN.
 */
static struct reap_event batch[64];
static size_t batch_n, batch_i;
static bool batch_short = true; /* last read() drained the pipe */

void reaper_polled(void)
{
	batch_short = false;
}

int reaper_next(struct reap_event *ev)
{
	ssize_t n;

	if (batch_i == batch_n) {
		if (batch_short)
			return 0; /* drained, and not polled readable since */
		do
			n = read(pipe_rd, batch, sizeof(batch));
		while (n < 0 && errno == EINTR);
		batch_i = 0;
		batch_n = n > 0 ? (size_t)n / sizeof(*ev) : 0;
		batch_short = batch_n < sizeof(batch) / sizeof(*batch);
		if (!batch_n)
			return 0;
	}
	*ev = batch[batch_i++];
	return 1;
}


void reaper_kick(void)
{
	uint64_t one = 1;

	if (atomic_exchange(&idle, false))
		(void)!write(wake_fd, &one, sizeof(one));
}
