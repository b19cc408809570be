/*
 * sysbias.c - is a CPU profile biased toward system calls (sysbias.h)?
 */
#include "config.h"

#include "sampler/sysbias.h"

/* The kernel's share of the thread's CPU time since the first reading
 * (K in sysbias.h); -1 when unknown. */
static double kernel_share(struct sysbias_thread *t, bool read, uint64_t utime,
			   uint64_t stime)
{
	if (read && t->have && utime >= t->utime && stime >= t->stime) {
		t->sum_utime += utime - t->utime;
		t->sum_stime += stime - t->stime;
	} else if (read && t->have) {
		/* Went backwards: another task has the TID.  Start again. */
		*t = (struct sysbias_thread){ 0 };
	}
	if (read) {
		t->have = true;
		t->utime = utime;
		t->stime = stime;
	}
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
		   enum sysbias_stop kind, bool read, uint64_t utime,
		   uint64_t stime, struct sysbias_parts *parts)
{
	double k = kernel_share(t, read, utime, stime), f, keep;
	int64_t ns = (int64_t)(count * period_ns), kept;

	parts->here = count;
	parts->other = 0;
	if (k < 0 || kind == SYSBIAS_IN_CALL)
		return;
	t->n_all += count;
	if (kind != SYSBIAS_EXIT)
		return;
	t->n_at += count;
	f = (double)t->n_at / (double)t->n_all;
	keep = f > k ? k / f : 1;
	kept = (int64_t)((double)ns * keep + 0.5);
	t->sys_ns += kept;
	t->user_ns += ns - kept;
	parts->here = take_periods(&t->sys_ns, period_ns);
	parts->other = take_periods(&t->user_ns, period_ns);
}

enum sysbias_dest sysbias_dest(unsigned user_stacks, size_t n)
{
	if (user_stacks)
		return SYSBIAS_TO_USER;
	return n > 1 ? SYSBIAS_TO_CALLER : SYSBIAS_STAYS;
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
