/*
 * sampler.c - the sampling loop (see sampler.h): the run.  Setup and
 * teardown, the run loop on its jittered deadlines (ticksched.h), the
 * signals (a stop signal ends the run, SIGTSTP suspends it between ticks),
 * the unwinders' hook that serves stops and signals during long unwinds,
 * the progress hook, and --max-overhead's glue (the target's CPU time
 * each window, the ticks re-planned at the rate sampler_budget.c says).
 *
 * One tick (sampler_tick.c):  read CPU times (cpuacct.h) and, when due,
 * list /proc/PID/task -> SEIZE each thread that is due and selected ->
 * INTERRUPT them, a process's at once -> as each stop is reported: capture (registers and a
 * stack copy), DETACH that thread -> after the window, unwind the copies
 * while they run on.  A thread is held only for its own capture, never
 * behind a slower one, never for an unwind.  Between ticks nothing of the
 * target is traced, except a thread whose stop missed its tick (LATE): its
 * stop is still on the way, and it is detached the moment it is reported,
 * during the unwinds too (they serve stops and stop signals between two
 * steps, every millisecond): it cannot be detached before, as
 * PTRACE_DETACH needs a stopped tracee.  The process set (roots,
 * descendants, execs, exits) is sampler_procs.c's; sampler_int.h says
 * which file holds which concern, and the state they share.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "proc/reaper.h"
#include "proc/seccomp.h"
#include "sampler/sampler.h"
#include "sampler/sampler_budget.h"
#include "sampler/sampler_int.h"
#include "sampler/threadtab.h"
#include "sampler/ticksched.h"
#include "util/timeutil.h"

/* How long a tick may spin for its stops before it sleeps for them (see
 * sampler_stops_collect()). */
#define SPIN_NS (50 * NSEC_PER_USEC)

/*
 * ptprof suspended (Ctrl-Z) in the middle of a tick would leave target
 * threads stopped for as long as it stays suspended.  So SIGTSTP is
 * blocked with the rest and taken here, between ticks: release what can
 * be released, then stop for real.  (SIGSTOP cannot be blocked: a ptprof
 * SIGSTOPped inside a tick holds those threads until SIGCONT.)
 */
static void suspend_self(struct sampler *s)
{
	sampler_late_release(s);
	raise(SIGSTOP);
}

/*
 * Threads seized this tick and not stopped yet?  The peeks' unwinds serve
 * signals (sampler_peek_sample()) while the threads due before them are
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

uint64_t sampler_ticks_per_sec(const struct sampler *s)
{
	uint64_t period = s->cfg->max_overhead ?
				  sampler_budget_period(&s->budget) :
				  s->period_ns;
	uint64_t n = period ? NSEC_PER_SEC / period : 1;

	return n ? n : 1;
}

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
		sampler_stops_reap(s);
	if ((ready & REAPER_SIGNAL) && take_signal(s))
		s->stopping = true;
	return s->stopping;
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
		struct sampler_proc *one = s->set.nprocs == 1 ?
						   s->set.procs[0] :
						   NULL;
		int ready;

		sampler_stops_reap(s);
		sampler_record_unwind_queued(
			s); /* LATE captures: nothing is held */
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
 * The CPUs ptprof may run on (sampler_stops_spin_worth()): its affinity
 * mask (taskset, a cpuset cgroup), at most the CPUs online.  A spin on a
 * CPU that a target thread shares with ptprof delays that thread's stop
 * by the whole spin, though the machine has other CPUs idle.
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
	s->tick_weight = 1;
	s->ncpu = cpus_usable();
	s->spin_ns = SPIN_NS;
	s->sc_can_read = !cfg->unsafe_seccomp && seccomp_can_read();
	s->waitset = *cfg->stop_signals;
	sigaddset(&s->waitset, SIGTSTP);
	s->sigfd = signalfd(-1, &s->waitset, SFD_CLOEXEC | SFD_NONBLOCK);
	s->threads = threadtab_new();
	s->rec.pcs = calloc(stacktab_max_depth(tab), sizeof(*s->rec.pcs));
	if (!s->threads || !s->rec.pcs || s->sigfd < 0 || reaper_start())
		return -1;
	s->hooks = (struct sampler_hooks){
		.between_steps = sampler_between_steps,
		.flush = sampler_record_flush,
		.settle = sampler_cpu_settle_proc,
	};
	return sampler_procs_add_roots(s);
}

static void teardown(struct sampler *s)
{
	sampler_procs_free_all(s);
	threadtab_free(s->threads);
	sampler_record_free(s);
	sampler_py_free(s);
	sampler_kernel_free(s);
	free(s->active);
	free(s->deferred);
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
 * a run (sampler_late_release(): one in D state may never come) and the hook
 * runs anyway.
 */
#define PROGRESS_DEFER_NS NSEC_PER_SEC

static void report_progress(struct sampler *s, uint64_t start)
{
	uint64_t now = mono_now_ns();
	size_t late;

	if (!s->cfg->progress || now - s->progress_at < s->cfg->progress_ns)
		return;
	sampler_stops_reap(s);
	late = sampler_late_count(s);
	if (late) {
		s->st->progress_deferred++;
		if (now - s->progress_at <
		    s->cfg->progress_ns + PROGRESS_DEFER_NS)
			return;
		sampler_late_release(s);
		now = mono_now_ns();
	}
	s->progress_at = now;
	s->st->elapsed_ns = now - start;
	s->cfg->progress(s->cfg->progress_arg, s->st);
}

/*
 * --max-overhead: the CPU time the sampled processes used since the last
 * window (sampler_budget.h), from their CPU clocks (cpuacct.h's clock
 * ids), one reading each a window.  A process first read now counts from
 * now, or from 0 when it was born in the run; one skipped is no target.
 * (What one that exited used since the last window is lost: the
 * overhead comes out higher, never lower.)
 */
static uint64_t budget_cpu(struct sampler *s)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < s->set.nprocs; i++) {
		struct sampler_proc *p = s->set.procs[i];
		struct timespec ts;
		uint64_t now;

		if (!p->acct.clock_ok || (p->im && p->im->skipped) ||
		    clock_gettime(p->acct.clock, &ts))
			continue;
		now = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
		if (!p->budget_cpu_read && p->born)
			p->budget_cpu_read = true; /* from 0 */
		if (p->budget_cpu_read && now > p->budget_cpu_ns)
			sum += now - p->budget_cpu_ns;
		p->budget_cpu_ns = now;
		p->budget_cpu_read = true;
	}
	return sum;
}

/* --max-overhead, after a tick: at the end of a window, the rate the
 * overhead calls for, the ticks re-planned on it. */
static void budget_after_tick(struct sampler *s, struct ticksched *sched)
{
	uint64_t now = mono_now_ns();

	if (!s->cfg->max_overhead ||
	    !sampler_budget_tick(&s->budget, s->st, now))
		return;
	if (sampler_budget_close(&s->budget, s->st, now, budget_cpu(s)))
		ticksched_set_period(sched, sampler_budget_period(&s->budget));
}

/* Run ticks on absolute, jittered deadlines (ticksched.h) until something
 * ends the run. */
static int run_loop(struct sampler *s, uint64_t start)
{
	uint64_t end = s->cfg->duration_ns ? start + s->cfg->duration_ns : 0;
	struct ticksched sched;
	bool ticked = false;

	ticksched_init(&sched, start, s->period_ns, ticksched_seed());
	if (s->cfg->max_overhead) {
		sampler_budget_init(&s->budget, s->cfg->max_overhead,
				    s->period_ns, start, s->st);
		budget_cpu(s);
	}
	for (;;) {
		uint64_t now = mono_now_ns(), next = ticksched_next(&sched);
		uint64_t missed;

		/* The deadlines a long last tick overran (a burst of new
		 * processes to set up, on a loaded machine: one tick in
		 * 1.5 s was seen) are missed too, up to when the end was
		 * found. */
		if (s->target_gone) {
			s->st->missed_ticks += ticksched_missed(&sched, now);
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
		if (now - next >= sched.period_ns && take_signal(s)) {
			s->st->missed_ticks += ticksched_missed(&sched, now);
			s->st->end = SAMPLER_END_SIGNAL;
			return 0;
		}
		/* A late tick is taken once; the deadlines it overran are
		 * counted as missed, never caught up in a burst. */
		missed = ticksched_take(&sched, now);
		s->st->missed_ticks += missed;
		if (s->cfg->max_overhead && s->cfg->wall)
			s->tick_weight = sampler_budget_weight(&s->budget,
							       missed);
		if (sampler_tick(s))
			return -1;
		ticked = true;
		budget_after_tick(s, &sched);
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
		if (cfg->max_overhead)
			sampler_budget_end(&s.budget, st, mono_now_ns());
		sampler_late_release(&s);
		s.stopping = false; /* the last LATE captures: budgeted */
		sampler_record_unwind_queued(&s);
		sampler_cpu_settle_all(&s);
		st->elapsed_ns = mono_now_ns() - start;
		for (size_t i = 0; i < s.set.nprocs; i++)
			sampler_procs_close_image(&s, s.set.procs[i]);
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
