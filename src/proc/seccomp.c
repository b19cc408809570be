/*
 * seccomp.c - judging a thread's seccomp filters for restart_syscall
 * (seccomp.h).
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "proc/seccomp.h"

#define CAP_SYS_ADMIN_BIT 21
/* Kernel-internal errno (include/linux/errno.h), seen by a tracer in
 * the rax of a thread stopped on its way out of an interrupted call. */
#define ERESTART_RESTARTBLOCK 516
#define STR_(x) #x
#define STR(x) STR_(x)

const char *seccomp_verdict_text(enum seccomp_verdict v)
{
	switch (v) {
	case SECCOMP_SAFE:
		return "allows restart_syscall";
	case SECCOMP_KILLS:
		return "kills on restart_syscall";
	case SECCOMP_TRAPS:
		return "traps restart_syscall (SIGSYS)";
	case SECCOMP_ERRNO:
		return "makes restart_syscall fail";
	case SECCOMP_DIVERTS:
		return "hands restart_syscall to a tracer or supervisor";
	case SECCOMP_DEPENDS:
		return "decides on restart_syscall by its address or arguments";
	case SECCOMP_INVALID:
		return "is a program ptprof cannot evaluate";
	case SECCOMP_TOO_MANY:
		return "is one of more than " STR(
			SECCOMP_JUDGE_MAX) " stacked filters, too many to judge for restart_syscall";
	case SECCOMP_UNREADABLE:
	default:
		return "cannot be read";
	}
}

/* The verdict of one filter's return value (its action: the kernel treats
 * an unknown action as SECCOMP_RET_KILL_PROCESS). */
static enum seccomp_verdict verdict_of(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return SECCOMP_SAFE;
	case SECCOMP_RET_ERRNO:
		return SECCOMP_ERRNO;
	case SECCOMP_RET_TRAP:
		return SECCOMP_TRAPS;
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_USER_NOTIF:
		return SECCOMP_DIVERTS;
	default:
		return SECCOMP_KILLS;
	}
}

/* A jump's target, or -1 when it leaves the program. */
static long jump(size_t pc, uint32_t off, size_t len)
{
	return pc + 1 + off < len ? (long)(pc + 1 + off) : -1;
}

/*
 * Run the program over seccomp_data { nr = __NR_restart_syscall, arch =
 * AUDIT_ARCH_X86_64 }, with the instructions the kernel accepts in a
 * seccomp filter (seccomp_check_filter(): loads of struct seccomp_data,
 * the scratch memory, ALU, forward jumps, returns).  A load of the
 * instruction pointer or the arguments means the answer would depend on
 * where and how the call is made: SECCOMP_DEPENDS, as unsafe as a kill.
 * Jumps only go forward, so the run ends within len steps.
 */
enum seccomp_verdict seccomp_judge_prog(const struct sock_filter *prog,
					size_t len)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	size_t pc = 0;

	if (!prog || len == 0 || len > BPF_MAXINSNS)
		return SECCOMP_INVALID;
	while (pc < len) {
		const struct sock_filter *f = &prog[pc];
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;
		long to;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k == offsetof(struct seccomp_data, nr))
				a = __NR_restart_syscall;
			else if (f->k == offsetof(struct seccomp_data, arch))
				a = AUDIT_ARCH_X86_64;
			else if (f->k < sizeof(struct seccomp_data) &&
				 f->k % 4 == 0)
				return SECCOMP_DEPENDS;
			else
				return SECCOMP_INVALID;
			break;
		case BPF_LD | BPF_W | BPF_LEN:
			a = sizeof(struct seccomp_data);
			break;
		case BPF_LDX | BPF_W | BPF_LEN:
			x = sizeof(struct seccomp_data);
			break;
		case BPF_LD | BPF_IMM:
			a = f->k;
			break;
		case BPF_LDX | BPF_IMM:
			x = f->k;
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				return SECCOMP_INVALID;
			if (f->code == (BPF_LD | BPF_MEM))
				a = mem[f->k];
			else if (f->code == (BPF_LDX | BPF_MEM))
				x = mem[f->k];
			else
				mem[f->k] = f->code == BPF_ST ? a : x;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_ALU | BPF_ADD | BPF_K:
		case BPF_ALU | BPF_ADD | BPF_X:
			a += src;
			break;
		case BPF_ALU | BPF_SUB | BPF_K:
		case BPF_ALU | BPF_SUB | BPF_X:
			a -= src;
			break;
		case BPF_ALU | BPF_MUL | BPF_K:
		case BPF_ALU | BPF_MUL | BPF_X:
			a *= src;
			break;
		case BPF_ALU | BPF_DIV | BPF_K:
		case BPF_ALU | BPF_DIV | BPF_X:
		case BPF_ALU | BPF_MOD | BPF_K:
		case BPF_ALU | BPF_MOD | BPF_X:
			if (src == 0)
				return SECCOMP_KILLS; /* the kernel returns 0 */
			a = BPF_OP(f->code) == BPF_DIV ? a / src : a % src;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
		case BPF_ALU | BPF_AND | BPF_X:
			a &= src;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
		case BPF_ALU | BPF_OR | BPF_X:
			a |= src;
			break;
		case BPF_ALU | BPF_XOR | BPF_K:
		case BPF_ALU | BPF_XOR | BPF_X:
			a ^= src;
			break;
		case BPF_ALU | BPF_LSH | BPF_K:
		case BPF_ALU | BPF_LSH | BPF_X:
		case BPF_ALU | BPF_RSH | BPF_K:
		case BPF_ALU | BPF_RSH | BPF_X:
			/* Kernel quirk: a shift by X of 32 or more is C's
			 * undefined shift in the interpreter (x86 and its JIT
			 * take the count mod 32, not 0): no answer to trust.
			 * (The kernel refuses such a K when loading.) */
			if (src >= 32)
				return SECCOMP_INVALID;
			a = BPF_OP(f->code) == BPF_LSH ? a << src : a >> src;
			break;
		case BPF_ALU | BPF_NEG:
			a = -a;
			break;
		case BPF_JMP | BPF_JA:
			to = jump(pc, f->k, len);
			if (to < 0)
				return SECCOMP_INVALID;
			pc = (size_t)to;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_X:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_X:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_X:
		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_X: {
			bool taken = BPF_OP(f->code) == BPF_JEQ ? a == src :
				     BPF_OP(f->code) == BPF_JGT ? a > src :
				     BPF_OP(f->code) == BPF_JGE ? a >= src :
								  (a & src) !=
									  0;

			to = jump(pc, taken ? f->jt : f->jf, len);
			if (to < 0)
				return SECCOMP_INVALID;
			pc = (size_t)to;
			continue;
		}
		case BPF_RET | BPF_K:
			return verdict_of(f->k);
		case BPF_RET | BPF_A:
			return verdict_of(a);
		default:
			return SECCOMP_INVALID;
		}
		pc++;
	}
	return SECCOMP_INVALID; /* fell off the end: the kernel refuses that */
}

int seccomp_thread_mode(pid_t pid, pid_t tid, int *mode, int *filters)
{
	struct procfs_status st;

	if (procfs_status_read(pid, tid, &st))
		return -1;
	/* no Seccomp line: a kernel without CONFIG_SECCOMP */
	*mode = st.have & PROCFS_HAVE_SECCOMP ? st.seccomp : 0;
	*filters = st.have & PROCFS_HAVE_SECCOMP_FILTERS ? st.seccomp_filters :
							   0;
	return 0;
}

/*
 * PTRACE_SECCOMP_GET_FILTER refuses (EACCES) a tracer without
 * CAP_SYS_ADMIN in the initial user namespace, and one that is itself
 * under seccomp (it could read a filter to escape its own).  CapEff of
 * our own status tells the first; Seccomp: the second.
 */
bool seccomp_can_read(void)
{
	struct procfs_status st;
	char *buf = NULL;
	size_t len;
	bool ok;

	ok = procfs_status_read(0, 0, &st) == 0 &&
	     (st.have & PROCFS_HAVE_CAPEFF) &&
	     (st.cap_eff >> CAP_SYS_ADMIN_BIT & 1) && st.seccomp <= 0;
	/* Kernel quirk: the kernel asks capable(), which is about the
	 * initial user namespace, while CapEff shows the capabilities in
	 * our own: root of a user namespace (unshare -Ur, rootless
	 * containers) has CAP_SYS_ADMIN there and still gets EACCES.  The
	 * initial namespace maps every uid: "0 0 4294967295". */
	if (ok && procfs_read_file("/proc/self/uid_map", &buf, &len) == 0) {
		unsigned long long in, out, count;

		ok = sscanf(buf, "%llu %llu %llu", &in, &out, &count) == 3 &&
		     in == 0 && out == 0 && count == 4294967295ULL;
		free(buf);
	}
	return ok;
}

/*
 * get_nth_filter() answers EINVAL for a thread whose mode is not
 * SECCOMP_MODE_FILTER; index 0 of a filtered thread gives its newest
 * filter's length.  Kernel quirks: a kernel built without
 * CONFIG_CHECKPOINT_RESTORE answers EINVAL for every thread, and one
 * whose capable(CAP_SYS_ADMIN) fails (root of a user namespace, whose
 * CapEff shows every capability) EACCES: the caller tells those apart.
 */
int seccomp_has_filter(pid_t tid)
{
	if (ptctl_seccomp_filter_len(tid, 0) >= 0)
		return 1;
	return errno == EINVAL ? 0 : -1;
}

/*
 * Filters stack: the kernel runs every one and takes the most severe
 * action, so restart_syscall is allowed only if each filter allows it.
 * Index 0 is the newest; the index past the oldest gives ENOENT.
 */
int seccomp_judge_thread(pid_t tid, enum seccomp_verdict *v, int *count)
{
	static struct sock_filter prog[BPF_MAXINSNS];

	/* One request (O(n)) tells whether there are too many to read. */
	if (ptctl_seccomp_filter_len(tid, SECCOMP_JUDGE_MAX) >= 0) {
		*v = SECCOMP_TOO_MANY;
		*count = SECCOMP_JUDGE_MAX + 1;
		return 0;
	}
	if (errno != ENOENT)
		return -1;
	*v = SECCOMP_SAFE;
	for (unsigned long i = 0;; i++) {
		long n = ptctl_seccomp_filter(tid, i, prog, BPF_MAXINSNS);
		enum seccomp_verdict one;

		*count = (int)i;
		if (n < 0 && errno == ENOENT && i > 0)
			return 0;
		if (n < 0)
			return -1;
		one = seccomp_judge_prog(prog, (size_t)n);
		if (one != SECCOMP_SAFE && *v == SECCOMP_SAFE)
			*v = one; /* the newest filter that forbids it */
	}
}

bool seccomp_filter_count_is(pid_t tid, int n)
{
	return n > 0 &&
	       ptctl_seccomp_filter_len(tid, (unsigned long)n - 1) >= 0 &&
	       ptctl_seccomp_filter_len(tid, (unsigned long)n) < 0 &&
	       errno == ENOENT;
}

/*
 * On the way out of an interrupted call the kernel stops the thread for
 * us before it decides on the restart: rax holds the call's result, here
 * -ERESTART_RESTARTBLOCK, and orig_rax the call (>= 0: a system call, not
 * an interrupt or fault).  Only after the stop does it read rax again
 * (arch_do_signal_or_restart()) and turn that result into restart_syscall.
 */
bool seccomp_restart_pending(const struct user_regs_struct *regs)
{
	return (long long)regs->orig_rax >= 0 &&
	       (long long)regs->rax == -ERESTART_RESTARTBLOCK;
}

/*
 * With rax -ERESTARTNOINTR the kernel instead re-runs the interrupted call
 * (orig_rax) with its original arguments, which the filter allowed when it
 * was made (a classic-BPF filter has no state).  The cost to the thread: a
 * relative sleep or timeout starts over, so it lasts longer by the time it
 * had already waited (an absolute one, TIMER_ABSTIME, ends on time); a
 * signal delivered with this stop runs its handler and the call restarts,
 * where it would have returned EINTR.  Either is far from being killed.
 */
int seccomp_defuse(pid_t tid)
{
	return ptctl_restart_call(tid);
}
