/*
 * capture.c - registers and a stack copy of a stopped thread (capture.h).
 */
#include "config.h"

#include <sys/uio.h>

#include "capture.h"
#include "ptctl.h"

#define PAGE 4096u
#define MAX_PIECES (CAPTURE_STACK_BYTES / PAGE + 1)

/* Copy [sp, sp + CAPTURE_STACK_BYTES) piece by page-aligned piece. */
static size_t copy_stack(pid_t tid, uint64_t sp, uint8_t *buf)
{
	struct iovec local = { buf, CAPTURE_STACK_BYTES };
	struct iovec remote[MAX_PIECES];
	uint64_t addr = sp, end = sp + CAPTURE_STACK_BYTES;
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

int capture_thread(pid_t tid, struct capture *out)
{
	out->tid = tid;
	out->stack_len = 0;
	if (ptctl_getregs(tid, &out->regs))
		return -1;
	out->stack_start = out->regs.rsp;
	if (out->regs.rsp)
		out->stack_len = copy_stack(tid, out->regs.rsp, out->stack);
	return 0;
}
