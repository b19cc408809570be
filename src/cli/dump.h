/*
 * dump.h - ptprof dump's model and its output (cmd_dump.c captures,
 * dump_out.c prints, dump_wait.c names each thread's wait and finds the
 * deadlocks).  Private to the cli layer.
 *
 * Contract: dump_print_text() and dump_print_json() write one process's
 * threads (stacks named by sym, Python frames by d->py) to stdout; the
 * JSON document is opened by the first process and closed by
 * dump_json_end().  Names the target chose are escaped (textsafe.h).
 */
#ifndef PTPROF_CLI_DUMP_H
#define PTPROF_CLI_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "proc/kstack.h"
#include "proc/peek.h"
#include "python/pyframes.h"
#include "symbols/framename.h"
#include "symbols/symbolize.h"
#include "wait/wait.h"

struct dthread {
	pid_t tid;
	char name[64];
	int state;     /* /proc state letter, or '?' */
	uint64_t *pcs; /* leaf first; NULL: no stack taken */
	size_t n;
	pid_t tracer;  /* without a stack: another process tracing it */
	char why[128]; /* without a stack: why */
	/* Its wait (dump_wait.c): the syscall line read after the capture
	 * (has_call: read, and it was in a call), the wait decoded from it
	 * (NULL: none), its kernel stack read before (NULL: not read). */
	struct peek_syscall call;
	bool has_call;
	struct peek_syscall before; /* the line read before the capture */
	bool has_before;
	/* Its syscall file, opened for the line read before the capture
	 * and read again (pread) for those after: one open, not three
	 * (-1: not kept, each read opens it). */
	int sysfd;
	bool moved;  /* call is not before: the stacks are another call's */
	bool woke;   /* call is before, which it left after its stack was
			taken (running now, or in another call) */
	bool marked; /* a futex wait whose run marks were read */
	bool stable; /* it did not run while its wait was read */
	struct wait_info *wait;
	struct kstack *kst; /* in dump.kstacks */
};

struct dump {
	struct dthread *t;
	size_t n;
	struct kstack *kstacks; /* the kernel stacks, one a thread (NULL:
				   none read), in one allocation: one
				   malloc() of 4 KB a thread cost more than
				   reading its stack */
	struct pyframes *py;	/* Python frames' names (NULL: --no-python) */
	bool no_inline;		/* --no-inline: no inlined functions' frames */
};

/* One frame of a thread, named (dump_frame_at(): framename.h, without
 * perf maps; callers looked up at PC-1; a Python frame in d->py);
 * framename_done(&fr->name) when used. */
struct dump_frame {
	uint64_t pc;
	const char *func; /* demangled when it could be, or NULL */
	uint64_t off;
	const char *module;
	struct framename name;	  /* func's */
	const struct pyframe *py; /* a Python frame (then func, module) */
	struct pyframe pyf;
};

void dump_frame_at(struct symbolizer *sym, const struct pyframes *py,
		   const struct dthread *t, size_t i, struct dump_frame *fr);

/* The functions inlined at frame i of t (symbolize.h:
 * symbolizer_lookup_inline(), innermost first), which the dump prints
 * as frames of their own before fr's, each marked inlined: how many
 * into in (SYMBOLIZE_MAX_INLINE of them), 0 for none, a Python frame
 * and with d->no_inline. */
size_t dump_inline_at(struct symbolizer *sym, const struct dump *d,
		      const struct dthread *t, size_t i,
		      const struct dump_frame *fr, struct symbol_frame *in);

/* The waits of every process dumped, for the deadlock and chain report
 * at the top of the output (dump_wait.c). */
struct dump_waits;

/* A process to dump. */
struct dproc {
	pid_t pid;
	pid_t ppid;	 /* its parent (found under it, or from /proc; 0:
			    unknown) */
	bool named;	 /* given with -p */
	bool descendant; /* found by --children under ppid */
	char comm[64];	 /* its name when listed */
};

/*
 * One document: {"processes":[{"pid","name","ppid","threads"}...]}.  A
 * dump of one -p process without --children keeps the document it had
 * before there were several, {"pid","threads"}, with "processes" beside
 * (then holding that same process): scripts that read d["pid"] keep
 * working, and new ones read "processes" whatever was asked.
 */
struct json_doc {
	bool single; /* one -p, no --children: the old fields too */
	bool begun;  /* a process was printed */
};

void dump_print_text(FILE *out, const struct dump *d, struct symbolizer *sym,
		     const struct dproc *p, bool first);
void dump_print_json(struct json_doc *j, const struct dump *d,
		     struct symbolizer *sym, const struct dproc *p);

/*
 * The waits (dump_wait.c):
 *  - dump_wait_calls(d, pid, kernel): before the capture, with kernel,
 *    each thread's kernel stack when it is not running (a stop would
 *    show ptrace's, not its wait); 0, or the
 *    errno (EACCES, EPERM) with which a kernel stack was refused;
 *  - dump_wait_describe(d, pid, sym, w): after it, each blocked thread's
 *    call read again and its wait decoded (the innermost glibc entry of
 *    its stack as the hint), its holder believed only if it did not run
 *    meanwhile (see there) and named from d, and the process added to w;
 *  - dump_waits_report(w, out, json): the deadlocks (cycles of lock
 *    waits) and chains, as text at the top of the output or as the
 *    JSON document's "deadlocks" and "chains" members; the number of
 *    deadlocks.
 */
struct dump_waits *dump_waits_new(void);
void dump_waits_free(struct dump_waits *w);
int dump_wait_calls(struct dump *d, pid_t pid, bool kernel);
void dump_wait_describe(struct dump *d, const struct dproc *p,
			struct symbolizer *sym, struct dump_waits *w);
size_t dump_waits_report(struct dump_waits *w, FILE *out, bool json);
void dump_thread_free(struct dthread *t);

#endif /* PTPROF_CLI_DUMP_H */
