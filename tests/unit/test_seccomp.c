/*
 * test_seccomp - the classic-BPF evaluator that judges a seccomp filter
 * for restart_syscall (seccomp_judge_prog()): each action, filters that
 * look at the arch, ranges of numbers, arithmetic and scratch memory,
 * filters that read the arguments or the address (unsafe whatever they
 * return), and programs the kernel would refuse.
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "proc/seccomp.h"
#include "unit.h"

#define N(p) (sizeof(p) / sizeof((p)[0]))
#define LD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

/* The usual shape: arch check, then "nr == NR ? ACTION : ALLOW". */
static enum seccomp_verdict on_nr(unsigned nr, unsigned action)
{
	struct sock_filter p[] = {
		LD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_KILL_PROCESS),
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		RET(action),
		RET(SECCOMP_RET_ALLOW),
	};

	return seccomp_judge_prog(p, N(p));
}

static void check_actions(void)
{
	const unsigned rs = __NR_restart_syscall;

	CHECK(on_nr(rs, SECCOMP_RET_KILL_PROCESS) == SECCOMP_KILLS);
	CHECK(on_nr(rs, SECCOMP_RET_KILL_THREAD) == SECCOMP_KILLS);
	CHECK(on_nr(rs, SECCOMP_RET_TRAP) == SECCOMP_TRAPS);
	CHECK(on_nr(rs, SECCOMP_RET_ERRNO | EPERM) == SECCOMP_ERRNO);
	CHECK(on_nr(rs, SECCOMP_RET_TRACE) == SECCOMP_DIVERTS);
	CHECK(on_nr(rs, SECCOMP_RET_USER_NOTIF) == SECCOMP_DIVERTS);
	CHECK(on_nr(rs, SECCOMP_RET_LOG) == SECCOMP_SAFE);
	CHECK(on_nr(rs, SECCOMP_RET_ALLOW | 5) == SECCOMP_SAFE);
	/* An action the kernel does not know kills the process. */
	CHECK(on_nr(rs, 0x12340000) == SECCOMP_KILLS);
	/* Another call denied: restart_syscall is allowed. */
	CHECK(on_nr(__NR_mount, SECCOMP_RET_KILL_PROCESS) == SECCOMP_SAFE);
	CHECK(on_nr(__NR_nanosleep, SECCOMP_RET_ERRNO | 1) == SECCOMP_SAFE);
}

/* An allow-list (as systemd's): a range below and above, then kill. */
static void check_allow_list(void)
{
	struct sock_filter p[] = {
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 300, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 200, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_filter q[] = {
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 230, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 202, 1, 0),
		RET(SECCOMP_RET_ERRNO | 38),
		RET(SECCOMP_RET_ALLOW),
	};

	/* 219 in [200, 300): allowed; in [202, 230]: allowed. */
	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_SAFE);
	CHECK(seccomp_judge_prog(q, N(q)) == SECCOMP_SAFE);
	p[1].k = 219; /* >= 219 is now above the allowed range */
	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_KILLS);
	q[2].k = 220; /* 219 now falls below the allowed range */
	CHECK(seccomp_judge_prog(q, N(q)) == SECCOMP_ERRNO);
}

/* Arithmetic, X, scratch memory, JSET and RET A. */
static void check_alu(void)
{
	struct sock_filter p[] = {
		LD(nr),
		BPF_STMT(BPF_ST, 3),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_LD | BPF_MEM, 3), /* A = 219 */
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),	/* X = 219 */
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0), /* A = 0 */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 2),
		RET(SECCOMP_RET_KILL_PROCESS),
		RET(SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_MISC | BPF_TXA, 0), /* A = 219 */
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, 2),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_restart_syscall, 0, 2),
		BPF_STMT(BPF_LD | BPF_IMM, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_A, 0),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter div0[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 7),
		BPF_STMT(BPF_LDX | BPF_IMM, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter len[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sizeof(struct seccomp_data),
			 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_THREAD),
	};

	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_TRAPS);
	CHECK(seccomp_judge_prog(div0, N(div0)) == SECCOMP_KILLS);
	CHECK(seccomp_judge_prog(len, N(len)) == SECCOMP_SAFE);
}

/* A filter that reads the arguments or the address could answer either
 * way for the call being restarted: unsafe, even if it would allow. */
static void check_depends(void)
{
	struct sock_filter p[] = {
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_restart_syscall, 0, 2),
		LD(args[0]),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter ip[] = {
		LD(instruction_pointer),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter other[] = {
		/* arguments read only for another call: no dependence */
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 2),
		LD(args[1]),
		RET(SECCOMP_RET_ERRNO | 1),
		RET(SECCOMP_RET_ALLOW),
	};

	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_DEPENDS);
	CHECK(seccomp_judge_prog(ip, N(ip)) == SECCOMP_DEPENDS);
	CHECK(seccomp_judge_prog(other, N(other)) == SECCOMP_SAFE);
}

/* What seccomp_check_filter() would refuse is not judged safe. */
static void check_invalid(void)
{
	struct sock_filter fall_off[] = { LD(nr) };
	struct sock_filter far_jump[] = {
		BPF_JUMP(BPF_JMP | BPF_JA, 5, 0, 0),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter far_cond[] = {
		LD(nr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 9),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter odd_load[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter past_data[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter byte_load[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_filter bad_mem[] = {
		BPF_STMT(BPF_LD | BPF_MEM, BPF_MEMWORDS),
		RET(SECCOMP_RET_ALLOW),
	};

	CHECK(seccomp_judge_prog(NULL, 0) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(fall_off, 0) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(fall_off, N(fall_off)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(far_jump, N(far_jump)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(far_cond, N(far_cond)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(odd_load, N(odd_load)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(past_data, N(past_data)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(byte_load, N(byte_load)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(bad_mem, N(bad_mem)) == SECCOMP_INVALID);
	CHECK(seccomp_judge_prog(fall_off, BPF_MAXINSNS + 1) ==
	      SECCOMP_INVALID);
}

/* The registers of a thread stopped on its way out of a sleep. */
static void check_pending(void)
{
	struct user_regs_struct r = { 0 };

	r.orig_rax = SYS_clock_nanosleep;
	r.rax = (unsigned long long)-516;
	CHECK(seccomp_restart_pending(&r));
	r.rax = (unsigned long long)-4; /* EINTR: no restart */
	CHECK(!seccomp_restart_pending(&r));
	r.rax = (unsigned long long)-516;
	r.orig_rax = (unsigned long long)-1; /* not in a system call */
	CHECK(!seccomp_restart_pending(&r));
}

/* A shift by X of 32 or more: the kernel's answer is not C's (x86 takes
 * the count mod 32), so the filter is not trusted either way.  Here the
 * kernel shifts 1 by 32 % 32 = 0: 1, not 0, and kills. */
static void check_wide_shift(void)
{
	struct sock_filter p[] = {
		BPF_STMT(BPF_LDX | BPF_IMM, 32),
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		RET(SECCOMP_RET_ALLOW),
		RET(SECCOMP_RET_KILL_PROCESS),
	};

	CHECK(seccomp_judge_prog(p, N(p)) != SECCOMP_SAFE);
	p[2].code = BPF_ALU | BPF_RSH | BPF_X;
	CHECK(seccomp_judge_prog(p, N(p)) != SECCOMP_SAFE);
	p[0].k = 31; /* 1 << 31 != 0, 1 >> 31 == 0: defined both ways */
	p[2].code = BPF_ALU | BPF_LSH | BPF_X;
	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_KILLS);
	p[2].code = BPF_ALU | BPF_RSH | BPF_X;
	CHECK(seccomp_judge_prog(p, N(p)) == SECCOMP_SAFE);
}

int main(void)
{
	check_wide_shift();
	check_actions();
	check_allow_list();
	check_alu();
	check_depends();
	check_invalid();
	check_pending();
	return unit_result("test_seccomp");
}
