/*
 * sampler_peek.c - --wall peeks (and dump's one --wall tick): a due
 * thread asleep in the kernel sampled from its registers and stack as
 * /proc and process_vm_readv() give them (peek.h), without a stop; one
 * found awake peeked again a little later, and stopped only if it stays
 * awake.
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "proc/peek.h"
#include "proc/procfs.h"
#include "sampler/sampler_int.h"
#include "util/timeutil.h"

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
 * --kernel's kernel stack (sampler_kernel_read()) is read inside the
 * same bracket, after the Python frames, in any process.
 */
static enum peek_result peek_read(struct sampler *s, struct thread *th)
{
	struct sampler_proc *p = th->proc;
	uint64_t cpu0 = 0, runs0 = 0, cpu1, runs1;
	bool bracket = p->py || s->cfg->kframes;
	enum peek_result r;

	sampler_kernel_drop(s);
	if (sampler_record_reserve(s))
		return PEEK_FAILED;
	if (bracket && procfs_read_schedstat(p->pid, th->tid, &th->cpu.sched_fd,
					     &cpu0, &runs0))
		return PEEK_FAILED;
	r = peek_thread(p->pid, th->tid, p->im->maps, &th->syscall_fd,
			&th->cpu.sched_fd, &s->rec.cap);
	/* Read without being kept open: descriptors ran short (a thread
	 * gone closes its files too, which is no shortage). */
	if (r != PEEK_FAILED || errno == EMFILE || errno == ENFILE)
		th->cpu.unkept |= th->syscall_fd < 0 || th->cpu.sched_fd < 0;
	if (r != PEEK_OK)
		return r;
	sampler_py_frames(s, th);
	sampler_kernel_read(s, th);
	if (!bracket)
		return PEEK_OK;
	if (procfs_read_schedstat(p->pid, th->tid, &th->cpu.sched_fd, &cpu1,
				  &runs1))
		return PEEK_FAILED;
	if (cpu1 == cpu0 && runs1 == runs0)
		return PEEK_OK;
	/* It ran.  The stack is still good (peek_thread() checked its own
	 * reads); only what came after it is not: without Python frames
	 * to keep, drop the kernel frames and keep the peek, rather than
	 * peek again and perhaps stop it (the EINTR a peek avoids). */
	if (!p->py) {
		sampler_kernel_drop(s);
		return PEEK_OK;
	}
	return PEEK_CHANGED;
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
 * again a little later (PEEK_LATER, sampler_peek_deferred()).  One that
 * wakes for a few microseconds at a time (a 10 ms timer) is often caught
 * awake; a stop asked of it then lands, more often than not, after it
 * went back to sleep in its call, which returns EINTR (wall-peek.test saw
 * 3 in 10 s from 55 such stops).  again: it was found awake before.
 */
enum peek_use sampler_peek_sample(struct sampler *s, struct thread *th,
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
		sampler_stats_peek(s->st, r, false);
		return PEEK_STOP;
	}
	q = sampler_record_queue(s, th);
	s->unwinding = true; /* a LATE stop meanwhile: let go, not queued */
	serve_peeks(s);
	rc = sampler_record_unwind_one(s, q);
	sampler_kernel_drop(s); /* used, or of no use now */
	s->unwinding = was;
	sampler_record_drop_last(s); /* its copy is of no more use */
	if (rc == 0) {
		sampler_stats_peek(s->st, r, again || tries > 1);
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
 * back to sleep: a fraction of the period.  Nothing of this process is
 * held meanwhile (its threads seized are not interrupted yet; those of
 * the processes before it are, and their stops are served between the
 * naps: sampler_stops.c); their
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
 * 10 s --wall run).  The wait is bounded per tick (sampler_peek_deferred()).
 */
bool sampler_peek_may_wait(const struct sampler *s, const struct thread *th)
{
	return !th->last_n || th->cpu.pending < s->period_ns / 2;
}

/* A thread to peek again after the process's others (PEEK_LATER). */
int sampler_peek_defer(struct sampler *s, struct thread *th)
{
	return sampler_seize_push(&s->deferred, &s->ndeferred, &s->cap_deferred,
				  th);
}

/* Is th, due in --wall mode, to be peeked first?  Not a stop only to
 * judge its seccomp filters (probe_only), nor a thread another tracer
 * held at its last seize (its stops are that tracer's). */
bool sampler_peek_first(const struct sampler *s, const struct thread *th)
{
	return s->cfg->wall && !s->cfg->no_peek && !th->probe_only &&
	       !th->tracer;
}

/*
 * The threads of a process found awake at their peek (sampler_peek_defer()):
 * peeked again after the others, then every PEEK_NAP_NS, PEEK_WAIT_NS
 * (a fraction of the period) at most; those still awake then, seized.
 */
int sampler_peek_deferred(struct sampler *s, int *eperm)
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

			switch (sampler_peek_sample(s, th, !last, true)) {
			case PEEK_USED:
				break;
			case PEEK_LATER:
				s->deferred[keep++] = th;
				break;
			case PEEK_STOP:
				if (sampler_seize_thread(s, th, eperm) < 0)
					return -1;
				break;
			}
		}
		n = keep;
		if (n && s->pending)
			sampler_stops_reap(s);
		if (n)
			nanosleep(&(struct timespec){ 0, PEEK_NAP_NS }, NULL);
	}
	s->ndeferred = 0;
	return 0;
}
