/*
 * sampler_policy.c - what the sampler refuses to do to a target: a
 * process skipped (with the reason in its image) rather than the run
 * refused, and seccomp: a thread whose filters forbid restart_syscall is
 * judged in its stop, its call defused, and never stopped again.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "proc/seccomp.h"
#include "sampler/sampler_int.h"
#include "util/timeutil.h"

/* Is p the whole run (a root, and no other process left)?  Then a
 * refusal ends the run as it always did; else p alone is skipped. */
bool sampler_policy_alone(const struct sampler *s, const struct sampler_proc *p)
{
	return p->root && s->set.nprocs == 1;
}

/* p is never to be sampled (again): say why in its image, let it go at
 * the end of the tick (finish_proc()). */
void sampler_policy_skip(struct sampler *s, struct sampler_proc *p, int err,
			 const char *why)
{
	char comm[sizeof(p->im->comm)] = "";

	/* The name it has now: a process found between fork and exec, whose
	 * filter came with the exec, was named by its parent ("sh") when the
	 * exec had not been seen yet (CI, a loaded machine). */
	if (procfs_comm(p->pid, 0, comm, sizeof(comm)) == 0 && comm[0])
		memcpy(p->im->comm, comm, sizeof(comm));
	p->im->skipped = err;
	snprintf(p->im->skip_why, sizeof(p->im->skip_why), "%s", why);
	p->gone = true;
	p->skipped_ns = mono_now_ns();
	s->st->procs_skipped++;
}

/*
 * A thread of p whose filters forbid restart_syscall, p's image not yet
 * sampled (a process found, or exec'd into a new program) and p a
 * descendant, or a root while other roots live (one of several -p): p
 * is skipped,
 * with why, and the rest goes on -- rather than the whole run refused at
 * its first tick for a descendant's sake, or p sampled in part.  Its
 * other threads seized are let go, each judged in its own stop as this
 * one was (sampler_procs_finish_gone() keeps p until then); their
 * captures are dropped (sampler_record_unwind_queued()).  False: p is sampled
 * on, without this thread (mark_unsafe()).
 */
static bool skip_unsafe(struct sampler *s, struct thread *th,
			enum seccomp_verdict v)
{
	struct sampler_proc *p = th->proc;
	char why[160];

	if (p->im->samples || (p->root && s->set.roots_live < 2))
		return false;
	th->sc_unsafe = true; /* judged: its next stops are defused too */
	if (p->im->skipped)
		return true;
	snprintf(why, sizeof(why), "its seccomp filter (thread %d) %s",
		 (int)th->tid, seccomp_verdict_text(v));
	sampler_policy_skip(s, p, EACCES, why);
	return true;
}

/* A thread whose filters forbid restart_syscall: never stopped again. */
static void mark_unsafe(struct sampler *s, struct thread *th,
			enum seccomp_verdict v)
{
	th->sc_unsafe = true;
	s->st->seccomp_unsafe++;
	if (!s->st->seccomp_tid) {
		s->st->seccomp_tid = th->tid;
		s->st->seccomp_pid = th->proc->pid;
		s->st->seccomp_verdict = (int)v;
	}
}

/*
 * In a stop, before the thread is let go: will the kernel resume it
 * through restart_syscall (it was sleeping in nanosleep, poll or futex
 * with a timeout), and do its seccomp filters allow that?  Its filters are
 * judged when a stop needs them (a restart pending, or the first tick's
 * probe) and again when their count grew; if they forbid it, the call is
 * made to restart without restart_syscall (seccomp_defuse()) and the
 * thread is left alone from then on.  Seccomp: 1 (strict) allows only
 * read, write, exit and sigreturn, which never restart that way.  Filters
 * that cannot be read are unsafe; a thread that died in the stop has
 * nothing to judge, but its call is defused all the same.
 */
void sampler_policy_guard_seccomp(struct sampler *s, struct thread *th,
				  const struct user_regs_struct *regs)
{
	struct user_regs_struct own;
	enum seccomp_verdict v;
	bool pending, probe;
	int mode, nf, has = 0;

	if (!regs) {
		if (ptctl_getregs(th->tid, &own))
			return;
		regs = &own;
	}
	pending = seccomp_restart_pending(regs);
	if (!pending && !th->sc_probe)
		return;
	probe = th->sc_probe;
	th->sc_probe = false;
	if (s->sc_can_read) {
		/* A few PTRACE_SECCOMP_GET_FILTER, about 1 us each, where
		 * reading the status would cost some 15 us in the stop. */
		has = seccomp_has_filter(th->tid);
		if (has < 0 && errno == ESRCH)
			goto gone;
		/* Not allowed after all (EACCES), or a kernel that says "no
		 * filter" of a thread whose status says filtered (probe):
		 * it cannot read filters.  From now on the status tells,
		 * lest a thread without a filter be judged unreadable. */
		if (has < 0 || (has == 0 && probe))
			s->sc_can_read = false;
	}
	if (s->sc_can_read) {
		if (!has || (th->sc_judged && !th->sc_unsafe &&
			     seccomp_filter_count_is(th->tid, th->sc_filters)))
			return;
		if (seccomp_judge_thread(th->tid, &v, &nf)) {
			if (errno == ESRCH)
				goto gone;
			v = SECCOMP_UNREADABLE;
		}
	} else {
		/* Filters cannot be read: any filter is unsafe. */
		if (seccomp_thread_mode(th->proc->pid, th->tid, &mode, &nf))
			goto gone;
		if (mode != 2)
			return;
		v = SECCOMP_UNREADABLE;
	}
	th->sc_judged = true;
	th->sc_filters = nf;
	if (v == SECCOMP_SAFE)
		return;
	if (pending)
		seccomp_defuse(th->tid);
	if (!th->sc_unsafe && !skip_unsafe(s, th, v))
		mark_unsafe(s, th, v);
	return;
gone:
	/* SIGKILLed while stopped, or dying: nothing to judge; the rewrite
	 * costs nothing if it is gone and is safe if it is not. */
	if (pending)
		seccomp_defuse(th->tid);
}

/*
 * The first tick of a process: every thread under a seccomp filter
 * (Seccomp: 2) is marked to have its filters judged in its next stop
 * (sampler_policy_guard_seccomp()): this tick's for one that is due or
 * running (sampler_cpu_probe_now()), a later one for a blocked one.
 * Without the right to read filters nothing is stopped at all: the run
 * fails (see sampler.h) when it is the run's first tick; a process found
 * later is skipped.
 */
int sampler_policy_preflight(struct sampler *s, struct sampler_proc *p)
{
	int mode, nf;

	for (size_t i = 0; i < p->tids.n; i++) {
		pid_t tid = p->tids.tids[i];
		struct thread *th;

		if (seccomp_thread_mode(p->pid, tid, &mode, &nf) || mode != 2)
			continue;
		if (!s->sc_can_read && !p->root) {
			sampler_policy_skip(s, p, EACCES,
					    "it has a seccomp filter, which ptprof may "
					    "not read (no CAP_SYS_ADMIN)");
			return 0;
		}
		if (!s->sc_can_read) {
			s->st->seccomp_tid = tid;
			s->st->seccomp_pid = p->pid;
			s->st->seccomp_verdict = SECCOMP_UNREADABLE;
			s->st->seccomp_refused = true;
			errno = EACCES;
			return -1;
		}
		th = sampler_procs_thread(s, p, tid);
		if (th)
			th->sc_probe = true;
		else if (errno != EEXIST)
			return -1;
	}
	return 0;
}
