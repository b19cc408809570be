/*
 * unwind.h - remote stack unwinding with libunwind.
 *
 * One unwinder per target process: one libunwind address space with a
 * global cache.  Register reads come from the capture; memory reads and
 * unwind-table lookups go through libunwind-ptrace (_UPT_*) with one UPT
 * handle per thread, kept across ticks so its ELF image cache survives.
 *
 * Contract: unwinder_unwind() needs the thread to be still stopped (the
 * _UPT memory accessor uses PTRACE_PEEKDATA).  It fills pcs leaf first:
 * pcs[0] is the interrupted PC, then return addresses as unwound, never a
 * zero PC, at most max entries, and returns the count (>= 1 when the PC is
 * not zero), or -1 with errno.  A failed step ends the chain, it is not an
 * error.  Never prints or exits.  Not thread-safe.
 */
#ifndef PTPROF_UNWIND_H
#define PTPROF_UNWIND_H

#include <stdint.h>
#include <sys/types.h>

#include "capture.h"

struct unwinder;

struct unwinder *unwinder_new(pid_t pid);
void unwinder_free(struct unwinder *u);

int unwinder_unwind(struct unwinder *u, const struct capture *cap,
		    uint64_t *pcs, int max);

/* Drop per-thread state of a thread that has exited. */
void unwinder_forget_thread(struct unwinder *u, pid_t tid);

/* Mappings changed (dlopen, dlclose, exec): drop cached unwind data. */
void unwinder_flush(struct unwinder *u);

#endif /* PTPROF_UNWIND_H */
