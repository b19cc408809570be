/*
 * wait.h - what a blocked thread waits on (issue 28): the one
 * description every part of the wait layer fills and every consumer
 * (ptprof dump's text and JSON, the deadlock finder, --wall's labels)
 * reads.
 *
 * A thread asleep in a system call shows the call and its arguments in
 * /proc/TID/syscall (peek.h reads it without a stop).  waitdesc.h turns
 * that line, the frame names of the thread's stack (wait_hint_of()), the
 * process's memory (futexwait.h) and its descriptors (fdname.h) into a
 * struct wait_info.  Nothing here stops, signals or writes to a target.
 *
 * Contract:
 *  - wait_kind_name() is the kind's label ("mutex", "condvar", "join",
 *    "rwlock", "sem", "futex", "io", "net", "poll", "sleep", "child",
 *    "signal", "syscall", "" for WAIT_NONE): the value of --wall's
 *    wait= label and of dump --json's "wait"."kind".  Never NULL.
 *  - wait_hint_of() names the glibc entry a frame's function is
 *    (pthread_mutex_lock, __lll_lock_wait, pthread_cond_wait, ...; also
 *    as "__GI_NAME" or "NAME.constprop.0"), or WAIT_HINT_NONE; the
 *    caller passes the innermost hint of the stack.
 *  - wait_syscall_name(nr): the name of a call a thread may block in
 *    ("read", "epoll_wait", "io_uring_enter", ...; x86-64 numbers), NULL
 *    for one not in its table (a number never names a call wrongly).
 *  - wait_info.text is one line of printable text (no newline), "" when
 *    nothing was decoded; every name in it that the target chose (a
 *    path, a thread name) is escaped by the writer (textsafe.h), not here.
 */
#ifndef PTPROF_WAIT_H
#define PTPROF_WAIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum wait_kind {
	WAIT_NONE = 0, /* not blocked in a call, or not read */
	WAIT_MUTEX,    /* a pthread_mutex_t (addr: the mutex) */
	WAIT_CONDVAR,  /* a pthread_cond_t (addr: the futex word in it) */
	WAIT_JOIN,     /* pthread_join(): holder is the thread joined */
	WAIT_RWLOCK,   /* a pthread_rwlock_t (addr: the lock) */
	WAIT_SEM,      /* a sem_t (addr: the semaphore) */
	WAIT_FUTEX,    /* a futex word nothing above fits */
	WAIT_IO,       /* read/write and kin on a file, pipe, tty, ... */
	WAIT_NET,      /* a socket call: accept, connect, recv*, send* */
	WAIT_POLL,     /* poll, ppoll, select, pselect6, epoll_wait */
	WAIT_SLEEP,    /* nanosleep, clock_nanosleep */
	WAIT_CHILD,    /* wait4, waitid */
	WAIT_SIGNAL,   /* pause, rt_sigsuspend, rt_sigtimedwait */
	WAIT_SYSCALL,  /* any other call */
};

/* The glibc function a stack is in, innermost first. */
enum wait_hint {
	WAIT_HINT_NONE = 0,
	WAIT_HINT_MUTEX,
	WAIT_HINT_CONDVAR,
	WAIT_HINT_JOIN,
	WAIT_HINT_RWLOCK,
	WAIT_HINT_SEM,
	/* a call restart_syscall resumed (waitdesc.h): which one */
	WAIT_HINT_SLEEP,
	WAIT_HINT_POLL,
	/* glibc's internal lock (__lll_lock_wait_private): no
	 * pthread_mutex_t, no owner: a WAIT_FUTEX "libc internal lock" */
	WAIT_HINT_LIBC_LOCK,
};

/* One descriptor a wait is on, described (fdname.h). */
struct wait_fd {
	int fd;
	char name[200]; /* "pipe:[123] (written by 4242 writer)", ... */
};

#define WAIT_MAX_FDS 8

struct wait_info {
	enum wait_kind kind;
	int64_t nr;	  /* the system call, -1: none */
	uint64_t args[6]; /* its arguments */
	uint64_t addr;	  /* futex kinds: the lock's (or word's) address */
	/* The thread it waits on, of the same process: a mutex's owner, an
	 * rwlock's writer, the thread joined, 0 when none or unknown. */
	pid_t holder;
	/* Processes on the other end (a pipe's writers when it reads, its
	 * readers when it writes; a unix socket's peer; the child waited
	 * for): at most WAIT_MAX_FDS, 0-terminated when fewer. */
	pid_t peers[WAIT_MAX_FDS];
	size_t nfds;	 /* descriptors in fds */
	size_t fds_more; /* watched descriptors left out past WAIT_MAX_FDS */
	struct wait_fd fds[WAIT_MAX_FDS];
	char text[320]; /* "mutex 0x7f12... held by thread 4242", ... */
};

const char *wait_kind_name(enum wait_kind kind);
enum wait_hint wait_hint_of(const char *func);
const char *wait_syscall_name(int64_t nr);

#endif /* PTPROF_WAIT_H */
