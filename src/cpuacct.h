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
 * Quiet threads: one found idle 8 readings in a row is no longer read;
 * the process's CPU-time clock tells when some quiet thread may have run
 * (CPU time that no read thread explains), and then every quiet thread is
 * read once (a sweep).
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
	bool quiet;	      /* idle long: read only at a sweep */
	int64_t carry;	      /* CPU mode: on-CPU ns not yet counted in a
				 sample (negative: counted ahead) */
	uint64_t pending;     /* CPU mode: on-CPU ns of the interval that
				 ended at the last due check, which goes
				 into carry at the next (cpuacct_due()) */
};

struct cpuacct_proc {
	pid_t pid;
	uint64_t period_ns;
	bool wall;	     /* --wall: due when it ran at all */
	clockid_t clock;     /* the target's CPU-time clock */
	bool clock_ok;	     /* ... which could be had */
	bool clock_read;     /* this tick's reading is in now */
	uint64_t now;	     /* ... this tick's reading */
	bool have_last;	     /* last is a reading */
	uint64_t last;	     /* the previous tick's reading */
	int64_t unexplained; /* CPU time used by no thread that was read */
	bool sweep;	     /* read the quiet threads too this tick */
};

void cpuacct_init(struct cpuacct *c);
void cpuacct_close(struct cpuacct *c);

/* A new tick: the next cpuacct_read() reads again. */
void cpuacct_new_tick(struct cpuacct *c);

/*
 * Read tid's schedstat, once per tick (later calls in the tick return 0 at
 * once).  0; 1 when the counters went backwards: another task now has
 * this TID (an exec by a non-leader thread, or a reused TID), and the
 * accounting started afresh, as for a thread never seen; -1 with errno.
 */
int cpuacct_read(struct cpuacct *c, pid_t pid, pid_t tid);

/* Has the thread a reading and is it not quiet, so that its CPU time is
 * accounted for thread by thread (cpuacct_explain())? */
bool cpuacct_tracked(const struct cpuacct *c);

/* After cpuacct_read() of a tracked thread: the CPU time it used since its
 * previous read, which the process clock then need not explain (0 if the
 * read found another task under its TID). */
uint64_t cpuacct_explain(struct cpuacct *c);

/* After cpuacct_read(): count from this reading on (the time before it
 * is not ours to sample: another tracer held the thread). */
void cpuacct_rebase(struct cpuacct *c);

/* Forget the CPU time not yet counted in a sample. */
void cpuacct_drop_carry(struct cpuacct *c);

/* Is the thread left alone this tick: quiet, and the tick no sweep?
 * Then it is neither read nor due. */
bool cpuacct_resting(const struct cpuacct *c, const struct cpuacct_proc *p);

/* After cpuacct_read() at the tick that started at now_ns: is the thread
 * due for a sample?  Updates the carry and the quiet count.  1: due; 0:
 * not; -1 with errno: CPU mode, its state (running or not) could not be
 * read, and it is not due. */
int cpuacct_due(struct cpuacct *c, const struct cpuacct_proc *p, pid_t tid,
		uint64_t now_ns);

/* The samples a stack of the thread counts for; takes them off its carry. */
uint64_t cpuacct_weight(struct cpuacct *c, const struct cpuacct_proc *p);

/* Set up the process's accounting.  Without its CPU-time clock every
 * thread is read every tick. */
void cpuacct_proc_init(struct cpuacct_proc *p, pid_t pid, uint64_t period_ns,
		       bool wall);

/* Start a tick: read the process clock.  false: no reading (then every
 * thread is read, and cpuacct_explain() need not be asked). */
bool cpuacct_proc_begin(struct cpuacct_proc *p);

/* End the start of a tick, with what the read threads explained: decide
 * whether this tick is a sweep.  true: a sweep the clock called for. */
bool cpuacct_proc_end(struct cpuacct_proc *p, uint64_t explained);

#endif /* PTPROF_CPUACCT_H */
