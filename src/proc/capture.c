/*
 * capture.c - registers and a stack copy of a stopped thread (capture.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "proc/capture.h"
#include "proc/ptctl.h"
#include "util/timeutil.h"

#define PAGE 4096u
#define MAX_PIECES (CAPTURE_STACK_MAX / PAGE + 1)

struct capture *capture_new(void)
{
	struct capture *cap = calloc(1, sizeof(*cap));

	if (!cap)
		return NULL;
	cap->stack = malloc(CAPTURE_STACK_MAX);
	if (!cap->stack) {
		free(cap);
		return NULL;
	}
	return cap;
}

void capture_free(struct capture *cap)
{
	if (!cap)
		return;
	free(cap->stack);
	free(cap);
}

/*
 * How much to copy from sp: up to the end of its mapping, if known.  The
 * main thread's [stack] grows down on demand, so a deep sp can lie below
 * the start the last maps snapshot saw: that mapping still tells the top.
 */
static size_t stack_extent(const struct maps *maps, uint64_t sp)
{
	const struct map_entry *e = maps ? maps_find_at_or_above(maps, sp) :
					   NULL;

	if (!e || (sp < e->start && strcmp(e->path, "[stack]")))
		return CAPTURE_STACK_DEFAULT;
	return e->end - sp < CAPTURE_STACK_MAX ? e->end - sp :
						 CAPTURE_STACK_MAX;
}

/* Copy [sp, sp + len) piece by page-aligned piece. */
static size_t copy_stack(pid_t tid, uint64_t sp, size_t len, uint8_t *buf)
{
	struct iovec local = { buf, len };
	struct iovec remote[MAX_PIECES];
	uint64_t addr = sp, end = sp + len;
	int n = 0;
	ssize_t got;

	while (addr < end && n < (int)MAX_PIECES) {
		uint64_t next = (addr | (PAGE - 1)) + 1;

		if (next > end)
			next = end;
		remote[n].iov_base = (void *)(uintptr_t)addr;
		remote[n].iov_len = next - addr;
		n++;
		addr = next;
	}
	got = process_vm_readv(tid, &local, 1, remote, (unsigned long)n, 0);
	return got > 0 ? (size_t)got : 0;
}

void capture_copy_stack(pid_t tid, const struct maps *maps, uint64_t sp,
			struct capture *out)
{
	out->stack_start = sp;
	out->stack_skip = 0;
	out->stack_len = sp ? copy_stack(tid, sp, stack_extent(maps, sp),
					 out->stack) :
			      0;
}

/*
 * Where the copy before the registers starts, for a stack pointer of
 * about hint: CAPTURE_HINT_SLACK below it, within hint's mapping, whose
 * top must be in reach of one copy; 0: no copy before the registers.
 */
static uint64_t hint_start(const struct maps *maps, uint64_t hint)
{
	const struct map_entry *e = maps && hint ?
					    maps_find_at_or_above(maps, hint) :
					    NULL;
	uint64_t from = hint > CAPTURE_HINT_SLACK ? hint - CAPTURE_HINT_SLACK :
						    0;

	if (!e || hint < e->start || hint >= e->end)
		return 0;
	if (from < e->start)
		from = e->start;
	return e->end - from <= CAPTURE_STACK_MAX ? from : 0;
}

int capture_thread_hint(pid_t tid, const struct maps *maps, uint64_t hint,
			struct capture *out)
{
	uint64_t from = hint_start(maps, hint), sp, t0, t1, t2;
	size_t got = 0;
	bool hit;

	out->tid = tid;
	out->stack_len = out->copied = out->stack_skip = 0;
	out->partial = false;
	/*
	 * The copy first, from a guess, then the registers: the stop is
	 * reported (waitpid()) before the thread has switched out, and
	 * PTRACE_GETREGS waits for that (ptrace_check_attach() ->
	 * wait_task_inactive()), some 25 us on the development VM when
	 * ptprof spun for the stop; process_vm_readv() does not wait.  The
	 * thread is in the kernel already, in its stop: its user stack no
	 * longer changes.
	 */
	t0 = mono_now_ns();
	if (from)
		got = copy_stack(tid, from, stack_extent(maps, from),
				 out->stack);
	t1 = mono_now_ns();
	if (ptctl_getregs(tid, &out->regs))
		return -1;
	t2 = mono_now_ns();
	sp = out->regs.rsp;
	out->stack_start = sp;
	hit = got && sp >= from && sp < from + got;
	out->hint_missed = from && !hit;
	out->copied = got;
	if (hit) {
		/* The copy holds [sp, its end): its bytes below sp are skipped,
		 * not moved (the thread is still held). */
		out->stack_skip = (size_t)(sp - from);
		out->stack_len = got - out->stack_skip;
	} else if (sp) {
		out->stack_len = copy_stack(tid, sp, stack_extent(maps, sp),
					    out->stack);
		out->copied += out->stack_len;
	}
	out->regs_ns = t2 - t1;
	out->copy_ns = t1 - t0 + (mono_now_ns() - t2);
	return 0;
}

void capture_warm(pid_t tid, uint64_t sp)
{
	uint64_t word;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { (void *)(uintptr_t)sp, sizeof(word) };

	(void)!process_vm_readv(tid, &local, 1, &remote, 1, 0);
}

int capture_thread(pid_t tid, const struct maps *maps, struct capture *out)
{
	return capture_thread_hint(tid, maps, 0, out);
}

/* Return values of a call cut short by a signal or a stop (the kernel's
 * include/linux/errno.h, not exported to user space). */
#define ERESTARTSYS 512
#define ERESTART_RESTARTBLOCK 516

/*
 * Kernel quirk: a stop that cuts a sleeping call short is taken in
 * get_signal(), before the call's restart is set up
 * (arch_do_signal_or_restart(), arch/x86/kernel/signal.c): the registers
 * in the stop show the call returning -ERESTART* with rip past its
 * `syscall`, as for a call that returned.  Only once the stop ends does
 * the kernel put the call's number back in rax and move rip back over the
 * `syscall`: the thread goes back into the call.  It was in the call at
 * the tick, and will be after: not in user code, and not at the exit of
 * a call that raced the interrupt (sysbias.h) either.  -EINTR is a sleep
 * cut short that does not restart: in the call too.
 */
enum capture_stop capture_stop_kind(const struct user_regs_struct *regs)
{
	int64_t rax = (int64_t)regs->rax;

	if ((int64_t)regs->orig_rax < 0)
		return CAPTURE_IN_USER;
	if (rax == -EINTR ||
	    (rax <= -ERESTARTSYS && rax >= -ERESTART_RESTARTBLOCK))
		return CAPTURE_IN_CALL;
	return CAPTURE_AT_EXIT;
}
