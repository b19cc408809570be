/*
 * seccomp.h - may a thread be stopped, given its seccomp filters?
 *
 * A ptrace stop of a thread sleeping in nanosleep(), clock_nanosleep(),
 * poll() with a timeout or futex() with a timeout makes the call return
 * -ERESTART_RESTARTBLOCK, and the kernel resumes it, once the stop is
 * over, through the system call restart_syscall (219).  A filter that
 * kills on restart_syscall (systemd's SystemCallFilter=, hand-written
 * sandboxes) then kills the target; one that returns an errno makes its
 * sleeps fail.  So, before ptprof may stop a filtered thread, it judges
 * that thread's filters for restart_syscall: every filter must allow it
 * (or log it), whatever the instruction pointer and arguments are.
 *
 * What this module offers:
 *  - seccomp_judge_prog(): one classic-BPF filter program, evaluated for
 *    seccomp_data { nr = restart_syscall, arch = AUDIT_ARCH_X86_64 }.  An
 *    own interpreter: libseccomp builds filters but cannot evaluate a
 *    foreign one, and the kernel offers no dry run.  Pure: unit-tested.
 *  - seccomp_thread_mode(): Seccomp: and Seccomp_filters: of the thread's
 *    /proc status (read-only, no ptrace).
 *  - seccomp_can_read(): whether this process may read filters at all
 *    (PTRACE_SECCOMP_GET_FILTER needs CAP_SYS_ADMIN in the initial user
 *    namespace and a tracer that is not itself under seccomp).
 *  - seccomp_judge_thread(): reads every filter of a thread in a ptrace
 *    stop of ours and judges them together, at most SECCOMP_JUDGE_MAX
 *    of them (its cost grows as their square: see there).
 *  - seccomp_restart_pending() / seccomp_defuse(): whether a stopped
 *    thread's registers say the kernel will resume it through
 *    restart_syscall, and the change that makes the kernel re-run the
 *    interrupted call itself instead (see seccomp.c for what that costs
 *    the thread).
 *
 * Contract: never prints or exits; 0 or -1 with errno.  The functions
 * that take a stopped thread need tid in a ptrace-stop of ours.
 */
#ifndef PTPROF_SECCOMP_H
#define PTPROF_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/user.h>

enum seccomp_verdict {
	SECCOMP_SAFE,	    /* every filter allows restart_syscall */
	SECCOMP_KILLS,	    /* a filter kills the thread or process */
	SECCOMP_TRAPS,	    /* ... sends SIGSYS */
	SECCOMP_ERRNO,	    /* ... makes it fail with an errno */
	SECCOMP_DIVERTS,    /* ... hands it to a tracer or a supervisor */
	SECCOMP_DEPENDS,    /* ... decides on its address or arguments */
	SECCOMP_INVALID,    /* ... is a program this evaluator refuses */
	SECCOMP_UNREADABLE, /* the filters could not be read */
	SECCOMP_TOO_MANY,   /* more than SECCOMP_JUDGE_MAX of them */
};

/* The most filters seccomp_judge_thread() reads.  Each
 * PTRACE_SECCOMP_GET_FILTER walks the thread's whole stack of filters
 * (kernel/seccomp.c, get_nth_filter()), so reading n of them costs n^2
 * steps, all while the thread is stopped: 3,641 one-instruction filters
 * (the kernel's limit) took 274 ms, 256 take about 2 ms.  Beyond this the
 * verdict is SECCOMP_TOO_MANY, as unsafe as a filter that cannot be read,
 * found with one request. */
#define SECCOMP_JUDGE_MAX 256

/* What a verdict means, as a phrase that follows "its seccomp filter". */
const char *seccomp_verdict_text(enum seccomp_verdict v);

/* Judge one filter program of len instructions (at most BPF_MAXINSNS). */
enum seccomp_verdict seccomp_judge_prog(const struct sock_filter *prog,
					size_t len);

/* Seccomp: (0 none, 1 strict, 2 filter) and Seccomp_filters: (0 when the
 * kernel does not show it) of /proc/PID/task/TID/status. */
int seccomp_thread_mode(pid_t pid, pid_t tid, int *mode, int *filters);

/* Whether PTRACE_SECCOMP_GET_FILTER can work for this process. */
bool seccomp_can_read(void);

/* Whether stopped thread tid is under a seccomp filter, asked with one
 * PTRACE_SECCOMP_GET_FILTER (needs seccomp_can_read()): 1 yes, 0 when the
 * kernel says no (EINVAL: which a kernel that cannot read filters at
 * all says of every thread), -1 with errno when it does not say (EACCES:
 * not allowed after all; ESRCH: gone). */
int seccomp_has_filter(pid_t tid);

/* Whether stopped thread tid has exactly n filters (needs
 * seccomp_can_read(); filters are only ever added). */
bool seccomp_filter_count_is(pid_t tid, int n);

/* Read and judge every filter of stopped thread tid, and count them into
 * *count.  -1 with errno (EACCES: not allowed to read them) when they
 * cannot be read.  More than SECCOMP_JUDGE_MAX filters: none is read,
 * *v is SECCOMP_TOO_MANY and *count SECCOMP_JUDGE_MAX + 1. */
int seccomp_judge_thread(pid_t tid, enum seccomp_verdict *v, int *count);

/* Whether the kernel will resume this stopped thread through
 * restart_syscall. */
bool seccomp_restart_pending(const struct user_regs_struct *regs);

/* Make the kernel re-run the interrupted call instead (stopped thread). */
int seccomp_defuse(pid_t tid);

#endif /* PTPROF_SECCOMP_H */
