/*
 * bgwrite.h - write files in a forked child while the sampler goes on
 * (--rotate, SIGUSR2: cmd_record.c).
 *
 * Writing a pprof file names every address (symbolize.h opens the
 * target's ELF files and their DWARF): up to seconds, too long to hold
 * the sampler for without missing ticks.  bgwrite_start() fork()s; the
 * child has a copy of everything the parent held at that moment (the
 * builders, the process set, the maps), calls fn on it, sends fn's
 * result back through a pipe and _exit()s; the parent is free at once
 * to empty its builders and take the next tick.  The writer is no tracer
 * (ptrace relations are not inherited) and touches no target: it only
 * reads files and writes the profile.  It stays ptprof's own child (a
 * grandchild, orphaned, would be left to an init that may never reap it,
 * in a container the target's own process 1).
 *
 * The result goes through the pipe, not an exit status: the sampler's
 * reaper (waitpid(-1), on the same thread) may take the writer's exit
 * first, and takes a PID it does not know for nothing (sampler.c
 * handle_status()).  A writer is over when its pidfd polls readable (it
 * exited; before Linux 5.3, when its pipe does); its zombie, if still
 * there, is taken through the pidfd, never by PID (reused, the PID could
 * be a traced thread's whose stop a waitpid() would take).  End of file
 * without a result means the writer died (EPIPE).  Its CPU time, which
 * joins ptprof's RUSAGE_CHILDREN once reaped, is added up in cpu_ns: a
 * caller reading RUSAGE_CHILDREN for COMMAND's tree takes it off.
 *
 * The writer blocks every signal: a Ctrl-C or a SIGTERM sent to the
 * process group ends ptprof's run, and each writer still finishes its
 * file; only SIGKILL stops one (its temporary file is then left, which
 * outfile_open() of a later run removes, outfile.h).
 *
 * Contract: not thread-safe; never prints or exits (but fn may, in the
 * child).  At most BGWRITE_MAX writers at once: bgwrite_start() fails
 * with EAGAIN past that, and with fork()'s errno when it fails; the
 * caller then writes in its own process.  Each writer's result is handed
 * to done() exactly once, in the order the writers end, from
 * bgwrite_poll() or bgwrite_wait().
 */
#ifndef PTPROF_BGWRITE_H
#define PTPROF_BGWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BGWRITE_MAX 4
#define BGWRITE_NICE 10 /* the writers' nice value, above ptprof's */

struct bgwrite_slot {
	pid_t pid;	   /* 0: free */
	int fd;		   /* the pipe's read end */
	int pidfd;	   /* the writer's pidfd, or -1 */
	unsigned long tag; /* the caller's, handed back to done() */
};

struct bgwrite {
	struct bgwrite_slot slot[BGWRITE_MAX];
	size_t busy;	 /* writers under way */
	uint64_t cpu_ns; /* the CPU time of the writers that ended */
};

/* In the child: fn(arg) is the result (an int: the caller's meaning);
 * then the child _exit()s. */
typedef int (*bgwrite_fn)(void *arg);
/* A writer ended: its tag, and its result, or -1 with err its errno
 * (EPIPE: the child died without one). */
typedef void (*bgwrite_done_fn)(void *arg, unsigned long tag, int result,
				int err);

void bgwrite_init(struct bgwrite *b);

/* Fork a writer that runs fn(arg).  0 in the parent, -1 with errno (no
 * child then). */
int bgwrite_start(struct bgwrite *b, unsigned long tag, bgwrite_fn fn,
		  void *arg);

/* Hand the results of the writers that ended to done(); never blocks. */
void bgwrite_poll(struct bgwrite *b, bgwrite_done_fn done, void *arg);

/* Wait for every writer, handing each result to done(). */
void bgwrite_wait(struct bgwrite *b, bgwrite_done_fn done, void *arg);

#endif /* PTPROF_BGWRITE_H */
