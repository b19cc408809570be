/*
 * unwind.h - unwinding a captured stack with libunwind, after the thread
 * has been released.
 *
 * One unwinder per target, cheap until its first unwind: then it is lent
 * a libunwind address space (with a global cache) from a pool shared by
 * all unwinders, at most 64, never destroyed (unwind.c says why), which
 * it keeps while no other unwinder needs it; its accessors never touch
 * the (running) thread through ptrace:
 *  - registers come from the capture;
 *  - memory comes from the stack copy, else from the image of the
 *    read-only file (or vDSO) mapped at that address (modcache.h), else,
 *    last resort, from one process_vm_readv() of the target; unwind
 *    rules (call frame instructions) are vetted before libunwind runs
 *    them (ehframe_check_cfi()) and served as vetted thereafter, even if
 *    the target rewrites the file;
 *  - unwind tables are per executable mapping, built once from the
 *    module's PT_GNU_EH_FRAME (.eh_frame_hdr) and searched by libunwind's
 *    dwarf_search_unwind_table(), so in steady state nothing re-reads
 *    /proc/PID/maps or re-maps a file; where .eh_frame has no FDE for a
 *    PC (a Go binary has none at all), the module's .debug_frame,
 *    converted once (debugframe.h), is searched the same way.
 * The mapping layout comes from the sampler's struct maps, which must
 * stay alive as long as the unwinder; after it changes (dlopen, dlclose,
 * exec) the sampler calls unwinder_flush().
 *
 * Contract: unwinder_unwind() fills pcs leaf first: pcs[0] is the
 * interrupted PC, then return addresses as unwound, never a zero PC, at
 * most max entries, and returns the count (>= 1 when the PC is not zero).
 * A frame with no unwind info (JIT code) is stepped by its frame pointer,
 * validated (fpstep.h), and DWARF unwinding resumes at its caller.
 * A failed step ends the chain, it is not an error.  So does unwind info
 * that libunwind could not run safely (ehframe_check_cfi(): the stack
 * ends at that frame) and an unwind that exceeds UNWIND_BUDGET_NS (cut
 * short there); both are counted.  A partial capture (peek.h: rip and
 * rsp alone) whose unwind needed a register it does not have (a CFA
 * based on rbp, a frame-pointer step, a DWARF expression on a register):
 * -1 with errno ENODATA, the caller stops the thread instead; never a
 * shorter stack.  Callee-saved registers a frame-pointer step only
 * carries to its caller are not needed: they stay unknown, and a later
 * step that reads one needs it.  The thread may run meanwhile: memory
 * beyond the copy is read as it is now, so the outer frames of a stack
 * deeper than the copy can be stale.  Never prints or exits.  Not
 * thread-safe.
 *
 * Program-wide side effect: linking unwind.o replaces sigprocmask() for
 * the whole program (see unwind.c: libunwind's cache lock would otherwise
 * cost two system calls per frame).  Outside an unwind the replacement is
 * pthread_sigmask(), which is what glibc's sigprocmask() is; during one it
 * does nothing, so no code that runs inside an unwind (libunwind's
 * accessors, our own) may rely on sigprocmask() blocking a signal.
 */
#ifndef PTPROF_UNWIND_H
#define PTPROF_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/capture.h"
#include "proc/maps.h"

struct unwinder;

struct unwinder *unwinder_new(pid_t pid, const struct maps *maps);
void unwinder_free(struct unwinder *u);

int unwinder_unwind(struct unwinder *u, const struct capture *cap,
		    uint64_t *pcs, int max);

/* The most frame-pointer steps in one stack; then it ends there. */
#define UNWIND_FP_MAX 1024

/* The most one stack's unwind may take; then it ends where it got. */
#define UNWIND_BUDGET_NS (200ULL * 1000 * 1000)

/*
 * hook(arg, now) is called between two steps of every unwind (never
 * inside libunwind), now being CLOCK_MONOTONIC in ns; it returns true to
 * end that unwind there.  For the sampler to serve stops and signals
 * during long unwinds.  NULL: none.
 */
typedef bool (*unwinder_hook)(void *arg, uint64_t now);
void unwinder_set_hook(struct unwinder *u, unwinder_hook hook, void *arg);

/*
 * Is the instruction just before the PC of cap a `syscall` (0f 05)?  With
 * capture_stop_kind(), that tells a stop at a system call's exit from
 * one after a page fault.  Read from the module image at that address, else
 * from the target (the code does not move while it runs).  False when
 * neither can be read.  Needs rip alone: a partial capture will do.
 */
bool unwinder_after_syscall(struct unwinder *u, const struct capture *cap);

/* Mappings changed (dlopen, dlclose, exec): drop cached unwind data. */
void unwinder_flush(struct unwinder *u);

/* What the unwinder has done, for --stats and tests. */
struct unwinder_counters {
	uint64_t mem_from_stack, mem_from_module, mem_from_target;
	uint64_t tables_built, tables_missing;
	uint64_t tables_debug_frame; /* mappings given their .debug_frame */
	uint64_t debug_frame_fdes, debug_frame_skipped; /* FDEs kept, not */
	uint64_t cfi_refused; /* FDEs whose rules were refused (unsafe) */
	uint64_t budget_cuts; /* unwinds cut short by UNWIND_BUDGET_NS */
	/* Partial captures refused: a step needed a register they lack. */
	uint64_t partial_refused;
	/* Frames without unwind info, unwound by frame pointer (fpstep.h):
	 * the steps made, and the stacks ended by a step refused, by why. */
	uint64_t fp_steps;
	uint64_t fp_stop_bad_fp, fp_stop_unreadable, fp_stop_not_exec;
	uint64_t fp_stop_limit; /* UNWIND_FP_MAX steps made */
	/* Unwinds and their time (hooks excluded), all and those that made
	 * a frame-pointer step. */
	uint64_t unwinds, unwind_ns, unwinds_fp, unwind_fp_ns;
	int cache_size_set; /* unw_set_cache_size() result, 0 = applied */
};
void unwinder_counters(const struct unwinder *u, struct unwinder_counters *c);

#endif /* PTPROF_UNWIND_H */
