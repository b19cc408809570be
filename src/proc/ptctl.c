/*
 * ptctl.c - ptrace requests, and what the kernel means by their results.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "proc/ptctl.h"

/* Kernel-internal errno (include/linux/errno.h): in rax at a stop on the
 * way out of a call, it makes the kernel re-run the call. */
#define ERESTARTNOINTR 513
/* The code segment of 64-bit user mode (__USER_CS, x86-64). */
#define USER_CS_64 0x33

/*
 * PTRACE_SEIZE attaches without stopping the thread and without the
 * SIGSTOP that PTRACE_ATTACH sends.  That matters twice: a SIGSTOP would be
 * a signal the target never asked for, and with SEIZE a thread that is
 * already in group-stop reports it as a PTRACE_EVENT_STOP instead of being
 * silently resumed.  No options: in particular never PTRACE_O_EXITKILL, so
 * ptprof dying can never kill the target; the kernel simply detaches.
 */
int ptctl_seize(pid_t tid)
{
	return ptrace(PTRACE_SEIZE, tid, NULL, NULL) == -1 ? -1 : 0;
}

/*
 * PTRACE_INTERRUPT queues a trap: the thread stops at its next return to
 * user mode.  A thread sleeping interruptibly in a system call is woken for
 * that, which makes some calls (epoll_wait, semop, sigtimedwait, calls with
 * timeouts) return EINTR in the target; a thread in uninterruptible sleep
 * or inside vfork() stops only when that ends, which is why waits for the
 * stop are bounded.
 */
int ptctl_interrupt(pid_t tid)
{
	return ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == -1 ? -1 : 0;
}

int ptctl_getregs(pid_t tid, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, tid, NULL, regs) == -1 ? -1 : 0;
}

/*
 * The data argument of PTRACE_DETACH is a signal to deliver as the thread
 * resumes.  It is honoured only from a signal-delivery-stop, which is the
 * only stop we ever pass one from: that hands back a signal that arrived
 * while we held the thread.  Detaching from a thread that belongs to a
 * stopped group puts it back into group-stop (the kernel sets
 * JOBCTL_STOP_PENDING in __ptrace_unlink), so SIGSTOPped targets stay
 * stopped.
 */
int ptctl_detach(pid_t tid, int sig)
{
	return ptrace(PTRACE_DETACH, tid, NULL, (void *)(intptr_t)sig) == -1 ?
		       -1 :
		       0;
}

/*
 * Only in a stop on the way out of a system call, to make the kernel run
 * it again (ptctl_restart_call()): for a thread with a restart_syscall
 * pending whose seccomp filters forbid it or cannot be read (or that died
 * in the stop: seccomp_defuse(), seccomp.c), and for a PTRACE_TRACEME our
 * seize made fail (ptctl_traceme_retry()).  The kernel reads rax again
 * after the stop to decide how the interrupted call goes on.
 */
int ptctl_set_rax(pid_t tid, unsigned long long rax)
{
	return ptrace(PTRACE_POKEUSER, tid,
		      (void *)offsetof(struct user, regs.rax),
		      (void *)(uintptr_t)rax) == -1 ?
		       -1 :
		       0;
}

/*
 * In a stop on the way out of a system call (orig_rax >= 0), the kernel
 * has not yet decided whether to restart the call: it reads rax again
 * after the stop (arch_do_signal_or_restart()), and -ERESTARTNOINTR makes
 * it set rax back to orig_rax and rip back over the syscall instruction,
 * so that the call runs again, with the same arguments, once the thread
 * resumes: what it does for a call a signal interrupted.  The kernel
 * rewinds rip itself: no need to look at the instruction.
 */
int ptctl_restart_call(pid_t tid)
{
	return ptctl_set_rax(tid, (unsigned long long)-ERESTARTNOINTR);
}

/*
 * ptrace(PTRACE_TRACEME) fails with EPERM in a thread already traced
 * (ptrace_traceme(), kernel/ptrace.c: "Are we already being traced?"), and
 * a thread we seized is, until we detach it: a child that asks its parent
 * to trace it (a debugger's launcher, a sandbox) while ptprof holds it
 * would fail where it never does without ptprof (RELIABILITY case 50).
 * A PTRACE_INTERRUPT is taken on the way back to user mode, so a thread
 * that made the call after our seize and before our interrupt was queued
 * stops at that call's exit: orig_rax is ptrace (an interrupt's or a
 * fault's entry sets it to -1; only a system call's is >= 0), rdi
 * PTRACE_TRACEME, rax -EPERM, in 64-bit mode (a 32-bit task's numbers
 * differ).  Then the call is made to run again (ptctl_restart_call()),
 * after the detach, untraced.  An EPERM for another cause (Yama, an LSM)
 * comes again on the retry: harmless.  A thread whose call returned
 * before the interrupt was queued (between our PTRACE_SEIZE and
 * PTRACE_INTERRUPT, a few microseconds) stops elsewhere, the EPERM
 * already seen: that window remains (docs/RELIABILITY.md).
 */
bool ptctl_traceme_refused(const struct user_regs_struct *regs)
{
	return regs->cs == USER_CS_64 && regs->orig_rax == SYS_ptrace &&
	       regs->rdi == PTRACE_TRACEME && (long long)regs->rax == -EPERM;
}

int ptctl_traceme_retry(pid_t tid, const struct user_regs_struct *regs)
{
	struct user_regs_struct own;

	if (!regs) {
		if (ptctl_getregs(tid, &own))
			return -1;
		regs = &own;
	}
	if (!ptctl_traceme_refused(regs))
		return 0;
	return ptctl_restart_call(tid) ? -1 : 1;
}

/*
 * PTRACE_SECCOMP_GET_FILTER copies the whole classic-BPF program of the
 * filter at index (0: the newest) into buf and returns its length; it is
 * one of the requests that need the thread in a ptrace-stop of ours
 * (ptrace_check_attach()).  EACCES without CAP_SYS_ADMIN or under seccomp
 * ourselves; ENOENT past the oldest filter.  buf must hold the program:
 * callers pass BPF_MAXINSNS instructions, the most a filter may have.
 */
long ptctl_seccomp_filter_len(pid_t tid, unsigned long index)
{
	return ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)index, NULL);
}

long ptctl_seccomp_filter(pid_t tid, unsigned long index,
			  struct sock_filter *buf, size_t cap)
{
	long n = ptctl_seccomp_filter_len(tid, index);

	if (n < 0)
		return -1;
	if ((size_t)n > cap) {
		errno = E2BIG;
		return -1;
	}
	return ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)index, buf);
}

/*
 * ESRCH: the thread is gone, or not stopped under us any more.
 * EPERM: also returned by SEIZE for a thread that is already exiting
 * (PF_EXITING / exit_state is checked by ptrace_attach), and for a zombie
 * thread group leader.  Callers that already proved they may trace the
 * process treat both as "skip this thread".
 */
bool ptctl_is_gone(int err)
{
	return err == ESRCH || err == EPERM;
}

/*
 * A seized thread reports, in waitpid() status:
 *  - PTRACE_EVENT_STOP with SIGTRAP: the stop our PTRACE_INTERRUPT asked for
 *    (SIGSTOP/SIGTSTP/SIGTTIN/SIGTTOU instead: a group-stop);
 *  - a plain stop (no event bits): signal-delivery-stop.  The signal is
 *    held by us now and is lost unless we re-inject it on detach;
 *  - exit or death: the thread (or, for the leader, the process) is gone.
 */
enum ptctl_stop_kind ptctl_classify(int status, int *sig)
{
	int event = (unsigned)status >> 16;

	*sig = 0;
	if (WIFEXITED(status) || WIFSIGNALED(status))
		return PTSTOP_EXITED;
	if (!WIFSTOPPED(status))
		return PTSTOP_UNKNOWN;
	if (event == PTRACE_EVENT_STOP) {
		int s = WSTOPSIG(status);

		if (s == SIGSTOP || s == SIGTSTP || s == SIGTTIN ||
		    s == SIGTTOU)
			return PTSTOP_GROUP;
		return PTSTOP_INTERRUPT;
	}
	if (event)
		return PTSTOP_OTHER_EVENT;
	*sig = WSTOPSIG(status);
	return PTSTOP_SIGNAL;
}

/* Exits need nothing: the kernel has already untraced the thread.  A
 * failed detach leaves nothing to do either: the thread is gone. */
void ptctl_release(pid_t tid, int status)
{
	int sig;
	enum ptctl_stop_kind kind = ptctl_classify(status, &sig);

	if (kind == PTSTOP_EXITED || kind == PTSTOP_UNKNOWN)
		return;
	ptctl_traceme_retry(tid, NULL);
	ptctl_detach(tid, kind == PTSTOP_SIGNAL ? sig : 0);
}
