/*
 * peek.c - a blocked thread's stack without a stop (peek.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "proc/peek.h"
#include "proc/procfs.h"
#include "util/scan.h"

/* The longest line the kernel prints: "-2147483648" and 8 times
 * " 0x" and 16 digits, a newline; one more byte tells a longer one. */
#define LINE_MAX_LEN (11 + 8 * 19 + 1)

/* "0x" and 1 to 16 lowercase hex digits (the kernel's %llx) at *p,
 * advancing it; -1 if there is none. */
static int parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;

	if (end - s < 2 || s[0] != '0' || s[1] != 'x')
		return -1;
	s += 2;
	if (scan_hex(&s, end, 16, SCAN_LOWER, out))
		return -1;
	*p = s;
	return 0;
}

/*
 * The kernel's format (fs/proc/base.c, proc_pid_syscall()): "running"
 * when task_current_syscall() finds the thread on a CPU or runnable (or
 * it was switched in while the registers were read); a negative number
 * (-1: orig_rax of a thread asleep after an interrupt or exception, a
 * page fault) with SP and PC; else the call's number, its 6 arguments,
 * SP and PC.  Single spaces, one newline.
 */
int peek_parse_syscall(const char *buf, size_t len, struct peek_syscall *out)
{
	const char *p = buf, *end = buf + len;
	uint64_t v[8];
	int i, n;

	if (len == 8 && !memcmp(buf, "running\n", 8))
		return 0;
	if (len < 2 || len > LINE_MAX_LEN || end[-1] != '\n')
		goto bad;
	end--;
	/* the call's number as %d prints an int */
	if (scan_int(&p, end, INT_MIN, INT_MAX, &out->nr))
		goto bad;
	n = out->nr < 0 ? 2 : 8;
	for (i = 0; i < n; i++) {
		if (p >= end || *p != ' ')
			goto bad;
		p++;
		if (parse_hex(&p, end, &v[i]))
			goto bad;
	}
	if (p != end)
		goto bad;
	memset(out->args, 0, sizeof(out->args));
	if (n == 8)
		memcpy(out->args, v, sizeof(out->args));
	out->sp = v[n - 2];
	out->pc = v[n - 1];
	return 1;
bad:
	errno = EINVAL;
	return -1;
}

/*
 * Read and parse the thread's syscall file: as peek_parse_syscall().
 * Kernel quirk: the file needs PTRACE_MODE_ATTACH (EACCES/EPERM
 * otherwise) and is printed under the target's exec_update_lock
 * (lock_trace()); an exec takes that lock only after de_thread(), so a
 * read never waits for a thread that an exec waits for.
 */
int peek_read_syscall(pid_t pid, pid_t tid, int *fd, struct peek_syscall *s)
{
	char buf[LINE_MAX_LEN + 2];
	ssize_t len = procfs_read_task_syscall(pid, tid, fd, buf, sizeof(buf));

	if (len < 0)
		return -1;
	return peek_parse_syscall(buf, (size_t)len, s);
}

static bool same_call(const struct peek_syscall *a,
		      const struct peek_syscall *b)
{
	return a->nr == b->nr && a->sp == b->sp && a->pc == b->pc &&
	       !memcmp(a->args, b->args, sizeof(a->args));
}

enum peek_result peek_thread(pid_t pid, pid_t tid, const struct maps *maps,
			     int *syscall_fd, int *sched_fd,
			     struct capture *out)
{
	struct peek_syscall before, after;
	uint64_t ns0, runs0, ns1, runs1;
	int r;

	out->tid = tid;
	out->stack_len = 0;
	out->partial = true;
	if (procfs_read_schedstat(pid, tid, sched_fd, &ns0, &runs0))
		return PEEK_FAILED;
	r = peek_read_syscall(pid, tid, syscall_fd, &before);
	if (r <= 0)
		return r < 0 ? PEEK_FAILED : PEEK_RUNNING;
	/* A task without a user stack (a kernel thread, or one exiting whose
	 * stack is gone: collect_syscall()) shows -1 and SP 0. */
	if (!before.sp) {
		errno = EINVAL;
		return PEEK_FAILED;
	}
	capture_copy_stack(tid, maps, before.sp, out);
	r = peek_read_syscall(pid, tid, syscall_fd, &after);
	if (r <= 0)
		return r < 0 ? PEEK_FAILED : PEEK_RUNNING;
	if (!same_call(&before, &after))
		return PEEK_CHANGED;
	/*
	 * The same call at the same SP is not enough: an event loop wakes,
	 * runs and sleeps again in the same epoll_wait() at the same SP.
	 * The run count goes up at every switch-in (sched_info_arrive()),
	 * and the run time at every switch-out.
	 */
	if (procfs_read_schedstat(pid, tid, sched_fd, &ns1, &runs1))
		return PEEK_FAILED;
	if (ns1 != ns0 || runs1 != runs0)
		return PEEK_CHANGED;
	/*
	 * Kernel quirk: without sched_info (CONFIG_SCHED_INFO, or schedstats
	 * and delay accounting both off) the file says "0 0 0" forever, and
	 * a run in between could not be seen.  A thread asleep has run at least
	 * once: a new one that has not shows "running".
	 */
	if (!runs1 && !ns1) {
		errno = ENOTSUP;
		return PEEK_FAILED;
	}
	memset(&out->regs, 0, sizeof(out->regs));
	out->regs.rip = before.pc;
	out->regs.rsp = before.sp;
	out->regs.orig_rax = (uint64_t)before.nr;
	/* The call's arguments where a stop shows them (the syscall ABI's
	 * registers): what the sampler names the wait from (waitdesc.h). */
	out->regs.rdi = before.args[0];
	out->regs.rsi = before.args[1];
	out->regs.rdx = before.args[2];
	out->regs.r10 = before.args[3];
	out->regs.r8 = before.args[4];
	out->regs.r9 = before.args[5];
	/* A call cut short, as a stop would show it (capture_stop_kind()). */
	if (before.nr >= 0)
		out->regs.rax = (uint64_t)-EINTR;
	return PEEK_OK;
}
