/*
 * fpstep.c - one validated frame-pointer step (see fpstep.h).
 */
#include "config.h"

#include "unwind/fpstep.h"

enum fpstep_result fpstep_step(const struct fpstep_env *env,
			       const struct fpstep_regs *in,
			       struct fpstep_regs *out)
{
	uint64_t fp = in->rbp, caller_fp, ra;

	if (fp == 0)
		return FPSTEP_END; /* _start and Go's goexit clear rbp */
	/* fp + 16 cannot wrap: fp < stack_hi - 16 is checked first. */
	if (fp % 8 || fp < in->rsp || fp < env->stack_lo ||
	    env->stack_hi < 16 || fp > env->stack_hi - 16)
		return FPSTEP_BAD_FP;
	if (env->read(env->arg, fp, &caller_fp) ||
	    env->read(env->arg, fp + 8, &ra))
		return FPSTEP_UNREADABLE;
	if (ra == 0)
		return FPSTEP_END;
	if (!env->is_exec(env->arg, ra))
		return FPSTEP_NOT_EXEC;
	out->rip = ra;
	out->rsp = fp + 16; /* > in->rsp, since fp >= in->rsp */
	out->rbp = caller_fp;
	return FPSTEP_OK;
}
