/*
 * ptctl.h - the ptrace requests ptprof makes, one function each.
 *
 * ptprof's only requests are PTRACE_SEIZE (never PTRACE_ATTACH: no SIGSTOP
 * is sent, and group-stop stays visible), PTRACE_INTERRUPT, PTRACE_GETREGS
 * and PTRACE_DETACH, and, for seccomp (seccomp.h, guard_seccomp() in
 * sampler.c), PTRACE_SECCOMP_GET_FILTER (as root, to a thread stopped
 * with a restart_syscall pending, filtered or not: the answer tells) and
 * a PTRACE_POKEUSER of rax (to one whose filters forbid restart_syscall,
 * cannot be read, or that died in the stop, and to one stopped on its
 * way out of a PTRACE_TRACEME our seize made fail, to run it again after
 * the detach: ptctl_traceme_retry()): memory is read with
 * process_vm_readv(), never with PTRACE_PEEKDATA (proc/capture.c,
 * proc/vmread.h).  It never sets PTRACE_O_EXITKILL: if ptprof
 * dies, the kernel detaches every tracee and the target runs on.
 *
 * Contract: thin wrappers, 0 or -1 with errno, never print or exit.
 * ptctl_is_gone() names the errnos that mean "this thread is exiting or
 * exited", which callers treat as a silent skip.
 */
#ifndef PTPROF_PTCTL_H
#define PTPROF_PTCTL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/user.h>

int ptctl_seize(pid_t tid);
int ptctl_interrupt(pid_t tid);
int ptctl_getregs(pid_t tid, struct user_regs_struct *regs);
int ptctl_detach(pid_t tid, int sig);
/* One seccomp filter's length in instructions (NULL buffer), or its
 * program into buf (cap instructions): its length. */
long ptctl_seccomp_filter_len(pid_t tid, unsigned long index);
long ptctl_seccomp_filter(pid_t tid, unsigned long index,
			  struct sock_filter *buf, size_t cap);
int ptctl_set_rax(pid_t tid, unsigned long long rax);
/* In a stop on the way out of a system call: make the kernel run the call
 * again once the thread resumes (rax = -ERESTARTNOINTR). */
int ptctl_restart_call(pid_t tid);
/* Whether a stopped thread's registers say it is on its way out of a
 * ptrace(PTRACE_TRACEME) refused with EPERM (64-bit). */
bool ptctl_traceme_refused(const struct user_regs_struct *regs);
/* Before letting a stopped thread go: if it is on its way out of a
 * PTRACE_TRACEME refused because we trace it, make it run the call again
 * after the detach (ptctl.c says why).  regs: its registers in this stop,
 * or NULL to read them.  1: rewound; 0: not such a stop; -1 with errno. */
int ptctl_traceme_retry(pid_t tid, const struct user_regs_struct *regs);
bool ptctl_is_gone(int err);

/*
 * Decode a waitpid() status of a traced thread.
 */
enum ptctl_stop_kind {
	PTSTOP_INTERRUPT, /* PTRACE_EVENT_STOP after PTRACE_INTERRUPT */
	PTSTOP_GROUP,	  /* PTRACE_EVENT_STOP for a stop signal (group-stop) */
	PTSTOP_SIGNAL,	  /* signal-delivery-stop: re-inject the signal */
	PTSTOP_OTHER_EVENT, /* any other PTRACE_EVENT_* stop */
	PTSTOP_EXITED,	    /* WIFEXITED or WIFSIGNALED: the thread is gone */
	PTSTOP_UNKNOWN,
};
enum ptctl_stop_kind ptctl_classify(int status, int *sig);

/* Let a stop nobody waits for go (a stray one, or a LATE one after the
 * run), with the signal it was stopped for; an exit needs nothing. */
void ptctl_release(pid_t tid, int status);

#endif /* PTPROF_PTCTL_H */
