/*
 * sampler_wait.c - --wall: what a blocked thread's sample waits on
 * (issue 28), for sample_origin.wait and wait_holder (procset.h).
 *
 * A capture taken in a system call (a peek's, whose registers peek.h
 * fills from /proc/TID/syscall, or a stop that cut a call short:
 * capture_stop_kind() says CAPTURE_IN_CALL) names its call in orig_rax
 * and its arguments in rdi, rsi, rdx, r10, r8, r9.  The kind comes from
 * the call alone (waitdesc_kind_of_call(): no read), except for futex(),
 * whose glibc object (mutex, condvar, join, rwlock, semaphore) and holder
 * the wait layer finds in the target's memory (waitdesc_thread(), a few
 * process_vm_readv() of the lock word: never a stop).  The hint is
 * WAIT_HINT_NONE: the sampler names no frame (symbols are the writer's,
 * at the end), and futexwait.h's checks of the words decide alone.
 *
 * Cost: this runs after the release, with the unwind, and only for a
 * thread that ran since its last sample (a due one): one that did not
 * run is still in the same call, and its last stack is counted again
 * with the wait it had (threadtab.h).  The process's struct waitdesc
 * (its thread list, which a holder must be in) is made at the first
 * futex wait and made anew when over a second old (440 us for 151
 * threads on the development VM under load).  A futex wait costs a few
 * reads of the word (30 us each under load, in all): a thread that
 * waits again on the same word with the same value, and was found on a
 * condition variable or a semaphore under a second ago, keeps that
 * finding without a read (wakeblock's threads waking every 10 ms in
 * pthread_cond_timedwait()).  Nothing else is kept: a plain futex word
 * may be a mutex read at the instant it was let go (lock 0, __owner
 * cleared), which a second read a moment later names with its holder;
 * and a wait with a holder is read each time, as the holder may change.
 *
 * A repeated sample (a thread that did not run: its last stack counted
 * again) is still in the same wait, but not with the same holder: a
 * contended mutex passes from thread to thread while its other waiters
 * sleep on.  sampler_wait_repeat() reads the object once
 * (futexwait_holder_now()) and keeps the holder only when it is still
 * the one decoded, else none.
 */
#include "config.h"

#include "sampler/sampler_int.h"
#include "util/timeutil.h"
#include "wait/futexwait.h"
#include "wait/waitdesc.h"

/* How old a process's thread list may be for a holder to be found in. */
#define WAITDESC_REFRESH_NS NSEC_PER_SEC

/* p's wait context, made or made anew; NULL when it cannot be. */
static struct waitdesc *proc_waitdesc(struct sampler_proc *p, uint64_t now)
{
	if (p->wd && now - p->wd_ns < WAITDESC_REFRESH_NS)
		return p->wd;
	waitdesc_free(p->wd);
	p->wd = waitdesc_new(p->pid);
	p->wd_ns = now;
	return p->wd;
}

/* The holder a kind can have (wait.h): a mutex's owner, an rwlock's
 * writer, the thread joined. */
static bool has_holder(enum wait_kind k)
{
	return k == WAIT_MUTEX || k == WAIT_RWLOCK || k == WAIT_JOIN;
}

void sampler_wait_note(struct sampler *s, struct thread *th,
		       const struct queued *q)
{
	struct peek_syscall sc;
	struct waitdesc *wd;
	struct wait_info wi;

	th->wait = WAIT_NONE;
	th->wait_holder = 0;
	if (q->kind != CAPTURE_IN_CALL)
		return;
	sc = (struct peek_syscall){ .nr = (int64_t)q->regs.orig_rax,
				    .args = { q->regs.rdi, q->regs.rsi,
					      q->regs.rdx, q->regs.r10,
					      q->regs.r8, q->regs.r9 },
				    .sp = q->regs.rsp,
				    .pc = q->regs.rip };
	th->wait = waitdesc_kind_of_call(sc.nr);
	if (th->wait != WAIT_FUTEX)
		return;
	if (th->futex_ns && th->futex_addr == sc.args[0] &&
	    th->futex_val == sc.args[2] &&
	    s->tick_ns - th->futex_ns < WAITDESC_REFRESH_NS) {
		th->wait = th->futex_kind;
		return;
	}
	th->futex_ns = 0; /* no finding kept */
	wd = proc_waitdesc(th->proc, s->tick_ns);
	/* A part not read still leaves the kind found (waitdesc.h). */
	if (!wd)
		return;
	waitdesc_thread(wd, th->tid, &sc, WAIT_HINT_NONE, &wi);
	if (wi.kind == WAIT_NONE)
		return;
	th->wait = wi.kind;
	if (has_holder(wi.kind)) {
		/* the object, for sampler_wait_repeat() (futex_ns 0: no
		 * finding kept) */
		th->wait_holder = wi.holder > 0 ? wi.holder : 0;
		th->futex_addr = wi.addr;
		th->futex_kind = wi.kind;
		return;
	}
	if (wi.kind != WAIT_CONDVAR && wi.kind != WAIT_SEM)
		return;
	th->futex_addr = sc.args[0];
	th->futex_val = sc.args[2];
	th->futex_kind = wi.kind;
	th->futex_ns = s->tick_ns;
}

void sampler_wait_repeat(struct sampler *s, struct thread *th)
{
	(void)s;
	if (!th->wait_holder || !has_holder(th->wait) ||
	    th->futex_kind != th->wait)
		return;
	if (futexwait_holder_now(th->proc->pid, th->wait, th->futex_addr) !=
	    th->wait_holder)
		th->wait_holder = 0;
}

void sampler_wait_forget(struct sampler_proc *p)
{
	waitdesc_free(p->wd);
	p->wd = NULL;
}
