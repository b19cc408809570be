/*
 * test_sysbias - the system call bias: which registers say a stop came at
 * a system call's exit (capture_at_syscall_exit()), and when the share of
 * samples there is far enough above the kernel's share of the CPU time to
 * warn (sysbias_judge()).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/user.h>

#include "capture.h"
#include "sysbias.h"
#include "unit.h"

#define MS (1000ULL * 1000)

static struct user_regs_struct regs(int64_t orig_rax, int64_t rax)
{
	struct user_regs_struct r;

	memset(&r, 0, sizeof(r));
	r.orig_rax = (uint64_t)orig_rax;
	r.rax = (uint64_t)rax;
	return r;
}

static void check_regs(void)
{
	struct user_regs_struct r;

	r = regs(17, 64); /* pread returned 64 bytes */
	CHECK(capture_at_syscall_exit(&r));
	r = regs(110, 1234); /* getppid */
	CHECK(capture_at_syscall_exit(&r));
	r = regs(0, -EAGAIN); /* a failed call returned too */
	CHECK(capture_at_syscall_exit(&r));
	r = regs(-1, 0); /* an interrupt in user code */
	CHECK(!capture_at_syscall_exit(&r));
	r = regs(232, -EINTR); /* epoll_wait cut short */
	CHECK(!capture_at_syscall_exit(&r));
	for (int e = 512; e <= 516; e++) { /* -ERESTART*: a sleep cut short */
		r = regs(35, -e);
		CHECKF(!capture_at_syscall_exit(&r), "rax -%d", e);
	}
}

static void check_judge(void)
{
	struct sysbias b;

	/* The case: 98% of samples at a call's exit, 12% of the
	 * time in the kernel. */
	CHECK(sysbias_judge(300, 300, 294, 3000 * MS, 360 * MS, &b));
	CHECKF(b.at_syscall > 0.979 && b.at_syscall < 0.981, "%f",
	       b.at_syscall);
	CHECKF(b.in_kernel > 0.119 && b.in_kernel < 0.121, "%f", b.in_kernel);
	/* A profile that agrees with the kernel: no word. */
	CHECK(!sysbias_judge(300, 300, 36, 3000 * MS, 360 * MS, &b));
	/* Just under and at the margin. */
	CHECK(!sysbias_judge(100, 100, 31, 1000 * MS, 120 * MS, &b));
	CHECK(sysbias_judge(100, 100, 33, 1000 * MS, 120 * MS, &b));
	/* A target that lives in the kernel: samples there are right. */
	CHECK(!sysbias_judge(300, 300, 290, 3000 * MS, 2900 * MS, &b));
	/* Too little to tell: few stacks, little CPU time, none at all. */
	CHECK(!sysbias_judge(49, 300, 294, 3000 * MS, 360 * MS, &b));
	CHECK(!sysbias_judge(300, 300, 294, 400 * MS, 40 * MS, &b));
	CHECK(!sysbias_judge(0, 0, 0, 3000 * MS, 0, &b));
	/* Inconsistent counts (a reused PID): no word. */
	CHECK(!sysbias_judge(300, 300, 301, 3000 * MS, 0, &b));
	CHECK(!sysbias_judge(300, 300, 294, 3000 * MS, 3001 * MS, &b));
}

int main(void)
{
	check_regs();
	check_judge();
	return unit_result("test_sysbias");
}
