/*
 * sampler_seize.c - which threads a tick takes, and seizing them: each
 * process's CPU time read and its threads listed when due, each listed
 * thread judged (due, selected, unsafe, held by another tracer), peeked
 * first in --wall mode (sampler_peek.c), else PTRACE_SEIZEd; a process
 * of which nothing could be seized told apart as exited, held or refused.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "proc/reaper.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler_int.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* Ticks in a row on which the kernel refused every thread before the run
 * ends with EPERM (the target exec'd a set-uid program, or was attached). */
#define MAX_REFUSED_TICKS 10

/* Append th to the array *v of *n threads (room for *cap). */
int sampler_seize_push(struct thread ***v, size_t *n, size_t *cap,
		       struct thread *th)
{
	struct thread **a = grow_array(*v, cap, *n + 1, sizeof(*a));

	if (!a)
		return -1;
	*v = a;
	a[(*n)++] = th;
	return 0;
}

static int push_active(struct sampler *s, struct thread *th)
{
	return sampler_seize_push(&s->active, &s->nactive, &s->cap_active, th);
}

/*
 * PTRACE_SEIZE said EPERM.  0 if the thread is ours after all, else -1
 * with errno EPERM.
 *
 * Ours: one seized and interrupted as it called execve() took the
 * leader's TID in de_thread() with our seize still on it, and the stop
 * asked of it never came (see reclaim_leader(), which catches it once
 * the list drops its old TID; this, as soon as the leader's entry is
 * idle).  It is interrupted with the others; its stop is captured and
 * detached.
 *
 * Another TracerPid: a debugger or strace holds this thread (one thread
 * may be traced without the others).  It cannot be sampled; it is
 * counted, named to the user at the end (the tracer's name is read now:
 * it may be gone by then), and tried again once a second rather than
 * every tick, in case the other tracer lets go (seize_one()).
 */
static int seize_refused(struct sampler *s, struct thread *th)
{
	struct sampler_stats *st = s->st;
	int tracer = procfs_tracer_pid_of(th->proc->pid, th->tid);

	if (tracer == (int)getpid())
		return 0;
	if (tracer > 0) {
		/* Threads, not holds: one let go and taken again by the
		 * other tracer is counted once. */
		if (!th->held_counted) {
			st->foreign_traced++;
			th->proc->held_threads++;
		}
		th->held_counted = true;
		if (!st->foreign_tid) {
			st->foreign_tid = th->tid;
			st->foreign_tracer = tracer;
			if (procfs_comm(tracer, 0, st->foreign_comm,
					sizeof(st->foreign_comm)))
				snprintf(st->foreign_comm,
					 sizeof(st->foreign_comm), "?");
		}
		th->tracer = tracer;
		th->rebased = false;
		cpuacct_drop_carry(&th->cpu, &th->proc->acct);
		th->retry_tick = s->tick + sampler_ticks_per_sec(s);
	}
	errno = EPERM;
	return -1;
}

/* SEIZE one listed thread.  1: seized; 0: skipped (or peeked: its stack
 * taken without a stop, or to be peeked again: sampler_peek_defer());
 * -1: error. */
static int seize_one(struct sampler *s, struct sampler_proc *p, pid_t tid,
		     int *eperm)
{
	struct thread *th = sampler_procs_thread(s, p, tid);
	bool due;

	if (!th)
		return errno == EEXIST ? 0 : -1;
	th->seen_tick = s->tick;
	/* An exec moved another thread into its TID, which only the
	 * leader's can be (de_thread() gives the exec'ing thread the
	 * leader's TID; any other LATE thread that ends is reported to us,
	 * its tracer, before its TID can be another's).  So only the
	 * leader's status is read: a LATE thread each tick was a status
	 * read each (8 busy threads on 2 CPUs have several LATE a tick). */
	if (th->state == TS_LATE && tid == p->pid &&
	    procfs_tracer_pid_of(p->pid, tid) != getpid())
		th->state = TS_IDLE;
	if (th->state == TS_LATE && s->cfg->wall)
		sampler_record_repeat_last(s,
					   th); /* has not run since: same stack */
	if (th->state != TS_IDLE)
		return 0; /* LATE: still seized, its stop not yet in */
	if (th->tracer && s->tick < th->retry_tick)
		return 0; /* held by another tracer: see seize_refused() */
	if (th->tracer && !th->rebased) {
		/* Its window is over: what it ran while held was not ours
		 * to sample (its carry was dropped); count from now. */
		th->rebased = true;
		if (sampler_cpu_read(s, th) == 0)
			cpuacct_rebase(&th->cpu, &p->acct);
	}
	due = sampler_cpu_due(s, th); /* for every thread: see there */
	if (th->sc_unsafe) {
		/* Its seccomp filters forbid restart_syscall: its CPU time
		 * is not sampled (see sampler_policy_guard_seccomp()). */
		cpuacct_drop_carry(&th->cpu, &p->acct);
		return 0;
	}
	if (!sampler_cpu_selected(s, th, due)) {
		/* Its CPU time is not for this profile, even if its name
		 * is selected later. */
		cpuacct_drop_carry(&th->cpu, &p->acct);
		s->st->threads_unselected++;
		if (!sampler_cpu_probe_now(th))
			return 0;
		th->probe_only = true;
	} else if (!due &&
		   (!s->cfg->wall || sampler_record_repeat_last(s, th))) {
		/* Not probed: at the first tick a thread is due when it
		 * runs (CPU mode) or always (--wall), so this one is
		 * blocked (see sampler_cpu_probe_now()). */
		s->st->threads_spared++;
		return 0;
	}
	if (sampler_peek_first(s, th)) {
		switch (sampler_peek_sample(s, th, sampler_peek_may_wait(s, th),
					    false)) {
		case PEEK_USED:
			return 0;
		case PEEK_LATER:
			return sampler_peek_defer(s, th);
		case PEEK_STOP:
			break;
		}
	}
	return sampler_seize_thread(s, th, eperm);
}

/* SEIZE th, due.  1: seized; 0: gone (or refused: *eperm counts it);
 * -1: error. */
int sampler_seize_thread(struct sampler *s, struct thread *th, int *eperm)
{
	pid_t tid = th->tid;
	int rc;

	if (th->last_sp) /* warm the copy to come, while it runs (capture.h) */
		capture_warm(tid, th->last_sp);
	reaper_seize_begin();
	rc = ptctl_seize(tid);
	reaper_seize_end();
	if (rc && errno == EPERM)
		rc = seize_refused(s, th);
	if (rc) {
		/* Exiting threads fail with ESRCH or EPERM: skip silently. */
		*eperm += errno == EPERM;
		return ptctl_is_gone(errno) ? 0 : -1;
	}
	th->tracer = 0;
	th->state = TS_SEIZED;
	th->intr_ns = 0; /* not interrupted yet: a stop now is no reply */
	if (push_active(s, th)) {
		/* A seized thread can only be detached from a stop: ask for
		 * one, and let the LATE path release it when it comes. */
		th->intr_ns = mono_now_ns();
		ptctl_interrupt(tid);
		th->state = TS_LATE;
		return -1;
	}
	return 1;
}

/*
 * Nothing of p could be seized, and its leader is held by another tracer
 * (a debugger, strace): with other processes to sample, p is skipped
 * (EBUSY) for the rest of the run.  (Alone, its threads are tried again
 * once a second, as ever: seize_refused().)
 */
static bool skip_if_held(struct sampler *s, struct sampler_proc *p)
{
	int tracer = procfs_tracer_pid_of(p->pid, p->pid);
	char comm[16] = "?", why[96];

	if (sampler_policy_alone(s, p) || tracer <= 0 ||
	    tracer == (int)getpid())
		return false;
	procfs_comm(tracer, 0, comm, sizeof(comm));
	snprintf(why, sizeof(why), "it is traced by PID %d (%s)", tracer, comm);
	sampler_policy_skip(s, p, EBUSY, why);
	/* Said of the process as a whole, not thread by thread. */
	s->st->foreign_traced -= p->held_threads;
	return true;
}

/*
 * Nothing of p could be seized: exited, or refused?  A process that is the
 * whole run ends it with -1 (EPERM): at the first tick nothing was
 * touched; later, it has become untraceable (a set-uid exec, another
 * tracer) and would be sampled never.  One of several is skipped instead,
 * and the run goes on (sampler_seize_all() fails only when none is left that
 * was ever sampled).
 */
static int nothing_seized(struct sampler *s, struct sampler_proc *p, int eperm)
{
	/* With several processes poll_exits() polled every pidfd at the
	 * start of the tick: an idle one costs no second poll (one each was
	 * a sixth of ptprof's CPU time with 100 idle processes).  A refusal
	 * is checked against an exit all the same (exiting threads refuse). */
	if ((eperm || s->set.nprocs == 1) && sampler_procs_exited(p)) {
		p->gone = true;
		return 0;
	}
	if (eperm && skip_if_held(s, p))
		return 0;
	/* EPERM is also what exiting threads give (and a whole process in
	 * the middle of an exec): a refusal counts only when the kernel's
	 * access check says no as well. */
	if (eperm && procfs_may_trace(p->pid) &&
	    (errno == EACCES || errno == EPERM) &&
	    (p->first_tick == s->tick ||
	     ++p->refused_ticks >= MAX_REFUSED_TICKS)) {
		if (!sampler_policy_alone(s, p)) {
			sampler_policy_skip(
				s, p, EPERM,
				"the kernel refused to trace it (another "
				"user's process, or a set-uid program)");
			return 0;
		}
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * Listing /proc/PID/task walks every thread in the kernel, and so does
 * reading the thread count from /proc/PID/stat: with hundreds of threads
 * they are the dearest part of a tick.  In CPU mode a new thread matters
 * once it runs, and then its CPU time is unexplained and brings a sweep
 * (read_process_cpu): the list is read again at every sweep, and once a
 * second for threads that exited.  In --wall mode (a new thread counts
 * even asleep), or without the process's CPU clock, it is read again when
 * the thread count has changed, and every 8th tick regardless, for a
 * thread that exited while another was created.  A reused list may name a
 * thread that is gone: its seize fails, and it is skipped as any exiting
 * thread is.
 */
static bool need_listing(struct sampler *s, struct sampler_proc *p)
{
	uint64_t age = s->tick - p->first_tick;
	int n;

	if (p->tids.n == 0 || age % sampler_ticks_per_sec(s) == 0)
		return true;
	if (!s->cfg->wall && p->acct.have_last)
		return p->acct.sweep;
	n = procfs_num_threads(p->pid, &p->stat_fd);
	return n < 0 || (size_t)n != p->tids.n || age % 8 == 0;
}

/*
 * List p's threads when due; a process whose list is gone has exited.
 * One that cannot be listed for another reason (descriptors ran short:
 * EMFILE) is skipped, unless it is the whole run: a descendant found
 * late must not end the run.
 */
static int list_threads(struct sampler *s, struct sampler_proc *p)
{
	char why[128];

	if (!need_listing(s, p) ||
	    !procfs_list_tasks_cached(p->pid, &p->task_dir, &p->tids))
		return 0;
	if (errno == ENOENT || errno == ESRCH) {
		p->gone = true;
		return 0;
	}
	if (sampler_policy_alone(s, p) || errno == ENOMEM)
		return -1;
	snprintf(why, sizeof(why), "its threads could not be listed: %s",
		 strerror(errno));
	sampler_policy_skip(s, p, errno, why);
	return 0;
}

/* Read p's CPU time, list its threads when due, seize those due. */
static int seize_proc(struct sampler *s, struct sampler_proc *p)
{
	size_t before = s->nactive;
	uint64_t peeked = s->st->peeked;
	int eperm = 0;

	if (!p->first_tick)
		p->first_tick = s->tick;
	sampler_cpu_read_process(s, p);
	if (list_threads(s, p) || p->gone)
		return p->gone ? 0 : -1;
	if (p->first_tick == s->tick && !s->cfg->unsafe_seccomp &&
	    sampler_policy_preflight(s, p))
		return -1;
	s->ndeferred = 0;
	for (size_t i = 0; i < p->tids.n && !p->gone; i++)
		if (seize_one(s, p, p->tids.tids[i], &eperm) < 0)
			return -1;
	if (sampler_peek_deferred(s, &eperm))
		return -1;
	sampler_stops_interrupt_new(s, before);
	/* Threads peeked (sampler_peek_sample()) were sampled without a seize. */
	if (s->nactive == before && s->st->peeked == peeked)
		return nothing_seized(s, p, eperm);
	p->refused_ticks = 0;
	s->sampled_any = true;
	return 0;
}

int sampler_seize_all(struct sampler *s)
{
	s->nactive = 0;
	s->seizing = true; /* until sampler_late_mark() (holds_seized()) */
	s->pause_from = 0;
	s->last_detach_ns = 0;
	for (size_t i = 0; i < s->set.nprocs; i++) {
		/* The stops already in, served as the others are seized
		 * (each process's are asked for at once: sampler_stops.c). */
		if (s->pending)
			sampler_stops_reap(s);
		if (!s->set.procs[i]->gone && seize_proc(s, s->set.procs[i]))
			return -1;
	}
	return 0;
}
