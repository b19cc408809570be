/*
 * bgwrite.c - files written by forked children (bgwrite.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile/bgwrite.h"
#include "util/timeutil.h"

/* What a writer sends back. */
struct bgwrite_result {
	int result;
	uint64_t cpu_ns; /* its CPU time: all of it, up to the write */
};

void bgwrite_init(struct bgwrite *b)
{
	memset(b, 0, sizeof(*b));
}

/* In the child: every signal blocked, fn, its result through the pipe. */
static void __attribute__((noreturn))
bgwrite_child(int wfd, bgwrite_fn fn, void *arg)
{
	struct bgwrite_result r = { 0 };
	struct timespec ts;
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* Behind the sampler for the CPU: at the default weight, a writer
	 * symbolizing on a busy machine made the sampler miss ticks. */
	(void)!nice(BGWRITE_NICE);
	r.result = fn(arg);
	/* A child's CPU clock starts at zero at the fork. */
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		r.cpu_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC +
			   (uint64_t)ts.tv_nsec;
	(void)!write(wfd, &r, sizeof(r));
	_exit(r.result < 0 ? 1 : 0);
}

static struct bgwrite_slot *bgwrite_free_slot(struct bgwrite *b)
{
	for (size_t i = 0; i < BGWRITE_MAX; i++)
		if (!b->slot[i].pid)
			return &b->slot[i];
	return NULL;
}

int bgwrite_start(struct bgwrite *b, unsigned long tag, bgwrite_fn fn,
		  void *arg)
{
	struct bgwrite_slot *s = bgwrite_free_slot(b);
	int fds[2], saved;
	pid_t pid;

	if (!s) {
		errno = EAGAIN;
		return -1;
	}
	/* O_CLOEXEC: no later child (a writer, COMMAND) keeps an end open. */
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		saved = errno;
		close(fds[0]);
		close(fds[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		bgwrite_child(fds[1], fn, arg);
	}
	close(fds[1]);
	/* Before the writer can exit (it symbolizes first), and the reaper
	 * runs on this thread: the PID is still the writer's here.  Without
	 * a pidfd (before Linux 5.3) the writer's end is its pipe's. */
	s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	s->pid = pid;
	s->fd = fds[0];
	s->tag = tag;
	b->busy++;
	return 0;
}

/* The writer of s ended: its result, and its zombie if nobody took it. */
static void bgwrite_end(struct bgwrite *b, struct bgwrite_slot *s,
			bgwrite_done_fn done, void *arg)
{
	struct bgwrite_result r = { .result = -1 };
	int err = 0;
	siginfo_t si;
	ssize_t n;

	do
		n = read(s->fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r)) {
		r.result = -1;
		err = EPIPE;
	}
	b->cpu_ns += r.cpu_ns;
	close(s->fd);
	/* Through the pidfd, never the PID: the sampler's reaper
	 * (waitpid(-1)) may have taken the zombie already (ECHILD), and the
	 * PID may then be another process's, even a traced thread's whose
	 * stop a waitpid() would take.  Not blocking: a writer without a
	 * pidfd may not have exited yet; the reaper takes it then. */
	if (s->pidfd >= 0) {
		waitid((idtype_t)P_PIDFD, (id_t)s->pidfd, &si,
		       WEXITED | WNOHANG | __WALL);
		close(s->pidfd);
	}
	s->pid = 0;
	b->busy--;
	done(arg, s->tag, r.result, err);
}

/* Poll every writer for timeout_ms (its pidfd: it exited; else its pipe:
 * it wrote its result); end those that are done. */
static void bgwrite_collect(struct bgwrite *b, int timeout_ms,
			    bgwrite_done_fn done, void *arg)
{
	struct pollfd pf[BGWRITE_MAX];
	struct bgwrite_slot *of[BGWRITE_MAX];
	nfds_t n = 0;

	for (size_t i = 0; i < BGWRITE_MAX; i++) {
		struct bgwrite_slot *s = &b->slot[i];

		if (!s->pid)
			continue;
		pf[n] = (struct pollfd){ .fd = s->pidfd >= 0 ? s->pidfd : s->fd,
					 .events = POLLIN };
		of[n++] = s;
	}
	if (!n || poll(pf, n, timeout_ms) <= 0)
		return;
	for (nfds_t i = 0; i < n; i++)
		if (pf[i].revents)
			bgwrite_end(b, of[i], done, arg);
}

void bgwrite_poll(struct bgwrite *b, bgwrite_done_fn done, void *arg)
{
	bgwrite_collect(b, 0, done, arg);
}

void bgwrite_wait(struct bgwrite *b, bgwrite_done_fn done, void *arg)
{
	while (b->busy)
		bgwrite_collect(b, -1, done, arg);
}
