/*
 * sampler_late.c - LATE threads: seized and interrupted, their stop not
 * in by the end of the tick's window.  Marked so, captured and let go
 * whenever the stop comes, swept with the threads that vanished (a LATE
 * thread that exec'd away its TID: its leader reclaimed), and waited for
 * (a bounded wait) before ptprof suspends itself, reports progress or
 * ends.
 */
#include "config.h"

#include <unistd.h>

#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "proc/reaper.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler_int.h"
#include "sampler/threadtab.h"
#include "util/timeutil.h"

/* How long the end of a run waits for the stops of LATE threads. */
#define FINAL_LATE_WAIT_NS (500 * NSEC_PER_MSEC)

/* Past the tick's deadline: whoever has not stopped yet is LATE. */
void sampler_late_mark(struct sampler *s)
{
	for (size_t i = 0; i < s->nactive; i++) {
		struct thread *th = s->active[i];

		if (th->state == TS_SEIZED) {
			th->state = TS_LATE;
			s->st->late_threads++;
		}
	}
	s->pending = 0;
}

static bool drop_vanished(const struct thread *th, void *arg)
{
	struct sampler *s = arg;

	/* A LATE thread no longer listed cannot still be traced by us (a
	 * traced zombie stays listed): it exec'd away its TID.  Drop it. */
	if (th->state == TS_LATE && th->seen_tick != s->tick)
		th->proc->late_vanished = true;
	/* A process that is gone is settled first (finish_proc()). */
	if (th->proc && th->proc->gone)
		return false;
	if (th->state == TS_GONE ||
	    (th->state != TS_SEIZED && th->seen_tick != s->tick)) {
		/* Its carry is not lost with it (sampler_cpu_settle_all()). */
		cpuacct_gone(&th->cpu, &th->proc->acct);
		return true;
	}
	return false;
}

/*
 * A LATE thread exec'd away its TID: in de_thread() it took the leader's,
 * with our seize still on it, and the stop asked of it never comes (nor
 * that of the leader it killed, if that was LATE too).  Left so, it would
 * stay traced, and never be sampled again (PTRACE_SEIZE fails with EPERM
 * on a thread already traced).  Ask the thread now under the leader's TID
 * for a stop: it is captured and detached as LATE when it comes.
 */
static void reclaim_leader(struct sampler *s, struct sampler_proc *p)
{
	pid_t pid = p->pid;
	struct thread *th;

	p->late_vanished = false;
	if (procfs_tracer_pid_of(pid, pid) != (int)getpid())
		return;
	th = sampler_procs_thread(s, p, pid);
	if (!th)
		return;
	th->intr_ns = mono_now_ns();
	if (ptctl_interrupt(pid))
		return;
	if (th->state != TS_LATE) {
		th->state = TS_LATE;
		s->st->late_threads++;
	}
}

/* After the tick: the threads gone or no longer listed dropped, and the
 * leaders whose LATE thread exec'd away its TID reclaimed. */
void sampler_late_sweep(struct sampler *s)
{
	threadtab_sweep(s->threads, drop_vanished, s);
	for (size_t i = 0; i < s->set.nprocs; i++)
		if (s->set.procs[i]->late_vanished)
			reclaim_leader(s, s->set.procs[i]);
}

static void count_late_probe(struct thread *th, void *arg)
{
	*(size_t *)arg += th->sc_probe && th->state == TS_LATE;
}

/* Threads stopped at the first tick to judge their filters whose stop
 * has not come yet. */
size_t sampler_late_probes(struct sampler *s)
{
	size_t n = 0;

	threadtab_foreach(s->threads, count_late_probe, &n);
	return n;
}

static void count_late(struct thread *th, void *arg)
{
	size_t *n = arg;

	*n += th->state == TS_LATE;
}

/* The threads LATE now. */
size_t sampler_late_count(struct sampler *s)
{
	size_t n = 0;

	threadtab_foreach(s->threads, count_late, &n);
	return n;
}

/* Release the LATE threads whose stops come within FINAL_LATE_WAIT_NS. */
void sampler_late_release(struct sampler *s)
{
	uint64_t deadline = mono_now_ns() + FINAL_LATE_WAIT_NS;

	for (;;) {
		size_t late;
		uint64_t now;

		sampler_stops_reap(s);
		late = sampler_late_count(s);
		now = mono_now_ns();
		if (!late || now >= deadline)
			return;
		reaper_poll(-1, -1, deadline);
	}
}
