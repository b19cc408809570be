/*
 * sampler.h - the sampling loop: stop the threads that ran, take their
 * stacks, let them go.
 *
 * Every tick, on an absolute CLOCK_MONOTONIC deadline jittered within its
 * period (ticksched.h: the grid is fixed, each slot's offset uniform, so
 * work cycling at the tick rate cannot alias), the sampler:
 *  1. reads each thread's CPU time (cpuacct.h) and decides which threads
 *     are due: in CPU mode those that used half a period or more since
 *     their last sample and are running now, those running at two checks
 *     in a row (above ~250 Hz schedstat lags), and those running with a
 *     small carry while the idle threads' carries add up to half a period
 *     (cpuacct.h); with --wall (config->wall) those that ran at all.  A thread that is not due is not touched:
 *     in CPU mode its time is carried on, so that its stack, when it is
 *     taken, counts for the periods it used (a thread using 30% of a core
 *     gets 30% of a core's samples wherever the ticks fall); with --wall
 *     its last stack counts again.  Threads idle for a while become quiet
 *     and are read only when the process's CPU time says one of them ran
 *     (a sweep).  Threads the selection (config->select) refuses and
 *     threads another tracer holds are left alone too;
 *  2. with --wall, first reads each due thread that sleeps in the kernel
 *     without a stop (peek.h; issue 17): a stop would make its
 *     epoll_wait(), futex() with a timeout or read() with a timeout
 *     return EINTR.  Its stack is copied (in a CPython process its
 *     Python frames too, within a check of its schedstat) and unwound
 *     at once.  One found awake that slept most of the time since its
 *     last check, or was never sampled, is read again after the
 *     process's other threads, for 1 ms (an eighth of the period) at
 *     most; a thread still awake then, a busy one, one that could not
 *     be read, or whose unwind needed a register a peek does
 *     not have (unwind.h) is stopped as below instead (config->no_peek:
 *     every due thread is).  PTRACE_SEIZEs the due threads not read so
 *     and PTRACE_INTERRUPTs them all, each process's as soon as they
 *     are seized (a ptrace(PTRACE_TRACEME) made in between would fail:
 *     sampler_stops.c);
 *  3. as each stop comes, captures the thread's registers and a copy of
 *     its stack (and, in a CPython process, its chain of Python frames:
 *     below) and PTRACE_DETACHes it at once (the stop window: nothing
 *     else happens between a thread's interrupt and its detach);
 *  4. waits for the stops at most 500 us (a quarter period at most):
 *     a thread that has not stopped by then is LATE, and is captured and
 *     detached whenever its stop comes (it did not run meanwhile: its
 *     stack is still the tick's), without holding the others or the next
 *     tick;
 *  5. unwinds the copies, re-reading /proc/PID/maps when a PC lies in no
 *     known mapping (a library was loaded), and records the stacks.
 * Between ticks nothing of the target is traced, except LATE threads.
 * At the end of a CPU profile, the CPU time read but not yet in a sample
 * goes to the threads' last stacks (sampler_cpu_settle_all() in
 * sampler_cpu.c), and what
 * has no stack to go to is counted in stats->unsampled_ns.
 * /proc/PID/task is listed again when threads may have come or gone (at a
 * sweep, on a changed thread count, once a second).  A deadline that
 * passes without a tick (one started late) is counted as missed; ticks
 * are never bunched (none starts within period/8 of the last).
 *
 * Python frames (issue 16, config->pyframes; sampler_py.c): a process
 * whose main executable or libpython3.X.so exports _PyRuntime and
 * Py_Version has its runtime opened at attach or exec (pyrt.h) and
 * checked against its threads; a refusal leaves its stacks native and
 * puts one sentence in stats->py_warning.  In the stop window a thread
 * with a known thread state has its frame chain read (a few page reads,
 * ~13 us); after the release each _PyEval_EvalFrameDefault frame of its
 * stack is replaced by the Python frames it ran (pymerge.h), named in
 * config->pyframes, and a stack whose halves disagree stays native
 * (counted in stats->py_*).
 *
 * Kernel frames (issue 28, config->kframes; sampler_kernel.c): with
 * --wall, a due thread read asleep in a call without a stop (step 2
 * below) has its kernel stack read too (proc/kstack.h), and its sample
 * gets those frames, interned in config->kframes, on top of its user
 * stack.  A thread stopped gets none (its kernel stack would show the
 * ptrace stop, not its wait).
 *
 * Overhead budget (issue 30, config->max_overhead; sampler_budget.h):
 * every 200 ms or so the time the window's stops held the target's
 * threads is set against the CPU time its processes used, and the ticks
 * are re-planned at a lower rate when that share is over the budget, at
 * a higher one (up to config->hz) when well under.  CPU mode's period
 * stays hz's (a stack counts for the CPU time since its thread's last,
 * in those periods); a --wall stack counts for the periods of hz its
 * tick stands for.  stats->budget says what rates the run ticked at.
 *
 * Several processes (issue 14): the roots (config->pids) and, with
 * config->children, their descendants, which proctree.h finds without
 * tracing them; a new one is sampled from the tick after it is found.
 * All share the one tick: each process's CPU time is read (an idle one
 * costs its CPU clock's reading and nothing more), the due threads of
 * all are seized and interrupted (a process's at the end of its seizes),
 * their stops collected in one window (and between processes),
 * and each copy unwound with its own process's unwinder.  Per process:
 * its task list, cpuacct_proc, pidfd, unwinder and mapsync; threads are
 * kept in one table by TID (unique machine-wide), each pointing to its
 * process.  A process whose main executable changed (/proc/PID/exe's
 * device and inode, checked before the first unwind of its stacks in a
 * tick, and on a PROCTREE_EXEC) exec'd: a new image in ps, with new maps
 * and a fresh unwinder.  A process that exits is settled (its carries go
 * to its threads' last stacks, as at the end) and forgotten.  A process
 * the kernel refuses, or another tracer holds, is skipped (its image
 * says why) unless it is the only one left: then the run fails as a
 * one-process run did.  At most PROCSET_MAX_LIVE live processes: one
 * found past that is skipped (EAGAIN) with its descendants.
 *
 * Contract:
 *  - sampler_run() blocks the caller until the duration ends, a signal of
 *    config->stop_signals arrives (those signals must be blocked by the
 *    caller), every root has exited (config->child: that one has), or a
 *    fatal error; the descendants still alive then are let go.  It
 *    records samples into tab (config->tab_pid's only, when set), and in
 *    ps an image per process found and per exec seen (procset.h), with
 *    its maps.  SIGTSTP suspends ptprof only between ticks (see
 *    suspend_self).
 *  - However it returns, every target thread it seized has been detached
 *    with any signal it was stopped for, except a thread whose stop had not
 *    come 500 ms after the end (inside vfork(), in D state): that one is
 *    released when its stop is reaped (launch_wait(), launch.h) or, at the
 *    latest, by the kernel when ptprof exits.  Group-stopped targets stay
 *    stopped.
 *  - Returns 0, or -1 with errno.  EPERM when the kernel refused every
 *    thread of the only process left: at the first tick (nothing was
 *    touched), or for 10 ticks in a row later; or when every process was
 *    skipped before one was sampled.  A process other than the only one
 *    that cannot be followed for want of descriptors (EMFILE) is skipped
 *    too (its image says why), never the end of the run.  It never
 *    prints or exits.
 *  - Seccomp (seccomp.h): a thread stopped in a sleep is resumed by the
 *    kernel through restart_syscall, which a seccomp filter may forbid.
 *    At the first tick every thread's Seccomp: mode is read; with a
 *    filter (mode 2) and no way to read it (no CAP_SYS_ADMIN in the
 *    initial user namespace: seccomp_can_read()) the run
 *    fails at once, nothing touched (seccomp_refused, EACCES); else each
 *    filtered thread that runs (due, or R) is stopped then, and its
 *    filters are read and judged in that stop (a stop that misses the
 *    tick is waited for, 500 ms at most); if any forbids restart_syscall
 *    the run fails the same way after the tick.  A blocked one is not
 *    stopped for that (epoll_wait() would return EINTR): it is judged in
 *    its first stop for a sample, as below.  Later, whenever a stop lands with a restart
 *    pending, the thread's filters are judged again if their count
 *    changed.  A thread whose filters forbid it is let go so that the
 *    kernel re-runs its call instead (seccomp_defuse()), and is never
 *    stopped again (counted in seccomp_unsafe).  A descendant (or a
 *    root while other roots live) not yet sampled that such a filter
 *    forbids is skipped instead (its image: EACCES and why), whether
 *    found at the first tick or later, and the run goes on.  (Strict
 *    mode, 1, allows
 *    only read, write, exit and sigreturn, none of which restarts through
 *    restart_syscall: such threads are stopped as any.)
 *    config->unsafe_seccomp skips all of this.
 *  - When config->child is set (a process ptprof launched) and it exits
 *    during the run, the sampler reaps it and reports its wait status in
 *    stats->child_status.
 */
#ifndef PTPROF_SAMPLER_H
#define PTPROF_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"
#include "proc/proctree.h"
#include "profile/procset.h"
#include "profile/stacktab.h"
#include "unwind/unwind.h"

struct sampler_stats;
struct pyframes;

struct sampler_config {
	/* The processes named (-p), or the launched COMMAND: the roots.  The
	 * run ends when they have all exited (or the duration, a signal). */
	const pid_t *pids;
	size_t npids;
	/* Follow their descendants too (proctree.h), each from the tick
	 * after it is found until it exits. */
	bool children;
	unsigned hz;
	uint64_t duration_ns;	      /* 0: no limit */
	const sigset_t *stop_signals; /* blocked signals that end sampling */
	pid_t child; /* launched process to reap (one of pids), or 0 */
	bool wall;   /* sample threads that did not run too */
	/* Called between ticks once tab holds spill_at distinct stacks: it
	 * is expected to write them out and empty tab.  Non-zero (errno set)
	 * ends the run with an error.  NULL: tab grows without bound. */
	int (*spill)(void *arg);
	void *spill_arg;
	size_t spill_at;
	/* Only the stacks of this process go into tab (0: every stack): the
	 * legacy format holds one address space. */
	pid_t tab_pid;
	/* Called with every stack recorded (leaf first), with where it comes
	 * from (its image, thread, and the thread's name: comm, "" unless
	 * want_names) and the samples it stands for: for a caller that
	 * wants stacks by thread or process (ptprof dump, the pprof
	 * writer).  NULL: none. */
	void (*on_stack)(void *arg, const struct sample_origin *from,
			 const uint64_t *pcs, size_t n, uint64_t count);
	void *on_stack_arg;
	bool want_names; /* read thread names (once a second each) */
	/* Thread selection (-t, --thread-name): when select is set, only
	 * the threads it accepts are stopped; it is asked when a thread is
	 * first listed and then once a second, with its name (read for it
	 * whatever want_names says).  NULL: every thread. */
	bool (*select)(void *arg, pid_t tid, const char *name);
	void *select_arg;
	/* Called between ticks, never while a thread is held, at most once
	 * every progress_ns, with the figures so far (stats->elapsed_ns up to
	 * date): for a progress line.  It may block: it is called only when
	 * no stop is owed either (no LATE thread: put off by a second at
	 * most, stats->progress_deferred counts the ticks it waited).  NULL:
	 * none. */
	void (*progress)(void *arg, const struct sampler_stats *stats);
	void *progress_arg;
	uint64_t progress_ns;
	/* --unsafe-seccomp: stop threads whatever their seccomp filters say
	 * of restart_syscall (see "Seccomp" above). */
	bool unsafe_seccomp;
	/* Python frames (issue 16): the registry a CPython target's frames
	 * are interned into (pyframes.h), each eval-loop frame of its
	 * stacks replaced by the Python frames it ran (pymerge.h).  NULL
	 * (--no-python): native stacks only. */
	struct pyframes *pyframes;
	/* --wall --kernel (issue 28): the registry a blocked thread's
	 * kernel frames are interned into (pyframes_intern_kernel()), the
	 * same as pyframes when both are on (a writer names both from it).
	 * NULL: no kernel frames. */
	struct pyframes *kframes;
	/* With pyframes NULL: only tell CPython processes (stats->
	 * py_detected), for a caller whose output could not name their
	 * frames. */
	bool py_detect;
	/* --no-peek: with wall, stop every due thread, asleep or not (as
	 * before issue 17), rather than read a sleeping one without a stop
	 * (step 2 above). */
	bool no_peek;
	/* How long a tick waits for its stops before the threads not
	 * stopped yet are LATE (0: the default, 500 us or a quarter
	 * period).  A LATE stop that comes while the tick's copies are
	 * unwound is let go without a stack: a sampling run has the next
	 * tick, a one-shot capture (ptprof dump) has none and waits longer.
	 * A thread is let go as soon as it is copied, so a longer window
	 * holds no thread longer; it only delays the unwinds. */
	uint64_t stop_window_ns;
	/* With wall: no wait is decoded for the samples (sample_origin's
	 * wait stays WAIT_NONE): the caller names the waits itself, with
	 * the stacks' symbols (ptprof dump, dump_wait.c). */
	bool no_waits;
	/* --max-overhead (sampler_budget.h): the share of the target's time
	 * its stops may take, a fraction of 1 (0.01: 1%); the tick rate is
	 * lowered (and raised back towards hz) to stay under it.  0: hz
	 * throughout. */
	double max_overhead;
};

enum sampler_end {
	SAMPLER_END_DURATION,
	SAMPLER_END_SIGNAL,
	SAMPLER_END_TARGET_EXITED,
	SAMPLER_END_ERROR,
};

/*
 * The stop window of each thread, phase by phase (--stats), as
 * CLOCK_MONOTONIC readings around each step of note_stop() in sampler.c:
 *  STOP    its PTRACE_INTERRUPT to its stop reaped (waitpid()): the
 *          kernel's way to the stop and ptprof's wake-up or spin;
 *  REGS    PTRACE_GETREGS;
 *  STACK   the stack's copy (process_vm_readv(); stack_bytes copied);
 *  PY      its Python frames read (only threads whose frames were read);
 *  SECCOMP the seccomp guard (every stop asked for; nothing to do is the
 *          common case);
 *  DETACH  PTRACE_DETACH;
 *  HELD    stop reaped to detach done: the above but STOP, and the
 *          bookkeeping between them;
 *  WINDOW  interrupt to detach done: the whole time ptprof held it.
 * Each phase's n counts the stops it was timed in (LATE ones too).
 */
enum sampler_phase {
	SAMPLER_PH_STOP,
	SAMPLER_PH_REGS,
	SAMPLER_PH_STACK,
	SAMPLER_PH_PY,
	SAMPLER_PH_SECCOMP,
	SAMPLER_PH_DETACH,
	SAMPLER_PH_HELD,
	SAMPLER_PH_WINDOW,
	SAMPLER_PHASES
};

/* A phase's histogram, log-linear: 1 ns buckets below 128 ns, then 64
 * buckets per power of two (1.6% wide) up to 2^36 ns. */
#define PHASE_SUB 64
#define PHASE_BUCKETS (31 * PHASE_SUB)

struct sampler_phase_stat {
	uint64_t n, total_ns, max_ns;
	uint32_t hist[PHASE_BUCKETS];
};

/* Pause histogram: 1 us buckets below 2 ms, 100 us buckets to 102 ms. */
#define PAUSE_FINE_US 2048
#define PAUSE_COARSE 1000
#define PAUSE_BUCKETS (PAUSE_FINE_US + PAUSE_COARSE)
#define UNWIND_BUCKETS 1024

/* --max-overhead (sampler_budget.h): the budget, the rates the run
 * ticked at, and the overhead it measured over its windows. */
struct sampler_budget_stats {
	double max;	 /* the budget, a fraction of 1; 0: none */
	double hz_asked; /* -f */
	double hz_floor; /* the lowest rate it may go to */
	double hz_min, hz_mean, hz_final; /* the rates it ran at (mean: over
					     time) */
	uint64_t lowered, raised;	  /* windows that changed the rate */
	uint64_t windows, windows_over;	  /* judged; over the budget */
	uint64_t held_ns, cpu_ns;	  /* over the windows: the overhead is
				     held / (cpu + held) */
	double worst;			  /* the highest of one window */
	bool floor_over; /* a window over the budget at the floor */
};

struct sampler_stats {
	uint64_t ticks;	       /* ticks taken */
	uint64_t missed_ticks; /* deadlines passed without a tick */
	/* ticks after which the progress hook waited for a LATE stop */
	uint64_t progress_deferred;
	uint64_t samples;	  /* samples recorded (CPU mode: a stack counts
				   for the periods of CPU time it stands for) */
	uint64_t stacks;	  /* thread stacks recorded */
	uint64_t threads_seen;	  /* distinct TIDs ever sampled */
	uint64_t late_threads;	  /* thread stops that missed their tick */
	uint64_t threads_stopped; /* thread stops taken, over all ticks */
	uint64_t threads_spared;  /* threads not stopped: not due (CPU mode:
				     under half a period used since their
				     last sample; --wall: did not run) */
	uint64_t threads_unselected; /* threads not stopped: not selected */
	/* --wall (step 2 above): due threads sampled without a stop
	 * (peeked; of them, peek_retried after their first reads
	 * disagreed), and those stopped after all, by why: running or
	 * runnable; ran between the reads PEEK_TRIES times in a row; a read
	 * or the unwind failed; the unwind refused the partial capture
	 * (ENODATA).  peek_ns: the time the reads took (not the unwinds). */
	uint64_t peeked, peek_retried, peek_running, peek_changed;
	uint64_t peek_failed, peek_refused, peek_ns;
	uint64_t reused_samples; /* --wall samples that reused a last stack */
	uint64_t sweeps;	 /* ticks that read every quiet thread */
	uint64_t late_captured;	 /* LATE stops captured after their tick */
	/* CPU mode: samples given at the end to threads' last stacks for
	 * their CPU time not yet counted; CPU time (ns) the target used that
	 * no stack could be given (see sampler_cpu_settle_all() in
	 * sampler_cpu.c). */
	uint64_t settled_samples;
	uint64_t unsampled_ns;
	/* CPU mode: stops that cut a sleeping call short (the thread had
	 * blocked between the check that found it running and the stop),
	 * which give no stack for its CPU time (sampler_record.c); samples
	 * of the row "[CPU time not caught running]" (framename.h): CPU
	 * time that never met a stack taken while its thread ran. */
	uint64_t stops_in_sleep;
	uint64_t uncaught_samples;
	/* CPU mode: samples of the row "[CPU time of no stack]": CPU time
	 * of processes and threads that ended before any stack of them was
	 * taken (sampler_cpu_settle_proc()); of them, of processes gone
	 * before they could be read (their CPU time at exit: proctree.h). */
	uint64_t nostack_samples;
	uint64_t nostack_unread_samples;
	uint64_t pause_total_ns; /* sum over ticks of first interrupt..last detach */
	uint64_t pause_max_ns;
	uint32_t pause_hist[PAUSE_BUCKETS]; /* ticks per pause bucket */
	/* Stop latency: from a thread's PTRACE_INTERRUPT to its stop's report
	 * (LATE ones too), per stop, in the pause's buckets. */
	uint64_t stop_lat_n, stop_lat_max_ns;
	uint32_t stop_lat_hist[PAUSE_BUCKETS];
	/* The stop window by phase (see enum sampler_phase); the stack
	 * bytes copied over phase[SAMPLER_PH_STACK].n copies, the most in
	 * one.  Stop waits that spun (stops_spun, see
	 * sampler_stops_collect() in sampler_stops.c) and the stops reaped
	 * while spinning. */
	struct sampler_phase_stat phase[SAMPLER_PHASES];
	uint64_t stack_bytes, stack_bytes_max;
	/* Stack copies made before the registers from the thread's last
	 * SP (capture_thread_hint()) that missed the new SP, and so were
	 * made again. */
	uint64_t stack_hint_missed;
	uint64_t stops_spun, stops_caught_spinning;
	/* Stacks (and the samples they count for) whose stop came at the
	 * exit of a system call that returned, of a thread that was running
	 * (capture_stop_kind() and a `syscall` before the PC): a stop
	 * lands at the thread's next return to user mode, which the call's
	 * exit often reaches before the interrupt does (ptprof(1), SYSTEM
	 * CALL BIAS). */
	uint64_t stacks_at_syscall, samples_at_syscall;
	/* The correction (sysbias.h): samples given to the thread's last
	 * stack of the other kind, and of those, to the caller of the call
	 * (no stack stopped in user code yet); not those of a stack of one
	 * PC, which stay on it (sysbias_dest()). */
	uint64_t samples_moved, samples_to_caller;
	/* Wall time of each unwind (from the copy, after the release), by
	 * microsecond up to UNWIND_BUCKETS - 1 (the last bucket: longer). */
	uint64_t unwind_hist[UNWIND_BUCKETS];
	/* Threads found traced by another process (a debugger, strace),
	 * which were not sampled while it held them (each thread once,
	 * however often it was taken and let go); the first of them and its
	 * tracer. */
	uint64_t foreign_traced;
	pid_t foreign_tid, foreign_tracer;
	char foreign_comm[64]; /* the tracer's name, read when first seen */
	/* Threads whose /proc files could not all be kept open (too few
	 * descriptors: RLIMIT_NOFILE), read anew at each tick instead. */
	uint64_t threads_unkept;
	/* CPU mode: threads whose CPU time or state could not be read at
	 * some tick (not because they were gone), and so were not stopped
	 * then; the errno of the first failure. */
	uint64_t threads_unread;
	int unread_errno;
	/* Threads left alone for their seccomp filters (see "Seccomp"):
	 * how many, the first and its process, and what its filters do
	 * (enum seccomp_verdict).  seccomp_refused: at the start, so
	 * nothing was sampled and the run failed (errno EACCES). */
	uint64_t seccomp_unsafe;
	pid_t seccomp_tid, seccomp_pid;
	int seccomp_verdict;
	bool seccomp_refused;
	/* The process set: processes found (roots and descendants, the
	 * skipped included), skipped (their images say why), how descendants were found (NULL:
	 * not followed), and the tree's counters. */
	uint64_t procs_found, procs_skipped;
	const char *discovery;
	int tree_errno; /* cfg->children, but proctree_new() failed so */
	struct proctree_counters tree;
	uint64_t elapsed_ns;
	enum sampler_end end;
	int end_signal;	     /* for SAMPLER_END_SIGNAL */
	int end_signal_code; /* its si_code: SI_KERNEL from a terminal */
	struct unwinder_counters unwind; /* filled at the end of the run */
	/* Python frames (cfg->pyframes): processes whose CPython runtime is
	 * read, and refused (the first refusal's sentence in py_warning);
	 * stacks merged; stacks kept native: the merge found no entry frame
	 * or a mismatch, the thread's frames did not end (py_unended; by
	 * pyrt_frames() status in py_status), an eval-loop stack of a thread
	 * with no known thread state (py_no_tstate, py_refreshes the thread
	 * states read again); Python frames left unnamed (their eval frame
	 * stands in).  py_walk_ns: the stop window's time spent reading
	 * frames, over py_walks threads, with py_page_reads reads. */
	uint64_t py_procs, py_refused;
	uint64_t py_detected;  /* cfg->py_detect: CPython processes met */
	pid_t py_detected_pid; /* the first */
	char py_warning[256];
	uint64_t py_merged, py_no_entry, py_mismatch, py_unended, py_no_tstate;
	uint64_t py_stale; /* kept native: merged over 10 ms after the read */
	uint64_t py_refreshes, py_unnamed, py_status[5];
	uint64_t py_walks, py_walk_ns, py_page_reads;
	uint64_t py_code_reads, py_code_flushes;
	bool child_reaped;
	int child_status;		    /* wait status, when child_reaped */
	struct sampler_budget_stats budget; /* config->max_overhead */
};

/* 0, or -1 with errno: ENOTSUP for CPU mode on a kernel without
 * schedstat (CONFIG_SCHED_INFO), EACCES with stats->seccomp_refused set
 * (see "Seccomp"), else what failed. */
int sampler_run(const struct sampler_config *config, struct stacktab *tab,
		struct procset *ps, struct sampler_stats *stats);

/* The q-quantile (0..1) of the pause per tick, in ns (bucket upper bound,
 * at most pause_max_ns); 0 without ticks. */
uint64_t sampler_pause_quantile(const struct sampler_stats *st, double q);

/* The q-quantile (0..1) of the stop latency, in ns (as the pause's). */
uint64_t sampler_stop_quantile(const struct sampler_stats *st, double q);

/* The q-quantile (0..1) of a phase of the stop window, in ns (bucket
 * upper bound, at most the phase's max); 0 when it was never timed. */
uint64_t sampler_phase_quantile(const struct sampler_stats *st,
				enum sampler_phase ph, double q);

/* The q-quantile (0..1) of the time one unwind took, in us (bucket upper
 * bound; UNWIND_BUCKETS means longer); 0 without unwinds. */
unsigned sampler_unwind_quantile(const struct sampler_stats *st, double q);

#endif /* PTPROF_SAMPLER_H */
