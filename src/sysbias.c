/*
 * sysbias.c - is a CPU profile biased toward system calls (sysbias.h)?
 */
#include "config.h"

#include "sysbias.h"

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
	return out->at_syscall >= out->in_kernel + SYSBIAS_MARGIN;
}
