/*
 * sampler.c - the stop-the-world sampling loop (see sampler.h).
 *
 * One tick:  list /proc/PID/task -> SEIZE each new thread -> INTERRUPT all
 * -> collect the stops until a deadline -> capture and unwind each stopped
 * thread -> DETACH all.  Between ticks nothing of the target is traced,
 * except a thread whose stop missed its tick (LATE): its stop is still on
 * the way, and it is detached the moment it is reported.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "capture.h"
#include "procfs.h"
#include "ptctl.h"
#include "sampler.h"
#include "threads.h"
#include "timeutil.h"
#include "unwind.h"

/* A tick waits at most this long for its stops unless configured. */
#define DEFAULT_STOP_TIMEOUT_NS (100 * NSEC_PER_MSEC)
/* How long the end of a run waits for the stops of LATE threads. */
#define FINAL_LATE_WAIT_NS (500 * NSEC_PER_MSEC)
/* Re-read /proc/PID/maps at most this often when a PC is not mapped. */
#define MAPS_REFRESH_NS (100 * NSEC_PER_MSEC)

struct sampler {
	const struct sampler_config *cfg;
	struct stacktab *tab;
	struct maps *maps;
	struct sampler_stats *st;
	struct threadtab *threads;
	struct unwinder *unw;
	struct tidlist tids;
	struct thread **active; /* threads seized this tick */
	size_t nactive, cap_active;
	size_t pending; /* of those, SEIZED and not yet stopped */
	uint64_t *pcs;
	uint64_t tick;
	uint64_t period_ns;
	sigset_t chld, waitset;
	bool maps_stale;
	bool maps_read;
	uint64_t maps_read_ns;
	bool target_gone;
};

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

static void note_stop(struct sampler *s, struct thread *th, int sig)
{
	th->pending_sig = sig;
	if (th->state == TS_SEIZED) {
		th->state = TS_STOPPED;
		if (s->pending)
			s->pending--;
	} else {
		/* LATE, or (defensively) a stop we did not ask for: let go now,
		 * with the signal it was stopped for. */
		detach(th);
	}
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
		ptctl_detach(tid, kind == PTSTOP_SIGNAL ? sig : 0);
		return;
	}
	note_stop(s, th, kind == PTSTOP_SIGNAL ? sig : 0);
}

/* Take every waitpid() report already queued; never blocks. */
static void reap_queued(struct sampler *s)
{
	for (;;) {
		int status;
		pid_t r = waitpid(-1, &status, __WALL | WNOHANG);

		if (r <= 0)
			return;
		handle_status(s, r, status);
	}
}

/*
 * Wait for reports until none is pending or the deadline passes.  SIGCHLD
 * is blocked; the kernel raises it for every tracee stop and child exit,
 * so sigtimedwait() wakes us with no polling.  Reports are drained before
 * each sleep, so one SIGCHLD for several reports loses nothing.
 */
static void collect_stops(struct sampler *s, uint64_t deadline)
{
	for (;;) {
		struct timespec ts;
		uint64_t now;

		reap_queued(s);
		now = mono_now_ns();
		if (!s->pending || now >= deadline)
			return;
		ts = ns_to_timespec(deadline - now);
		if (sigtimedwait(&s->chld, NULL, &ts) < 0 && errno == EAGAIN)
			reap_queued(s);
	}
}

static int push_active(struct sampler *s, struct thread *th)
{
	if (s->nactive == s->cap_active) {
		size_t cap = s->cap_active ? s->cap_active * 2 : 64;
		struct thread **a = realloc(s->active, cap * sizeof(*a));

		if (!a)
			return -1;
		s->active = a;
		s->cap_active = cap;
	}
	s->active[s->nactive++] = th;
	return 0;
}

/* SEIZE one listed thread.  1: seized; 0: skipped; -1: error. */
static int seize_one(struct sampler *s, pid_t tid, int *eperm)
{
	struct thread *th = threadtab_get(s->threads, tid, true);

	if (!th)
		return -1;
	th->seen_tick = s->tick;
	if (th->state != TS_IDLE)
		return 0; /* LATE: still seized, its stop not yet in */
	if (ptctl_seize(tid)) {
		/* Exiting threads fail with ESRCH or EPERM: skip silently. */
		*eperm += errno == EPERM;
		return ptctl_is_gone(errno) ? 0 : -1;
	}
	th->state = TS_SEIZED;
	if (push_active(s, th)) {
		/* A seized thread can only be detached from a stop: ask for
		 * one, and let the LATE path release it when it comes. */
		ptctl_interrupt(tid);
		th->state = TS_LATE;
		return -1;
	}
	return 1;
}

static bool process_gone(pid_t pid)
{
	int state = procfs_task_state(pid, 0);

	return state < 0 || state == 'Z' || state == 'X';
}

static int seize_all(struct sampler *s)
{
	int eperm = 0;

	s->nactive = 0;
	if (procfs_list_tasks(s->cfg->pid, &s->tids)) {
		if (errno == ENOENT || errno == ESRCH) {
			s->target_gone = true;
			return 0;
		}
		return -1;
	}
	for (size_t i = 0; i < s->tids.n; i++)
		if (seize_one(s, s->tids.tids[i], &eperm) < 0)
			return -1;
	if (s->nactive == 0 && process_gone(s->cfg->pid))
		s->target_gone = true;
	else if (s->nactive == 0 && eperm && s->tick == 1) {
		errno = EPERM; /* refused before anything was touched */
		return -1;
	}
	return 0;
}

/*
 * Interrupt all before waiting for any: the threads stop in parallel, and
 * the pause is one stop latency, not the sum of them.  Every seized thread
 * owes one report: its stop, or (INTERRUPT failed, it is dying) its exit.
 */
static void interrupt_all(struct sampler *s)
{
	for (size_t i = 0; i < s->nactive; i++)
		ptctl_interrupt(s->active[i]->tid);
	s->pending = s->nactive;
}

static void record_stack(struct sampler *s, struct thread *th)
{
	int n;

	if (capture_thread(th->tid, &th->cap))
		return; /* died while stopped */
	n = unwinder_unwind(s->unw, &th->cap, s->pcs,
			    (int)stacktab_max_depth(s->tab));
	if (n <= 0)
		return;
	if (stacktab_add(s->tab, s->pcs, (size_t)n, 1))
		return;
	s->st->samples++;
	if (!th->sampled) {
		th->sampled = true;
		s->st->threads_seen++;
	}
	for (int i = 0; i < n && !s->maps_stale; i++)
		if (!maps_covers_exec(s->maps, s->pcs[i]))
			s->maps_stale = true;
}

static void sample_and_release(struct sampler *s)
{
	for (size_t i = 0; i < s->nactive; i++) {
		struct thread *th = s->active[i];

		if (th->state == TS_STOPPED)
			record_stack(s, th);
		/* Unwinding reads the stopped thread through ptrace, so detach
		 * only after it; the next issue moves unwinding after. */
		if (th->state == TS_STOPPED)
			detach(th);
		else if (th->state == TS_SEIZED) {
			th->state = TS_LATE;
			s->st->late_threads++;
		}
	}
	s->pending = 0;
}

static bool drop_vanished(const struct thread *th, void *arg)
{
	const struct sampler *s = arg;

	if (th->state == TS_GONE ||
	    (th->state == TS_IDLE && th->seen_tick != s->tick)) {
		unwinder_forget_thread(s->unw, th->tid);
		return true;
	}
	return false;
}

/*
 * Read /proc/PID/maps when it has never been read, when a sampled PC lay
 * outside every known executable mapping (dlopen since), rate-limited, or
 * when forced (the end of the run).  Never inside the stop window.
 */
static void refresh_maps(struct sampler *s, uint64_t now, bool force)
{
	char *text;
	size_t len;

	if (!force && s->maps_read &&
	    (!s->maps_stale || now - s->maps_read_ns < MAPS_REFRESH_NS))
		return;
	if (procfs_read_maps(s->cfg->pid, &text, &len) == 0) {
		if (maps_update(s->maps, text, len) == 0 && s->maps_read)
			unwinder_flush(s->unw);
		free(text);
	}
	s->maps_read = true;
	s->maps_read_ns = now;
	s->maps_stale = false;
}

/* The stop window: from the first PTRACE_INTERRUPT to the last detach. */
static uint64_t stop_the_world(struct sampler *s)
{
	uint64_t t0 = mono_now_ns();
	uint64_t timeout = s->cfg->stop_timeout_ns ? s->cfg->stop_timeout_ns :
						     DEFAULT_STOP_TIMEOUT_NS;

	interrupt_all(s);
	collect_stops(s, t0 + timeout);
	sample_and_release(s);
	return mono_now_ns() - t0;
}

static int tick(struct sampler *s)
{
	uint64_t pause;

	s->tick++;
	if (seize_all(s)) {
		int err = errno;

		stop_the_world(s); /* release whatever was seized */
		errno = err;
		return -1;
	}
	pause = stop_the_world(s);
	s->st->ticks++;
	s->st->pause_total_ns += pause;
	if (pause > s->st->pause_max_ns)
		s->st->pause_max_ns = pause;
	threadtab_sweep(s->threads, drop_vanished, s);
	if (!s->target_gone)
		refresh_maps(s, mono_now_ns(), false);
	return 0;
}

/*
 * Sleep until deadline, serving SIGCHLD (late stops, the child's exit) as
 * it comes.  Returns true when one of the stop signals arrived.
 */
static bool wait_until(struct sampler *s, uint64_t deadline)
{
	for (;;) {
		uint64_t now = mono_now_ns();
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (now >= deadline || s->target_gone)
			return false;
		ts = ns_to_timespec(deadline - now);
		sig = sigtimedwait(&s->waitset, &si, &ts);
		if (sig == SIGCHLD)
			reap_queued(s);
		else if (sig > 0) {
			s->st->end_signal = sig;
			s->st->end_signal_code = si.si_code;
			return true;
		}
	}
}

static void count_late(struct thread *th, void *arg)
{
	size_t *n = arg;

	*n += th->state == TS_LATE;
}

/* Past the end: release the LATE threads whose stops come in time.  Any
 * other is released by the kernel when ptprof exits (no EXITKILL). */
static void release_late(struct sampler *s)
{
	uint64_t deadline = mono_now_ns() + FINAL_LATE_WAIT_NS;

	for (;;) {
		struct timespec ts;
		size_t late = 0;
		uint64_t now;

		reap_queued(s);
		threadtab_foreach(s->threads, count_late, &late);
		now = mono_now_ns();
		if (!late || now >= deadline)
			return;
		ts = ns_to_timespec(deadline - now);
		sigtimedwait(&s->chld, NULL, &ts);
	}
}

static int setup(struct sampler *s, const struct sampler_config *cfg,
		 struct stacktab *tab, struct maps *maps,
		 struct sampler_stats *st)
{
	memset(s, 0, sizeof(*s));
	memset(st, 0, sizeof(*st));
	s->cfg = cfg;
	s->tab = tab;
	s->maps = maps;
	s->st = st;
	s->period_ns = NSEC_PER_SEC / (cfg->hz ? cfg->hz : 100);
	sigemptyset(&s->chld);
	sigaddset(&s->chld, SIGCHLD);
	s->waitset = *cfg->stop_signals;
	sigaddset(&s->waitset, SIGCHLD);
	s->threads = threadtab_new();
	s->unw = unwinder_new(cfg->pid);
	s->pcs = calloc(stacktab_max_depth(tab), sizeof(*s->pcs));
	if (!s->threads || !s->unw || !s->pcs)
		return -1;
	return 0;
}

static void teardown(struct sampler *s)
{
	threadtab_free(s->threads);
	unwinder_free(s->unw);
	tidlist_free(&s->tids);
	free(s->active);
	free(s->pcs);
}

/* Run ticks on absolute deadlines until something ends the run. */
static int run_loop(struct sampler *s, uint64_t start)
{
	uint64_t end = s->cfg->duration_ns ? start + s->cfg->duration_ns : 0;
	uint64_t next = start;

	for (;;) {
		uint64_t now = mono_now_ns();

		if (s->target_gone) {
			s->st->end = SAMPLER_END_TARGET_EXITED;
			return 0;
		}
		if (end && now >= end) {
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
		/* A late tick is taken once; the deadlines it overran are
		 * counted as missed, never caught up in a burst. */
		s->st->missed_ticks += (now - next) / s->period_ns;
		next += ((now - next) / s->period_ns + 1) * s->period_ns;
		if (tick(s))
			return -1;
	}
}

int sampler_run(const struct sampler_config *cfg, struct stacktab *tab,
		struct maps *maps, struct sampler_stats *st)
{
	struct sampler s;
	sigset_t old;
	uint64_t start;
	int rc = -1, err;

	if (setup(&s, cfg, tab, maps, st) == 0 &&
	    sigprocmask(SIG_BLOCK, &s.chld, &old) == 0) {
		start = mono_now_ns();
		rc = run_loop(&s, start);
		err = errno;
		release_late(&s);
		if (!s.target_gone)
			refresh_maps(&s, mono_now_ns(), true);
		st->elapsed_ns = mono_now_ns() - start;
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
