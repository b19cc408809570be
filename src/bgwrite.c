/*
 * bgwrite.c - files written by forked children (bgwrite.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "bgwrite.h"

void bgwrite_init(struct bgwrite *b)
{
	memset(b, 0, sizeof(*b));
}

/* In the child: every signal blocked, fn, its result through the pipe. */
static void __attribute__((noreturn))
bgwrite_child(int wfd, bgwrite_fn fn, void *arg)
{
	sigset_t all;
	int result;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	result = fn(arg);
	(void)!write(wfd, &result, sizeof(result));
	_exit(result < 0 ? 1 : 0);
}

int bgwrite_start(struct bgwrite *b, unsigned long tag, bgwrite_fn fn,
		  void *arg)
{
	struct bgwrite_slot *s = NULL;
	int fds[2], saved;
	pid_t pid;

	for (size_t i = 0; i < BGWRITE_MAX && !s; i++)
		if (!b->slot[i].pid)
			s = &b->slot[i];
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
		/* The writer is a grandchild: this child exits at once, so
		 * the writer's CPU time never joins ptprof's RUSAGE_CHILDREN,
		 * which is COMMAND's tree's (cmd_record.c tree_cpu()). */
		close(fds[0]);
		pid = fork();
		if (pid <= 0) /* the grandchild; no grandchild: this child */
			bgwrite_child(fds[1], fn, arg);
		_exit(0);
	}
	close(fds[1]);
	s->pid = pid;
	s->fd = fds[0];
	s->tag = tag;
	b->busy++;
	return 0;
}

/* The writer of s ended (its pipe polled readable): its result. */
static void bgwrite_end(struct bgwrite *b, struct bgwrite_slot *s,
			bgwrite_done_fn done, void *arg)
{
	int result = -1, err = 0;
	ssize_t r;

	do
		r = read(s->fd, &result, sizeof(result));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(result)) {
		result = -1;
		err = EPIPE;
	}
	close(s->fd);
	/* Not waited for here: the sampler's reaper (or launch_wait())
	 * takes it with waitpid(-1).  A waitpid() on its PID could, once
	 * that PID is reused by a target's thread ptprof traces, take that
	 * thread's stop report and leave it stopped. */
	s->pid = 0;
	b->busy--;
	done(arg, s->tag, result, err);
}

/* Poll every writer's pipe for timeout_ms; end those that are done. */
static void bgwrite_collect(struct bgwrite *b, int timeout_ms,
			    bgwrite_done_fn done, void *arg)
{
	struct pollfd pf[BGWRITE_MAX];
	struct bgwrite_slot *of[BGWRITE_MAX];
	nfds_t n = 0;

	for (size_t i = 0; i < BGWRITE_MAX; i++)
		if (b->slot[i].pid) {
			pf[n] = (struct pollfd){ .fd = b->slot[i].fd,
						 .events = POLLIN };
			of[n++] = &b->slot[i];
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
