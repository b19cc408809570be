/*
 * test_fpstep - the validated frame-pointer step (fpstep.h) over a fake
 * stack: a good chain is followed to its zero return address; a loop, a
 * frame pointer that goes down, a misaligned one, one off the stack, a
 * return address outside executable code and an unreadable frame all end
 * the chain with the right reason, and never loop.  A zero rbp or return
 * address is the chain's normal end.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "unwind/fpstep.h"
#include "unit.h"

#define LO 0x7ff000000000ULL /* the fake stack: [LO, LO + 8 * WORDS) */
#define WORDS 64
#define HI (LO + 8 * WORDS)
#define TEXT_LO 0x400000ULL /* the executable code: [TEXT_LO, TEXT_HI) */
#define TEXT_HI 0x500000ULL

struct fake {
	uint64_t w[WORDS];
	uint64_t hole; /* a word that cannot be read, 0: none */
	int reads, exec_checks;
};

static int fake_read(void *arg, uint64_t addr, uint64_t *val)
{
	struct fake *f = arg;

	f->reads++;
	if (addr < LO || addr + 8 > HI || addr % 8 || addr == f->hole)
		return -1;
	*val = f->w[(addr - LO) / 8];
	return 0;
}

static bool fake_is_exec(void *arg, uint64_t addr)
{
	struct fake *f = arg;

	f->exec_checks++;
	return addr >= TEXT_LO && addr < TEXT_HI;
}

static void set(struct fake *f, uint64_t addr, uint64_t val)
{
	f->w[(addr - LO) / 8] = val;
}

/* Frame at fp: [fp] = caller_fp, [fp + 8] = ra. */
static void frame(struct fake *f, uint64_t fp, uint64_t caller_fp, uint64_t ra)
{
	set(f, fp, caller_fp);
	set(f, fp + 8, ra);
}

/* Walk from (rip, rsp, rbp) at most `max` steps: the rips stepped to in
 * rips, their count in *n; returns the result of the last step. */
static enum fpstep_result walk(struct fake *f, uint64_t rsp, uint64_t rbp,
			       uint64_t *rips, int max, int *n)
{
	struct fpstep_env env = { fake_read, fake_is_exec, f, LO, HI };
	struct fpstep_regs r = { 0x7f0000001000ULL, rsp, rbp }, out;
	enum fpstep_result res = FPSTEP_OK;

	*n = 0;
	while (*n < max && (res = fpstep_step(&env, &r, &out)) == FPSTEP_OK) {
		CHECK(out.rsp > r.rsp); /* callers are higher */
		rips[(*n)++] = out.rip;
		r = out;
	}
	return res;
}

/* Three frames at LO + 0x40, + 0x80, + 0xc0, the last one outermost. */
static void good_chain(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	frame(f, LO + 0x40, LO + 0x80, 0x401000);
	frame(f, LO + 0x80, LO + 0xc0, 0x402000);
	frame(f, LO + 0xc0, 0, 0);
}

static void check_good(void)
{
	struct fake f;
	uint64_t rips[16];
	int n;

	good_chain(&f);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_END);
	CHECKF(n == 2, "%d steps", n);
	CHECK(rips[0] == 0x401000 && rips[1] == 0x402000);
	CHECKF(f.reads == 6 && f.exec_checks == 2, "%d reads, %d checks",
	       f.reads, f.exec_checks);
	/* a zero caller's rbp ends the chain too */
	good_chain(&f);
	frame(&f, LO + 0x80, 0, 0x402000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_END);
	CHECK(n == 2);
	/* rbp == rsp: a frame right at the stack pointer is fine */
	good_chain(&f);
	CHECK(walk(&f, LO + 0x40, LO + 0x40, rips, 16, &n) == FPSTEP_END);
	CHECK(n == 2);
}

static void check_loops(void)
{
	struct fake f;
	uint64_t rips[16];
	int n;

	/* a frame that is its own caller: one step, then refused */
	good_chain(&f);
	frame(&f, LO + 0x40, LO + 0x40, 0x401000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 1);
	/* two frames calling each other */
	good_chain(&f);
	frame(&f, LO + 0x80, LO + 0x40, 0x402000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 2);
	/* a caller's frame below the callee's (the stack grows down) */
	good_chain(&f);
	frame(&f, LO + 0x80, LO + 0x20, 0x402000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 2);
	/* the frame pointer below the stack pointer */
	good_chain(&f);
	CHECK(walk(&f, LO + 0x48, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 0);
}

static void check_bad_fp(void)
{
	struct fake f;
	uint64_t rips[16];
	int n;

	good_chain(&f);
	CHECK(walk(&f, LO + 0x10, LO + 0x44, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 0 && f.reads == 0); /* misaligned: not even read */
	good_chain(&f);
	frame(&f, LO + 0x80, LO + 0xc4, 0x402000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 2);
	/* off the stack: above it, straddling its end, below it */
	good_chain(&f);
	CHECK(walk(&f, LO + 0x10, HI, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(walk(&f, LO + 0x10, HI - 8, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(walk(&f, 0x1000, 0x2000, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(f.reads == 0);
	frame(&f, LO + 0x80, 0xfffffffffffffff8ULL, 0x402000);
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_BAD_FP);
	CHECK(n == 2);
	/* a stack at the top of the address space: no wrap past it */
	{
		struct fpstep_env env = { fake_read, fake_is_exec, &f,
					  0xfffffffffffff000ULL, UINT64_MAX };
		struct fpstep_regs r = { 0, 0xfffffffffffff000ULL,
					 0xfffffffffffffff8ULL },
				   out;

		CHECK(fpstep_step(&env, &r, &out) == FPSTEP_BAD_FP);
		env.stack_lo = 8, env.stack_hi = 16;
		r.rsp = r.rbp = 8;
		CHECK(fpstep_step(&env, &r, &out) == FPSTEP_BAD_FP);
	}
}

static void check_not_exec(void)
{
	struct fake f;
	uint64_t rips[16];
	int n;

	good_chain(&f);
	frame(&f, LO + 0x80, LO + 0xc0, 0x600000); /* data, not code */
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_NOT_EXEC);
	CHECK(n == 1 && rips[0] == 0x401000);
	good_chain(&f);
	frame(&f, LO + 0x40, LO + 0x80, LO + 0x100); /* the stack itself */
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) == FPSTEP_NOT_EXEC);
	CHECK(n == 0);
}

static void check_unreadable(void)
{
	struct fake f;
	uint64_t rips[16];
	int n;

	good_chain(&f);
	f.hole = LO + 0x88; /* the second frame's return address */
	CHECK(walk(&f, LO + 0x10, LO + 0x40, rips, 16, &n) ==
	      FPSTEP_UNREADABLE);
	CHECK(n == 1);
}

int main(void)
{
	check_good();
	check_loops();
	check_bad_fp();
	check_not_exec();
	check_unreadable();
	return unit_result("test_fpstep");
}
