/*
 * sysbias.h - is a CPU profile biased toward system calls?
 *
 * A ptrace stop takes effect at the thread's next return to user mode:
 * the interrupt's IPI or the exit of the thread's next system call,
 * whichever comes first.  For a thread that makes a cheap call every few
 * microseconds the call's exit often wins, and the sample lands there
 * although the thread was in user code at the tick: the calls are shown
 * costing far more than they do (ptprof(1), SYSTEM CALL BIAS).  The
 * sampler counts the samples whose stop came at a call's exit
 * (sampler_stats.samples_at_syscall); the kernel's own split of the
 * target's CPU time (utime/stime in /proc/PID/stat, counted at its clock
 * ticks, which land wherever the thread is) tells how much of its time
 * was really spent in the kernel.  This module compares the two.
 *
 * Contract: pure arithmetic on the caller's counts; never prints.
 */
#ifndef PTPROF_SYSBIAS_H
#define PTPROF_SYSBIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough to tell a share from noise: stacks, and CPU time (/proc counts
 * it in 10 ms clock ticks). */
#define SYSBIAS_MIN_STACKS 50
#define SYSBIAS_MIN_CPU_NS (500ULL * 1000 * 1000)
/* How far the share of samples at a call's exit may pass the share of
 * CPU time in the kernel before the profile is called biased. */
#define SYSBIAS_MARGIN 0.20
/* The correction spreads the user time over the stacks stopped in user
 * code; below this share of them, too few to trust (see sysbias_judge). */
#define SYSBIAS_MIN_USER 0.40

struct sysbias {
	double at_syscall; /* share of samples at a system call's exit */
	double in_kernel;  /* share of the CPU time spent in the kernel */
};

/*
 * From the run's stacks and samples, the samples at a call's exit (as
 * stopped, before the correction), and the target's CPU time over the run
 * (cpu_ns) with its part in the kernel (sys_ns): fills out (when the
 * counts allow) and returns true when the user should be told: the
 * samples at a call's exit pass the kernel's share by SYSBIAS_MARGIN or
 * more, and so few stops came in user code (under SYSBIAS_MIN_USER of the
 * samples) that the correction spread the user time over few stacks,
 * which favour the code just after the calls (measured: loops of 1 or
 * 3 us of work and one getppid() with 67-95% of their stops at the call's
 * exit; the correction gave the work 49-93% where perf gives 85-94%).
 * With 10 us of work (0-56% at the call's exit) the correction held,
 * within 5 points of perf, and nothing is said.  False, too, when there
 * is too little to tell.
 */
bool sysbias_judge(uint64_t stacks, uint64_t samples,
		   uint64_t samples_at_syscall, uint64_t cpu_ns,
		   uint64_t sys_ns, struct sysbias *out);

/*
 * The correction, thread by thread (CPU mode).  K is the kernel's share of
 * the thread's CPU time (its utime and stime, procfs_read_task_times(),
 * since the first reading); F the share of its samples whose stop came at
 * a call's exit.  Were the stops unbiased, F would be at most K (K also
 * holds kernel work outside calls: page faults, whose stops look like
 * stops in user code).  So only the excess is bias: a stop at a call's
 * exit keeps K/F of its samples when F > K, and gives the rest to the
 * thread's stacks stopped in user code (sampler_record.c emit_split():
 * its last few, else this stack without its leaf, the call's wrapper); a
 * stop anywhere else keeps all of its samples.  A stop by an interrupt
 * at the first instruction after a `syscall` keeps its samples but is no
 * stack in user code (emit_split() says why): it would take user time
 * back to the call.  Time only ever moves away from the calls,
 * never more than the measured excess: a page-faulting or allocating
 * program keeps its kernel time where it was (moving kernel time onto
 * the calls, as a first version did, put 93% of a Python allocation
 * loop on brk against perf's 15%).  The total is kept: what rounds away
 * is carried to the next sample.  Times that cannot be read (or show no
 * tick yet) leave the sample as it was.
 */
struct sysbias_thread {
	bool have;		       /* utime, stime are a reading */
	uint64_t utime, stime;	       /* at the previous sample (ticks) */
	uint64_t sum_utime, sum_stime; /* since the first reading */
	uint64_t n_all, n_at; /* samples with known times; at a call's exit */
	int64_t user_ns, sys_ns; /* parts not yet counted (under a period) */
};

/* Where a stop came (capture_stop_kind(), confirmed by the unwinder). */
enum sysbias_stop {
	SYSBIAS_USER,	/* in user code (or a page fault) */
	SYSBIAS_EXIT,	/* at the exit of a call that returned */
	SYSBIAS_IN_CALL /* in a call it cut short, which restarts */
};

/* How the samples of one stack are split (sysbias_split()). */
struct sysbias_parts {
	uint64_t here;	/* periods for the stack stopped */
	uint64_t other; /* periods for the thread's stack of the other kind */
};

/*
 * A stack of the thread counting for `count` periods of period_ns,
 * stopped where kind says; read: utime and stime (ticks) could be read
 * just after the stop.  Fills parts (here + other need not equal count:
 * what rounds away is carried on).  A stop in a call (SYSBIAS_IN_CALL:
 * the thread blocked in it after the check that found it running, and
 * the stop cut its sleep short) gives no stack at all in CPU mode
 * (sampler_record.c record_stack(): the CPU time waits in the thread's
 * carry for a stack taken while it runs), so the sampler never passes
 * one; given one, this leaves it as it is (parts->here = count) and out
 * of F: it is neither a stop in user code nor one that raced the
 * interrupt to a call's exit.
 */
void sysbias_split(struct sysbias_thread *t, uint64_t period_ns, uint64_t count,
		   enum sysbias_stop kind, bool read, uint64_t utime,
		   uint64_t stime, struct sysbias_parts *parts);

/*
 * Where parts.other goes: to the thread's stacks stopped in user code
 * (it has user_stacks of them), else to the stack's caller (the stack
 * without its leaf, n > 1 PCs), else nowhere else: it stays on the
 * stack, and is not a move.
 */
enum sysbias_dest { SYSBIAS_TO_USER, SYSBIAS_TO_CALLER, SYSBIAS_STAYS };
enum sysbias_dest sysbias_dest(unsigned user_stacks, size_t n);

#endif /* PTPROF_SYSBIAS_H */
