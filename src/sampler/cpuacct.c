/*
 * cpuacct.c - CPU accounting of the target's threads (see cpuacct.h).
 */
#include "config.h"

#include <unistd.h>

#include "proc/procfs.h"
#include "sampler/cpuacct.h"
#include "util/timeutil.h"

/*
 * One schedstat pread per thread per tick is most of a tick's cost when
 * hundreds of threads sleep.  So a thread found idle QUIET_AFTER reads in
 * a row becomes quiet and is no longer read, and the process's CPU time
 * (one clock_gettime of its CPU-time clock, the sum over all its threads,
 * the dead ones included) tells when a quiet thread may have run: each
 * tick, what the process used beyond what the threads that were read used
 * adds up in unexplained.  Once that passes half a period, every quiet
 * thread is read (a sweep), those that ran are stopped, and the sum
 * starts again.  (Sums over ticks telescope: readings taken microseconds
 * apart cancel out, and only what really ran unread accumulates.)
 *
 * So a quiet thread that wakes is read once it has used half a period of
 * CPU time, at most, and then at every tick until one finds it running
 * (CPU mode: it is owed a sample); a thread that never runs is never read
 * again.
 * Without the process clock (it could not be read), every thread is read
 * every tick.
 *
 * Narrowed sweeps (CPU mode): what most often calls for a sweep is not a
 * sleeper waking but a busy thread gone quiet: a running thread's
 * schedstat moves only at its own scheduler ticks (4 ms apart with
 * HZ=250) or when it leaves the CPU, so at 1 kHz, or on a busy machine
 * where it waits for a CPU, it can read as idle 8 times in a row, and
 * the time it runs next is unexplained.  A sweep then read all 200
 * quiet threads of a 2-busy-200-idle target (and listed them again) to
 * find the one that had run a moment before: 30 sweeps in 5 s at 1 kHz.
 * So the quiet threads found running in the last RECENT_NS are read
 * first; when what they used leaves under half a period unexplained,
 * the others are not read, and the rest stays unexplained for the next
 * ticks.  A sleeper that wakes is still read once it has used half a
 * period of CPU time, at most, as before.  (Not in --wall mode, where a
 * thread that ran at all is due: every quiet thread is read.)
 */
#define QUIET_AFTER 8
#define RECENT_NS NSEC_PER_SEC
/* --wall: the checks after a thread's first that sample it, idle or not. */
#define WALL_YOUNG_CHECKS 2

/*
 * A due thread that is not running is asked again next tick; what its
 * carry holds beyond CARRY_MAX periods, or CARRY_MAX_NS of CPU time if
 * that is more, is given up on (cpuacct.h, "Caught running").  The bound:
 * how much one stack may take for a thread seldom caught running.  A loop
 * burning 0.5 ms every 10 ms is found running at about one due check in
 * forty at 1 kHz (2.4% measured: a check finds it running less often
 * than its duty, since its burst must span the check and the stop): with
 * 8 periods (8 ms) up to 18% of its time went to the row; with 64 ms,
 * none.  A thread whose bursts are all shorter than a stop is never
 * caught, whatever the bound: it only sets how often its row grows.
 */
#define CARRY_MAX 8
#define CARRY_MAX_NS (64 * NSEC_PER_MSEC)

/*
 * How far a running thread may borrow (cpuacct.h, "Running threads"): its
 * schedstat may lag by one of its scheduler ticks, 10 ms with HZ=100, the
 * slowest kernel tick there is.  A thread that is runnable but waits for
 * a CPU (a busy machine) looks running too: its borrowing stops there,
 * and its next samples wait until schedstat has paid it back.  Less one
 * period (11 ms at 1000 Hz, 8 at 250, none at 100 Hz, where a running
 * thread's schedstat moves within a period anyway): 100 threads that
 * waited for a CPU at two ticks in a row ended a run 10% ahead at 100 Hz.
 */
#define BORROW_MAX_NS (12 * NSEC_PER_MSEC)

void cpuacct_init(struct cpuacct *c)
{
	c->sched_fd = -1;
	c->stat_fd = -1;
}

void cpuacct_close(struct cpuacct *c)
{
	if (c->sched_fd >= 0)
		close(c->sched_fd);
	if (c->stat_fd >= 0)
		close(c->stat_fd);
	c->sched_fd = c->stat_fd = -1;
}

void cpuacct_new_tick(struct cpuacct *c)
{
	c->fresh = false;
}

/*
 * How far a reading of a thread's schedstat may lag behind what it ran:
 * the kernel brings a running thread's up to date only at its own
 * scheduler ticks (10 ms apart with HZ=100: BORROW_MAX_NS covers that)
 * and when it leaves the CPU, as at our stops, which are up to two
 * periods apart (the ticks are jittered).  (On a nohz_full CPU a thread
 * that runs alone and is not stopped may lag longer.)
 */
static uint64_t lag_max(const struct cpuacct_proc *p)
{
	return BORROW_MAX_NS + 2 * p->period_ns;
}

/*
 * Has the thread run more than its TID's task can have since its last
 * check (see cpuacct_read())?  One task runs on one CPU at a time: no
 * more than the wall time since then, plus what the reading then lagged
 * (a first version allowed a millisecond: at 1000 Hz a busy thread read
 * a short interval after a long one was taken for another task, and a
 * third of its time was lost).  A quiet thread ran only in time that no
 * thread read explains (cpuacct.c, top), less what the running threads'
 * readings lagged when it was last checked (one lag_max() per CPU: only
 * a thread on a CPU lags), and what it ran since this tick's clock read.
 */
static bool beyond_reach(const struct cpuacct *c, const struct cpuacct_proc *p)
{
	uint64_t used = c->cpu_now - c->cpu_base, now = mono_now_ns();
	int64_t allowed;

	if (used > now - c->read_ns + lag_max(p))
		return true;
	if (!c->quiet || !p->clock_read)
		return false;
	allowed = p->unexpl_total - c->unexpl_base;
	allowed = (allowed > 0 ? allowed : 0) +
		  (int64_t)(p->ncpu * lag_max(p) + (now - p->clock_ns));
	return (int64_t)used > allowed;
}

int cpuacct_read(struct cpuacct *c, const struct cpuacct_proc *p, pid_t tid)
{
	if (c->fresh)
		return 0;
	if (procfs_read_schedstat(p->pid, tid, &c->sched_fd, &c->cpu_now,
				  &c->runs_now))
		return -1;
	c->unkept |= c->sched_fd < 0;
	c->fresh = true;
	/*
	 * Counters that went backwards belong to another task under the
	 * same TID: after a non-leader's execve() the leader's TID is the
	 * exec'ing thread's (de_thread()), or a TID was reused.  So do
	 * counters that moved by more than the task can have run since
	 * the last check (beyond_reach()).  A thread that ran 1
	 * s and then exec'd had its second counted twice, under its own TID
	 * and again under the leader's (198 samples for 1 s at 100 Hz).
	 * Start it afresh, as a thread never seen.  (A task whose counters
	 * are ahead of the old one's by less than that cannot be told
	 * apart: at most that much is counted twice.)
	 */
	if (c->have_cpu &&
	    (c->cpu_now < c->cpu_base || c->cpu_now < c->cpu_read ||
	     c->runs_now < c->runs_base || beyond_reach(c, p))) {
		/* (Its carry stays: the old task's time, not yet counted.) */
		c->have_cpu = false;
		c->quiet = false;
		c->on_cpu = false;
		c->idle_checks = 0;
		return 1;
	}
	return 0;
}

bool cpuacct_tracked(const struct cpuacct *c)
{
	return !c->quiet && c->have_cpu;
}

uint64_t cpuacct_explain(struct cpuacct *c)
{
	uint64_t used;

	if (!c->have_cpu)
		return 0;
	used = c->cpu_now - c->cpu_read;
	/* Taken as read here, not only in cpuacct_due(): a thread that is
	 * not asked (held by another tracer, still LATE) must not explain
	 * the same time again next tick. */
	c->cpu_read = c->cpu_now;
	return used;
}

void cpuacct_rebase(struct cpuacct *c, struct cpuacct_proc *p)
{
	if (c->have_cpu && c->cpu_now > c->cpu_base)
		p->excluded += (int64_t)(c->cpu_now - c->cpu_base);
	c->cpu_base = c->cpu_read = c->cpu_now;
	c->runs_base = c->runs_now;
}

/* Keep idle_sum up to date with the thread's carry and state. */
static void set_contrib(struct cpuacct *c, struct cpuacct_proc *p)
{
	int64_t now = c->on_cpu ? 0 : c->carry;

	p->idle_sum += now - c->contrib;
	c->contrib = now;
}

void cpuacct_drop_carry(struct cpuacct *c, struct cpuacct_proc *p)
{
	p->carry_sum -= c->carry;
	p->excluded += c->carry + (int64_t)c->pending;
	c->carry = 0;
	c->pending = 0;
	set_contrib(c, p);
}

void cpuacct_gone(const struct cpuacct *c, struct cpuacct_proc *p)
{
	p->carry_sum -= c->carry;
	p->pool += c->carry + (int64_t)c->pending; /* its time, uncounted */
	p->idle_sum -= c->contrib;
}

void cpuacct_catch_up(struct cpuacct *c, struct cpuacct_proc *p)
{
	/* The interval counted a tick late (pending) is counted now. */
	c->carry += (int64_t)c->pending;
	p->carry_sum += (int64_t)c->pending;
	c->pending = 0;
	if (!c->have_cpu || c->cpu_now < c->cpu_base)
		return;
	c->carry += (int64_t)(c->cpu_now - c->cpu_base);
	p->carry_sum += (int64_t)(c->cpu_now - c->cpu_base);
	c->cpu_base = c->cpu_read = c->cpu_now;
	c->runs_base = c->runs_now;
}

uint64_t cpuacct_settle(struct cpuacct *c, struct cpuacct_proc *p,
			int64_t *budget, int64_t *resid)
{
	int64_t take = c->carry < *budget ? c->carry : *budget;

	if (take <= 0)
		return 0;
	c->carry -= take;
	p->carry_sum -= take;
	*budget -= take;
	return cpuacct_periods(p, take, resid);
}

uint64_t cpuacct_periods(const struct cpuacct_proc *p, int64_t ns,
			 int64_t *resid)
{
	int64_t period = (int64_t)p->period_ns;
	int64_t w;

	*resid += ns;
	w = *resid > 0 ? (*resid + period / 2) / period : 0;
	*resid -= w * period;
	return (uint64_t)w;
}

bool cpuacct_resting(const struct cpuacct *c, const struct cpuacct_proc *p)
{
	return c->quiet && !p->sweep;
}

/*
 * CPU mode, a thread due for a sample: is it running (or runnable) now?
 * Its CPU time is counted in the stack it is stopped in, so a thread that
 * ran a while and then went to sleep must not be stopped asleep: its time
 * would land on nanosleep or epoll_wait, and a blocked thread stopped may
 * see EINTR.  A due thread that is not running keeps its carry and is
 * asked again next tick, however large its carry (cpuacct.h, "Caught
 * running"); one that ran most of the time since its last read is taken
 * as running without asking.  (A first version stopped a thread wherever
 * it was once its carry reached CARRY_MAX periods: a loop burning 0.5 ms
 * every 10 ms then showed 88% in clock_nanosleep at 1 kHz, where perf
 * shows 69% in the burn.)
 */
static int cpuacct_on_cpu_now(struct cpuacct *c, const struct cpuacct_proc *p,
			      pid_t tid, uint64_t used, uint64_t interval)
{
	int state;

	if (used >= interval / 10 * 9)
		return 1;
	/* A state that cannot be read (EMFILE) is not taken for running:
	 * a guess would stop a blocked thread, which may see EINTR. */
	state = procfs_read_task_state(p->pid, tid, &c->stat_fd);
	if (state < 0)
		return -1;
	c->unkept |= c->stat_fd < 0;
	return state == 'R';
}

int cpuacct_state_once(struct cpuacct *c, pid_t pid, pid_t tid, char *name,
		       size_t len)
{
	int fd = c->stat_fd, state;

	state = procfs_read_task_name_state(pid, tid, &fd, name, len);
	if (c->stat_fd < 0 && fd >= 0)
		close(fd); /* opened for this read only */
	else
		c->stat_fd = fd; /* -1 if a failed read closed it */
	return state;
}

uint64_t cpuacct_carry_bound(uint64_t period_ns)
{
	return CARRY_MAX * period_ns > CARRY_MAX_NS ? CARRY_MAX * period_ns :
						      CARRY_MAX_NS;
}

/* CPU mode: the whole periods a carry holds beyond CARRY_MAX are given
 * up on, into uncaught_w (cpuacct.h, "Caught running"). */
static void give_up_beyond_max(struct cpuacct *c, struct cpuacct_proc *p)
{
	int64_t period = (int64_t)p->period_ns;
	int64_t max = (int64_t)cpuacct_carry_bound(p->period_ns);
	int64_t w = (c->carry - max) / period;

	if (p->wall || w <= 0)
		return;
	c->carry -= w * period;
	p->carry_sum -= w * period;
	c->uncaught_w += (uint64_t)w;
}

/*
 * Is the thread due for a sample?  Its on-CPU time (schedstat) tells how
 * much it ran since it was last read; that goes into carry, the time not
 * yet counted in a sample.  In CPU mode a thread is due once carry
 * reaches half a period: its stack then counts for carry in periods,
 * rounded (cpuacct_weight()).  A thread that has not run cannot have
 * moved its user stack either, and stopping it would only cost the target
 * (a blocked thread woken by PTRACE_INTERRUPT sees EINTR).  In --wall mode
 * a thread is due whenever it ran at all (otherwise its last stack counts
 * again).
 *
 * Our own last stop moves the clock a little: the woken thread takes the
 * trap and restarts its system call (about 20 us, scheduled in twice).  A
 * move that small, with no more than those two schedulings, leaves the
 * thread idle for the quiet-thread count (and --wall); in CPU mode it
 * still adds to carry, where it cannot reach half a period by itself.
 *
 * A thread seen for the first time has no baseline: it is due when /proc
 * says it is runnable (R), or in --wall mode.
 *
 * The time of the interval that ends at this tick goes into carry only at
 * the next tick (pending until then): the ticks are jittered (ticksched.h),
 * and a tick's offset decides both where its stack is taken and how long
 * the interval before it was.  Were that interval's time counted at once,
 * the stack of an early tick (a short interval) would count for less, or
 * not be taken at all, and that of a late one for more: a thread whose
 * work is locked to the clock would see the time of one phase of its
 * cycle moved onto another (35/65 seen for a 50/50 cycle at 100 Hz).
 * Worse, a running thread's schedstat moves only at its scheduler ticks
 * (4 ms apart with HZ=250) or when it is switched out, as at our stops, so
 * an early tick finds even less.  Counted one tick late, the time a stack
 * stands for was settled before its tick's offset was drawn.
 */
static int due(struct cpuacct *c, struct cpuacct_proc *p, pid_t tid,
	       uint64_t now_ns)
{
	uint64_t self_cost = p->period_ns / 4 < 200 * NSEC_PER_USEC ?
				     p->period_ns / 4 :
				     200 * NSEC_PER_USEC;
	int64_t period = (int64_t)p->period_ns, half = period / 2, avail;
	uint64_t used, interval;
	bool idle, ran, borrow, was_on = c->on_cpu;
	int state;

	c->cpu_read = c->cpu_now;
	c->on_cpu = false;
	c->pool_w = 0;
	c->borrowing = false;
	if (!c->have_cpu) {
		c->read_ns = now_ns;
		c->have_cpu = true;
		c->cpu_base = c->cpu_now;
		c->runs_base = c->runs_now;
		c->unexpl_base = p->unexpl_total;
		if (c->born && !p->wall) {
			/* Born in the run (cpuacct_from_birth()): what it
			 * used before this first reading is in its carry at
			 * once, for its first stack, taken now if it runs
			 * (not a tick late as pending: this interval's length
			 * is its age, not the tick's jittered offset). */
			c->carry += (int64_t)c->cpu_now;
			p->carry_sum += (int64_t)c->cpu_now;
		}
		c->born = false;
		/* --wall: a thread first seen at its birth stop (in clone3)
		 * and blocked a few microseconds later (a native thread
		 * started on sleep) looks idle from then on, and the clone3
		 * stack would be counted again for its whole life
		 * (tests/chaos/python-churn.test saw a thread's 2669 samples
		 * all in "clone3"): its next checks take it anyway.  Not a thread
		 * there at the process's first check (first_due_ns),
		 * whose first stop finds it as it is: a blocked one
		 * is stopped once, as before. */
		if (!p->first_due_ns)
			p->first_due_ns = now_ns;
		c->wall_young = now_ns != p->first_due_ns ? WALL_YOUNG_CHECKS :
							    0;
		if (p->wall)
			return 1;
		state = cpuacct_state_once(c, p->pid, tid, NULL, 0);
		c->on_cpu = state == 'R';
		return state < 0 ? -1 : state == 'R';
	}
	used = c->cpu_now - c->cpu_base;
	interval = now_ns - c->read_ns;
	c->read_ns = now_ns;
	idle = used <= self_cost && c->runs_now - c->runs_base <= 2;
	/*
	 * Did it run on its own since its last check?  The discount is for
	 * the switches and CPU time a stop of ours makes: our stop's two
	 * switches (the trap, the restart) are discounted once each, in
	 * whichever check they land: under load the restart comes ticks
	 * after the detach, and a time window would then take it for the
	 * thread's own and stop it again and again.
	 * --wall: a thread that ran on its own at all (a sleeper that wakes
	 * for a few microseconds: time.sleep in a loop) has another stack
	 * now, and counting its old one again was wrong
	 * (tests/python-frames.test saw 150 of 153 samples in a stack from
	 * before its first sleep).
	 */
	{
		uint64_t runs = c->runs_now - c->runs_base;
		uint64_t own = runs < c->stop_owed ? runs : c->stop_owed;

		c->stop_owed -= (uint8_t)own;
		ran = runs > own || (!own && used) || used > self_cost;
	}
	if (p->wall && ran)
		idle = false;
	c->carry += (int64_t)c->pending;
	p->carry_sum += (int64_t)c->pending;
	give_up_beyond_max(c, p);
	c->pending = used;
	c->cpu_base = c->cpu_now;
	c->runs_base = c->runs_now;
	c->unexpl_base = p->unexpl_total;
	c->idle_checks = idle ? c->idle_checks + 1 : 0;
	if (!idle)
		c->active_ns = now_ns;
	/* Not a thread owed a sample (CPU mode): it must be read at every
	 * tick until one finds it running.  Quiet, it would be read only
	 * at a sweep, which the process clock calls for once the time is
	 * used, after the burst: a loop burning 0.5 ms every 10 ms was found
	 * asleep at 9 sweeps out of 10 (1 kHz), and a third of its time
	 * was never caught running. */
	c->quiet = c->idle_checks >= QUIET_AFTER &&
		   (p->wall || c->carry + (int64_t)c->pending < half);
	if (p->wall) {
		if (c->wall_young) {
			c->wall_young--;
			return 1;
		}
		return !idle;
	}
	/*
	 * CPU mode: not running at its last check and not run since (no
	 * switch in, no CPU time of its own): asleep, or woken and waiting
	 * for a CPU, when /proc says R too.  Stopped then, it would stop at
	 * the exit of the call it slept in the moment it runs, and that
	 * stack would take the CPU time it used before the sleep: sqlite3
	 * reading its input pipe on a busy machine had 17% of its stops at
	 * read's exit for 0.35% of its calls.  Asked again next tick, once
	 * it has run.  (A thread that runs on without a switch, its
	 * schedstat not yet brought up to date, waits a scheduler tick at
	 * most: 4 ms with HZ=250.)
	 */
	if (!was_on && !ran)
		return 0;
	if (c->carry >= half) {
		state = cpuacct_on_cpu_now(c, p, tid, used, interval);
		c->on_cpu = state == 1;
		/* A busy thread (it ran 90% of the time since its last
		 * check) pays back what it is counted ahead as it runs on. */
		c->borrowing = c->on_cpu && used >= interval / 10 * 9;
		return state;
	}
	/*
	 * Under half a period: due only if it runs now and either ran at
	 * its last check too (its schedstat may lag: borrow, within
	 * BORROW_MAX_NS), or ran since then while the threads together
	 * hold half a period of carry (small carries, see cpuacct.h).  The
	 * state is read from /proc, never guessed: a blocked thread is
	 * never stopped.
	 */
	borrow = was_on && c->carry - period >= period - (int64_t)BORROW_MAX_NS;
	avail = p->idle_sum - c->contrib + c->carry - p->reserved;
	if (!borrow && !(ran && avail >= half))
		return 0;
	state = procfs_read_task_state(p->pid, tid, &c->stat_fd);
	if (state < 0)
		return -1;
	c->unkept |= c->stat_fd < 0;
	c->on_cpu = state == 'R';
	c->borrowing = c->on_cpu && borrow;
	if (c->on_cpu && !borrow) {
		/* Taken now: a thread due later this tick gets the rest. */
		c->pool_w = (avail + half) / period;
		p->reserved += c->pool_w * period;
	}
	return c->on_cpu;
}

int cpuacct_due(struct cpuacct *c, struct cpuacct_proc *p, pid_t tid,
		uint64_t now_ns)
{
	int rc = due(c, p, tid, now_ns);

	set_contrib(c, p);
	return rc;
}

/*
 * The samples a CPU-mode stack counts for: its carry in periods, rounded,
 * or what it took of the small carries (pool_w); the rest is carried on.
 * A thread due as running ahead of its schedstat counts for 1, borrowed
 * (its carry goes negative, and is paid back as it runs); a busy one
 * counts for its carry, at least 1.  Otherwise the
 * threads together are never counted more than half a period ahead
 * (carry_sum >= -period/2): a thread due with just over half a period
 * counts for a whole one, which is paid back only if it runs again, and
 * a thousand light threads would each end the run so (measured: 100
 * threads, 0.65 s of CPU time, 0.8 to 1.2 s in the profile).  Then the
 * stack counts for 0 and stays the thread's last known one.  There is
 * no floor on a carry: every period given is taken off, so samples x
 * period + the carries = the CPU time read.  --wall: always 1.
 */
uint64_t cpuacct_weight(struct cpuacct *c, struct cpuacct_proc *p)
{
	int64_t period = (int64_t)p->period_ns, half = period / 2;
	int64_t w, cap;

	if (p->wall)
		return 1;
	if (c->pool_w) {
		w = c->pool_w;
		c->pool_w = 0;
		c->pool_stack = true;
	} else {
		w = c->carry > 0 ? (c->carry + half) / period : 0;
	}
	if (c->borrowing) {
		if (w < 1)
			w = 1;
	} else {
		cap = p->carry_sum + half > 0 ? (p->carry_sum + half) / period :
						0;
		if (w > cap)
			w = cap;
	}
	c->borrowing = false;
	c->carry -= w * period;
	p->carry_sum -= w * period;
	set_contrib(c, p);
	return (uint64_t)w;
}

/*
 * Found asleep after all: not running at this check, as if its state had
 * said so.  Left "running", its next check would skip the rule for a
 * thread not run since (cpuacct_due()): woken and waiting for a CPU (R)
 * it would be stopped, at the exit of the call it slept in, with all its
 * carry; and its carry would stay out of the small carries (idle_sum).
 */
void cpuacct_missed(struct cpuacct *c, struct cpuacct_proc *p)
{
	c->pool_w = 0;
	c->borrowing = false;
	c->on_cpu = false;
	set_contrib(c, p);
}

void cpuacct_proc_init(struct cpuacct_proc *p, pid_t pid, uint64_t period_ns,
		       bool wall)
{
	long ncpu;

	*p = (struct cpuacct_proc){ .pid = pid,
				    .period_ns = period_ns,
				    .wall = wall };
	p->clock_ok = clock_getcpuclockid(pid, &p->clock) == 0;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	p->ncpu = ncpu > 0 ? (uint64_t)ncpu : 1;
}

void cpuacct_from_birth(struct cpuacct *c)
{
	c->born = !c->have_cpu && !c->read_ns;
}

void cpuacct_proc_from_birth(struct cpuacct_proc *p)
{
	p->have_first = true;
	p->first = 0;
}

bool cpuacct_proc_begin(struct cpuacct_proc *p)
{
	struct timespec ts;

	p->sweep = true;
	p->reserved = 0;
	p->clock_ns = mono_now_ns();
	p->clock_read = p->clock_ok && clock_gettime(p->clock, &ts) == 0;
	if (p->clock_read)
		p->now = (uint64_t)ts.tv_sec * NSEC_PER_SEC +
			 (uint64_t)ts.tv_nsec;
	if (p->clock_read && !p->have_first) {
		p->have_first = true;
		p->first = p->now;
	}
	return p->clock_read;
}

int64_t cpuacct_proc_gap(struct cpuacct_proc *p, uint64_t counted_ns)
{
	struct timespec ts;
	uint64_t now = p->now;
	int64_t gap;

	if (!p->have_first)
		return 0;
	/* A target that has exited has no clock left: its last reading,
	 * at the start of the last tick, is the best there is. */
	if (p->clock_ok && clock_gettime(p->clock, &ts) == 0)
		now = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	gap = (int64_t)(now - p->first) - (int64_t)counted_ns - p->carry_sum -
	      p->pool - p->excluded;
	return gap > 0 ? gap : 0;
}

bool cpuacct_proc_end(struct cpuacct_proc *p, uint64_t explained)
{
	if (!p->clock_read) {
		p->have_last = false;
		return false;
	}
	if (p->have_last) {
		p->unexplained += (int64_t)(p->now - p->last - explained);
		p->unexpl_total += (int64_t)(p->now - p->last - explained);
	}
	p->have_last = true;
	p->last = p->now;
	p->sweep = p->unexplained > (int64_t)(p->period_ns / 2);
	p->sweep_unexpl = p->unexplained;
	if (p->sweep)
		p->unexplained = 0;
	return p->sweep;
}

bool cpuacct_recent(const struct cpuacct *c, const struct cpuacct_proc *p,
		    uint64_t now_ns)
{
	return !p->wall && c->quiet && c->have_cpu && c->active_ns &&
	       now_ns - c->active_ns < RECENT_NS;
}

uint64_t cpuacct_wake(struct cpuacct *c)
{
	uint64_t used = cpuacct_explain(c);

	if (used)
		c->quiet = false;
	return used;
}

bool cpuacct_proc_narrow(struct cpuacct_proc *p, uint64_t woke)
{
	int64_t left = p->sweep_unexpl - (int64_t)woke;

	if (p->wall || !p->sweep || left > (int64_t)(p->period_ns / 2))
		return false;
	p->sweep = false;
	p->unexplained = left;
	return true;
}
