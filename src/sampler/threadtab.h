/*
 * threadtab.h - the sampler's table of target threads, by TID.
 *
 * One entry per thread ptprof has seen in /proc/PID/task.  The state says
 * where the thread is in ptprof's ptrace cycle:
 *
 *   IDLE --seize+interrupt--> SEIZED --stop reported: sample, detach--> IDLE
 *                               \--tick deadline passed--> LATE --stop: detach--> IDLE
 *   any --exit reported--> GONE; GONE, and IDLE or LATE entries no longer
 *   listed in /proc, are dropped at the sweep.  A stop reported for an
 *   IDLE or unknown thread (never asked for) is detached at once.
 *
 * Besides its state an entry holds what the sampler keeps about the
 * thread between ticks: its CPU accounting (struct cpuacct, cpuacct.h),
 * its name and whether it is selected, the other tracer that holds it,
 * and its last stack (for --wall).
 *
 * Contract: plain data; not thread-safe; never prints.  Entries are owned by
 * the table; a pointer stays valid until threadtab_sweep() drops it.  A new
 * entry is zeroed but for its TID, state, cpuacct_init() and syscall_fd
 * (-1).  The table closes the files of cpu (cpuacct_close()) and
 * syscall_fd, and frees last_pcs of the entries it drops.
 */
#ifndef PTPROF_THREADTAB_H
#define PTPROF_THREADTAB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/cpuacct.h"
#include "sampler/sysbias.h"
#include "wait/wait.h"

enum thread_state {
	TS_IDLE,   /* not traced by us */
	TS_SEIZED, /* seized and interrupted, stop not yet reported */
	TS_LATE,   /* its stop missed the tick: detach it when it comes */
	TS_GONE,   /* exited */
};

/* A thread's last few stacks of one kind, to spread samples over. */
#define STACK_RING 4
struct stack_ring {
	uint64_t *pcs[STACK_RING];
	size_t n[STACK_RING];
	unsigned count; /* stacks kept, at most STACK_RING */
	unsigned put;	/* where the next one goes */
	unsigned turn;	/* which one gets the next sample */
};

struct sampler_proc; /* the sampler's per-process state (sampler.c) */

struct thread {
	pid_t tid;
	struct sampler_proc *proc; /* its process, set when first listed */
	enum thread_state state;
	int pending_sig;     /* signal to hand back on detach, or 0 */
	bool sampled;	     /* at least one stack recorded */
	uint64_t seen_tick;  /* last tick it was listed in /proc */
	uint64_t intr_ns;    /* when it was last PTRACE_INTERRUPTed */
	uint64_t last_sp;    /* its stack pointer at its last capture */
	struct cpuacct cpu;  /* its CPU time: due or not, sample weight */
	int syscall_fd;	     /* its /proc syscall file, kept open, or -1
				(peek_thread(), with cpu.sched_fd) */
	char name[16];	     /* comm, when names are wanted ("" unread) */
	uint64_t name_tick;  /* tick the name was read at */
	unsigned name_reads; /* times it was read */
	bool selected;	     /* passes the thread selection (as of name_tick) */
	pid_t tracer;	     /* another process that traces it, or 0 */
	bool rebased;	     /* ... its CPU count restarted after the window */
	bool held_counted;   /* counted in foreign_traced (once a thread) */
	bool unkept_counted; /* counted in threads_unkept */
	bool unread_counted; /* counted in threads_unread */
	uint64_t retry_tick; /* ... seize it again from this tick on */
	/* Its seccomp filters (seccomp.h), judged when a stop first needs
	 * them: sc_filters is the number of filters the verdict is for
	 * (filters are only ever added, so an equal count is the same
	 * stack).  sc_unsafe: they forbid restart_syscall, never stop it. */
	bool sc_judged;
	bool sc_unsafe;
	bool sc_probe;	 /* judge them in its next stop (first tick) */
	bool probe_only; /* ... a stop not for a sample */
	int sc_filters;
	uint64_t *last_pcs; /* its last stack, for --wall when it did not run */
	size_t last_n;
	/* --wall: what it waited on at its last stack (sampler_wait.c),
	 * counted with it again while it does not run */
	enum wait_kind wait;
	pid_t wait_holder;
	/* ... and its last futex word found a condvar or sem, the value it
	 * waited with, the kind found there and when (0: none kept); for a
	 * kind with a holder, the object's address and kind (futex_ns 0) */
	uint64_t futex_addr, futex_val, futex_ns;
	enum wait_kind futex_kind;
	/* CPU mode: the system call bias correction (sysbias.h): the split
	 * of its time, and its last stacks stopped in user code. */
	struct sysbias_thread bias;
	struct stack_ring user_stacks;
	uint64_t image;	 /* ... of this task and image (procfs ident) */
	bool have_image; /* image is a reading */
	struct thread *next_;
};

struct threadtab;

struct threadtab *threadtab_new(void);
void threadtab_free(struct threadtab *t);

/* Find tid; with create, add it (IDLE) when absent.  NULL: absent/ENOMEM. */
struct thread *threadtab_get(struct threadtab *t, pid_t tid, bool create);

/* Drop every entry for which drop() says so. */
typedef bool (*threadtab_drop_fn)(const struct thread *th, void *arg);
void threadtab_sweep(struct threadtab *t, threadtab_drop_fn drop, void *arg);

/* Call fn on every entry. */
typedef void (*threadtab_visit_fn)(struct thread *th, void *arg);
void threadtab_foreach(struct threadtab *t, threadtab_visit_fn fn, void *arg);

#endif /* PTPROF_THREADTAB_H */
