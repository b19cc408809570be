/*
 * kstack.h - a thread's kernel stack, as /proc/PID/task/TID/stack shows
 * it: the kernel functions a blocked thread sleeps in (futex_wait_queue,
 * do_epoll_wait, pipe_read, ...), innermost first.
 *
 * Kernel quirks: the file exists only with CONFIG_STACKTRACE, needs
 * CAP_SYS_ADMIN (EACCES for anyone else, even the owner: since 4.x,
 * since it leaks kernel addresses), and prints "[<0>] name+0xOFF/0xLEN"
 * with the address zeroed; a running thread's stack is not taken (the
 * file is empty, or stale: a frame list read while the task ran).  So
 * it is read only for a thread asleep, and twice: the two readings must
 * agree.
 *
 * Contract:
 *  - kstack_read(pid, tid, out): 0 and out->n frames (each "name+0xOFF",
 *    at most KSTACK_MAX, innermost first; every byte printable ASCII:
 *    anything else is dropped with the line), or -1 with errno (EACCES
 *    or EPERM: not allowed; ENOENT: no such file, the kernel has no
 *    stack traces, or the thread is gone; EAGAIN: the two readings
 *    differed, it ran).  Never prints, never stops the thread.
 *  - kstack_parse(text, len, out): the parser, for the unit test.
 */
#ifndef PTPROF_KSTACK_H
#define PTPROF_KSTACK_H

#include <stddef.h>
#include <sys/types.h>

#define KSTACK_MAX 48
#define KSTACK_NAME_MAX 80

struct kstack {
	size_t n;
	char frames[KSTACK_MAX][KSTACK_NAME_MAX];
};

int kstack_read(pid_t pid, pid_t tid, struct kstack *out);
int kstack_parse(const char *text, size_t len, struct kstack *out);

#endif /* PTPROF_KSTACK_H */
