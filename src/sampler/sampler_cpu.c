/*
 * sampler_cpu.c - CPU accounting (cpuacct.h) as the loop uses it: each
 * thread's schedstat read once per tick, the process's sweep, which
 * threads are due and selected (their names read now and then), and at a
 * process's end its CPU time not yet in a sample settled on its threads'
 * last stacks.
 */
#include "config.h"

#include <errno.h>

#include "proc/procfs.h"
#include "proc/proctree.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler_int.h"
#include "sampler/threadtab.h"
#include "unwind/mapsync.h"
#include "util/timeutil.h"

/*
 * Read a thread's schedstat, once per tick (cpuacct_read()).  Another task
 * under its TID (the counters went backwards) gets its name read afresh
 * too.  A thread whose files could not be kept open (descriptors ran
 * short) is counted once.  -1 if it cannot be read.
 */
int sampler_cpu_read(struct sampler *s, struct thread *th)
{
	int rc = cpuacct_read(&th->cpu, &th->proc->acct, th->tid);

	if (rc > 0) {
		th->name_tick = 0;
		th->name_reads = 0;
		sampler_procs_forget_user_code(th);
	}
	if (th->cpu.unkept && !th->unkept_counted) {
		th->unkept_counted = true;
		s->st->threads_unkept++;
	}
	return rc < 0 ? -1 : 0;
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
 * be stopped this tick (sampler_policy_preflight()): only if it is running.  A
 * blocked thread stopped may see EINTR (epoll_wait() returns it after any
 * ptrace stop), which a CPU profile never inflicts on a thread that does
 * not run: its filters are judged at its first real stop instead
 * (sc_probe stays set until then).
 */
bool sampler_cpu_probe_now(const struct thread *th)
{
	return th->sc_probe && procfs_task_state(th->proc->pid, th->tid) == 'R';
}

/*
 * Is the thread due for a sample (cpuacct_due())?  Asked of every listed
 * thread, selected or not, so that the accounting stays current.  A
 * thread whose schedstat cannot be read is due in --wall mode (which
 * stops the threads that may have run anyway), never in CPU mode.
 */
bool sampler_cpu_due(struct sampler *s, struct thread *th)
{
	int due = -1;

	if (cpuacct_resting(&th->cpu, &th->proc->acct))
		return false;
	if (sampler_cpu_read(s, th) == 0)
		due = cpuacct_due(&th->cpu, &th->proc->acct, th->tid,
				  s->tick_ns);
	if (th->cpu.uncaught_w) {
		/* CPU time given up on (cpuacct.h, "Caught running"). */
		sampler_record_own(s, th, FRAMENAME_OWN_NOT_CAUGHT,
				   th->cpu.uncaught_w);
		th->cpu.uncaught_w = 0;
	}
	if (due >= 0)
		return due;
	if (s->cfg->wall)
		return true;
	unreadable(s, th);
	return false;
}

/*
 * A sweep called for: the quiet threads that ran in the last second read
 * first, and the sweep called off when they explain the time
 * (cpuacct.c, "Narrowed sweeps").  true: called off.
 */
static bool narrow_sweep(struct sampler *s, struct sampler_proc *p)
{
	uint64_t woke = 0;

	if (s->cfg->wall)
		return false;
	for (size_t i = 0; i < p->tids.n; i++) {
		struct thread *th = sampler_procs_thread(s, p, p->tids.tids[i]);

		if (th && cpuacct_recent(&th->cpu, &p->acct, s->tick_ns) &&
		    sampler_cpu_read(s, th) == 0)
			woke += cpuacct_wake(&th->cpu);
	}
	return cpuacct_proc_narrow(&p->acct, woke);
}

/*
 * At the start of a tick: the process's CPU time, less what the threads
 * read one by one explain, tells whether the quiet threads are read too
 * this tick (a sweep: see cpuacct.c).
 */
void sampler_cpu_read_process(struct sampler *s, struct sampler_proc *p)
{
	bool clock = cpuacct_proc_begin(&p->acct);
	uint64_t explained = 0;

	for (size_t i = 0; i < p->tids.n; i++) {
		struct thread *th = sampler_procs_thread(s, p, p->tids.tids[i]);

		if (!th)
			continue;
		cpuacct_new_tick(&th->cpu);
		/* A thread read for the first time has no earlier reading:
		 * what it used so far counts as unexplained. */
		if (clock && cpuacct_tracked(&th->cpu) &&
		    sampler_cpu_read(s, th) == 0)
			explained += cpuacct_explain(&th->cpu);
	}
	if (cpuacct_proc_end(&p->acct, explained) && !narrow_sweep(s, p))
		s->st->sweeps++;
	/* Only a process that ran can have forked (proctree.h). */
	if (s->set.tree && clock &&
	    (!p->acct.have_last || p->acct.now != p->acct.last))
		proctree_ran(s->set.tree, p->pid);
}

/*
 * Thread names are read (from its stat file, with its state:
 * cpuacct_state_once(), through the descriptor kept for the state when
 * there is one) when a thread is first listed, and again when it is due
 * for a sample and its name is 1, 2, 4, ... ticks old, then a second old:
 * threads name themselves just after they start (pthread_setname_np), and
 * reading every thread's name every tick would cost more than sampling.
 * The selection (-t, --thread-name) is decided on the name as last read.
 */
bool sampler_cpu_selected(struct sampler *s, struct thread *th, bool due)
{
	uint64_t per_sec = sampler_ticks_per_sec(s), every;

	if (!s->cfg->want_names && !s->cfg->select)
		return true;
	/* A new thread is usually named just after it starts: read again
	 * after 1, 2, 4, ... ticks, up to once a second. */
	every = th->name_reads < 20 ? (uint64_t)1 << th->name_reads : per_sec;
	if (every > per_sec)
		every = per_sec;
	if (!th->name_tick || (due && s->tick - th->name_tick >= every)) {
		th->name_reads++;
		if (cpuacct_state_once(&th->cpu, th->proc->pid, th->tid,
				       th->name, sizeof(th->name)) < 0)
			th->name[0] = '\0';
		th->name_tick = s->tick;
		th->selected = !s->cfg->select ||
			       s->cfg->select(s->cfg->select_arg, th->tid,
					      th->name);
	}
	return th->selected;
}

/* The settling of one process's CPU time (sampler_cpu_settle_proc()). */
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
	if (sampler_cpu_read(s, th) == 0)
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
	if (w && sampler_record_emit(z->s, th, th->last_pcs, th->last_n, w))
		z->s->st->settled_samples += w;
}

/* A thread with CPU time left and no last stack: its own row, never a
 * stack it slept in.  Stopped and never caught running (every stop cut a
 * sleep short: cpuacct.h, "Caught running"), or never stopped at all (it
 * ended before a tick found it due: "[CPU time of no stack]"). */
static void settle_uncaught(struct thread *th, void *arg)
{
	struct settling *z = arg;
	uint64_t w;

	if (th->proc != z->p || th->last_n || th->cpu.carry <= 0)
		return;
	w = cpuacct_settle(&th->cpu, &z->p->acct, &z->budget, &z->resid);
	sampler_record_own(z->s, th,
			   th->intr_ns ? FRAMENAME_OWN_NOT_CAUGHT :
					 FRAMENAME_OWN_NO_STACK,
			   w);
}

/* What is left with no stack to go to: the process's own row "[CPU time
 * of no stack]" under its main thread's name, not lost. */
static void settle_no_stack(struct settling *z)
{
	struct sampler_proc *p = z->p;
	uint64_t w = cpuacct_periods(&p->acct, z->budget, &z->resid);

	z->budget = 0; /* in w, or in resid */
	if (w && !sampler_record_own_proc(z->s, p, p->im, p->pid, p->im->comm,
					  FRAMENAME_OWN_NO_STACK, w))
		z->resid += (int64_t)(w * p->acct.period_ns);
}

static void count_pool_stack(struct thread *th, void *arg)
{
	struct settling *z = arg;

	z->pool_stacks += th->proc == z->p && th->last_n && th->cpu.pool_stack;
}

/* The second pass: a share of what is left to each stack taken for the
 * pool (see sampler_cpu_settle_proc()). */
static void settle_pool(struct thread *th, void *arg)
{
	struct settling *z = arg;
	int64_t take = z->share < z->budget ? z->share : z->budget;
	uint64_t w;

	if (th->proc != z->p || !th->last_n || !th->cpu.pool_stack || take <= 0)
		return;
	z->budget -= take;
	w = cpuacct_periods(&z->p->acct, take, &z->resid);
	if (w && sampler_record_emit(z->s, th, th->last_pcs, th->last_n, w))
		z->s->st->settled_samples += w;
}

/*
 * The end of a process in a CPU profile (it exited, or the run ends): the
 * CPU time read but not yet in a sample (a carry under half a period, a
 * running thread's last periods) goes to its thread's last stack (one
 * taken while it ran: cpuacct.h, "Caught running"), or, for a thread
 * never caught running, to the row "[CPU time not caught running]", so
 * that samples x period add up to the CPU time the threads used.  Threads
 * borrow (cpuacct.h), so what is given is the net sum of all carries, not
 * each positive one: a thread that borrowed was counted ahead with
 * another's time.  What is left then has no stack of its own: the time
 * of threads never caught running, of threads that exited or were first
 * read after they ran (the process clock tells).  It is shared among the
 * stacks taken for the small carries (cpuacct.h), which sampled such
 * threads as they ran; without any, it goes to the process's row "[CPU
 * time of no stack]" (and what is under half a period to unsampled_ns),
 * never hidden.  A process born in the run counts from 0 (cpuacct.h,
 * cpuacct_proc_from_birth()), and one gone has its CPU time at exit
 * when the tree told it (proctree.h): a process that lived between two
 * ticks is in the profile whole.  final_read: the process lives, read
 * its threads once more.
 */
void sampler_cpu_settle_proc(struct sampler *s, struct sampler_proc *p,
			     bool final_read_too)
{
	struct settling z = { .s = s, .p = p };
	int64_t gap;

	if (s->cfg->wall || p->im->skipped)
		return;
	if (final_read_too)
		threadtab_foreach(s->threads, final_read, &z);
	/* Reaped, its clock is gone: what it used in all, told at its exit,
	 * is a later reading than the last tick's. */
	if (p->have_exit_cpu && p->acct.have_first &&
	    p->exit_cpu_ns > p->acct.now)
		p->acct.now = p->exit_cpu_ns;
	/* With a selection the process clock counts threads left out. */
	gap = s->cfg->select ?
		      0 :
		      cpuacct_proc_gap(&p->acct, p->samples * s->period_ns);
	z.budget = p->acct.carry_sum + p->acct.pool + gap;
	if (z.budget > 0)
		threadtab_foreach(s->threads, settle_one, &z);
	if (z.budget > 0)
		threadtab_foreach(s->threads, settle_uncaught, &z);
	threadtab_foreach(s->threads, count_pool_stack, &z);
	if (z.budget > 0 && z.pool_stacks) {
		z.share = z.budget / (int64_t)z.pool_stacks + 1;
		threadtab_foreach(s->threads, settle_pool, &z);
	}
	if (z.budget > 0)
		settle_no_stack(&z);
	if (z.budget + z.resid > 0)
		s->st->unsampled_ns += (uint64_t)(z.budget + z.resid);
}

/* The end of the run: every process still known is settled, and its maps
 * read once more while it lives (for the writers), unless they were never
 * read: it was never captured, no stack of it needs them (open_image()). */
void sampler_cpu_settle_all(struct sampler *s)
{
	for (size_t i = 0; i < s->set.nprocs; i++) {
		struct sampler_proc *p = s->set.procs[i];
		bool lives = !p->gone && !sampler_procs_exited(p);

		sampler_cpu_settle_proc(s, p, lives);
		if (lives && p->mapsync.text)
			mapsync_refresh(&p->mapsync, p->live_tid);
	}
}
