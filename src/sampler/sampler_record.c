/*
 * sampler_record.c - from a capture to samples: the tick's capture arena
 * (a capture queued in the stop window, unwound after it), the unwind,
 * Python frames merged, the stack recorded in the stack table, and in CPU
 * mode the system call bias split (sysbias.h) over the thread's recent
 * stacks in user code.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sampler/cpuacct.h"
#include "sampler/sampler_int.h"
#include "sampler/sysbias.h"
#include "unwind/mapsync.h"
#include "unwind/unwind.h"
#include "util/grow.h"
#include "util/timeutil.h"

static int record_stack(struct sampler *s, const struct queued *q);

/*
 * Keep a capture for unwinding once the tick's stops are all in: unwinding
 * between two stops would keep every thread not yet served stopped for
 * it.  The stack is copied straight into a per-tick arena (the capture's
 * buffer points at its free end), so nothing is copied twice while other
 * threads wait: sampler_record_reserve() makes room for one more before
 * the copy, sampler_record_queue() keeps what the copy took.
 */
int sampler_record_reserve(struct sampler *s)
{
	struct queued *nq = grow_array(s->rec.queue, &s->rec.cap_queued,
				       s->rec.nqueued + 1, sizeof(*nq));

	if (!nq)
		return -1;
	s->rec.queue = nq;
	if (sampler_py_reserve(s))
		return -1;
	s->rec.cap.partial = false; /* a stop's capture, unless a peek says */
	if (s->rec.arena_len + CAPTURE_STACK_MAX > s->rec.arena_cap) {
		size_t n = (s->rec.arena_len + CAPTURE_STACK_MAX) * 2;
		uint8_t *na = realloc(s->rec.arena, n);

		if (!na)
			return -1;
		s->rec.arena = na;
		s->rec.arena_cap = n;
	}
	s->rec.cap.stack = s->rec.arena + s->rec.arena_len;
	return 0;
}

const struct queued *sampler_record_queue(struct sampler *s, struct thread *th)
{
	struct queued *q = &s->rec.queue[s->rec.nqueued++];

	q->th = th;
	q->regs = s->rec.cap.regs;
	q->stack_start = s->rec.cap.stack_start;
	q->off = s->rec.arena_len + s->rec.cap.stack_skip;
	q->len = s->rec.cap.stack_len;
	q->kind = capture_stop_kind(&s->rec.cap.regs);
	q->partial = s->rec.cap.partial;
	q->py_off = s->pyb.npyf;
	q->py_n = s->pyb.cur_n;
	q->py_status = s->pyb.cur_status;
	q->py_ns = s->pyb.cur_ns;
	q->py_named = q->py_stale = false;
	s->pyb.npyf += s->pyb.cur_n;
	s->rec.arena_len = q->off + s->rec.cap.stack_len;
	return q;
}

/* The tick's buffers, at the end of the run. */
void sampler_record_free(struct sampler *s)
{
	free(s->rec.queue);
	free(s->rec.arena);
	free(s->rec.pcs);
}

/* Take the last capture queued off the queue and arena. */
void sampler_record_drop_last(struct sampler *s)
{
	const struct queued *q = &s->rec.queue[--s->rec.nqueued];

	s->rec.arena_len = q->off - s->rec.cap.stack_skip;
	s->pyb.npyf = q->py_off;
}

/*
 * Unwind what is queued, unless an unwind is under way (its queue is in
 * use): before the threads of a process are freed (the process set's
 * flush hook, sampler_int.h).
 */
void sampler_record_flush(struct sampler *s)
{
	if (s->rec.nqueued && !s->unwinding)
		sampler_record_unwind_queued(s);
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

/* Unwind the capture in s->rec.view, and time it (wall time: an unwind makes
 * no system call in steady state, so that is its CPU time unless ptprof
 * was preempted, which the median of --stats sees through). */
static int unwind_captured(struct sampler *s, struct sampler_proc *p)
{
	uint64_t t0 = mono_now_ns(), us;
	int n = unwinder_unwind(p->unw, &s->rec.view, s->rec.pcs,
				(int)stacktab_max_depth(s->tab));

	us = (mono_now_ns() - t0) / NSEC_PER_USEC;
	s->st->unwind_hist[us < UNWIND_BUCKETS ? us : UNWIND_BUCKETS - 1]++;
	return n;
}

/*
 * Unwind one queued capture and record its stack (record_stack(): 0, or
 * -1 with errno).  The caller has set s->unwinding: a stop that comes
 * meanwhile (sampler_between_steps()) is let go uncaptured, and the queue
 * and arena stay as they are.
 */
int sampler_record_unwind_one(struct sampler *s, const struct queued *q)
{
	struct queued *mq = &s->rec.queue[q - s->rec.queue];

	if (q->th->proc->im->skipped) {
		errno = ESRCH; /* a probe of a process skipped since */
		return -1;
	}
	if (q->th->proc->exe_tick != s->tick)
		sampler_procs_check_exec(s, q->th->proc);
	/* Its Python frames named before the unwind (a peek's come here
	 * straight after the read; the tick's were named at once, below),
	 * and only once the process is known not to have exec'd: a new
	 * image's memory would name them from whatever is at the old
	 * addresses. */
	if (!mq->py_named)
		sampler_py_name(s, mq);
	s->rec.view.tid = q->th->tid;
	s->rec.view.regs = q->regs;
	s->rec.view.stack_start = q->stack_start;
	s->rec.view.stack_len = q->len;
	s->rec.view.stack = q->len ? s->rec.arena + q->off : NULL;
	s->rec.view.stack_skip = 0; /* q->off is the stack pointer's byte */
	s->rec.view.partial = q->partial;
	return record_stack(s, q);
}

/*
 * After the tick's stop window: unwind every queued capture.  Every
 * thread captured is already detached; a LATE one is still seized and
 * may stop meanwhile: sampler_between_steps() lets it go.  Once a stop signal
 * came the rest are dropped (a stack cut short by it would be wrong).
 */
void sampler_record_unwind_queued(struct sampler *s)
{
	s->unwinding = true;
	s->serve_at = mono_now_ns() + SERVE_EVERY_NS;
	/* Every capture's Python frames named first, right after the stop
	 * window: the unwinds take long (the first of an image reads its
	 * tables: milliseconds), and the code objects the frames name may be
	 * freed meanwhile (sampler_py.c, sampler_py_name()). */
	for (size_t i = 0; i < s->rec.nqueued && !s->stopping; i++) {
		struct queued *q = &s->rec.queue[i];
		struct sampler_proc *p = q->th->proc;

		if (p->im->skipped)
			continue; /* sampler_record_unwind_one() drops it */
		if (p->exe_tick != s->tick)
			sampler_procs_check_exec(s,
						 p); /* as the unwind would */
		sampler_py_name(s, q);
	}
	for (size_t i = 0; i < s->rec.nqueued && !s->stopping; i++)
		sampler_record_unwind_one(s, &s->rec.queue[i]);
	s->rec.nqueued = 0;
	s->rec.arena_len = 0;
	s->pyb.npyf = 0;
	s->unwinding = false;
}

/* Add count samples of one stack of th. */
/* count samples of the stack pcs[0..n) from where (of image im), to the
 * table, the totals and the on_stack hook; p: its live process, or NULL. */
static bool add_origin(struct sampler *s, struct sampler_proc *p,
		       struct proc_image *im, const struct sample_origin *from,
		       const uint64_t *pcs, size_t n, uint64_t count)
{
	if ((!s->cfg->tab_pid || s->cfg->tab_pid == im->pid) &&
	    stacktab_add(s->tab, pcs, n, count))
		return false;
	s->st->samples += count;
	if (p)
		p->samples += count;
	im->samples += count;
	if (s->cfg->on_stack)
		s->cfg->on_stack(s->cfg->on_stack_arg, from, pcs, n, count);
	return true;
}

/* The same for a stack of th; with its wait (--wall: sampler_wait.c),
 * but for ptprof's own rows, which stand for CPU time. */
static bool add_samples_of(struct sampler *s, struct thread *th,
			   const uint64_t *pcs, size_t n, uint64_t count,
			   bool own)
{
	struct sampler_proc *p = th->proc;
	struct sample_origin from = { .image = p->im,
				      .tid = th->tid,
				      .name = th->name,
				      .time_ns = s->tick_real_ns,
				      .wait = own ? WAIT_NONE : th->wait,
				      .wait_holder = own ? 0 :
							   th->wait_holder };

	if (!add_origin(s, p, p->im, &from, pcs, n, count))
		return false;
	/* Every path that records a stack comes here (CPU mode's
	 * emit_split() too): an image with a stack keeps its maps when its
	 * process ends (forget_maps(), sampler_procs.c). */
	p->im->stacks++;
	if (!th->sampled) {
		th->sampled = true;
		s->st->threads_seen++;
	}
	return true;
}

static bool add_samples(struct sampler *s, struct thread *th,
			const uint64_t *pcs, size_t n, uint64_t count)
{
	return add_samples_of(s, th, pcs, n, count, false);
}

/* Record one stack of th, counting for count samples. */
bool sampler_record_emit(struct sampler *s, struct thread *th,
			 const uint64_t *pcs, size_t n, uint64_t count)
{
	if (!add_samples(s, th, pcs, n, count))
		return false;
	s->st->stacks++;
	return true;
}

/* The samples of an own row added, in --stats' counts. */
static bool count_own(struct sampler *s, enum framename_own kind,
		      uint64_t count)
{
	if (kind == FRAMENAME_OWN_NOT_CAUGHT)
		s->st->uncaught_samples += count;
	if (kind == FRAMENAME_OWN_NO_STACK)
		s->st->nostack_samples += count;
	return true;
}

/* One of ptprof's own rows (framename.h) for th, counting for count
 * samples: CPU time it used that no stack of its own can show. */
bool sampler_record_own(struct sampler *s, struct thread *th,
			enum framename_own kind, uint64_t count)
{
	uint64_t pc = framename_own_pc(kind);

	return count && add_samples_of(s, th, &pc, 1, count, true) &&
	       count_own(s, kind, count);
}

/* The same for a process with no thread left to name. */
bool sampler_record_own_proc(struct sampler *s, struct sampler_proc *p,
			     struct proc_image *im, pid_t tid, const char *name,
			     enum framename_own kind, uint64_t count)
{
	uint64_t pc = framename_own_pc(kind);
	struct sample_origin from = { .image = im,
				      .tid = tid,
				      .name = name,
				      .time_ns = s->tick_real_ns };

	return count && add_origin(s, p, im, &from, &pc, 1, count) &&
	       count_own(s, kind, count);
}

/* --wall, for a thread that did not run: its last stack, once more. */
bool sampler_record_repeat_last(struct sampler *s, struct thread *th)
{
	/* A lock's holder may have changed while its waiter slept: read
	 * again (one read of the lock), or no holder (sampler_wait.c). */
	if (th->last_n && s->cfg->wall && !s->cfg->no_waits)
		sampler_wait_repeat(s, th);
	if (!th->last_n || !sampler_record_emit(s, th, th->last_pcs, th->last_n,
						s->tick_weight))
		return false;
	s->st->reused_samples++;
	return true;
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
 * one in a call that it cut short, which restarts: capture.c, nor one
 * just after a call's exit, below).
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
	bool after_call;

	/* A stop by an interrupt (orig_rax -1) at the very instruction
	 * after a `syscall`: the interrupt came while the kernel's way out
	 * of the call ran with interrupts off, and was taken at the first
	 * user instruction (1-5% of sysloop's stops, 10 us of work and one
	 * pread a round).  So it samples the call's exit path, where perf's
	 * timer samples it too and where the kernel's tick counts it as
	 * user time (as in K): it keeps its samples, as a stop in user code
	 * does, but it is no stack in user code.  In the ring it took user
	 * time back to the call's wrapper: with 99% of the stops at pread's
	 * exit, the one stop not at an exit was there, and pread had 68.5%
	 * of the samples where sysloop spent 12.6% of its time. */
	after_call = kind == SYSBIAS_USER &&
		     unwinder_after_syscall(th->proc->unw, &s->rec.view);
	/* Another task under the TID whose schedstat went forwards, or the
	 * thread exec'd (the leader's own exec: same TID, same counters). */
	if (read && th->have_image && image != th->image)
		sampler_procs_forget_user_code(th);
	if (read) {
		th->image = image;
		th->have_image = true;
	}
	sysbias_split(&th->bias, s->period_ns, count, kind, read, ut, stime,
		      &parts);
	if (parts.here && !add_samples(s, th, pcs, n, parts.here))
		return false;
	if (kind == SYSBIAS_USER && !after_call)
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
	const uint64_t *pcs = s->rec.pcs;
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
	    mapsync_catch_up(&p->mapsync, s->rec.pcs, n, p->live_tid)) {
		n = unwind_captured(s, p);
		err = errno;
	}
	if (n <= 0 || s->stopping) {
		errno = s->stopping ? ECANCELED : n < 0 ? err : ENOENT;
		return -1;
	}
	/* Its Python frames in place of the eval loop's (sampler_py.c). */
	sampler_py_ready(s, p);
	merged = sampler_py_merge(s, q, s->rec.pcs, (size_t)n, &py_unread);
	if (merged) {
		pcs = s->pyb.mpcs;
		n = (int)merged;
	}
	/* --kernel: a peeked thread's kernel frames on top (sampler_kernel.c). */
	n = (int)sampler_kernel_frames(s, q, pcs, (size_t)n, &pcs);
	/* (--wall needs to know only the exits, for --stats.) */
	if ((stop == CAPTURE_AT_EXIT ||
	     (stop == CAPTURE_IN_CALL && !s->cfg->wall)) &&
	    unwinder_after_syscall(p->unw, &s->rec.view))
		kind = stop == CAPTURE_AT_EXIT ? SYSBIAS_EXIT : SYSBIAS_IN_CALL;
	if (kind == SYSBIAS_IN_CALL) {
		/* CPU mode: the thread blocked between the check that found
		 * it running and the stop, which cut its sleep short.  Not
		 * where its CPU time went: the time stays in its carry for
		 * a stack taken while it runs (cpuacct.h, "Caught
		 * running"), and this one is not its last stack either. */
		cpuacct_missed(&th->cpu, &p->acct);
		s->st->stops_in_sleep++;
		p->live_tid = th->tid;
		return 0;
	}
	/* --wall: 1 a tick, times what a tick stands for (--max-overhead). */
	count = cpuacct_weight(&th->cpu, &p->acct);
	if (s->cfg->wall)
		count *= s->tick_weight;
	if (kind == SYSBIAS_EXIT) {
		s->st->stacks_at_syscall++;
		s->st->samples_at_syscall += count;
	}
	/* --wall: what it waits on goes with the stack (and with its
	 * repeats while it does not run). */
	if (s->cfg->wall && !s->cfg->no_waits)
		sampler_wait_note(s, th, q);
	/* A stack worth no period now (cpuacct_weight()) is still kept: the
	 * end of a CPU profile gives it what is left of the carry. */
	if (count && s->cfg->wall)
		ok = sampler_record_emit(s, th, pcs, (size_t)n, count);
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
