/*
 * sampler.c - the sampling loop (see sampler.h).
 *
 * One tick:  read CPU times (cpuacct.h) and, when due, list /proc/PID/task
 * -> SEIZE each thread that is due and selected -> INTERRUPT them all ->
 * as each stop is reported: capture (registers and a stack copy), DETACH
 * that thread -> after the window, unwind the copies while they run on.  A thread is held
 * only for its own capture, never behind a slower one, never for an
 * unwind.  Between ticks nothing of the target is traced, except a thread
 * whose stop missed its tick (LATE): its stop is still on the way, and it
 * is detached the moment it is reported, during the unwinds too (they
 * serve stops and stop signals between two steps, every millisecond):
 * it cannot be detached before, as PTRACE_DETACH needs a stopped tracee.
 * The process set (roots, descendants, execs, exits) is sampler_procs.c's;
 * the state both files share is in sampler_int.h.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/peek.h"
#include "proc/procfs.h"
#include "proc/proctree.h"
#include "proc/ptctl.h"
#include "proc/reaper.h"
#include "proc/seccomp.h"
#include "profile/procset.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler.h"
#include "sampler/sampler_int.h"
#include "sampler/sysbias.h"
#include "sampler/threadtab.h"
#include "sampler/ticksched.h"
#include "unwind/mapsync.h"
#include "unwind/unwind.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* How long a tick waits for its stops (at most a quarter period); see
 * collect_stops(). */
#define STOP_WINDOW_NS (500 * NSEC_PER_USEC)
/* How long a tick may spin for its stops before it sleeps for them (see
 * collect_stops()). */
#define SPIN_NS (50 * NSEC_PER_USEC)
/* How long the end of a run waits for the stops of LATE threads. */
#define FINAL_LATE_WAIT_NS (500 * NSEC_PER_MSEC)
/* How often a long unwind stops to serve stops and signals (sampler_between_steps). */
#define SERVE_EVERY_NS (1 * NSEC_PER_MSEC)
/* Ticks in a row on which the kernel refused every thread before the run
 * ends with EPERM (the target exec'd a set-uid program, or was attached). */
#define MAX_REFUSED_TICKS 10

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

static int record_stack(struct sampler *s, const struct queued *q);

/*
 * Keep a capture for unwinding once the tick's stops are all in: unwinding
 * between two stops would keep every thread not yet served stopped for
 * it.  The stack is copied straight into a per-tick arena (the capture's
 * buffer points at its free end), so nothing is copied twice while other
 * threads wait: reserve_capture() makes room for one more before the copy,
 * queue_capture() keeps what the copy took.
 */
static int reserve_capture(struct sampler *s)
{
	struct queued *nq = grow_array(s->queue, &s->cap_queued, s->nqueued + 1,
				       sizeof(*nq));

	if (!nq)
		return -1;
	s->queue = nq;
	if (sampler_py_reserve(s))
		return -1;
	s->cap.partial = false; /* a stop's capture, unless a peek says */
	if (s->arena_len + CAPTURE_STACK_MAX > s->arena_cap) {
		size_t n = (s->arena_len + CAPTURE_STACK_MAX) * 2;
		uint8_t *na = realloc(s->arena, n);

		if (!na)
			return -1;
		s->arena = na;
		s->arena_cap = n;
	}
	s->cap.stack = s->arena + s->arena_len;
	return 0;
}

static void queue_capture(struct sampler *s, struct thread *th)
{
	struct queued *q = &s->queue[s->nqueued++];

	q->th = th;
	q->regs = s->cap.regs;
	q->stack_start = s->cap.stack_start;
	q->off = s->arena_len + s->cap.stack_skip;
	q->len = s->cap.stack_len;
	q->kind = capture_stop_kind(&s->cap.regs);
	q->partial = s->cap.partial;
	q->py_off = s->npyf;
	q->py_n = s->py_cur_n;
	q->py_status = s->py_cur_status;
	q->py_ns = s->py_cur_ns;
	s->npyf += s->py_cur_n;
	s->arena_len = q->off + s->cap.stack_len;
}

/* Is p the whole run (a root, and no other process left)?  Then a
 * refusal ends the run as it always did; else p alone is skipped. */
static bool alone(const struct sampler *s, const struct sampler_proc *p)
{
	return p->root && s->nprocs == 1;
}

/* p is never to be sampled (again): say why in its image, let it go at
 * the end of the tick (finish_proc()). */
static void skip_proc(struct sampler *s, struct sampler_proc *p, int err,
		      const char *why)
{
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
 * captures are dropped (sampler_unwind_queued()).  False: p is sampled
 * on, without this thread (mark_unsafe()).
 */
static bool skip_unsafe(struct sampler *s, struct thread *th,
			enum seccomp_verdict v)
{
	struct sampler_proc *p = th->proc;
	char why[160];

	if (p->im->samples || (p->root && s->roots_live < 2))
		return false;
	th->sc_unsafe = true; /* judged: its next stops are defused too */
	if (p->im->skipped)
		return true;
	snprintf(why, sizeof(why), "its seccomp filter (thread %d) %s",
		 (int)th->tid, seccomp_verdict_text(v));
	skip_proc(s, p, EACCES, why);
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
static void guard_seccomp(struct sampler *s, struct thread *th,
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

/* The pause's buckets: 1 us below PAUSE_FINE_US, then 100 us. */
static void count_in(uint32_t *hist, uint64_t ns)
{
	uint64_t us = ns / NSEC_PER_USEC;
	size_t b = us < PAUSE_FINE_US ?
			   us :
			   PAUSE_FINE_US + (us - PAUSE_FINE_US) / 100;

	hist[b < PAUSE_BUCKETS ? b : PAUSE_BUCKETS - 1]++;
}

/* From PTRACE_INTERRUPT to the stop's report (waitpid()), for --stats:
 * how long a stop takes to land, which tells how far from the moment of
 * the tick a sample can be (SYSTEM CALL BIAS in ptprof(1)). */
static void count_stop_latency(struct sampler_stats *st, uint64_t ns)
{
	st->stop_lat_n++;
	if (ns > st->stop_lat_max_ns)
		st->stop_lat_max_ns = ns;
	count_in(st->stop_lat_hist, ns);
}

/* A phase's bucket (sampler.h): ns itself below 2 * PHASE_SUB, else
 * e * PHASE_SUB + (ns >> e), with ns >> e in [PHASE_SUB, 2 * PHASE_SUB). */
static size_t phase_bucket(uint64_t ns)
{
	unsigned e = 0;

	while ((ns >> e) >= 2 * PHASE_SUB)
		e++;
	return e ? e * PHASE_SUB + (size_t)(ns >> e) : (size_t)ns;
}

/* The largest value in bucket b, plus one (ns). */
static uint64_t phase_bucket_top(size_t b)
{
	size_t e = b < 2 * PHASE_SUB ? 0 : b / PHASE_SUB - 1;

	return e ? (uint64_t)(b - e * PHASE_SUB + 1) << e : (uint64_t)b + 1;
}

/* One phase of a thread's stop window (sampler.h, enum sampler_phase). */
static void count_phase_ns(struct sampler_stats *st, enum sampler_phase ph,
			   uint64_t ns)
{
	struct sampler_phase_stat *p = &st->phase[ph];
	size_t b = phase_bucket(ns);

	p->n++;
	p->total_ns += ns;
	if (ns > p->max_ns)
		p->max_ns = ns;
	p->hist[b < PHASE_BUCKETS ? b : PHASE_BUCKETS - 1]++;
}

static void count_phase(struct sampler_stats *st, enum sampler_phase ph,
			uint64_t from, uint64_t to)
{
	count_phase_ns(st, ph, to > from ? to - from : 0);
}

/* The phases of a stop asked for, from the readings note_stop() took
 * (a 0 reading: that step was not taken). */
static void count_phases(struct sampler *s, const struct thread *th,
			 const uint64_t t[5], bool captured, bool py)
{
	struct sampler_stats *st = s->st;
	enum { REAPED, COPIED, PY, GUARDED, DETACHED };

	count_phase(st, SAMPLER_PH_STOP, th->intr_ns, t[REAPED]);
	if (captured) {
		count_phase_ns(st, SAMPLER_PH_REGS, s->cap.regs_ns);
		count_phase_ns(st, SAMPLER_PH_STACK, s->cap.copy_ns);
		st->stack_bytes += s->cap.copied;
		if (s->cap.copied > st->stack_bytes_max)
			st->stack_bytes_max = s->cap.copied;
	}
	if (py)
		count_phase(st, SAMPLER_PH_PY, t[COPIED], t[PY]);
	if (t[GUARDED])
		count_phase(st, SAMPLER_PH_SECCOMP, t[PY], t[GUARDED]);
	count_phase(st, SAMPLER_PH_DETACH, t[GUARDED] ? t[GUARDED] : t[PY],
		    t[DETACHED]);
	count_phase(st, SAMPLER_PH_HELD, t[REAPED], t[DETACHED]);
	count_phase(st, SAMPLER_PH_WINDOW, th->intr_ns, t[DETACHED]);
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
	/* --stats' phases (count_phases()): reaped, captured (registers
	 * and stack: capture.h times them), Python frames read, seccomp
	 * guarded, detached. */
	uint64_t t[5] = { 0 };
	int rc;

	th->pending_sig = sig;
	if (th->state == TS_SEIZED && s->pending)
		s->pending--;
	if (timed) {
		t[0] = mono_now_ns();
		count_stop_latency(s->st, t[0] - th->intr_ns);
	}
	/* During sampler_unwind_queued() the queue and arena are in use: a stop
	 * that comes then is let go uncaptured. */
	if (asked && !s->unwinding && reserve_capture(s) == 0) {
		/* The stack from near its last SP first (capture.h) */
		captured = capture_thread_hint(th->tid, th->proc->im->maps,
					       th->last_sp, &s->cap) == 0;
		th->last_sp = captured ? s->cap.regs.rsp : 0;
		s->st->stack_hint_missed += captured && s->cap.hint_missed;
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
		guard_seccomp(s, th, captured ? &s->cap.regs : NULL);
		if (timed)
			t[3] = mono_now_ns();
	}
	if (th->probe_only)
		captured = false; /* stopped only to judge its filters */
	th->probe_only = false;
	if (captured && th->state == TS_LATE)
		s->st->late_captured++;
	rc = detach(th);
	if (timed) {
		t[4] = mono_now_ns();
		count_phases(s, th, t, captured, py);
	}
	/* A LATE stop let go during the unwinds is no part of the tick's
	 * pause (stop_the_world() measures it before them). */
	if (rc == 0 && asked && !s->unwinding)
		s->last_detach_ns = t[4] ? t[4] : mono_now_ns();
	/* The CPU time and switches this stop made are ours (cpuacct.h) */
	th->cpu.stop_owed = 2; /* the trap and the restart (cpuacct.h) */
	if (captured)
		queue_capture(s, th);
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
static void reap_queued(struct sampler *s)
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
static void collect_stops(struct sampler *s, uint64_t end, uint64_t spin_end)
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
static bool spin_worth(struct sampler *s)
{
	size_t waking = 0;
	int running;

	if (!s->nactive || !s->spin_ns)
		return false;
	for (size_t i = 0; i < s->nactive; i++)
		waking += !s->active[i]->cpu.on_cpu;
	running = procfs_running_tasks(&s->loadavg_fd);
	return running > 0 && (size_t)running + waking <= s->ncpu;
}

/* Append th to the array *v of *n threads (room for *cap). */
static int push_thread(struct thread ***v, size_t *n, size_t *cap,
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
	return push_thread(&s->active, &s->nactive, &s->cap_active, th);
}

/*
 * Another task has the thread's TID, or it exec'd: its stacks stopped in
 * user code are of code that is no more (or another thread's), and its
 * split of user and system time (sysbias.h) is another task's.  Forget
 * them (the correction starts again as for a new thread).
 */
void sampler_forget_user_code(struct thread *th)
{
	th->user_stacks.count = 0;
	th->user_stacks.put = 0;
	th->user_stacks.turn = 0;
	th->bias = (struct sysbias_thread){ 0 };
	th->have_image = false;
}

/*
 * Read a thread's schedstat, once per tick (cpuacct_read()).  Another task
 * under its TID (the counters went backwards) gets its name read afresh
 * too.  A thread whose files could not be kept open (descriptors ran
 * short) is counted once.  -1 if it cannot be read.
 */
static int read_cpu(struct sampler *s, struct thread *th)
{
	int rc = cpuacct_read(&th->cpu, &th->proc->acct, th->tid);

	if (rc > 0) {
		th->name_tick = 0;
		th->name_reads = 0;
		sampler_forget_user_code(th);
	}
	if (th->cpu.unkept && !th->unkept_counted) {
		th->unkept_counted = true;
		s->st->threads_unkept++;
	}
	return rc < 0 ? -1 : 0;
}

/* A thread first listed as one of p's: mark it so.  NULL with EEXIST
 * when the TID is still another process's (that one exited this tick
 * and a new one has the TID already: it is for the next tick). */
static struct thread *proc_thread(struct sampler *s, struct sampler_proc *p,
				  pid_t tid)
{
	struct thread *th = threadtab_get(s->threads, tid, true);

	if (th && !th->proc)
		th->proc = p;
	if (th && th->proc != p) {
		errno = EEXIST;
		return NULL;
	}
	return th;
}

/*
 * At the start of a tick: the process's CPU time, less what the threads
 * read one by one explain, tells whether the quiet threads are read too
 * this tick (a sweep: see cpuacct.c).
 */
static void read_process_cpu(struct sampler *s, struct sampler_proc *p)
{
	bool clock = cpuacct_proc_begin(&p->acct);
	uint64_t explained = 0;

	for (size_t i = 0; i < p->tids.n; i++) {
		struct thread *th = proc_thread(s, p, p->tids.tids[i]);

		if (!th)
			continue;
		cpuacct_new_tick(&th->cpu);
		/* A thread read for the first time has no earlier reading:
		 * what it used so far counts as unexplained. */
		if (clock && cpuacct_tracked(&th->cpu) && read_cpu(s, th) == 0)
			explained += cpuacct_explain(&th->cpu);
	}
	if (cpuacct_proc_end(&p->acct, explained))
		s->st->sweeps++;
	/* Only a process that ran can have forked (proctree.h). */
	if (s->tree && clock &&
	    (!p->acct.have_last || p->acct.now != p->acct.last))
		proctree_ran(s->tree, p->pid);
}

/*
 * CPU mode: the thread's CPU time or state could not be read (errno), so
 * it is not stopped: a guess would stop blocked threads, which may see
 * EINTR (5000 idle threads under `ulimit -n 1024` lost their files to
 * EMFILE, and ~4000 were stopped every tick).  A thread that is gone
 * needs no word; any other is counted once, with the first reason.
 */
static void unreadable(struct sampler *s, struct thread *th)
{
	if (errno == ENOENT || errno == ESRCH || th->unread_counted)
		return;
	th->unread_counted = true;
	if (!s->st->threads_unread++)
		s->st->unread_errno = errno;
}

/*
 * The first tick's probe of a thread under a seccomp filter that would not
 * be stopped this tick (seccomp_preflight()): only if it is running.  A
 * blocked thread stopped may see EINTR (epoll_wait() returns it after any
 * ptrace stop), which a CPU profile never inflicts on a thread that does
 * not run: its filters are judged at its first real stop instead
 * (sc_probe stays set until then).
 */
static bool probe_now(const struct thread *th)
{
	return th->sc_probe && procfs_task_state(th->proc->pid, th->tid) == 'R';
}

/*
 * Is the thread due for a sample (cpuacct_due())?  Asked of every listed
 * thread, selected or not, so that the accounting stays current.  A
 * thread whose schedstat cannot be read is due in --wall mode (which
 * stops the threads that may have run anyway), never in CPU mode.
 */
static bool ran_since_capture(struct sampler *s, struct thread *th)
{
	int due = -1;

	if (cpuacct_resting(&th->cpu, &th->proc->acct))
		return false;
	if (read_cpu(s, th) == 0)
		due = cpuacct_due(&th->cpu, &th->proc->acct, th->tid,
				  s->tick_ns);
	if (due >= 0)
		return due;
	if (s->cfg->wall)
		return true;
	unreadable(s, th);
	return false;
}

/* Add count samples of one stack of th. */
static bool add_samples(struct sampler *s, struct thread *th,
			const uint64_t *pcs, size_t n, uint64_t count)
{
	struct sampler_proc *p = th->proc;
	struct sample_origin from = { .image = p->im,
				      .tid = th->tid,
				      .name = th->name,
				      .time_ns = s->tick_real_ns };

	if ((!s->cfg->tab_pid || s->cfg->tab_pid == p->pid) &&
	    stacktab_add(s->tab, pcs, n, count))
		return false;
	s->st->samples += count;
	p->samples += count;
	p->im->samples += count;
	if (!th->sampled) {
		th->sampled = true;
		s->st->threads_seen++;
	}
	if (s->cfg->on_stack)
		s->cfg->on_stack(s->cfg->on_stack_arg, &from, pcs, n, count);
	return true;
}

/* Record one stack of th, counting for count samples. */
static bool emit(struct sampler *s, struct thread *th, const uint64_t *pcs,
		 size_t n, uint64_t count)
{
	if (!add_samples(s, th, pcs, n, count))
		return false;
	s->st->stacks++;
	th->proc->im->stacks++;
	return true;
}

/* --wall, for a thread that did not run: its last stack, once more. */
static bool repeat_last_stack(struct sampler *s, struct thread *th)
{
	if (!th->last_n || !emit(s, th, th->last_pcs, th->last_n, 1))
		return false;
	s->st->reused_samples++;
	return true;
}

/*
 * Thread names are read (comm, one small file) when a thread is first
 * listed, and again when it is due for a sample and its name is 1, 2, 4,
 * ... ticks old, then a second old: threads name themselves just after
 * they start (pthread_setname_np), and reading every thread's name every
 * tick would cost more than sampling.
 * The selection (-t, --thread-name) is decided on the name as last read.
 */
static bool selected(struct sampler *s, struct thread *th, bool due)
{
	uint64_t per_sec = NSEC_PER_SEC / s->period_ns, every;

	if (!s->cfg->want_names && !s->cfg->select)
		return true;
	/* A new thread is usually named just after it starts: read again
	 * after 1, 2, 4, ... ticks, up to once a second. */
	every = th->name_reads < 20 ? (uint64_t)1 << th->name_reads : per_sec;
	if (every > per_sec)
		every = per_sec ? per_sec : 1;
	if (!th->name_tick || (due && s->tick - th->name_tick >= every)) {
		th->name_reads++;
		if (procfs_comm(th->proc->pid, th->tid, th->name,
				sizeof(th->name)))
			th->name[0] = '\0';
		th->name_tick = s->tick;
		th->selected = !s->cfg->select ||
			       s->cfg->select(s->cfg->select_arg, th->tid,
					      th->name);
	}
	return th->selected;
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
		th->retry_tick = s->tick + NSEC_PER_SEC / s->period_ns;
	}
	errno = EPERM;
	return -1;
}

static int unwind_one(struct sampler *s, const struct queued *q);

/* How often a peek whose reads disagreed (PEEK_CHANGED: the thread ran
 * in between) is made in a row before the thread is stopped instead. */
#define PEEK_TRIES 2

/*
 * One peek of th (peek.h) into the arena, with its Python frames.
 * peek_thread() brackets its stack copy between two readings of the
 * thread's schedstat, and the Python frames (sampler_py_frames(): reads
 * of the target's memory only, no ptrace) come after it: so in a CPython
 * process a wider bracket is taken, schedstat read before the peek and
 * again after the frames.  The same CPU time and run count both times
 * (a switch-in counts a run), with the thread asleep in a call at the
 * peek, say it did not run meanwhile: the frames go with the stack.
 */
static enum peek_result peek_read(struct sampler *s, struct thread *th)
{
	struct sampler_proc *p = th->proc;
	uint64_t cpu0 = 0, runs0 = 0, cpu1, runs1;
	enum peek_result r;

	if (reserve_capture(s))
		return PEEK_FAILED;
	if (p->py && procfs_read_schedstat(p->pid, th->tid, &th->cpu.sched_fd,
					   &cpu0, &runs0))
		return PEEK_FAILED;
	r = peek_thread(p->pid, th->tid, p->im->maps, &th->syscall_fd,
			&th->cpu.sched_fd, &s->cap);
	/* Read without being kept open: descriptors ran short (a thread
	 * gone closes its files too, which is no shortage). */
	if (r != PEEK_FAILED || errno == EMFILE || errno == ENFILE)
		th->cpu.unkept |= th->syscall_fd < 0 || th->cpu.sched_fd < 0;
	if (r != PEEK_OK)
		return r;
	sampler_py_frames(s, th);
	if (!p->py)
		return PEEK_OK;
	if (procfs_read_schedstat(p->pid, th->tid, &th->cpu.sched_fd, &cpu1,
				  &runs1))
		return PEEK_FAILED;
	return cpu1 == cpu0 && runs1 == runs0 ? PEEK_OK : PEEK_CHANGED;
}

/* A peek's outcome, for --stats; errno as the peek or unwind left it. */
static void count_peek(struct sampler_stats *st, enum peek_result r, bool again)
{
	switch (r) {
	case PEEK_OK:
		st->peeked++;
		st->peek_retried += again;
		break;
	case PEEK_RUNNING:
		st->peek_running++;
		break;
	case PEEK_CHANGED:
		st->peek_changed++;
		break;
	case PEEK_FAILED:
		/* A thread that is gone is no failure: its seize says so. */
		if (errno != ESRCH && errno != ENOENT)
			st->peek_failed++;
		break;
	}
}

/*
 * Stops and signals are served (sampler_between_steps()) during the
 * peeks' unwinds as during any: every SERVE_EVERY_NS, a LATE thread
 * stopped meanwhile is let go within that.  (Every 10 ms while the poll
 * slept its 1 us timeout and the timer slack, 60-130 us here; it no longer
 * sleeps: reaper_poll_now().)
 */
static void serve_peeks(struct sampler *s)
{
	sampler_between_steps(s, mono_now_ns());
}

/* What became of a peek (sample_by_peek()). */
enum peek_use {
	PEEK_USED,  /* the thread's stack is recorded: no stop */
	PEEK_LATER, /* it was running: peek again after the others */
	PEEK_STOP,  /* stop it as before */
};

/*
 * --wall (and dump, one --wall tick): a due thread asleep in the kernel
 * is sampled without a stop, which would make its epoll_wait(), futex()
 * with a timeout or read() with SO_RCVTIMEO return EINTR (issue 17).  Its
 * stack is read (peek_read()), unwound at once, and taken off the queue:
 * PEEK_USED, it is not to be stopped this tick (nor owes cpuacct a stop's
 * switches).  PEEK_STOP: stop it as before -- it runs (PEEK_RUNNING), it
 * ran between the reads twice in a row, a read failed, or the unwind
 * needed a register a peek does not have (ENODATA, unwind.h): the stop
 * then gives the stack in full rather than a shorter one.
 *
 * may_wait: a thread that runs or ran between the reads is to be peeked
 * again a little later (PEEK_LATER, peek_deferred()).  One that wakes for
 * a few microseconds at a time (a 10 ms timer) is often caught awake; a
 * stop asked of it then lands, more often than not, after it went back
 * to sleep in its call, which returns EINTR (wall-peek.test saw 3 in 10
 * s from 55 such stops).  again: it was found awake before.
 */
static enum peek_use sample_by_peek(struct sampler *s, struct thread *th,
				    bool may_wait, bool again)
{
	enum peek_result r = PEEK_CHANGED;
	bool was = s->unwinding;
	uint64_t t0 = mono_now_ns();
	const struct queued *q;
	int tries = 0, rc;

	while (r == PEEK_CHANGED && tries++ < PEEK_TRIES)
		r = peek_read(s, th);
	s->st->peek_ns += mono_now_ns() - t0;
	if (may_wait && (r == PEEK_RUNNING || r == PEEK_CHANGED))
		return PEEK_LATER;
	if (r != PEEK_OK) {
		count_peek(s->st, r, false);
		return PEEK_STOP;
	}
	queue_capture(s, th);
	q = &s->queue[s->nqueued - 1];
	s->unwinding = true; /* a LATE stop meanwhile: let go, not queued */
	serve_peeks(s);
	rc = unwind_one(s, q);
	s->unwinding = was;
	/* Its copy is of no more use: off the queue and arena. */
	s->nqueued--;
	s->arena_len = q->off - s->cap.stack_skip;
	s->npyf = q->py_off;
	if (rc == 0) {
		count_peek(s->st, r, again || tries > 1);
		return PEEK_USED;
	}
	if (errno == ECANCELED)
		return PEEK_USED; /* a stop signal: the run ends, stop none */
	if (errno == ENODATA)
		s->st->peek_refused++;
	else
		s->st->peek_failed++;
	return PEEK_STOP;
}

/*
 * How long a tick waits for the threads found awake (PEEK_LATER) to go
 * back to sleep: a fraction of the period.  Nothing of the target is
 * held meanwhile (the threads seized are not interrupted yet); their
 * samples come that much later than the tick's deadline, within its
 * jitter.
 */
#define PEEK_WAIT_NS (1000 * NSEC_PER_USEC)
#define PEEK_NAP_NS (20 * NSEC_PER_USEC)

/*
 * Only a thread that slept most of the time since its last check (it
 * used under half a period of CPU: cpuacct's pending) is waited for: a
 * busy one found running is stopped at once, as it will run on.  One
 * never sampled (the first tick, a dump, a new thread) is waited for
 * too: how it spends its time is not known yet, and a sleeper stopped
 * while awake for a moment sees EINTR more often than not (node's event
 * loop, woken every 10 ms: its first tick's stop was the one EINTR of a
 * 10 s --wall run).  The wait is bounded per tick (peek_deferred()).
 */
static bool may_wait_for(const struct sampler *s, const struct thread *th)
{
	return !th->last_n || th->cpu.pending < s->period_ns / 2;
}

/* A thread to peek again after the process's others (PEEK_LATER). */
static int defer_peek(struct sampler *s, struct thread *th)
{
	return push_thread(&s->deferred, &s->ndeferred, &s->cap_deferred, th);
}

/* Is th, due in --wall mode, to be peeked first?  Not a stop only to
 * judge its seccomp filters (probe_only), nor a thread another tracer
 * held at its last seize (its stops are that tracer's). */
static bool peek_first(const struct sampler *s, const struct thread *th)
{
	return s->cfg->wall && !s->cfg->no_peek && !th->probe_only &&
	       !th->tracer;
}

static int seize_thread(struct sampler *s, struct thread *th, int *eperm);

/* SEIZE one listed thread.  1: seized; 0: skipped (or peeked: its stack
 * taken without a stop, or to be peeked again: defer_peek()); -1: error. */
static int seize_one(struct sampler *s, struct sampler_proc *p, pid_t tid,
		     int *eperm)
{
	struct thread *th = proc_thread(s, p, tid);
	bool due;

	if (!th)
		return errno == EEXIST ? 0 : -1;
	th->seen_tick = s->tick;
	if (th->state == TS_LATE &&
	    procfs_tracer_pid_of(p->pid, tid) != getpid())
		th->state = TS_IDLE; /* exec moved another thread into its TID */
	if (th->state == TS_LATE && s->cfg->wall)
		repeat_last_stack(s, th); /* has not run since: same stack */
	if (th->state != TS_IDLE)
		return 0; /* LATE: still seized, its stop not yet in */
	if (th->tracer && s->tick < th->retry_tick)
		return 0; /* held by another tracer: see seize_refused() */
	if (th->tracer && !th->rebased) {
		/* Its window is over: what it ran while held was not ours
		 * to sample (its carry was dropped); count from now. */
		th->rebased = true;
		if (read_cpu(s, th) == 0)
			cpuacct_rebase(&th->cpu, &p->acct);
	}
	due = ran_since_capture(s, th); /* for every thread: see there */
	if (th->sc_unsafe) {
		/* Its seccomp filters forbid restart_syscall: its CPU time
		 * is not sampled (see guard_seccomp()). */
		cpuacct_drop_carry(&th->cpu, &p->acct);
		return 0;
	}
	if (!selected(s, th, due)) {
		/* Its CPU time is not for this profile, even if its name
		 * is selected later. */
		cpuacct_drop_carry(&th->cpu, &p->acct);
		s->st->threads_unselected++;
		if (!probe_now(th))
			return 0;
		th->probe_only = true;
	} else if (!due && (!s->cfg->wall || repeat_last_stack(s, th))) {
		/* Not probed: at the first tick a thread is due when it
		 * runs (CPU mode) or always (--wall), so this one is
		 * blocked (see probe_now()). */
		s->st->threads_spared++;
		return 0;
	}
	if (peek_first(s, th)) {
		switch (sample_by_peek(s, th, may_wait_for(s, th), false)) {
		case PEEK_USED:
			return 0;
		case PEEK_LATER:
			return defer_peek(s, th);
		case PEEK_STOP:
			break;
		}
	}
	return seize_thread(s, th, eperm);
}

/* SEIZE th, due.  1: seized; 0: gone (or refused: *eperm counts it);
 * -1: error. */
static int seize_thread(struct sampler *s, struct thread *th, int *eperm)
{
	pid_t tid = th->tid;
	int rc;

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

	if (alone(s, p) || tracer <= 0 || tracer == (int)getpid())
		return false;
	procfs_comm(tracer, 0, comm, sizeof(comm));
	snprintf(why, sizeof(why), "it is traced by PID %d (%s)", tracer, comm);
	skip_proc(s, p, EBUSY, why);
	/* Said of the process as a whole, not thread by thread. */
	s->st->foreign_traced -= p->held_threads;
	return true;
}

/*
 * Nothing of p could be seized: exited, or refused?  A process that is the
 * whole run ends it with -1 (EPERM): at the first tick nothing was
 * touched; later, it has become untraceable (a set-uid exec, another
 * tracer) and would be sampled never.  One of several is skipped instead,
 * and the run goes on (seize_all() fails only when none is left that
 * was ever sampled).
 */
static int nothing_seized(struct sampler *s, struct sampler_proc *p, int eperm)
{
	/* With several processes poll_exits() polled every pidfd at the
	 * start of the tick: an idle one costs no second poll (one each was
	 * a sixth of ptprof's CPU time with 100 idle processes).  A refusal
	 * is checked against an exit all the same (exiting threads refuse). */
	if ((eperm || s->nprocs == 1) && sampler_procs_exited(p)) {
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
		if (!alone(s, p)) {
			skip_proc(s, p, EPERM,
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

	if (p->tids.n == 0 || age % (NSEC_PER_SEC / s->period_ns) == 0)
		return true;
	if (!s->cfg->wall && p->acct.have_last)
		return p->acct.sweep;
	n = procfs_num_threads(p->pid, &p->stat_fd);
	return n < 0 || (size_t)n != p->tids.n || age % 8 == 0;
}

/*
 * The first tick of a process: every thread under a seccomp filter
 * (Seccomp: 2) is marked to have its filters judged in its next stop
 * (guard_seccomp()): this tick's for one that is due or running
 * (probe_now()), a later one for a blocked one.  Without the right to
 * read filters nothing is stopped at all: the run fails (see sampler.h)
 * when it is the run's first tick; a process found later is skipped.
 */
static int seccomp_preflight(struct sampler *s, struct sampler_proc *p)
{
	int mode, nf;

	for (size_t i = 0; i < p->tids.n; i++) {
		pid_t tid = p->tids.tids[i];
		struct thread *th;

		if (seccomp_thread_mode(p->pid, tid, &mode, &nf) || mode != 2)
			continue;
		if (!s->sc_can_read && !p->root) {
			skip_proc(s, p, EACCES,
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
		th = proc_thread(s, p, tid);
		if (th)
			th->sc_probe = true;
		else if (errno != EEXIST)
			return -1;
	}
	return 0;
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
	if (alone(s, p) || errno == ENOMEM)
		return -1;
	snprintf(why, sizeof(why), "its threads could not be listed: %s",
		 strerror(errno));
	skip_proc(s, p, errno, why);
	return 0;
}

/*
 * The threads of a process found awake at their peek (defer_peek()):
 * peeked again after the others, then every PEEK_NAP_NS, PEEK_WAIT_NS
 * (a fraction of the period) at most; those still awake then, seized.
 */
static int peek_deferred(struct sampler *s, int *eperm)
{
	uint64_t wait = s->period_ns / 8 < PEEK_WAIT_NS ? s->period_ns / 8 :
							  PEEK_WAIT_NS;
	uint64_t until = mono_now_ns() + wait;
	size_t n = s->ndeferred;

	while (n) {
		bool last = mono_now_ns() >= until;
		size_t keep = 0;

		for (size_t i = 0; i < n; i++) {
			struct thread *th = s->deferred[i];

			switch (sample_by_peek(s, th, !last, true)) {
			case PEEK_USED:
				break;
			case PEEK_LATER:
				s->deferred[keep++] = th;
				break;
			case PEEK_STOP:
				if (seize_thread(s, th, eperm) < 0)
					return -1;
				break;
			}
		}
		n = keep;
		if (n)
			nanosleep(&(struct timespec){ 0, PEEK_NAP_NS }, NULL);
	}
	s->ndeferred = 0;
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
	read_process_cpu(s, p);
	if (list_threads(s, p) || p->gone)
		return p->gone ? 0 : -1;
	if (p->first_tick == s->tick && !s->cfg->unsafe_seccomp &&
	    seccomp_preflight(s, p))
		return -1;
	s->ndeferred = 0;
	for (size_t i = 0; i < p->tids.n && !p->gone; i++)
		if (seize_one(s, p, p->tids.tids[i], &eperm) < 0)
			return -1;
	if (peek_deferred(s, &eperm))
		return -1;
	/* Threads peeked (sample_by_peek()) were sampled without a seize. */
	if (s->nactive == before && s->st->peeked == peeked)
		return nothing_seized(s, p, eperm);
	p->refused_ticks = 0;
	s->sampled_any = true;
	return 0;
}

static int seize_all(struct sampler *s)
{
	s->nactive = 0;
	s->seizing = true; /* until mark_late() (holds_seized()) */
	for (size_t i = 0; i < s->nprocs; i++)
		if (!s->procs[i]->gone && seize_proc(s, s->procs[i]))
			return -1;
	return 0;
}

/*
 * Interrupt all before waiting for any: the threads stop in parallel, and
 * the pause is one stop latency, not the sum of them.  Every seized thread
 * owes one report: its stop, or (INTERRUPT failed, it is dying) its exit.
 * One no longer SEIZED owes none: it took a stop of its own (a signal's)
 * while the peeks after its seize served stops (sample_by_peek()), and
 * was let go then, or it exited; it is not interrupted nor waited for.
 */
static void interrupt_all(struct sampler *s)
{
	s->pending = 0;
	for (size_t i = 0; i < s->nactive; i++) {
		struct thread *th = s->active[i];

		if (th->state != TS_SEIZED)
			continue;
		th->intr_ns = mono_now_ns();
		ptctl_interrupt(th->tid);
		th->proc->im->threads_stopped++;
		s->pending++;
	}
	s->st->threads_stopped += s->pending;
}

/* Keep a copy of a stack in *keep (*keep_n frames). */
static void keep_stack(uint64_t **keep, size_t *keep_n, const uint64_t *pcs,
		       size_t n)
{
	uint64_t *p = realloc(*keep, n * sizeof(*pcs));

	if (!p)
		return; /* then the older one stays: no harm */
	memcpy(p, pcs, n * sizeof(*pcs));
	*keep = p;
	*keep_n = n;
}

/* Remember a thread's stack: for --wall ticks on which it does not run,
 * and for what is left of its carry at the end of a CPU profile. */
static void keep_last_stack(struct thread *th, const uint64_t *pcs, size_t n)
{
	keep_stack(&th->last_pcs, &th->last_n, pcs, n);
}

/* Unwind the capture in s->view, and time it (wall time: an unwind makes
 * no system call in steady state, so that is its CPU time unless ptprof
 * was preempted, which the median of --stats sees through). */
static int unwind_captured(struct sampler *s, struct sampler_proc *p)
{
	uint64_t t0 = mono_now_ns(), us;
	int n = unwinder_unwind(p->unw, &s->view, s->pcs,
				(int)stacktab_max_depth(s->tab));

	us = (mono_now_ns() - t0) / NSEC_PER_USEC;
	s->st->unwind_hist[us < UNWIND_BUCKETS ? us : UNWIND_BUCKETS - 1]++;
	return n;
}

static bool take_signal(struct sampler *s);

/*
 * The unwinder's hook, between two steps: every SERVE_EVERY_NS of
 * unwinding, let go of the threads whose stops came meanwhile (a LATE
 * thread stopped now must not wait for the unwinds: it would stay in
 * "t", traced, as long as they last) and take a stop signal (SIGINT must
 * end the run however long the unwinds).  True ends the unwind.
 */
bool sampler_between_steps(void *arg, uint64_t now)
{
	struct sampler *s = arg;
	int ready;

	if (s->stopping || now < s->serve_at)
		return s->stopping;
	s->serve_at = now + SERVE_EVERY_NS;
	/* A poll that does not sleep: one with a deadline 1 us away slept
	 * 0.1-1.5 ms here (timer slack, a wake-up), which made a dump of
	 * 200 sleeping threads, served every 10 ms, spend half its time in
	 * it. */
	ready = reaper_poll_now(s->sigfd, -1);
	if (ready & REAPER_REPORTS)
		reap_queued(s);
	if ((ready & REAPER_SIGNAL) && take_signal(s))
		s->stopping = true;
	return s->stopping;
}

/*
 * Unwind one queued capture and record its stack (record_stack(): 0, or
 * -1 with errno).  The caller has set s->unwinding: a stop that comes
 * meanwhile (sampler_between_steps()) is let go uncaptured, and the queue
 * and arena stay as they are.
 */
static int unwind_one(struct sampler *s, const struct queued *q)
{
	if (q->th->proc->im->skipped) {
		errno = ESRCH; /* a probe of a process skipped since */
		return -1;
	}
	if (q->th->proc->exe_tick != s->tick)
		sampler_procs_check_exec(s, q->th->proc);
	s->view.tid = q->th->tid;
	s->view.regs = q->regs;
	s->view.stack_start = q->stack_start;
	s->view.stack_len = q->len;
	s->view.stack = q->len ? s->arena + q->off : NULL;
	s->view.stack_skip = 0; /* q->off is the stack pointer's byte */
	s->view.partial = q->partial;
	return record_stack(s, q);
}

/*
 * After the tick's stop window: unwind every queued capture.  Every
 * thread captured is already detached; a LATE one is still seized and
 * may stop meanwhile: sampler_between_steps() lets it go.  Once a stop signal
 * came the rest are dropped (a stack cut short by it would be wrong).
 */
void sampler_unwind_queued(struct sampler *s)
{
	s->unwinding = true;
	s->serve_at = mono_now_ns() + SERVE_EVERY_NS;
	for (size_t i = 0; i < s->nqueued && !s->stopping; i++)
		unwind_one(s, &s->queue[i]);
	s->nqueued = 0;
	s->arena_len = 0;
	s->npyf = 0;
	s->unwinding = false;
}

/* Keep a stack in the ring, over its oldest. */
static void ring_put(struct stack_ring *r, const uint64_t *pcs, size_t n)
{
	keep_stack(&r->pcs[r->put], &r->n[r->put], pcs, n);
	if (!r->pcs[r->put])
		return;
	r->put = (r->put + 1) % STACK_RING;
	if (r->count < STACK_RING)
		r->count++;
}

/* count samples spread one by one over the stacks of the ring. */
static bool ring_add(struct sampler *s, struct thread *th, struct stack_ring *r,
		     uint64_t count)
{
	for (; count; count--) {
		unsigned i = r->turn++ % r->count;

		if (!add_samples(s, th, r->pcs[i], r->n[i], 1))
			return false;
	}
	return true;
}

/*
 * CPU mode: the system call bias correction (sysbias.h, ptprof(1) SYSTEM
 * CALL BIAS), after the release: one pread of the stat file kept open
 * for the thread's state gives its utime and stime.  A stop at a call's
 * exit keeps the part sysbias_split() leaves it; the rest goes to the
 * thread's last stacks stopped in user code (a few, not one: when most
 * stops land at calls' exits, the rare stop in user code would take all
 * the user time until the next), or, with none yet, to its own stack
 * without the leaf (the call's wrapper): the caller that made the call,
 * where the time before the call was spent (samples_moved counts what
 * went elsewhere: a stack of one PC keeps it).  A stop anywhere else
 * keeps all its samples; only stops in user code go into the ring (not
 * one in a call that it cut short, which restarts: capture.c).
 */
static bool emit_split(struct sampler *s, struct thread *th,
		       const uint64_t *pcs, size_t n, uint64_t count,
		       enum sysbias_stop kind)
{
	struct sysbias_parts parts;
	uint64_t ut = 0, stime = 0, image = 0;
	bool read = procfs_read_task_times(th->proc->pid, th->tid,
					   &th->cpu.stat_fd, &ut, &stime,
					   &image) == 0;
	struct stack_ring *user = &th->user_stacks;

	/* Another task under the TID whose schedstat went forwards, or the
	 * thread exec'd (the leader's own exec: same TID, same counters). */
	if (read && th->have_image && image != th->image)
		sampler_forget_user_code(th);
	if (read) {
		th->image = image;
		th->have_image = true;
	}
	sysbias_split(&th->bias, s->period_ns, count, kind, read, ut, stime,
		      &parts);
	if (parts.here && !add_samples(s, th, pcs, n, parts.here))
		return false;
	if (kind == SYSBIAS_USER)
		ring_put(user, pcs, n);
	if (!parts.other) /* always so for a stop not at a call's exit */
		return true;
	switch (sysbias_dest(user->count, n)) {
	case SYSBIAS_TO_USER:
		s->st->samples_moved += parts.other;
		return ring_add(s, th, user, parts.other);
	case SYSBIAS_TO_CALLER:
		s->st->samples_moved += parts.other;
		s->st->samples_to_caller += parts.other;
		return add_samples(s, th, pcs + 1, n - 1, parts.other);
	default: /* one PC: nowhere else to go, not moved */
		return add_samples(s, th, pcs, n, parts.other);
	}
}

/*
 * A stack whose stop came at a system call's exit is counted as such
 * (sampler_stats.samples_at_syscall).  The registers said so, or that
 * the stop cut a call short (stop, capture_stop_kind()); the instruction
 * before the PC confirms it (a page fault leaves the same registers),
 * read now that the thread runs again.  0 when the stack was recorded
 * (or, worth no sample now, kept: CPU mode), else -1 with errno:
 * ENODATA, the unwinder refused a partial capture (a peek's, unwind.h);
 * ECANCELED, a stop signal came; ENOENT, no frame; ENOMEM.
 */
static int record_stack(struct sampler *s, const struct queued *q)
{
	struct thread *th = q->th;
	enum capture_stop stop = q->kind;
	struct sampler_proc *p = th->proc;
	int n = unwind_captured(s, p), err = errno;
	const uint64_t *pcs = s->pcs;
	size_t merged;
	bool py_unread;
	enum sysbias_stop kind = SYSBIAS_USER;
	uint64_t count;
	bool ok = true;

	/* A PC in no known mapping: a library was loaded since the maps were
	 * last read (right after exec, libc is not there yet), and the chain
	 * may have stopped for want of its unwind table.  Read the maps (the
	 * thread is already released) and, if they changed, unwind again. */
	if (!s->stopping &&
	    mapsync_catch_up(&p->mapsync, s->pcs, n, p->live_tid)) {
		n = unwind_captured(s, p);
		err = errno;
	}
	if (n <= 0 || s->stopping) {
		errno = s->stopping ? ECANCELED : n < 0 ? err : ENOENT;
		return -1;
	}
	/* Its Python frames in place of the eval loop's (sampler_py.c). */
	sampler_py_ready(s, p);
	merged = sampler_py_merge(s, q, s->pcs, (size_t)n, &py_unread);
	if (merged) {
		pcs = s->mpcs;
		n = (int)merged;
	}
	count = cpuacct_weight(&th->cpu, &p->acct);
	/* (--wall needs to know only the exits, for --stats.) */
	if ((stop == CAPTURE_AT_EXIT ||
	     (stop == CAPTURE_IN_CALL && !s->cfg->wall)) &&
	    unwinder_after_syscall(p->unw, &s->view))
		kind = stop == CAPTURE_AT_EXIT ? SYSBIAS_EXIT : SYSBIAS_IN_CALL;
	if (kind == SYSBIAS_EXIT) {
		s->st->stacks_at_syscall++;
		s->st->samples_at_syscall += count;
	}
	/* A stack worth no period now (cpuacct_weight()) is still kept: the
	 * end of a CPU profile gives it what is left of the carry. */
	if (count && s->cfg->wall)
		ok = emit(s, th, pcs, (size_t)n, count);
	else if (count && (ok = emit_split(s, th, pcs, (size_t)n, count, kind)))
		s->st->stacks++;
	if (!ok) {
		errno = ENOMEM;
		return -1;
	}
	p->live_tid = th->tid;
	/* --wall counts it again when the thread did not run; CPU mode
	 * gives it what is left of the thread's carry at the end. */
	if (s->cfg->wall && py_unread) {
		/* Python code whose frames were not read (sampler_py.c): a
		 * blocked thread would have this stack counted again and
		 * again; without a last stack it is stopped at the next tick
		 * instead, its frames read then. */
		free(th->last_pcs);
		th->last_pcs = NULL;
		th->last_n = 0;
		return 0;
	}
	keep_last_stack(th, pcs, (size_t)n);
	return 0;
}

/* Past the tick's deadline: whoever has not stopped yet is LATE. */
static void mark_late(struct sampler *s)
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
		/* Its carry is not lost with it (settle_all()). */
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
	th = proc_thread(s, p, pid);
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

static void count_pause(struct sampler_stats *st, uint64_t ns)
{
	st->ticks++;
	st->pause_total_ns += ns;
	if (ns > st->pause_max_ns)
		st->pause_max_ns = ns;
	count_in(st->pause_hist, ns);
}

unsigned sampler_unwind_quantile(const struct sampler_stats *st, double q)
{
	uint64_t n = 0, seen = 0, want;

	for (size_t b = 0; b < UNWIND_BUCKETS; b++)
		n += st->unwind_hist[b];
	if (!n)
		return 0;
	want = (uint64_t)(q * (double)n + 0.5);
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < UNWIND_BUCKETS; b++) {
		seen += st->unwind_hist[b];
		if (seen >= want)
			return (unsigned)b + 1;
	}
	return UNWIND_BUCKETS;
}

/* The q-quantile of n values counted in hist (the pause's buckets):
 * the bucket's upper bound, at most max_ns. */
static uint64_t hist_quantile(const uint32_t *hist, uint64_t n, uint64_t max_ns,
			      double q)
{
	uint64_t want = (uint64_t)(q * (double)n + 0.5), seen = 0;

	if (!n)
		return 0;
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < PAUSE_BUCKETS; b++) {
		uint64_t hi_us = b < PAUSE_FINE_US ?
					 b + 1 :
					 PAUSE_FINE_US +
						 (b - PAUSE_FINE_US + 1) * 100;

		seen += hist[b];
		if (seen >= want)
			return hi_us * NSEC_PER_USEC < max_ns ?
				       hi_us * NSEC_PER_USEC :
				       max_ns;
	}
	return max_ns;
}

uint64_t sampler_pause_quantile(const struct sampler_stats *st, double q)
{
	return hist_quantile(st->pause_hist, st->ticks, st->pause_max_ns, q);
}

uint64_t sampler_phase_quantile(const struct sampler_stats *st,
				enum sampler_phase ph, double q)
{
	const struct sampler_phase_stat *p = &st->phase[ph];
	uint64_t want = (uint64_t)(q * (double)p->n + 0.5), seen = 0;

	if (!p->n)
		return 0;
	if (want < 1)
		want = 1;
	for (size_t b = 0; b < PHASE_BUCKETS - 1; b++) {
		seen += p->hist[b];
		if (seen >= want)
			return phase_bucket_top(b) < p->max_ns ?
				       phase_bucket_top(b) :
				       p->max_ns;
	}
	return p->max_ns;
}

uint64_t sampler_stop_quantile(const struct sampler_stats *st, double q)
{
	return hist_quantile(st->stop_lat_hist, st->stop_lat_n,
			     st->stop_lat_max_ns, q);
}

/*
 * Interrupt, then sample and release each thread as its stop comes.  The
 * pause is from the first PTRACE_INTERRUPT to the last detach of a thread
 * sampled this tick (0 if none stopped): how long the target was held.
 */
static uint64_t stop_the_world(struct sampler *s)
{
	bool spin = spin_worth(s);
	uint64_t t0, window = STOP_WINDOW_NS;

	/* Warm the copies to come, while the threads still run
	 * (capture.h). */
	for (size_t i = 0; i < s->nactive; i++)
		if (s->active[i]->last_sp)
			capture_warm(s->active[i]->tid, s->active[i]->last_sp);
	t0 = mono_now_ns();
	if (window > s->period_ns / 4)
		window = s->period_ns / 4;
	s->last_detach_ns = 0;
	s->st->stops_spun += spin;
	interrupt_all(s);
	collect_stops(s, t0 + window, spin ? t0 + s->spin_ns : 0);
	mark_late(s);
	s->seizing = false;
	sampler_unwind_queued(s);
	return s->last_detach_ns > t0 ? s->last_detach_ns - t0 : 0;
}

static void release_late(struct sampler *s);

static void count_late_probe(struct thread *th, void *arg)
{
	*(size_t *)arg += th->sc_probe && th->state == TS_LATE;
}

/* Threads stopped at the first tick to judge their filters whose stop
 * has not come yet. */
static size_t probes_late(struct sampler *s)
{
	size_t n = 0;

	threadtab_foreach(s->threads, count_late_probe, &n);
	return n;
}

/* Has the run nothing left to sample: every process of the set skipped
 * before one was sampled?  Then it fails as one refused process did. */
static int check_refused_all(struct sampler *s)
{
	if (s->nprocs || s->sampled_any || !s->st->procs_skipped)
		return 0;
	errno = EPERM;
	return -1;
}

static int tick(struct sampler *s)
{
	uint64_t pause;

	s->tick++;
	s->tick_ns = mono_now_ns();
	s->tick_real_ns = real_now_ns();
	if (sampler_procs_watch(s))
		return -1;
	if (s->target_gone)
		return check_refused_all(s);
	if (seize_all(s)) {
		int err = errno;

		stop_the_world(s); /* release whatever was seized */
		errno = err;
		return -1;
	}
	if (!s->nactive && !sampler_procs_roots_left(s)) {
		sampler_procs_finish_gone(s);
		return 0; /* no tick: nothing was there to sample */
	}
	pause = stop_the_world(s);
	count_pause(s->st, pause);
	/* The first tick decides on the whole target: a probe that missed
	 * the window (a busy machine) is waited for, as at the end. */
	if (s->tick == 1 && probes_late(s))
		release_late(s);
	if (s->tick == 1 && s->st->seccomp_unsafe) {
		/* Refused at the start: nothing is sampled (sampler.h). */
		s->st->seccomp_refused = true;
		errno = EACCES;
		return -1;
	}
	threadtab_sweep(s->threads, drop_vanished, s);
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i]->late_vanished)
			reclaim_leader(s, s->procs[i]);
	sampler_procs_finish_gone(s);
	return check_refused_all(s);
}

static void count_late(struct thread *th, void *arg)
{
	size_t *n = arg;

	*n += th->state == TS_LATE;
}

/* Release the LATE threads whose stops come within FINAL_LATE_WAIT_NS. */
static void release_late(struct sampler *s)
{
	uint64_t deadline = mono_now_ns() + FINAL_LATE_WAIT_NS;

	for (;;) {
		size_t late = 0;
		uint64_t now;

		reap_queued(s);
		threadtab_foreach(s->threads, count_late, &late);
		now = mono_now_ns();
		if (!late || now >= deadline)
			return;
		reaper_poll(-1, -1, deadline);
	}
}

/*
 * ptprof suspended (Ctrl-Z) in the middle of a tick would leave target
 * threads stopped for as long as it stays suspended.  So SIGTSTP is
 * blocked with the rest and taken here, between ticks: release what can
 * be released, then stop for real.  (SIGSTOP cannot be blocked: a ptprof
 * SIGSTOPped inside a tick holds those threads until SIGCONT.)
 */
static void suspend_self(struct sampler *s)
{
	release_late(s);
	raise(SIGSTOP);
}

/*
 * Threads seized this tick and not stopped yet?  The peeks' unwinds serve
 * signals (sample_by_peek()) while the threads due before them are
 * seized: suspended then, ptprof would keep them traced, and a signal
 * sent to one would hold it in its signal-delivery-stop until ptprof
 * resumed.
 */
static bool holds_seized(const struct sampler *s)
{
	/* Between ticks s->active may name threads freed since (the sweep) */
	if (!s->seizing)
		return false;
	for (size_t i = 0; i < s->nactive; i++)
		if (s->active[i]->state == TS_SEIZED)
			return true;
	return false;
}

/*
 * Read one pending signal from the signal fd, if any (never blocks):
 * SIGTSTP suspends ptprof (after the tick, when threads are seized:
 * holds_seized()); a stop signal is recorded and returns true.
 */
static bool take_signal(struct sampler *s)
{
	struct signalfd_siginfo si;

	if (read(s->sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return false;
	if (si.ssi_signo == SIGTSTP) {
		if (holds_seized(s))
			s->suspend_owed = true;
		else
			suspend_self(s);
		return false;
	}
	s->st->end_signal = (int)si.ssi_signo;
	s->st->end_signal_code = si.ssi_code;
	return true;
}

/*
 * Sleep until deadline, serving waitpid() reports (late stops, the child's
 * exit) and SIGTSTP as they come.  Returns true when one of the stop signals arrived.
 */
static bool wait_until(struct sampler *s, uint64_t deadline)
{
	for (;;) {
		/* One process: its exit ends the wait (several: the next
		 * tick polls them all, poll_exits()). */
		struct sampler_proc *one = s->nprocs == 1 ? s->procs[0] : NULL;
		int ready;

		reap_queued(s);
		sampler_unwind_queued(s); /* LATE captures: nothing is held */
		if (s->stopping)
			return true;
		if (mono_now_ns() >= deadline || s->target_gone)
			return false;
		ready = reaper_poll(s->sigfd, one ? one->pidfd : -1, deadline);
		if ((ready & REAPER_PIDFD) && sampler_procs_exited(one)) {
			one->gone = true;
			sampler_procs_finish_gone(s);
		}
		if ((ready & REAPER_SIGNAL) && take_signal(s))
			return true;
	}
}

/*
 * The CPUs ptprof may run on (spin_worth()): its affinity mask (taskset,
 * a cpuset cgroup), at most the CPUs online.  A spin on a CPU that a
 * target thread shares with ptprof delays that thread's stop by the
 * whole spin, though the machine has other CPUs idle.
 */
static size_t cpus_usable(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = online > 0 ? (size_t)online : 1;
	cpu_set_t set;
	int mine;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		mine = CPU_COUNT(&set);
		if (mine > 0 && (size_t)mine < n)
			n = (size_t)mine;
	}
	return n;
}

static int setup(struct sampler *s, const struct sampler_config *cfg,
		 struct stacktab *tab, struct procset *ps,
		 struct sampler_stats *st)
{
	memset(s, 0, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->loadavg_fd = -1;
	/* CPU mode reads each thread's on-CPU time from its schedstat, which
	 * a kernel built without CONFIG_SCHED_INFO does not have: every read
	 * would fail with ENOENT, which means "thread gone" anywhere else,
	 * and the run would sample nothing and say nothing.  Refuse it. */
	if (!cfg->wall && access("/proc/thread-self/schedstat", F_OK) &&
	    errno == ENOENT) {
		errno = ENOTSUP;
		return -1;
	}
	s->cfg = cfg;
	s->tab = tab;
	s->ps = ps;
	s->st = st;
	s->period_ns = NSEC_PER_SEC / (cfg->hz ? cfg->hz : 100);
	s->ncpu = cpus_usable();
	s->spin_ns = SPIN_NS;
	s->sc_can_read = !cfg->unsafe_seccomp && seccomp_can_read();
	s->waitset = *cfg->stop_signals;
	sigaddset(&s->waitset, SIGTSTP);
	s->sigfd = signalfd(-1, &s->waitset, SFD_CLOEXEC | SFD_NONBLOCK);
	s->threads = threadtab_new();
	s->pcs = calloc(stacktab_max_depth(tab), sizeof(*s->pcs));
	if (!s->threads || !s->pcs || s->sigfd < 0 || reaper_start())
		return -1;
	return sampler_procs_add_roots(s);
}

static void teardown(struct sampler *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		sampler_procs_free(s, s->procs[i]);
	free(s->procs);
	free(s->pfds);
	if (s->tree) {
		proctree_counters(s->tree, &s->st->tree);
		proctree_free(s->tree);
	}
	threadtab_free(s->threads);
	free(s->queue);
	free(s->arena);
	free(s->pyf);
	free(s->mrefs);
	free(s->mpcs);
	free(s->active);
	free(s->deferred);
	free(s->pcs);
	if (s->sigfd > 0)
		close(s->sigfd);
	if (s->loadavg_fd >= 0)
		close(s->loadavg_fd);
}

/*
 * After a tick: the caller's progress hook, which may block (a progress
 * line or ptprof top's table written to a terminal or pipe nobody reads,
 * a file written on a slow disk).  A LATE thread (interrupted, its stop
 * not in yet) would sit in that stop for as long as the hook blocks, so
 * the hook waits for a tick after which no stop is owed, up to
 * PROGRESS_DEFER_NS; then the LATE stops are waited for as at the end of
 * a run (release_late(): one in D state may never come) and the hook
 * runs anyway.
 */
#define PROGRESS_DEFER_NS NSEC_PER_SEC

static void report_progress(struct sampler *s, uint64_t start)
{
	uint64_t now = mono_now_ns();
	size_t late = 0;

	if (!s->cfg->progress || now - s->progress_at < s->cfg->progress_ns)
		return;
	reap_queued(s);
	threadtab_foreach(s->threads, count_late, &late);
	if (late) {
		s->st->progress_deferred++;
		if (now - s->progress_at <
		    s->cfg->progress_ns + PROGRESS_DEFER_NS)
			return;
		release_late(s);
		now = mono_now_ns();
	}
	s->progress_at = now;
	s->st->elapsed_ns = now - start;
	s->cfg->progress(s->cfg->progress_arg, s->st);
}

/* Run ticks on absolute, jittered deadlines (ticksched.h) until something
 * ends the run. */
static int run_loop(struct sampler *s, uint64_t start)
{
	uint64_t end = s->cfg->duration_ns ? start + s->cfg->duration_ns : 0;
	struct ticksched sched;
	bool ticked = false;

	ticksched_init(&sched, start, s->period_ns, ticksched_seed());
	for (;;) {
		uint64_t now = mono_now_ns(), next = ticksched_next(&sched);

		if (s->target_gone) {
			s->st->end = SAMPLER_END_TARGET_EXITED;
			return 0;
		}
		/* The first tick is always taken, however short the duration
		 * and however long the start (reading the maps) took. */
		/* The deadlines passed since the last tick, up to the end,
		 * are missed too (ticksched_missed()). */
		if (end && now >= end && ticked) {
			s->st->missed_ticks += ticksched_missed(&sched, end);
			s->st->end = SAMPLER_END_DURATION;
			return 0;
		}
		if (now < next) {
			if (wait_until(s, end && end < next ? end : next)) {
				s->st->end = SAMPLER_END_SIGNAL;
				return 0;
			}
			continue;
		}
		/* Behind schedule there is no sleep between ticks to take
		 * signals in: look for one before each late tick. */
		if (now - next >= s->period_ns && take_signal(s)) {
			s->st->missed_ticks += ticksched_missed(&sched, now);
			s->st->end = SAMPLER_END_SIGNAL;
			return 0;
		}
		/* A late tick is taken once; the deadlines it overran are
		 * counted as missed, never caught up in a burst. */
		s->st->missed_ticks += ticksched_take(&sched, now);
		if (tick(s))
			return -1;
		ticked = true;
		if (s->stopping) { /* a stop signal came during the unwinds */
			s->st->missed_ticks += ticksched_missed(&sched,
								mono_now_ns());
			s->st->end = SAMPLER_END_SIGNAL;
			return 0;
		}
		if (s->suspend_owed) { /* SIGTSTP came mid-tick */
			s->suspend_owed = false;
			suspend_self(s);
		}
		if (s->cfg->spill &&
		    stacktab_distinct(s->tab) >= s->cfg->spill_at &&
		    s->cfg->spill(s->cfg->spill_arg))
			return -1;
		report_progress(s, start);
	}
}

/* The settling of one process's CPU time (sampler_settle_proc()). */
struct settling {
	struct sampler *s;
	struct sampler_proc *p;
	int64_t budget, resid;
	size_t pool_stacks; /* threads with a stack taken for the pool */
	int64_t share;	    /* ... the budget each gets in the 2nd pass */
};

/* At the end of a CPU profile: each thread's time since its last check. */
static void final_read(struct thread *th, void *arg)
{
	struct settling *z = arg;
	struct sampler *s = z->s;

	if (th->proc != z->p || th->state == TS_GONE || !th->cpu.have_cpu)
		return;
	cpuacct_new_tick(&th->cpu);
	if (read_cpu(s, th) == 0)
		cpuacct_catch_up(&th->cpu, &z->p->acct);
	/* Not for this profile: see seize_one(). */
	if (th->sc_unsafe || th->tracer || (s->cfg->select && !th->selected))
		cpuacct_drop_carry(&th->cpu, &z->p->acct);
}

static void settle_one(struct thread *th, void *arg)
{
	struct settling *z = arg;
	uint64_t w;

	if (th->proc != z->p || !th->last_n || th->cpu.carry <= 0)
		return;
	w = cpuacct_settle(&th->cpu, &z->p->acct, &z->budget, &z->resid);
	if (w && emit(z->s, th, th->last_pcs, th->last_n, w))
		z->s->st->settled_samples += w;
}

static void count_pool_stack(struct thread *th, void *arg)
{
	struct settling *z = arg;

	z->pool_stacks += th->proc == z->p && th->last_n && th->cpu.pool_stack;
}

/* The second pass: a share of what is left to each stack taken for the
 * pool (see sampler_settle_proc()). */
static void settle_pool(struct thread *th, void *arg)
{
	struct settling *z = arg;
	int64_t take = z->share < z->budget ? z->share : z->budget;
	uint64_t w;

	if (th->proc != z->p || !th->last_n || !th->cpu.pool_stack || take <= 0)
		return;
	z->budget -= take;
	w = cpuacct_periods(&z->p->acct, take, &z->resid);
	if (w && emit(z->s, th, th->last_pcs, th->last_n, w))
		z->s->st->settled_samples += w;
}

/*
 * The end of a process in a CPU profile (it exited, or the run ends): the
 * CPU time read but not yet in a sample (a carry under half a period, a
 * running thread's last periods) goes to its thread's last stack, so
 * that samples x period add up to the CPU time the threads used.  Threads
 * borrow (cpuacct.h), so what is given is the net sum of all carries, not
 * each positive one: a thread that borrowed was counted ahead with
 * another's time.  What is left then has no stack of its own: the time
 * of threads never caught running, of threads that exited or were first
 * read after they ran (the process clock tells).  It is shared among the
 * stacks taken for the small carries (cpuacct.h), which sampled such
 * threads as they ran; without any, it is counted in unsampled_ns, and
 * never hidden.  final_read: the process lives, read its threads once
 * more.
 */
void sampler_settle_proc(struct sampler *s, struct sampler_proc *p,
			 bool final_read_too)
{
	struct settling z = { .s = s, .p = p };
	int64_t gap;

	if (s->cfg->wall || p->im->skipped)
		return;
	if (final_read_too)
		threadtab_foreach(s->threads, final_read, &z);
	/* With a selection the process clock counts threads left out. */
	gap = s->cfg->select ?
		      0 :
		      cpuacct_proc_gap(&p->acct, p->samples * s->period_ns);
	z.budget = p->acct.carry_sum + p->acct.pool + gap;
	if (z.budget > 0)
		threadtab_foreach(s->threads, settle_one, &z);
	threadtab_foreach(s->threads, count_pool_stack, &z);
	if (z.budget > 0 && z.pool_stacks) {
		z.share = z.budget / (int64_t)z.pool_stacks + 1;
		threadtab_foreach(s->threads, settle_pool, &z);
	}
	if (z.budget + z.resid > 0)
		s->st->unsampled_ns += (uint64_t)(z.budget + z.resid);
}

/* The end of the run: every process still known is settled, and its maps
 * read once more while it lives (for the writers). */
static void settle_all(struct sampler *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		struct sampler_proc *p = s->procs[i];
		bool lives = !p->gone && !sampler_procs_exited(p);

		sampler_settle_proc(s, p, lives);
		if (lives)
			mapsync_refresh(&p->mapsync, p->live_tid);
	}
}

int sampler_run(const struct sampler_config *cfg, struct stacktab *tab,
		struct procset *ps, struct sampler_stats *st)
{
	struct sampler s;
	sigset_t own, old;
	uint64_t start;
	int rc = -1, err;

	sigemptyset(&own);
	sigaddset(&own, SIGTSTP);
	if (setup(&s, cfg, tab, ps, st) == 0 &&
	    sigprocmask(SIG_BLOCK, &own, &old) == 0) {
		start = mono_now_ns();
		rc = run_loop(&s, start);
		err = errno;
		release_late(&s);
		s.stopping = false; /* the last LATE captures: budgeted */
		sampler_unwind_queued(&s);
		settle_all(&s);
		st->elapsed_ns = mono_now_ns() - start;
		for (size_t i = 0; i < s.nprocs; i++)
			sampler_procs_close_image(&s, s.procs[i]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = err;
	}
	if (rc)
		st->end = SAMPLER_END_ERROR;
	err = errno;
	teardown(&s);
	errno = err;
	return rc;
}
