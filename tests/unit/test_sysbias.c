/*
 * test_sysbias - the system call bias: which registers say a stop came at
 * a system call's exit (capture_stop_kind()), how a sample's
 * periods are split between its stack and the thread's stacks of the
 * other kind (sysbias_split()), and when the share of samples there is
 * far enough above the kernel's share of the CPU time, with few stops in
 * user code, to warn (sysbias_judge()).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/procfs.h"
#include "sampler/sysbias.h"
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
	CHECK((capture_stop_kind(&r) == CAPTURE_AT_EXIT));
	r = regs(110, 1234); /* getppid */
	CHECK((capture_stop_kind(&r) == CAPTURE_AT_EXIT));
	r = regs(0, -EAGAIN); /* a failed call returned too */
	CHECK((capture_stop_kind(&r) == CAPTURE_AT_EXIT));
	r = regs(-1, 0); /* an interrupt in user code */
	CHECK(!(capture_stop_kind(&r) == CAPTURE_AT_EXIT));
	CHECK(capture_stop_kind(&r) == CAPTURE_IN_USER);
	r = regs(232, -EINTR); /* epoll_wait cut short */
	CHECK(!(capture_stop_kind(&r) == CAPTURE_AT_EXIT));
	CHECK(capture_stop_kind(&r) == CAPTURE_IN_CALL);
	for (int e = 512; e <= 516; e++) { /* -ERESTART*: a sleep cut short */
		r = regs(35, -e);
		CHECKF(!(capture_stop_kind(&r) == CAPTURE_AT_EXIT), "rax -%d",
		       e);
		/* ... which restarts after the stop: the thread is in the
		 * call, not in user code */
		CHECKF(capture_stop_kind(&r) == CAPTURE_IN_CALL, "rax -%d", e);
	}
	r = regs(17, 64);
	CHECK(capture_stop_kind(&r) == CAPTURE_AT_EXIT);
}

static void check_judge(void)
{
	struct sysbias b;

	/* The case: 98% of samples at a call's exit, 12% of the
	 * time in the kernel: too few stops in user code. */
	CHECK(sysbias_judge(300, 300, 294, 3000 * MS, 360 * MS, &b));
	CHECKF(b.at_syscall > 0.979 && b.at_syscall < 0.981, "%f",
	       b.at_syscall);
	CHECKF(b.in_kernel > 0.119 && b.in_kernel < 0.121, "%f", b.in_kernel);
	/* A profile that agrees with the kernel: no word. */
	CHECK(!sysbias_judge(300, 300, 36, 3000 * MS, 360 * MS, &b));
	/* Just under and at the margin. */
	CHECK(!sysbias_judge(100, 100, 79, 1000 * MS, 600 * MS, &b));
	CHECK(sysbias_judge(100, 100, 81, 1000 * MS, 600 * MS, &b));
	/* Biased, but 40% of the stops or more came in user code: the
	 * correction had stacks to spread the user time over. */
	CHECK(!sysbias_judge(100, 100, 60, 1000 * MS, 120 * MS, &b));
	CHECK(sysbias_judge(100, 100, 61, 1000 * MS, 120 * MS, &b));
	CHECK(!sysbias_judge(100, 100, 50, 1000 * MS, 10 * MS, &b));
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

#define P 10000000ULL /* a period: 10 ms */

static void check_split(void)
{
	struct sysbias_thread t = { 0 };
	struct sysbias_parts parts;
	uint64_t here = 0, other = 0;

	/* No times yet: the stack keeps its samples. */
	sysbias_split(&t, P, 3, true, false, 0, 0, &parts);
	CHECK(parts.here == 3 && parts.other == 0);
	/* A first reading has no earlier one to subtract: still unknown. */
	sysbias_split(&t, P, 2, true, true, 100, 10, &parts);
	CHECK(parts.here == 2 && parts.other == 0);
	/* 9 ticks in user code, 1 in the kernel since (K = 10%), and all of
	 * its samples at a call's exit (F = 100%): of 10 periods, 1 stays,
	 * 9 go to the user stacks. */
	sysbias_split(&t, P, 10, true, true, 109, 11, &parts);
	CHECKF(parts.here == 1 && parts.other == 9, "here %llu other %llu",
	       (unsigned long long)parts.here, (unsigned long long)parts.other);
	/* A stop anywhere else keeps all its samples: it may be kernel work
	 * outside a call (a page fault), which looks the same. */
	for (int i = 0; i < 10; i++) {
		sysbias_split(&t, P, 1, false, true, 109, 11, &parts);
		here += parts.here;
		other += parts.other;
	}
	CHECKF(here == 10 && other == 0, "here %llu other %llu",
	       (unsigned long long)here, (unsigned long long)other);
	/* Times that went backwards (another task under the TID): start
	 * again, unknown. */
	sysbias_split(&t, P, 4, false, true, 5, 1, &parts);
	CHECK(parts.here == 4 && parts.other == 0);
	/* Unbiased stops (F = K = 1/3: a third of the samples at a call's
	 * exit, a third of the time in the kernel) move nothing. */
	t = (struct sysbias_thread){ 0 };
	sysbias_split(&t, P, 1, true, true, 0, 0, &parts);
	here = other = 0;
	for (unsigned i = 1; i <= 300; i++) {
		sysbias_split(&t, P, 1, i % 3 == 0, true, 2 * i, i, &parts);
		here += parts.here;
		other += parts.other;
	}
	CHECKF(here == 300 && other == 0, "here %llu other %llu",
	       (unsigned long long)here, (unsigned long long)other);
	/* A page-faulting thread: 60% of its time in the kernel, mostly
	 * outside calls, 10% of its stops at a call's exit: F < K, nothing
	 * moves (a first version gave the kernel time to the call). */
	t = (struct sysbias_thread){ 0 };
	sysbias_split(&t, P, 1, false, true, 0, 0, &parts);
	here = other = 0;
	for (unsigned i = 1; i <= 100; i++) {
		sysbias_split(&t, P, 1, i % 10 == 0, true, 4 * i, 6 * i,
			      &parts);
		here += parts.here;
		other += parts.other;
	}
	CHECKF(here == 100 && other == 0, "here %llu other %llu",
	       (unsigned long long)here, (unsigned long long)other);
	/* Biased: every stop at a call's exit, a third of the time in the
	 * kernel: a third of the samples stay, never more out than in. */
	t = (struct sysbias_thread){ 0 };
	sysbias_split(&t, P, 1, true, true, 0, 0, &parts);
	here = other = 0;
	for (unsigned i = 1; i <= 300; i++) {
		sysbias_split(&t, P, 1, true, true, 2 * i, i, &parts);
		here += parts.here;
		other += parts.other;
	}
	CHECKF(here + other <= 300 && here + other >= 299 && here >= 99 &&
		       here <= 101,
	       "here %llu other %llu", (unsigned long long)here,
	       (unsigned long long)other);
}

/*
 * A stop in a call it cut short (the thread slept there at the tick) is
 * neither a stop in user code nor one at a call's exit: it keeps its
 * samples and leaves the correction of the other stops as it was.  It
 * was once taken for a stop in user code, which lowered F (the share of
 * samples at calls' exits) and so what the exits gave back.
 */
static void check_in_call(void)
{
	struct sysbias_thread a = { 0 }, b = { 0 };
	struct sysbias_parts pa, pb;
	uint64_t ut = 100, st = 10;

	/* A first reading, then 9 ticks in user code and 1 in the kernel
	 * (K = 10%), every sample at a call's exit (F = 100%). */
	sysbias_split(&a, P, 1, SYSBIAS_EXIT, true, ut, st, &pa);
	sysbias_split(&b, P, 1, SYSBIAS_EXIT, true, ut, st, &pb);
	sysbias_split(&a, P, 10, SYSBIAS_EXIT, true, ut + 9, st + 1, &pa);
	sysbias_split(&b, P, 10, SYSBIAS_EXIT, true, ut + 9, st + 1, &pb);
	/* b: 20 stops in calls; a: none */
	for (int i = 0; i < 20; i++) {
		sysbias_split(&b, P, 1, SYSBIAS_IN_CALL, true, ut + 9, st + 1,
			      &pb);
		CHECK(pb.here == 1 && pb.other == 0);
	}
	CHECK(a.n_all == b.n_all && a.n_at == b.n_at);
	/* Both move 9 of the next 10 periods back to user code. */
	sysbias_split(&a, P, 10, SYSBIAS_EXIT, true, ut + 18, st + 2, &pa);
	sysbias_split(&b, P, 10, SYSBIAS_EXIT, true, ut + 18, st + 2, &pb);
	CHECKF(pa.here == pb.here && pa.other == pb.other && pa.other == 9,
	       "no stops in calls: %llu/%llu; 20: %llu/%llu",
	       (unsigned long long)pa.here, (unsigned long long)pa.other,
	       (unsigned long long)pb.here, (unsigned long long)pb.other);
}

/* Where the samples an exit gives back go, and whether they moved. */
static void check_dest(void)
{
	CHECK(sysbias_dest(2, 5) == SYSBIAS_TO_USER);
	CHECK(sysbias_dest(1, 1) == SYSBIAS_TO_USER);
	CHECK(sysbias_dest(0, 5) == SYSBIAS_TO_CALLER);
	/* one PC: no caller to give them to, they stay (not a move) */
	CHECK(sysbias_dest(0, 1) == SYSBIAS_STAYS);
}

/*
 * The sampler forgets a thread's stacks stopped in user code and its
 * split of the time when the thread exec'd (sampler.c,
 * forget_user_code()): procfs_read_task_times() tells, through the file
 * kept open as the sampler keeps it.  A child execs sleep.
 */
static void check_image(void)
{
	uint64_t ut, st, before = 0, after = 0;
	int p[2], fd = -1, status, tries = 0;
	char comm[16] = "";
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) >= 0)
			execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK(procfs_read_task_times(pid, pid, &fd, &ut, &st, &before) == 0);
	CHECK(procfs_read_task_times(pid, pid, &fd, &ut, &st, &after) == 0);
	CHECK(before == after);
	close(p[1]); /* it execs */
	while (strcmp(comm, "sleep") && tries++ < 500) {
		usleep(10000);
		if (procfs_comm(pid, pid, comm, sizeof(comm)))
			break;
	}
	CHECK(!strcmp(comm, "sleep"));
	CHECK(procfs_read_task_times(pid, pid, &fd, &ut, &st, &after) == 0);
	CHECKF(before != after, "the same after exec: %llx",
	       (unsigned long long)after);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	check_regs();
	check_judge();
	check_split();
	check_in_call();
	check_dest();
	check_image();
	return unit_result("test_sysbias");
}
