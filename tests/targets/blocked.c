/*
 * blocked - test target: threads asleep in different system calls, each a
 * few calls deep, for comparing a stack read without a stop (peek.h) with
 * one read in a ptrace stop (tests/tools/peekcmp).
 *
 *   blocked SECS
 *
 * One thread each asleep in epoll_wait, pthread_cond_timedwait (futex
 * with a timeout), pthread_cond_wait (futex without), read() on a pipe,
 * recv() on a socketpair, nanosleep, poll, select, sigtimedwait, accept
 * (a Unix socket: no network), semop and pthread_mutex_lock; each called
 * through blocked_outer -> blocked_middle -> blocked_inner_<call>, and
 * without frame pointers one more in read() below a frame that has no
 * unwind info (blocked_nocfi).  Each thread is named after its call.
 * Every call is retried after EINTR (a ptrace stop makes some return it)
 * or a timeout, so the threads stay where they are.  The main thread
 * prints "ready" once the threads are started and sleeps in nanosleep;
 * after SECS seconds (or on SIGTERM) the process exits 0, its semaphore
 * set removed.  Built twice: -O2 without frame pointers (blocked), and
 * with them (blocked_fp).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

#define LONG_S 1000

static int pipe_fd[2], sock_fd[2], epoll_fd, listen_fd, sem_id;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
volatile uint64_t sink;

NOIPA void blocked_inner_epoll(void)
{
	struct epoll_event ev;

	while (epoll_wait(epoll_fd, &ev, 1, LONG_S * 1000) <= 0)
		;
}

NOIPA void blocked_inner_timedwait(void)
{
	struct timespec ts;

	pthread_mutex_lock(&lock);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += LONG_S;
		pthread_cond_timedwait(&cond, &lock, &ts);
	}
}

NOIPA void blocked_inner_condwait(void)
{
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&cond, &lock);
}

NOIPA void blocked_inner_read(void)
{
	char c;

	while (read(pipe_fd[0], &c, 1) <= 0)
		;
}

NOIPA void blocked_inner_recv(void)
{
	char c;

	while (recv(sock_fd[0], &c, 1, 0) <= 0)
		;
}

NOIPA void blocked_inner_nanosleep(void)
{
	for (;;) {
		struct timespec ts = { LONG_S, 0 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

NOIPA void blocked_inner_poll(void)
{
	struct pollfd p = { pipe_fd[0], POLLIN, 0 };

	for (;;)
		poll(&p, 1, LONG_S * 1000);
}

NOIPA void blocked_inner_select(void)
{
	for (;;) {
		struct timeval tv = { LONG_S, 0 };
		fd_set r;

		FD_ZERO(&r);
		FD_SET(pipe_fd[0], &r);
		select(pipe_fd[0] + 1, &r, NULL, NULL, &tv);
	}
}

NOIPA void blocked_inner_sigtimedwait(void)
{
	struct timespec ts = { LONG_S, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	for (;;)
		sigtimedwait(&set, NULL, &ts);
}

NOIPA void blocked_inner_accept(void)
{
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);

		if (fd >= 0)
			close(fd);
	}
}

NOIPA void blocked_inner_semop(void)
{
	struct sembuf op = { 0, -1, 0 };

	for (;;)
		semop(sem_id, &op, 1);
}

NOIPA void blocked_inner_mutex(void)
{
	pthread_mutex_lock(&held);
	pthread_mutex_unlock(&held);
}

#ifndef BLOCKED_FP
/*
 * A frame without unwind info, as JIT code has: blocked_nocfi (no CFI,
 * a frame pointer) calls blocked_saves_rbp, whose CFI says where it saved
 * rbp: the unwinder steps over blocked_nocfi by its frame pointer
 * (unwind/unwind_fp.c, unwind_fp_step()), with rbp read from the stack and the other
 * callee-saved registers carried, unknown to a peek but not needed.
 * Without frame pointers only: with them, blocked_saves_rbp's CFA is
 * rbp-based, which a peek cannot unwind (refused).
 */
NOIPA void blocked_saves_rbp(void)
{
	char c;

	__asm__ volatile("" ::: "rbp"); /* saved and restored, with CFI */
	while (read(pipe_fd[0], &c, 1) <= 0)
		;
}

void blocked_nocfi(void);
__asm__(".text\n"
	".globl blocked_nocfi\n"
	".type blocked_nocfi, @function\n"
	"blocked_nocfi:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call blocked_saves_rbp@PLT\n"
	"	pop %rbp\n"
	"	ret\n"
	".size blocked_nocfi, .-blocked_nocfi\n");
#endif

static const char *const names[] = {
	"epoll", "timedwait", "condwait", "read",   "recv",  "nanosleep",
	"poll",	 "select",    "sigwait",  "accept", "semop", "mutex",
#ifndef BLOCKED_FP
	"nocfi",
#endif
};

static void (*const inner[])(void) = {
	blocked_inner_epoll,
	blocked_inner_timedwait,
	blocked_inner_condwait,
	blocked_inner_read,
	blocked_inner_recv,
	blocked_inner_nanosleep,
	blocked_inner_poll,
	blocked_inner_select,
	blocked_inner_sigtimedwait,
	blocked_inner_accept,
	blocked_inner_semop,
	blocked_inner_mutex,
#ifndef BLOCKED_FP
	blocked_nocfi,
#endif
};
#define NTHREADS (sizeof(inner) / sizeof(inner[0]))

/* Two levels with frames of their own between the thread's start and the
 * call. */
NOIPA void blocked_middle(unsigned i)
{
	volatile uint64_t pad[4] = { i, i + 1, i + 2, i + 3 };

	inner[i]();
	KEEP_FRAME();
	sink = pad[i % 4];
}

NOIPA void blocked_outer(unsigned i)
{
	volatile uint64_t pad[8] = { i };

	blocked_middle(i);
	KEEP_FRAME();
	sink = pad[0];
}

/* SIGTERM (kill_started_): the semaphore set does not outlive us. */
static void on_term(int sig)
{
	(void)sig;
	semctl(sem_id, 0, IPC_RMID);
	_exit(0);
}

static void *start(void *arg)
{
	pthread_setname_np(pthread_self(), names[(uintptr_t)arg]);
	blocked_outer((unsigned)(uintptr_t)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30, end = now() + secs;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN };
	pthread_t t;
	sigset_t set;

	/* SIGUSR1 for sigtimedwait: blocked in every thread */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_mutex_lock(&held);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	/* an abstract Unix socket name: no file, no network */
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "ptprof-blocked-%d",
		 (int)getpid());
	sem_id = semget(IPC_PRIVATE, 1, 0600);
	listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	epoll_fd = epoll_create1(0);
	if (pipe(pipe_fd) || socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fd) ||
	    epoll_fd < 0 || listen_fd < 0 || sem_id < 0 ||
	    bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(listen_fd, 1) ||
	    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, pipe_fd[0], &ev)) {
		perror("blocked: setup");
		if (sem_id >= 0)
			semctl(sem_id, 0, IPC_RMID);
		return 1;
	}
	for (unsigned i = 0; i < NTHREADS; i++)
		if (pthread_create(&t, NULL, start, (void *)(uintptr_t)i)) {
			perror("blocked: pthread_create");
			semctl(sem_id, 0, IPC_RMID);
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	while (now() < end) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	semctl(sem_id, 0, IPC_RMID);
	return 0;
}
