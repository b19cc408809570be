/*
 * sysbias.c - is a CPU profile biased toward system calls (sysbias.h)?
 */
#include "config.h"

#include "sysbias.h"

/* The kernel's share of the thread's CPU time since its last sample: from
 * the ticks since then, else from all ticks seen; -1 when unknown. */
static double kernel_share(struct sysbias_thread *t, bool read, uint64_t utime,
			   uint64_t stime)
{
	uint64_t du = 0, ds = 0;

	if (read && t->have && utime >= t->utime && stime >= t->stime) {
		du = utime - t->utime;
		ds = stime - t->stime;
		t->sum_utime += du;
		t->sum_stime += ds;
	} else if (read && t->have) {
		/* Went backwards: another task has the TID.  Start again. */
		*t = (struct sysbias_thread){ 0 };
	}
	if (read) {
		t->have = true;
		t->utime = utime;
		t->stime = stime;
	}
	if (du + ds)
		return (double)ds / (double)(du + ds);
	if (t->sum_utime + t->sum_stime)
		return (double)t->sum_stime /
		       (double)(t->sum_utime + t->sum_stime);
	return -1;
}

/* Whole periods of *ns, rounded; the rest stays in *ns. */
static uint64_t take_periods(int64_t *ns, uint64_t period_ns)
{
	int64_t p = (int64_t)period_ns, n;

	n = *ns >= 0 ? (*ns + p / 2) / p : 0;
	*ns -= n * p;
	return (uint64_t)n;
}

void sysbias_split(struct sysbias_thread *t, uint64_t period_ns, uint64_t count,
		   bool at_syscall, bool read, uint64_t utime, uint64_t stime,
		   struct sysbias_parts *parts)
{
	double s = kernel_share(t, read, utime, stime);
	int64_t ns = (int64_t)(count * period_ns), sys;

	if (s < 0) {
		parts->here = count;
		parts->other = 0;
		return;
	}
	sys = (int64_t)((double)ns * s + 0.5);
	t->sys_ns += sys;
	t->user_ns += ns - sys;
	parts->here = take_periods(at_syscall ? &t->sys_ns : &t->user_ns,
				   period_ns);
	parts->other = take_periods(at_syscall ? &t->user_ns : &t->sys_ns,
				    period_ns);
}

bool sysbias_judge(uint64_t stacks, uint64_t samples,
		   uint64_t samples_at_syscall, uint64_t cpu_ns,
		   uint64_t sys_ns, struct sysbias *out)
{
	if (!samples || samples_at_syscall > samples || sys_ns > cpu_ns)
		return false;
	out->at_syscall = (double)samples_at_syscall / (double)samples;
	out->in_kernel = cpu_ns ? (double)sys_ns / (double)cpu_ns : 0;
	if (stacks < SYSBIAS_MIN_STACKS || cpu_ns < SYSBIAS_MIN_CPU_NS)
		return false;
	return out->at_syscall >= out->in_kernel + SYSBIAS_MARGIN &&
	       out->at_syscall > 1 - SYSBIAS_MIN_USER;
}
