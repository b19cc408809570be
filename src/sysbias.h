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
#include <stdint.h>

/* Enough to tell a share from noise: stacks, and CPU time (/proc counts
 * it in 10 ms clock ticks). */
#define SYSBIAS_MIN_STACKS 50
#define SYSBIAS_MIN_CPU_NS (500ULL * 1000 * 1000)
/* How far the share of samples at a call's exit may pass the share of
 * CPU time in the kernel before the profile is called biased. */
#define SYSBIAS_MARGIN 0.20

struct sysbias {
	double at_syscall; /* share of samples at a system call's exit */
	double in_kernel;  /* share of the CPU time spent in the kernel */
};

/*
 * From the run's stacks and samples, the samples at a call's exit, and
 * the target's CPU time over the run (cpu_ns) with its part in the kernel
 * (sys_ns): fills out (when the counts allow) and returns true when the
 * samples at a call's exit pass the kernel's share by SYSBIAS_MARGIN or
 * more.  False, too, when there is too little to tell.
 */
bool sysbias_judge(uint64_t stacks, uint64_t samples,
		   uint64_t samples_at_syscall, uint64_t cpu_ns,
		   uint64_t sys_ns, struct sysbias *out);

#endif /* PTPROF_SYSBIAS_H */
