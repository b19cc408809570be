/*
 * cpuacct.h - CPU accounting of the target's threads: which are due for
 * a sample, and how many samples a stack counts for.
 *
 * CPU mode: at each tick a thread's on-CPU time (schedstat) up to its
 * previous reading goes into its carry, the time not yet counted in a
 * sample (one tick late: see cpuacct_due()).  A thread is due once its
 * carry reaches half a period and it is running (or runnable) now; its
 * stack then counts for its carry in periods, rounded, and the rest is
 * carried on.  So a thread using 30% of a core gets 30% of a core's
 * samples wherever the ticks fall.  --wall: a thread
 * is due whenever it ran at all, and every stack counts once.
 *
 * Running threads (above ~250 Hz): a thread found running at its previous
 * check and running (R) again is due even if schedstat has not moved: the
 * kernel brings a running thread's schedstat up to date only at its own
 * scheduler ticks.  Its stack counts for one period, borrowed from its
 * carry (which goes negative), and schedstat pays it back when it catches
 * up.  How far it may be ahead is bounded (BORROW_MAX_NS in cpuacct.c: 12
 * ms less one period).
 *
 * Small carries: a thread that runs (R, and ran since its last check) with
 * under half a period of carry is due too while it and the threads that
 * were not running at their last check hold half a period of carry
 * together (idle_sum, less what threads due this tick took of it
 * already): its stack then counts for that sum in periods, rounded, which
 * its own carry pays (it goes negative; the others' stay, and are paid by
 * their own samples).  The carries of running threads are left out: they
 * are paid by their own samples soon, and a light thread must not take a
 * busy one's time.  So threads that run in bursts too short to build up
 * half a period each are sampled, in proportion to how often they run.
 * Busy threads aside, no stack puts the threads together more than half a
 * period ahead of the CPU time read (carry_sum): such a stack counts for
 * 0 (cpuacct_weight()).  What is left at the end goes to each thread's
 * last stack (cpuacct_settle()), or is reported as unsampled.
 *
 * Caught running: the stack a thread's CPU time is counted in must be
 * one taken while it ran.  A due thread is stopped only when it runs now
 * (its state, R), but it may block between that check and the stop (a
 * stop takes 50-200 us here; a request handler runs for less): a stop
 * that cuts a sleeping call short gives no stack for the time
 * (cpuacct_missed()), which stays in the carry for the next stack taken
 * while it runs.  A thread is never stopped on a guess, however large
 * its carry.  What a carry holds beyond CARRY_MAX periods is given up on
 * (the thread runs in bursts too short to be caught) and counted in
 * periods on the row "[CPU time not caught running]" (uncaught_w), so
 * that no single stack takes it and no sleeping one ever does.  Why this
 * is unbiased, and where it is not: ptprof(1), CPU MODE.
 *
 * Quiet threads: one found idle 8 readings in a row is no longer read;
 * the process's CPU-time clock tells when some quiet thread may have run
 * (CPU time that no read thread explains), and then every quiet thread is
 * read once (a sweep).  In CPU mode the quiet threads that ran in the
 * last second are read first: when they explain that time, the others
 * are not read (cpuacct_proc_narrow()).
 *
 * Contract: one struct cpuacct per thread (embedded in struct thread),
 * one struct cpuacct_proc per target; plain data, not thread-safe, never
 * prints.  Every call is made between stop windows: each reads /proc,
 * which no thread of the target should wait for.  cpuacct_init() before
 * first use, cpuacct_close() to release the files kept open (when
 * descriptors run short a file is read without being kept: unkept tells;
 * see procfs_read_schedstat()).  Readings fail with -1 and errno (the
 * thread is gone, /proc is not there, EMFILE); in CPU mode the sampler
 * then leaves the thread alone this tick (it never stops a thread on a
 * guess), in --wall mode it stops it as if it were due.
 */
#ifndef PTPROF_CPUACCT_H
#define PTPROF_CPUACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cpuacct {
	int sched_fd;	  /* its schedstat, or -1 */
	int stat_fd;	  /* its stat (the state), or -1 */
	bool unkept;	  /* a file of it was read without being kept open */
	uint64_t read_ns; /* CLOCK_MONOTONIC of its last due check */
	bool have_cpu;	  /* cpu_base/runs_base are real readings */
	uint64_t cpu_now, runs_now;   /* schedstat read this tick */
	uint64_t cpu_base, runs_base; /* ... at its last due check */
	bool fresh;		      /* cpu_now/runs_now were read this tick */
	uint64_t cpu_read;	      /* on-CPU time at its previous read */
	unsigned idle_checks; /* due checks in a row that found it idle */
	uint8_t stop_owed;    /* --wall: switches of ptprof's last stop of
				 it not yet seen by a check (2 at each
				 stop, set by the sampler) */
	unsigned wall_young;  /* --wall: due checks left that take it
				 idle or not (a thread just born) */
	bool quiet;	      /* idle long: read only at a sweep */
	uint64_t active_ns;   /* CLOCK_MONOTONIC of its last due check
				 that found it not idle; 0: none */
	bool on_cpu;	      /* CPU mode: found running at its last check */
	int64_t pool_w;	      /* due for the threads' small carries: the
				 samples its stack counts for, or 0 */
	bool pool_stack;      /* it was sampled so, at least once */
	bool borrowing;	      /* due as running and busy: counted ahead
				 of its schedstat if need be */
	int64_t contrib;      /* its part of idle_sum */
	int64_t unexpl_base;  /* p->unexpl_total at its last due check */
	int64_t carry;	      /* CPU mode: on-CPU ns not yet counted in a
				 sample (negative: counted ahead) */
	uint64_t pending;     /* CPU mode: on-CPU ns of the interval that
				 ended at the last due check, which goes
				 into carry at the next (cpuacct_due()) */
	bool born;	      /* its first reading counts from 0
				 (cpuacct_from_birth()) */
	uint64_t uncaught_w;  /* CPU mode: periods given up on at the last
				 due check (see "Caught running"), for the
				 caller to count; it zeroes them */
};

struct cpuacct_proc {
	pid_t pid;
	uint64_t period_ns;
	bool wall;	      /* --wall: due when it ran at all */
	clockid_t clock;      /* the target's CPU-time clock */
	bool clock_ok;	      /* ... which could be had */
	bool clock_read;      /* this tick's reading is in now */
	uint64_t now;	      /* ... this tick's reading */
	bool have_last;	      /* last is a reading */
	uint64_t last;	      /* the previous tick's reading */
	int64_t unexplained;  /* CPU time used by no thread that was read */
	int64_t unexpl_total; /* ... all of it since the first tick */
	uint64_t clock_ns;    /* CLOCK_MONOTONIC when now was read */
	uint64_t ncpu;	      /* CPUs online */
	bool sweep;	      /* read the quiet threads too this tick */
	int64_t sweep_unexpl; /* ... the unexplained time that called it */
	/* CPU mode totals (see "Small carries" above): */
	int64_t carry_sum;     /* the carries of the threads in the table */
	int64_t idle_sum;      /* the carries of threads not running at their
			      last check: the small carries */
	int64_t reserved;      /* ... given to threads due this tick (pool_w) */
	int64_t pool;	       /* carries of threads that are gone */
	int64_t excluded;      /* CPU time not for this profile (dropped) */
	uint64_t first_due_ns; /* the tick of its threads' first checks */
	bool have_first;       /* first is a reading */
	uint64_t first;	       /* the process clock at the first tick */
};

/* The most CPU time a thread's carry may hold at period_ns a period
 * (max(CARRY_MAX periods, CARRY_MAX_NS): "Caught running" above). */
uint64_t cpuacct_carry_bound(uint64_t period_ns);
void cpuacct_init(struct cpuacct *c);
void cpuacct_close(struct cpuacct *c);

/* A new tick: the next cpuacct_read() reads again. */
void cpuacct_new_tick(struct cpuacct *c);

/*
 * Read tid's schedstat, once per tick (later calls in the tick return 0 at
 * once).  0; 1 when the counters went backwards, or forwards by more
 * than the task can have run since its last check (the wall time; for
 * a quiet thread, the process's CPU time no thread read explains):
 * another task now has this
 * TID (an exec by a non-leader thread, or a reused TID), and the
 * accounting started afresh, as for a thread never seen; -1 with errno.
 */
int cpuacct_read(struct cpuacct *c, const struct cpuacct_proc *p, pid_t tid);

/*
 * The thread's state letter (and its name into name, len bytes, unless
 * NULL) from its stat file: through the descriptor kept for it if there
 * is one, else opened for this read and closed (a thread read once, at
 * its first check or for its name, may be one of thousands asleep, whose
 * descriptors would be held for nothing).  The letter, or -1 with errno.
 */
int cpuacct_state_once(struct cpuacct *c, pid_t pid, pid_t tid, char *name,
		       size_t len);

/* Has the thread a reading and is it not quiet, so that its CPU time is
 * accounted for thread by thread (cpuacct_explain())? */
bool cpuacct_tracked(const struct cpuacct *c);

/* After cpuacct_read() of a tracked thread: the CPU time it used since its
 * previous read, which the process clock then need not explain (0 if the
 * read found another task under its TID). */
uint64_t cpuacct_explain(struct cpuacct *c);

/* After cpuacct_read(): count from this reading on (the time before it
 * is not ours to sample: another tracer held the thread). */
void cpuacct_rebase(struct cpuacct *c, struct cpuacct_proc *p);

/* Forget the CPU time not yet counted in a sample (it is not for this
 * profile: an unselected thread, one another tracer held). */
void cpuacct_drop_carry(struct cpuacct *c, struct cpuacct_proc *p);

/* The thread is gone (dropped from the table): its carry goes to the
 * pool, counted at the end (cpuacct_proc_unsampled()). */
void cpuacct_gone(const struct cpuacct *c, struct cpuacct_proc *p);

/* At the end, after cpuacct_new_tick() and cpuacct_read(): add what the
 * thread used since its last check to its carry. */
void cpuacct_catch_up(struct cpuacct *c, struct cpuacct_proc *p);

/* At the end: take the thread's positive carry, at most *budget (which
 * it lowers), and with the rounding left by the previous calls (*resid)
 * give it in whole periods: the samples its last stack gets for it. */
uint64_t cpuacct_settle(struct cpuacct *c, struct cpuacct_proc *p,
			int64_t *budget, int64_t *resid);

/* ns more CPU time, with the rounding left by the previous calls
 * (*resid): the whole periods it makes. */
uint64_t cpuacct_periods(const struct cpuacct_proc *p, int64_t ns,
			 int64_t *resid);

/* At the end: the CPU time the process used since the first tick that is
 * in no sample, no thread's carry and not excluded (threads that exited
 * between two readings, threads first read after they ran), from its
 * CPU-time clock; 0 if it cannot be read.  counted_ns: samples x period. */
int64_t cpuacct_proc_gap(struct cpuacct_proc *p, uint64_t counted_ns);

/* Is the thread left alone this tick: quiet, and the tick no sweep?
 * Then it is neither read nor due. */
bool cpuacct_resting(const struct cpuacct *c, const struct cpuacct_proc *p);

/* After cpuacct_read() at the tick that started at now_ns: is the thread
 * due for a sample?  Updates the carry and the quiet count.  1: due; 0:
 * not; -1 with errno: CPU mode, its state (running or not) could not be
 * read, and it is not due. */
int cpuacct_due(struct cpuacct *c, struct cpuacct_proc *p, pid_t tid,
		uint64_t now_ns);

/* The samples a stack of the thread counts for; takes them off its carry
 * (which may go negative: borrowed, see above).  0 when the threads
 * together have been counted ahead already (carry_sum): the stack is
 * then only the thread's last known one. */
uint64_t cpuacct_weight(struct cpuacct *c, struct cpuacct_proc *p);

/* A stop of the due thread cut a sleeping call short: no stack counts
 * for its CPU time, which stays in its carry (see "Caught running"), and
 * it was not running at this check. */
void cpuacct_missed(struct cpuacct *c, struct cpuacct_proc *p);

/* A thread of a process born in the run (cpuacct_proc_from_birth()),
 * before its first reading: all its CPU time is the run's, and counts
 * from 0 (its first interval began at its birth) rather than from its
 * first reading.  For the threads of the process's first listing only:
 * a later one's time before its first reading is the process clock's
 * (cpuacct_proc_gap()), which it would count twice. */
void cpuacct_from_birth(struct cpuacct *c);

/* Set up the process's accounting.  Without its CPU-time clock every
 * thread is read every tick. */
void cpuacct_proc_init(struct cpuacct_proc *p, pid_t pid, uint64_t period_ns,
		       bool wall);

/* The process was born in the run: its clock counts from 0, not from
 * its first reading (cpuacct_proc_gap()). */
void cpuacct_proc_from_birth(struct cpuacct_proc *p);

/* Start a tick: read the process clock.  false: no reading (then every
 * thread is read, and cpuacct_explain() need not be asked). */
bool cpuacct_proc_begin(struct cpuacct_proc *p);

/* End the start of a tick, with what the read threads explained: decide
 * whether this tick is a sweep.  true: a sweep the clock called for. */
bool cpuacct_proc_end(struct cpuacct_proc *p, uint64_t explained);

/* A sweep called for, CPU mode: is the thread one to read first, quiet
 * but found running in the last second (cpuacct.c, "Narrowed sweeps")? */
bool cpuacct_recent(const struct cpuacct *c, const struct cpuacct_proc *p,
		    uint64_t now_ns);

/* After cpuacct_read() of such a thread: the CPU time it used since its
 * previous read (0 if the read found another task under its TID).  One
 * that used any is no longer quiet: it is asked whether it is due this
 * tick, as at a sweep. */
uint64_t cpuacct_wake(struct cpuacct *c);

/* The sweep was called for (cpuacct_proc_end()); woke is what the
 * threads read first explain.  true: that leaves under half a period
 * unexplained, and the tick is no sweep after all (the rest stays
 * unexplained, for the next ticks); false: it stays a sweep. */
bool cpuacct_proc_narrow(struct cpuacct_proc *p, uint64_t woke);

#endif /* PTPROF_CPUACCT_H */
