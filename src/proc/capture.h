/*
 * capture.h - what is taken from a thread while it is stopped.
 *
 * Capture is the only work inside a thread's stop window: one
 * PTRACE_GETREGS and one process_vm_readv() of its stack (two when
 * capture_thread_hint()'s guess missed), from the stack pointer up to
 * the top of the stack's mapping (the part in use, plus the
 * thread's TLS or the main thread's environment above it), at most
 * CAPTURE_STACK_MAX bytes; CAPTURE_STACK_DEFAULT when the mapping is not
 * known yet.  The thread is then released and unwound later from this
 * copy (unwind.h), so the time it is held does not depend on how slow
 * unwinding is, and a stack that fits is unwound exactly as it was.
 *
 * The copy ends early at the first page that cannot be read: the remote
 * side is described page by page, and process_vm_readv() stops at the
 * first element that faults.
 *
 * Contract: capture_thread() needs tid in a ptrace-stop of ours.  0, or -1
 * with errno (ESRCH: the thread died under us).  A stack that cannot be
 * read at all is not an error: stack_len is then 0.  Never prints.
 */
#ifndef PTPROF_CAPTURE_H
#define PTPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "proc/maps.h"

#define CAPTURE_STACK_MAX (256 * 1024)
#define CAPTURE_STACK_DEFAULT (32 * 1024)

struct capture {
	pid_t tid;
	struct user_regs_struct regs;
	uint64_t stack_start; /* target address of stack[stack_skip]: the SP */
	size_t stack_len;     /* bytes copied from the SP */
	uint8_t *stack;	      /* CAPTURE_STACK_MAX bytes */
	size_t stack_skip; /* bytes before the SP's (capture_thread_hint()) */
	/* Only rip and rsp (and orig_rax) are known, the thread was not
	 * stopped (peek.h); capture_thread() sets false. */
	bool partial;
	uint64_t regs_ns; /* --stats: how long PTRACE_GETREGS took, */
	uint64_t copy_ns; /* ... and the stack's copy (ns) */
	size_t copied;	  /* ... bytes it read (stack_len, and what
				 capture_thread_hint() read in vain) */
	bool hint_missed; /* capture_thread_hint(): the stack pointer
				 was not in the copy made before the
				 registers, and it was copied again */
};

/* A capture with its buffer; NULL with errno on allocation failure.  (A
 * caller may instead point stack at a buffer of its own, of at least
 * CAPTURE_STACK_MAX bytes, before each capture_thread(): the sampler has
 * the copy land in the arena it unwinds from.) */
struct capture *capture_new(void);
void capture_free(struct capture *cap);

/* maps (may be NULL) tells where the stack's mapping ends. */
int capture_thread(pid_t tid, const struct maps *maps, struct capture *out);

/* The copy capture_thread() makes, from sp up (its extent from maps, which
 * may be NULL), into out->stack; sets out->stack_start to sp and
 * out->stack_len (0: nothing could be read, or sp is 0).  The thread need
 * not be stopped: peek_thread() copies a sleeping thread's stack so. */
void capture_copy_stack(pid_t tid, const struct maps *maps, uint64_t sp,
			struct capture *out);

/*
 * The same, with hint a stack pointer the thread is likely to be near
 * (its last one; 0: none): the stack is copied first, from
 * CAPTURE_HINT_SLACK below hint to its mapping's top, and then the
 * registers read; a stack pointer outside that copy (hint_missed) has
 * the stack copied again from it, as capture_thread() does.  Either way
 * the capture holds the same bytes, at stack + stack_skip: a hit leaves
 * the bytes copied below the stack pointer where they are (stack_skip of
 * them) rather than move the rest down inside the stop window; the other
 * capture functions set stack_skip 0.
 */
#define CAPTURE_HINT_SLACK 4096
int capture_thread_hint(pid_t tid, const struct maps *maps, uint64_t hint,
			struct capture *out);

/*
 * Read one word at sp of thread tid, running or not, and drop it: before
 * the stop window, so that the copy in it finds the target's memory map
 * (its mm, the stack's page tables and pages) in this CPU's caches.  The
 * first process_vm_readv() after a while costs some 14 us even for 512
 * bytes, the next a few: on the development VM a stack copy in the
 * window took 11.7 us (p50) after this instead of 19.8.  Failures are
 * ignored (the thread may be gone, sp stale).
 */
void capture_warm(pid_t tid, uint64_t sp);

/*
 * Where was the thread when a ptrace stop came, from its registers alone?
 * CAPTURE_AT_EXIT: on the way out of a system call that returned (the
 * kernel keeps the call's number in orig_rax).  CAPTURE_IN_CALL: in a
 * call that slept and was cut short by the stop, -EINTR or -ERESTART* in
 * rax (see capture.c: the call restarts after the stop, the thread is in
 * it).  CAPTURE_IN_USER: anywhere else.  Interrupts and exceptions (a
 * page fault too: the entry code moves the error code out and stores -1,
 * arch/x86/entry/entry_64.S idtentry_body) leave orig_rax -1, so a stop
 * after a page fault looks like a stop in user code.  The caller confirms
 * a call with the instruction before rip (unwinder_after_syscall(),
 * unwind.h).
 */
enum capture_stop { CAPTURE_IN_USER, CAPTURE_AT_EXIT, CAPTURE_IN_CALL };
enum capture_stop capture_stop_kind(const struct user_regs_struct *regs);

#endif /* PTPROF_CAPTURE_H */
