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
#include <sys/types.h>

#include "python/pyframes.h"
#include "symbols/symbolize.h"

struct dthread {
	pid_t tid;
	char name[64];
	int state;     /* /proc state letter, or '?' */
	uint64_t *pcs; /* leaf first; NULL: no stack taken */
	size_t n;
	pid_t tracer;  /* without a stack: another process tracing it */
	char why[128]; /* without a stack: why */
};

struct dump {
	struct dthread *t;
	size_t n;
	struct pyframes *py; /* Python frames' names (NULL: --no-python) */
};

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

void dump_print_text(const struct dump *d, struct symbolizer *sym,
		     const struct dproc *p, bool first);
void dump_print_json(struct json_doc *j, const struct dump *d,
		     struct symbolizer *sym, const struct dproc *p);

#endif /* PTPROF_CLI_DUMP_H */
