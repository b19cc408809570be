/*
 * sampler_stops.c - the stop window: the seized threads interrupted, a
 * process's all at once, their stops collected (spinning or asleep), and
 * each stop served as it comes: registers and stack captured into the
 * arena (sampler_record.c), Python frames read, seccomp guarded, a
 * refused PTRACE_TRACEME made to run again, the thread detached.  Nothing
 * is added here that can wait until the target runs again
 * (docs/HACKING.md).
 */
#include "config.h"

#include <errno.h>

#include "proc/capture.h"
#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "proc/reaper.h"
#include "sampler/sampler_int.h"
#include "util/timeutil.h"

static int detach(struct thread *th)
{
	int sig = th->pending_sig;

	th->pending_sig = 0;
	th->state = TS_IDLE;
	if (ptctl_detach(th->tid, sig) == 0)
		return 0;
	/* ESRCH: it died while stopped (SIGKILL to the group); its exit
	 * will be reported and it drops out at the sweep. */
	th->state = TS_GONE;
	return -1;
}

static void child_exited(struct sampler *s, pid_t pid, int status)
{
	if (s->cfg->child && pid == s->cfg->child) {
		s->st->child_reaped = true;
		s->st->child_status = status;
		s->target_gone = true;
	}
}

/*
 * A stop we asked for: capture the thread, let it go at once, and queue
 * the copy for unwinding after the stop window.  A LATE stop is captured
 * too: a thread that stops late did not run until then (it was queued
 * behind other threads for a CPU, or inside vfork()), so its stack is
 * still the one it had at the tick.  A stop we did not ask for
 * (defensive) is let go uncaptured.  Either way the signal it was stopped
 * for, if any, goes back with the detach.
 */
static void note_stop(struct sampler *s, struct thread *th, int sig)
{
	bool asked = th->state == TS_SEIZED || th->state == TS_LATE;
	bool captured = false, timed = asked && th->intr_ns, py = false;
	/* --stats' phases (sampler_stats_phases()): reaped, captured (registers
	 * and stack: capture.h times them), Python frames read, seccomp
	 * guarded, detached. */
	uint64_t t[5] = { 0 };
	int rc;

	th->pending_sig = sig;
	if (th->state == TS_SEIZED && s->pending)
		s->pending--;
	if (timed) {
		t[0] = mono_now_ns();
		sampler_stats_stop_latency(s->st, t[0] - th->intr_ns);
	}
	/* During sampler_record_unwind_queued() the queue and arena are in use: a stop
	 * that comes then is let go uncaptured. */
	if (asked && !s->unwinding && sampler_record_reserve(s) == 0) {
		/* The stack from near its last SP first (capture.h) */
		captured = capture_thread_hint(th->tid, th->proc->im->maps,
					       th->last_sp, &s->rec.cap) == 0;
		th->last_sp = captured ? s->rec.cap.regs.rsp : 0;
		s->st->stack_hint_missed += captured && s->rec.cap.hint_missed;
	}
	if (timed)
		t[1] = t[2] = captured ? mono_now_ns() : t[0];
	/* Its Python frames, while it is stopped: they change as it runs
	 * (sampler_py.c; the code objects they name are read after). */
	if (captured && !th->probe_only) {
		uint64_t walks = s->st->py_walks;

		sampler_py_frames(s, th);
		py = s->st->py_walks != walks;
		if (timed && py)
			t[2] = mono_now_ns();
	}
	if (asked && !s->cfg->unsafe_seccomp) {
		sampler_policy_guard_seccomp(s, th,
					     captured ? &s->rec.cap.regs :
							NULL);
		if (timed)
			t[3] = mono_now_ns();
	}
	/* A PTRACE_TRACEME our seize made fail runs again after the
	 * detach (ptctl.c): ptprof must not fail a target's own call. */
	ptctl_traceme_retry(th->tid, captured ? &s->rec.cap.regs : NULL);
	if (th->probe_only)
		captured = false; /* stopped only to judge its filters */
	th->probe_only = false;
	if (captured && th->state == TS_LATE)
		s->st->late_captured++;
	rc = detach(th);
	if (timed) {
		t[4] = mono_now_ns();
		sampler_stats_phases(s->st, &s->rec.cap, th, t, captured, py);
	}
	/* A LATE stop let go during the unwinds is no part of the tick's
	 * pause (stop_the_world() measures it before them). */
	if (rc == 0 && asked && !s->unwinding)
		s->last_detach_ns = t[4] ? t[4] : mono_now_ns();
	/* The CPU time and switches this stop made are ours (cpuacct.h) */
	th->cpu.stop_owed = 2; /* the trap and the restart (cpuacct.h) */
	if (captured)
		sampler_record_queue(s, th);
}

/* One waitpid() result, for a traced thread or the launched child. */
static void handle_status(struct sampler *s, pid_t tid, int status)
{
	struct thread *th = threadtab_get(s->threads, tid, false);
	int sig;
	enum ptctl_stop_kind kind = ptctl_classify(status, &sig);

	if (kind == PTSTOP_EXITED) {
		child_exited(s, tid, status);
		if (th) {
			if (th->state == TS_SEIZED && s->pending)
				s->pending--;
			th->state = TS_GONE;
		}
		return;
	}
	if (!th) {
		/* Not ours to keep stopped: never leave a thread stopped. */
		ptctl_release(tid, status);
		return;
	}
	note_stop(s, th, kind == PTSTOP_SIGNAL ? sig : 0);
}

/* Take every waitpid() report already queued; never blocks. */
void sampler_stops_reap(struct sampler *s)
{
	struct reap_event ev;

	while (reaper_next(&ev))
		handle_status(s, ev.pid, ev.status);
}

/*
 * Wait for the tick's stops until none is pending or the window ends.  A
 * thread may take long to stop: queued behind other threads for a CPU
 * (the scheduler picks last the threads that just ran, and those are the
 * ones that get interrupted), inside vfork(), in uninterruptible sleep.  It
 * becomes LATE (mark_late) and is captured and let go whenever its stop
 * comes, and the next tick comes on time.  (Waiting for it, up to 100 ms,
 * made the ticks of a target with 8 busy threads on 2 CPUs take 12 ms, and
 * missed a quarter of them.)
 */
void sampler_stops_collect(struct sampler *s, uint64_t end, uint64_t spin_end)
{
	for (;;) {
		struct reap_event ev;
		uint64_t now;

		/* Only until the last stop is in: one waitpid() that finds
		 * nothing more is for the next wait to make. */
		while (s->pending && reaper_next(&ev))
			handle_status(s, ev.pid, ev.status);
		now = mono_now_ns();
		if (!s->pending || now >= end)
			return;
		if (now < spin_end) {
			if (reaper_spin(&ev, spin_end < end ? spin_end : end)) {
				s->st->stops_caught_spinning++;
				handle_status(s, ev.pid, ev.status);
			}
			continue;
		}
		reaper_wait(end - now);
	}
}

/*
 * Spin for this tick's stops (reaper_spin()) rather than sleep until
 * SIGCHLD?  A stop comes some 20-50 us after its interrupt.  Asleep, this
 * thread is woken by the stopping thread: on a VM an IPI through the host
 * (some 20 us, in the target's way to its stop: `perf trace` showed
 * sched_waking to sched_wakeup take that long), and if its CPU went idle
 * meanwhile, a halted vCPU to wake, whose caches are cold for the
 * captures after (issue 17).  Spinning, it is running: the stop's wake-up
 * finds it so and sends nothing.  But a spin takes a CPU, which must not
 * be one another task needs, least of all a target thread queued for a
 * CPU, which takes its stop only once it runs: a tick that finds ptprof
 * sharing the busy thread's CPU (another program on the other CPU) and
 * spins delays that stop by the whole spin (measured: 85 us instead of
 * 30).  So it spins only when every task running or runnable on the
 * machine now (/proc/loadavg's count, ptprof and the threads to stop
 * included) has a CPU of its own, of those ptprof may run on
 * (cpus_usable(): pinned to one CPU, it never spins): 1 busy thread on 2
 * CPUs spins; 2 busy threads on 2 CPUs, 8, or another program busy
 * beside the target, do not.  (The target's own thread states, which
 * cpuacct reads, would miss the other programs, and a thread found R may
 * be queued, not on a CPU.)
 * A thread to stop that was not found running (R) this tick is counted
 * on top: a blocked one is woken by the interrupt and needs a CPU to take
 * its stop.  With --wall no state is read, so every thread to stop counts
 * so: --wall spins only with a CPU to spare beyond them.
 */
bool sampler_stops_spin_worth(struct sampler *s)
{
	size_t waking = 0;
	int running;

	if (!s->nactive || !s->spin_ns)
		return false;
	/* ptprof and every thread to stop need a CPU each (one found
	 * running is counted as running: its check was a moment ago): with
	 * more of them than CPUs it never spins, and /proc/loadavg is not
	 * read (a pread each tick: 2 busy threads on 2 CPUs). */
	if (s->nactive + 1 > s->ncpu)
		return false;
	for (size_t i = 0; i < s->nactive; i++)
		waking += !s->active[i]->cpu.on_cpu;
	running = procfs_running_tasks(&s->loadavg_fd);
	return running > 0 && (size_t)running + waking <= s->ncpu;
}

/*
 * Interrupt all before waiting for any: the threads stop in parallel, and
 * the pause is one stop latency, not the sum of them.  Every seized thread
 * owes one report: its stop, or (INTERRUPT failed, it is dying) its exit.
 * One no longer SEIZED owes none: it took a stop of its own (a signal's)
 * while the peeks after its seize served stops (sampler_peek_sample()), and
 * was let go then, or it exited; it is not interrupted nor waited for.
 *
 * Each process's threads are interrupted as soon as they are seized
 * (sampler_stops_interrupt_new(), at the end of seize_proc()), not after
 * every process's: from the seize on, a thread is traced, and a
 * ptrace(PTRACE_TRACEME) it makes fails with EPERM (ptctl.c).  Interrupted,
 * a thread that makes that call stops on its way out of it, where the call
 * is made to run again; not yet interrupted, it returns EPERM to the
 * target.  With the interrupts after every process's seizes (and the
 * --wall peeks), 24 of 3,000 children that called it failed (5 kHz, a
 * busy machine; RELIABILITY case 50).  The stops that land while other
 * processes are seized are served between them (sampler_seize_all()).
 * pause_from is the first interrupt of the tick (the pause's start).
 */
static void interrupt(struct sampler *s, struct thread *th)
{
	th->intr_ns = mono_now_ns();
	if (!s->pause_from)
		s->pause_from = th->intr_ns;
	ptctl_interrupt(th->tid);
	th->proc->im->threads_stopped++;
	s->st->threads_stopped++;
	s->pending++;
}

void sampler_stops_interrupt_new(struct sampler *s, size_t from)
{
	for (size_t i = from; i < s->nactive; i++) {
		struct thread *th = s->active[i];

		if (th->state == TS_SEIZED && !th->intr_ns)
			interrupt(s, th);
	}
}

void sampler_stops_interrupt_all(struct sampler *s)
{
	sampler_stops_interrupt_new(s, 0);
}
