/*
 * fpstep.h - one validated frame-pointer step, for code without unwind
 * tables (JIT code in anonymous memory, trampolines).
 *
 * Code that keeps frame pointers (V8 always; HotSpot with
 * -XX:+PreserveFramePointer; gcc -fno-omit-frame-pointer) lays out every
 * frame as
 *	[rbp]     the caller's rbp
 *	[rbp + 8] the return address (the caller's rip)
 * and the caller's rsp, just past the return address, is rbp + 16.
 * fpstep_step() makes that step from a frame's rip, rsp and rbp, reading
 * memory only through the caller's callback, and refuses whatever is not
 * a plausible frame, so a clobbered rbp never becomes a stack:
 *  - rbp is 8-aligned, at or above rsp (a frame lies above the stack
 *    pointer), and [rbp, rbp + 16) lies inside the stack [lo, hi) the
 *    caller gives (the thread's stack copy, or the writable mapping that
 *    holds rsp);
 *  - the caller's frame lies strictly above this one (rbp + 16 > rsp:
 *    the stack grows down, so callers are higher; a chain of steps can
 *    never loop);
 *  - the return address lies in executable memory (the is_exec callback).
 * A zero rbp or a zero return address is the end of the chain (a
 * thread's outermost frame: the ABI has _start clear rbp), not an error.
 *
 * Known limit: a leaf interrupted in a prologue, before its `push rbp;
 * mov rsp, rbp`, still has its caller's rbp: the step then returns the
 * caller's caller, and the caller is missing from that one stack (perf's
 * frame-pointer call chains do the same).
 *
 * Contract: a pure function: no state, no allocation, never prints; the
 * callbacks are called at most twice (read) and once (is_exec) per step.
 */
#ifndef PTPROF_FPSTEP_H
#define PTPROF_FPSTEP_H

#include <stdbool.h>
#include <stdint.h>

/* The registers a frame-pointer step reads and produces. */
struct fpstep_regs {
	uint64_t rip, rsp, rbp;
};

struct fpstep_env {
	/* 8 bytes of the target at addr into *val: 0, else -1. */
	int (*read)(void *arg, uint64_t addr, uint64_t *val);
	/* Whether addr lies in an executable mapping of the target. */
	bool (*is_exec)(void *arg, uint64_t addr);
	void *arg;
	uint64_t stack_lo, stack_hi; /* the stack: [lo, hi) */
};

enum fpstep_result {
	FPSTEP_OK,	   /* *out is the caller's frame */
	FPSTEP_END,	   /* zero rbp or return address: the outermost frame */
	FPSTEP_BAD_FP,	   /* rbp misaligned, below rsp or off the stack */
	FPSTEP_UNREADABLE, /* [rbp] or [rbp + 8] could not be read */
	FPSTEP_NOT_EXEC,   /* the return address is not in executable code */
};

enum fpstep_result fpstep_step(const struct fpstep_env *env,
			       const struct fpstep_regs *in,
			       struct fpstep_regs *out);

#endif /* PTPROF_FPSTEP_H */
