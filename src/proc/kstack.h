/*
 * kstack.h - a thread's kernel stack, as /proc/PID/task/TID/stack shows
 * it: the kernel functions a blocked thread sleeps in (futex_wait_queue,
 * do_epoll_wait, pipe_read, ...), innermost first.
 *
 * Kernel quirks: the file exists only with CONFIG_STACKTRACE, needs
 * CAP_SYS_ADMIN (EACCES for anyone else, even the owner: since 4.x,
 * since it leaks kernel addresses), and prints "[<0>] name+0xOFF/0xLEN"
 * with the address zeroed (a module's function: "... [MODULE]", with a
 * build ID after the name on some kernels); a running thread's stack is
 * not taken (the file is empty, or stale: a frame list read while the
 * task ran), and a runnable one preempted in user mode shows the
 * interrupt's way out ("irqentry_exit_to_user_mode",
 * "asm_sysvec_apic_timer_interrupt"), the same at both readings (6.18:
 * 1,998 of 2,000 pairs agreed on a spinning thread).  So it is read only
 * for a thread asleep (S or D: the caller knows, its /proc/TID/syscall
 * said so), and twice: the two readings must agree.
 *
 * The frames every system call starts with, at the bottom of the list
 * (entry_SYSCALL_64_after_hwframe, do_syscall_64, x64_sys_call and their
 * 32-bit twins), say nothing to a user and are dropped; the
 * __x64_sys_NAME frame above them is kept: it names the call.
 *
 * Contract:
 *  - kstack_read(pid, tid, out): 0 and out->n frames (each "name+0xOFF"
 *    or "name+0xOFF [MODULE]", at most KSTACK_MAX, innermost first; 0
 *    frames: a running thread), or -1 with errno (EACCES or EPERM: not
 *    allowed; ENOENT: no such file, the kernel has no stack traces, or
 *    the thread is gone; EAGAIN: the two readings differed, it ran;
 *    EINVAL: pid or tid not positive).  At most KSTACK_TEXT_MAX bytes of
 *    the file are read (the kernel prints at most 64 frames).  Never
 *    prints, never stops the thread.
 *  - kstack_parse(text, len, out): the parser, for the unit test and
 *    kstack_read().  Strict: a line is "[<HEX>] NAME+0xHEX/0xHEX", an
 *    optional " [MODULE]" or " [MODULE BUILDID]", and '\n' (a last line
 *    without one is a cut read); NAME of [A-Za-z0-9_.$] (a C symbol, and
 *    the compiler's ".isra.0", ".cold" suffixes), MODULE of
 *    [A-Za-z0-9_-].  Any other line (a byte out of printable ASCII, a
 *    frame that does not fit KSTACK_NAME_MAX) is dropped whole; every
 *    byte of a frame kept is printable ASCII.  Returns the number of
 *    lines dropped (>= 0).  No NUL needed in text; nothing past len read.
 *  - kstack_available(pid): whether this process may read the kernel
 *    stacks of pid's threads (pid 0: of its own): 0, or -1 with errno as
 *    kstack_read().  For a command to decide once, at its start.
 */
#ifndef PTPROF_KSTACK_H
#define PTPROF_KSTACK_H

#include <stddef.h>
#include <sys/types.h>

#define KSTACK_MAX 48
#define KSTACK_NAME_MAX 80
#define KSTACK_TEXT_MAX 8192

struct kstack {
	size_t n;
	char frames[KSTACK_MAX][KSTACK_NAME_MAX];
};

int kstack_read(pid_t pid, pid_t tid, struct kstack *out);
int kstack_parse(const char *text, size_t len, struct kstack *out);
int kstack_available(pid_t pid);

#endif /* PTPROF_KSTACK_H */
