/*
 * unwind_fp.c - frames with no unwind info (JIT code) stepped by their
 * frame pointer, validated (fpstep.h), and DWARF unwinding resumed at
 * their caller.
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include <libunwind.h>

#include "unwind/fpstep.h"
#include "unwind/unwind_int.h"

/* fpstep.h's callbacks, over the unwind's memory accessor and maps. */
static int fp_read(void *arg, uint64_t addr, uint64_t *val)
{
	unw_word_t w;

	if (unwind_access_mem(NULL, addr, &w, 0, arg) < 0)
		return -1;
	*val = w;
	return 0;
}

static bool fp_is_exec(void *arg, uint64_t addr)
{
	const struct unwind_ctx *ctx = arg;
	const struct map_entry *e = maps_find(ctx->u->maps, addr);

	return e && e->exec;
}

/* The stack that holds rsp: its writable mapping, else the stack copy
 * (a mapping newer than the last maps snapshot). */
static bool fp_stack(const struct unwind_ctx *ctx, uint64_t rsp,
		     struct fpstep_env *env)
{
	const struct map_entry *e = maps_find(ctx->u->maps, rsp);
	const struct capture *cap = ctx->cap;

	if (e && e->write) {
		env->stack_lo = e->start;
		env->stack_hi = e->end;
		return true;
	}
	if (rsp < cap->stack_start || rsp - cap->stack_start >= cap->stack_len)
		return false;
	env->stack_lo = cap->stack_start;
	env->stack_hi = cap->stack_start + cap->stack_len;
	return true;
}

static void fp_count(struct unwinder_counters *c, enum fpstep_result r)
{
	switch (r) {
	case FPSTEP_OK:
		c->fp_steps++;
		break;
	case FPSTEP_END:
		break;
	case FPSTEP_BAD_FP:
		c->fp_stop_bad_fp++;
		break;
	case FPSTEP_UNREADABLE:
		c->fp_stop_unreadable++;
		break;
	case FPSTEP_NOT_EXEC:
		c->fp_stop_not_exec++;
		break;
	}
}

/* The callee-saved registers besides rbp, as unwound so far: JIT code
 * says nothing of them, so the caller of a frame-pointer step gets them
 * unchanged (libunwind's own frame-chain step does the same). */
static const unw_regnum_t fp_kept[] = {
	UNW_X86_64_RBX, UNW_X86_64_R12, UNW_X86_64_R13,
	UNW_X86_64_R14, UNW_X86_64_R15,
};

/* The frame-pointer step from in (fpstep.h) into ctx->fp_regs: 1 if
 * stepped, 0 if the stack ends here. */
static int fp_regs_step(struct unwind_ctx *ctx, const struct fpstep_regs *in)
{
	struct fpstep_env env = { fp_read, fp_is_exec, ctx, 0, 0 };
	struct unwinder_counters *count = &ctx->u->count;
	struct fpstep_regs out;
	enum fpstep_result r;

	if (ctx->fp_steps >= UNWIND_FP_MAX) {
		count->fp_stop_limit++;
		return 0;
	}
	if (!fp_stack(ctx, in->rsp, &env)) {
		count->fp_stop_bad_fp++;
		return 0;
	}
	r = fpstep_step(&env, in, &out);
	fp_count(count, r);
	if (r != FPSTEP_OK)
		return 0;
	ctx->fp_regs.rip = out.rip;
	ctx->fp_regs.rsp = out.rsp;
	ctx->fp_regs.rbp = out.rbp;
	ctx->unknown &= ~(REG_BIT(UNW_X86_64_RIP) | REG_BIT(UNW_X86_64_RSP) |
			  REG_BIT(UNW_X86_64_RBP));
	ctx->regs = &ctx->fp_regs;
	ctx->fp_steps++;
	return 1;
}

/*
 * After a frame-pointer step to ctx->fp_regs: if that caller's code has
 * no unwind table either (the next JIT frame), the next step is by frame
 * pointer again, without libunwind (fp_lazy: the cursor is left stale,
 * which saves a restart and a failed search per JIT frame); else restart
 * libunwind there, so DWARF unwinding resumes.  1, or 0 if libunwind
 * cannot start there.  libunwind looks the restarted frame's unwind info
 * up at the return address itself, not at the call before it: a call that
 * ends its function (a noreturn call) would find the next one's.
 */
static int fp_resume(struct unwind_ctx *ctx, unw_cursor_t *c)
{
	ctx->fp_lazy = !unwind_tables_for(ctx, ctx->fp_regs.rip);
	if (ctx->fp_lazy)
		return 1;
	return unw_init_remote(c, ctx->u->as, ctx) == 0;
}

/* The cursor is at a frame with no unwind info: step to its caller by
 * the frame pointer, the other registers kept as unwound so far. */
int unwind_fp_step(struct unwind_ctx *ctx, unw_cursor_t *c)
{
	const size_t nkept = sizeof(fp_kept) / sizeof(*fp_kept);
	unw_word_t ip, sp, fp, kept[sizeof(fp_kept) / sizeof(*fp_kept)];
	int got[sizeof(fp_kept) / sizeof(*fp_kept)];
	const struct map_entry *e;
	struct fpstep_regs in;

	if (unw_get_reg(c, UNW_REG_IP, &ip) < 0) {
		ctx->u->count.fp_stop_bad_fp++;
		return 0;
	}
	/* A PC in a mapping that is not executable is no code (a data word
	 * that a CFI row took for a return address: Go's rt0_go gives
	 * &runtime.g0): the stack ends there, and rbp, which a partial
	 * capture lacks, is not needed. */
	e = maps_find(ctx->u->maps, ip);
	if (e && !e->exec) {
		ctx->u->count.fp_stop_not_exec++;
		return 0;
	}
	if (unw_get_reg(c, UNW_X86_64_RSP, &sp) < 0 ||
	    unw_get_reg(c, UNW_X86_64_RBP, &fp) < 0) {
		ctx->u->count.fp_stop_bad_fp++;
		return 0;
	}
	in.rip = ip, in.rsp = sp, in.rbp = fp;
	/* All read before any is written: after a restart the cursor reads
	 * registers libunwind has no rule for from fp_regs itself, and a
	 * DW_CFA_register rule can name another kept register.  These reads
	 * only carry the values: one a partial capture lacks is not needed
	 * (carrying), it stays unknown in fp_regs; one read from the stack
	 * is known from here on. */
	ctx->carrying = true;
	for (size_t i = 0; i < nkept; i++)
		got[i] = unw_get_reg(c, fp_kept[i], &kept[i]);
	ctx->carrying = false;
	if (ctx->regs != &ctx->fp_regs)
		ctx->fp_regs = *ctx->regs;
	for (size_t i = 0; i < nkept; i++) {
		if (got[i] == 0) {
			memcpy((char *)&ctx->fp_regs +
				       unwind_access_reg_offset[fp_kept[i]],
			       &kept[i], sizeof(kept[i]));
			ctx->unknown &= ~REG_BIT(fp_kept[i]);
		} else if (ctx->cap->partial) {
			/* not this frame's value: fp_regs keeps the last one */
			ctx->unknown |= REG_BIT(fp_kept[i]);
		}
	}
	return fp_regs_step(ctx, &in) && fp_resume(ctx, c);
}

int unwind_fp_step_lazy(struct unwind_ctx *ctx, unw_cursor_t *c)
{
	struct fpstep_regs in;

	in.rip = ctx->fp_regs.rip;
	in.rsp = ctx->fp_regs.rsp;
	in.rbp = ctx->fp_regs.rbp;
	return fp_regs_step(ctx, &in) && fp_resume(ctx, c);
}
