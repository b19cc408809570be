/*
 * reaper.c - collect waitpid() reports, with a watchdog for seizes that
 * an exec holds up (see reaper.h).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/reaper.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* How often the watchdog looks, and how long a seize may last before it
 * reaps on the sampling thread's behalf. */
#define WATCH_PERIOD_NS (20 * NSEC_PER_MSEC)

static int sig_fd = -1;
static bool maybe = true; /* a report may be waiting: waitpid() is worth it */

/* The watchdog's queue; guarded by lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct reap_event *queue;
static size_t queue_head, queue_len, queue_cap;
static atomic_size_t queued;	     /* queue_len - queue_head, unlocked */
static _Atomic uint64_t seize_since; /* CLOCK_MONOTONIC ns; 0: none */

/* Room for one more report, or false (then nothing more is reaped: a
 * report reaped and then dropped could leave a thread stopped for good). */
static bool room(void)
{
	struct reap_event *q;

	q = grow_array(queue, &queue_cap, queue_len + 1, sizeof(*q));
	if (!q)
		return false;
	queue = q;
	return true;
}

/* Reap for the sampling thread while it is stuck in a seize. */
static void reap_for_seizer(void)
{
	uint64_t since = atomic_load(&seize_since);

	if (!since || mono_now_ns() - since < WATCH_PERIOD_NS)
		return;
	pthread_mutex_lock(&lock);
	/* seize_since is re-checked under the lock: see reaper_seize_end() */
	while (atomic_load(&seize_since) && room()) {
		int status;
		pid_t r = waitpid(-1, &status, __WALL | WNOHANG);

		if (r <= 0)
			break;
		queue[queue_len].pid = r;
		queue[queue_len].status = status;
		queue_len++;
		atomic_fetch_add(&queued, 1);
	}
	pthread_mutex_unlock(&lock);
}

static void *watch(void *arg)
{
	struct timespec ts = ns_to_timespec(WATCH_PERIOD_NS);

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		reap_for_seizer();
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
	rc = pthread_create(&th, &attr, watch, NULL);
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
	sigset_t chld;

	if (sig_fd >= 0)
		return 0;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (pthread_sigmask(SIG_BLOCK, &chld, NULL))
		return -1;
	sig_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0)
		return -1;
	maybe = true; /* a SIGCHLD may have come before it was blocked */
	if (spawn()) {
		close(sig_fd);
		sig_fd = -1;
		return -1;
	}
	return 0;
}

int reaper_fd(void)
{
	return sig_fd;
}

void reaper_polled(void)
{
	struct signalfd_siginfo si;

	/* SIGCHLD does not queue: one read empties it. */
	(void)!read(sig_fd, &si, sizeof(si));
	maybe = true;
}

void reaper_wait(uint64_t timeout_ns)
{
	sigset_t chld;
	struct timespec ts = ns_to_timespec(timeout_ns);

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigtimedwait(&chld, NULL, &ts) == SIGCHLD)
		maybe = true;
}

/* One ppoll() of the reaper's fd, sigfd and pidfd, for ts (NULL: no
 * end): what is ready (reaper_poll()). */
static int poll_ready(int sigfd, int pidfd, const struct timespec *ts)
{
	struct pollfd p[3] = { { .fd = sig_fd, .events = POLLIN },
			       { .fd = sigfd, .events = POLLIN },
			       { .fd = pidfd, .events = POLLIN } };

	if (ppoll(p, 3, ts, NULL) <= 0)
		return 0;
	if (p[0].revents)
		reaper_polled();
	return (p[1].revents ? REAPER_SIGNAL : 0) |
	       (p[2].revents ? REAPER_PIDFD : 0) |
	       (p[0].revents ? REAPER_REPORTS : 0);
}

int reaper_poll(int sigfd, int pidfd, uint64_t deadline)
{
	struct timespec ts;
	uint64_t now = mono_now_ns();

	if (deadline && now >= deadline)
		return 0;
	ts = ns_to_timespec(deadline ? deadline - now : 0);
	return poll_ready(sigfd, pidfd, deadline ? &ts : NULL);
}

int reaper_poll_now(int sigfd, int pidfd)
{
	const struct timespec zero = { 0, 0 };

	return poll_ready(sigfd, pidfd, &zero);
}

int reaper_next(struct reap_event *ev)
{
	int status;
	pid_t r;

	if (atomic_load(&queued)) {
		pthread_mutex_lock(&lock);
		*ev = queue[queue_head++];
		if (queue_head == queue_len)
			queue_head = queue_len = 0;
		atomic_fetch_sub(&queued, 1);
		pthread_mutex_unlock(&lock);
		return 1;
	}
	if (!maybe)
		return 0;
	do
		r = waitpid(-1, &status, __WALL | WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		maybe = false;
		return 0;
	}
	ev->pid = r;
	ev->status = status;
	return 1;
}

int reaper_spin(struct reap_event *ev, uint64_t until)
{
	do {
		/* No SIGCHLD is waited for: ask waitpid() every time. */
		maybe = true;
		if (reaper_next(ev))
			return 1;
	} while (mono_now_ns() < until);
	return 0;
}

void reaper_seize_begin(void)
{
	atomic_store(&seize_since, mono_now_ns());
}

void reaper_seize_end(void)
{
	atomic_store(&seize_since, 0);
	/* Wait out a watchdog batch in progress: its reports are queued, and
	 * so come out before any this thread reaps next. */
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}
