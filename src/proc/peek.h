/*
 * peek.h - a blocked thread's stack, taken without stopping it (issue 17).
 *
 * Every ptrace stop of a thread asleep in epoll_wait(), futex() with a
 * timeout, semop(), sigtimedwait() or a socket call with a timeout makes
 * that call return EINTR in the target.  A thread asleep in the kernel
 * shows its call's number, its user stack pointer and PC in
 * /proc/TID/syscall (the kernel reads them from its saved user registers,
 * itself bracketed by wait_task_inactive(): task_current_syscall()).
 * peek_thread() reads, in this order:
 *   1. /proc/PID/task/TID/schedstat (run time and run count),
 *   2. /proc/PID/task/TID/syscall,
 *   3. the stack from that SP up, as capture_thread() copies it (same
 *      extent, from maps),
 *   4. the syscall file again, and
 *   5. the schedstat again.
 * When both syscall lines are the same (the same call, or -1: asleep
 * outside a call, a page fault; the same arguments, SP and PC), and the
 * schedstat did not change, the thread was not switched in between 1 and
 * 5: the copy is its stack as it sleeps.
 *
 * What such a capture lacks: every register but rip and rsp.  It is
 * marked partial; the unwinder (unwind.h) then refuses a stack for which
 * a step needed another register's value (a frame whose CFA is rbp-based,
 * a frame-pointer step): the caller stops the thread as before instead of
 * emitting a shorter stack.
 *
 * Contract:
 *  - peek_thread() never stops, signals or writes to the thread; it
 *    makes only reads of /proc and one process_vm_readv().  Never prints.
 *  - *syscall_fd and *sched_fd are the caller's: < 0 opens the file (and
 *    keeps it open in *fd: pread() at 0 reads it anew), as
 *    procfs_read_schedstat() does; a failed read closes and resets it.
 *  - PEEK_OK: out->tid is tid; out->regs has rip and rsp (and orig_rax, the call number,
 *    or -1; rax -EINTR, so capture_stop_kind() says CAPTURE_IN_CALL for a
 *    call; the call's arguments in rdi, rsi, rdx, r10, r8, r9, as a stop
 *    shows them: not registers the unwinder may use), every other
 *    register 0; out->partial is true; out->stack and
 *    out->stack_len as capture_thread() leaves them (out->stack must
 *    point at CAPTURE_STACK_MAX bytes).
 *  - PEEK_RUNNING: the thread is running or runnable now ("running", at
 *    the first or the second read of the syscall file).
 *  - PEEK_CHANGED: it ran, or moved, between the reads: try again, or stop it.
 *  - PEEK_FAILED: a file could not be read or parsed, errno set (ESRCH or
 *    ENOENT: the thread is gone; EACCES/EPERM: not allowed; EINVAL: a line
 *    that is not the kernel's, or SP 0: no user stack, a kernel thread or
 *    one exiting; ENOTSUP: the kernel keeps no run counts
 *    (schedstat "0 0 0", sched_info off), so a run in between could not
 *    be seen).
 */
#ifndef PTPROF_PEEK_H
#define PTPROF_PEEK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/capture.h"
#include "proc/maps.h"

enum peek_result { PEEK_OK, PEEK_RUNNING, PEEK_CHANGED, PEEK_FAILED };

/* One /proc/TID/syscall line: nr is the call's number, or -1 (asleep
 * outside a call: args are then 0). */
struct peek_syscall {
	int64_t nr;
	uint64_t args[6];
	uint64_t sp, pc;
};

/* Parse the line (len bytes, need not be NUL-terminated), strictly as
 * the kernel prints it: 1 and *out filled, 0 for "running", -1 with
 * EINVAL for anything else.  Public for the unit test. */
int peek_parse_syscall(const char *buf, size_t len, struct peek_syscall *out);

/* Read and parse /proc/PID/task/TID/syscall (*fd as peek_thread()'s
 * syscall_fd): as peek_parse_syscall(), and -1 with errno when the file
 * cannot be read (the wait layer names a sleeping thread's call so). */
int peek_read_syscall(pid_t pid, pid_t tid, int *fd, struct peek_syscall *out);

enum peek_result peek_thread(pid_t pid, pid_t tid, const struct maps *maps,
			     int *syscall_fd, int *sched_fd,
			     struct capture *out);

#endif /* PTPROF_PEEK_H */
