/*
 * sampler_int.h - the sampling loop's state and its files' private
 * interfaces.  Private to src/sampler/sampler*.c; sampler.h is the
 * contract.
 *
 * The files, by concern (each says more at its top):
 *   sampler.c         the run: setup, teardown, the run loop, signals,
 *                     the unwinders' hook between two steps
 *   sampler_tick.c    one tick: seize, stop the world, sweep
 *   sampler_seize.c   which threads are listed and seized
 *   sampler_peek.c    --wall peeks: a sleeping thread read, not stopped
 *   sampler_stops.c   interrupts, stops collected, each capture taken
 *   sampler_policy.c  a process skipped; seccomp filters guarded
 *   sampler_record.c  the capture arena; unwinding, recording, the
 *                     system call bias split
 *   sampler_late.c    LATE threads: marked, swept, released
 *   sampler_cpu.c     CPU accounting (cpuacct.h) for the loop; settling
 *   sampler_stats.c   --stats histograms and quantiles
 *   sampler_budget.c  --max-overhead: the rate the overhead calls for
 *   sampler_procs.c   the process set: roots, descendants, execs, exits
 *   sampler_py.c      the Python half: runtimes, frames, the merge
 *
 * The loop's files call sampler_procs.c and sampler_py.c; sampler_procs.c
 * never calls the loop by name: what it needs of it (the unwinders' hook,
 * the queue flushed, a process settled) it is given in struct
 * sampler_hooks, filled in by setup().  sampler_py.c calls neither.
 *
 * Failures: functions that return int give 0, or -1 with errno; a
 * process that cannot be sampled is skipped (sampler_policy_skip()),
 * with its reason in its image, never printed.
 */
#ifndef PTPROF_SAMPLER_INT_H
#define PTPROF_SAMPLER_INT_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/capture.h"
#include "proc/peek.h"
#include "proc/procfs.h"
#include "proc/proctree.h"
#include "profile/procset.h"
#include "python/pymerge.h"
#include "python/pyrt.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler.h"
#include "sampler/sampler_budget.h"
#include "sampler/threadtab.h"
#include "symbols/framename.h"
#include "unwind/mapsync.h"
#include "unwind/unwind.h"
#include "util/timeutil.h"

/* A capture waiting for its unwind: its stack is in the tick's arena. */
struct queued {
	struct thread *th;
	struct user_regs_struct regs;
	uint64_t stack_start;
	size_t off, len;	/* in arena */
	enum capture_stop kind; /* capture_stop_kind() said so */
	bool partial;		/* a peek's: rip and rsp only (peek.h) */
	/* Its Python frames (sampler_py.c), in the tick's frame arena:
	 * py_n of them from py_off; py_status the walk's enum pyrt_status,
	 * -1 when none was read (no runtime, no thread state known). */
	size_t py_off, py_n;
	int py_status;
	uint64_t py_ns; /* when they were read (CLOCK_MONOTONIC) */
	/* sampler_py_name() ran: their code objects read, each frame's PC
	 * in the tick's frame arena (sampler_pybufs.named); py_stale: too
	 * late for that, the stack stays native. */
	bool py_named, py_stale;
};

/* The most Python frames read per stop (pyrt_frames()'s max). */
#define PY_FRAMES_MAX 512
#define PY_STATUSES 5 /* enum pyrt_status's values */

/*
 * One process of the set: what the sampler keeps of it while it lives
 * (its threads point here).  Its image (procset.h) outlives it.
 */
struct sampler_proc {
	pid_t pid;
	bool root;	    /* named (-p) or COMMAND: the run waits for it */
	bool born;	    /* forked in the run: its CPU time counts from 0 */
	bool have_exit_cpu; /* exit_cpu_ns is what it used in all, told */
	uint64_t exit_cpu_ns;	  /* ... at its exit (proctree.h) */
	struct proc_image *im;	  /* its current image, in the set */
	int pidfd;		  /* to tell its exit (and PID reuse) apart */
	void *task_dir;		  /* /proc/PID/task, kept open */
	int stat_fd;		  /* task/PID/stat, kept open: thread count */
	struct tidlist tids;	  /* its threads as last listed */
	struct cpuacct_proc acct; /* its CPU time, sweeps */
	struct unwinder *unw;	  /* of its current image */
	struct mapsync mapsync;	  /* its maps re-read when code was loaded */
	pid_t live_tid; /* a thread sampled lately, to read maps through */
	unsigned refused_ticks;
	uint64_t first_tick; /* the tick it was first sampled at */
	uint64_t samples;    /* samples of it (all its images) */
	dev_t exe_dev;	     /* its main executable (from its maps) */
	ino_t exe_ino;
	uint64_t exe_mark[3];  /* its image's code and stack (read_exe()) */
	uint64_t exe_tick;     /* the tick its executable was last checked at */
	uint64_t held_threads; /* of them in stats->foreign_traced */
	bool gone;	       /* exited: finished at the end of the tick */
	bool late_vanished;    /* a LATE thread exec'd away its TID */
	size_t held_now;       /* of its threads, seized by us (stop_owed) */
	uint64_t skipped_ns;   /* when it was skipped (sampler_policy_skip()) */
	struct sampler_py *py; /* its CPython runtime, or NULL */
	bool py_found;	       /* its image is CPython's (sampler_py_open()) */
	unsigned py_scans;     /* its image's maps looked at for it, */
	size_t py_scan_maps;   /* ... last with so many mappings */
	/* --wall: its wait context (waitdesc.h), made at its first futex
	 * wait and made anew once a second (sampler_wait.c), or NULL */
	struct waitdesc *wd;
	uint64_t wd_ns; /* when it was made (CLOCK_MONOTONIC) */
	/* --max-overhead: its CPU clock at the budget's last window
	 * (sampler.c), when read */
	uint64_t budget_cpu_ns;
	bool budget_cpu_read;
};

/* How often a long unwind stops to serve stops and signals
 * (sampler_between_steps()). */
#define SERVE_EVERY_NS (1 * NSEC_PER_MSEC)

struct sampler;
struct waitdesc;

/* What the process set (sampler_procs.c) needs of the loop: given to it
 * at setup() rather than called by name, so that the process set depends
 * on nothing above it. */
struct sampler_hooks {
	/* The unwinders' hook between two steps (unwind.h); arg: the
	 * sampler.  True ends the unwind. */
	bool (*between_steps)(void *arg, uint64_t now);
	/* Unwind the captures queued, unless an unwind is under way: before
	 * a process's threads are freed. */
	void (*flush)(struct sampler *s);
	/* A process's CPU time given to its stacks before it is forgotten
	 * (final_read_too: it lives; read its threads once more). */
	void (*settle)(struct sampler *s, struct sampler_proc *p,
		       bool final_read_too);
};

/* The process set: sampler_procs.c's; the loop reads it. */
struct sampler_set {
	struct sampler_proc **procs; /* the live processes */
	size_t nprocs, cap_procs;
	size_t roots_live;     /* of them, roots */
	struct proctree *tree; /* cfg->children: their descendants */
	struct pollfd *pfds;   /* their pidfds, for poll_exits() */
	size_t cap_pfds;
	/* Born and gone before they could be read: their EXIT's CPU time
	 * goes to their own row (sampler_procs.c, unread_exit()). */
	struct sampler_unread {
		pid_t pid, ppid;
	} * unread;
	size_t nunread, cap_unread;
	int64_t unread_resid; /* their CPU time not yet a whole sample */
};

/* The tick's captures: sampler_record.c's.  The stop window
 * (sampler_stops.c) and the peeks (sampler_peek.c) fill them through
 * sampler_record_reserve() and sampler_record_queue(). */
struct sampler_captures {
	struct capture cap;   /* the capture being taken (stack: in arena) */
	struct queued *queue; /* this tick's captures, unwound after it */
	size_t nqueued, cap_queued;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	struct capture view; /* a queued capture, as the unwinder sees it */
	uint64_t *pcs;	     /* the unwinder's output */
};

/* Python frames: sampler_py.c's (sampler_record.c moves npyf with the
 * queue).  The tick's frame arena, the capture being taken's frames, the
 * merge's buffers. */
struct py_named {
	uint64_t pc;
	int rc; /* pymerge_pcs()'s py_pc: 0 (pc), 1 (left out), -1 */
};

struct sampler_pybufs {
	struct pyrt_frame *pyf;
	size_t npyf, cap_pyf;
	size_t cur_n;
	int cur_status;
	uint64_t cur_ns;
	struct py_named *named; /* beside pyf: each frame's PC, once named */
	size_t cap_named;
	struct pymerge_ref *mrefs;
	uint64_t *mpcs;
	size_t cap_mrefs;
};

/* The kernel frames of the thread peeked last (sampler_kernel.c). */
struct sampler_kbufs {
	struct kstack *ks;	 /* allocated at the first read */
	const struct thread *th; /* whose frames ks holds; NULL: none */
	uint64_t *pcs;		 /* a stack with them on top */
	size_t cap;
};

struct sampler {
	const struct sampler_config *cfg;
	struct stacktab *tab;
	struct procset *ps;
	struct sampler_stats *st;
	struct threadtab *threads;
	struct sampler_hooks hooks;  /* for sampler_procs.c (setup()) */
	struct sampler_set set;	     /* sampler_procs.c */
	struct sampler_captures rec; /* sampler_record.c */
	struct sampler_pybufs pyb;   /* sampler_py.c */
	struct sampler_kbufs kb;     /* sampler_kernel.c */
	/* The tick (sampler_tick.c); its clock read by all. */
	uint64_t tick;
	uint64_t tick_ns;     /* CLOCK_MONOTONIC at its start */
	int64_t tick_real_ns; /* CLOCK_REALTIME at its start (sample_origin) */
	uint64_t period_ns;
	bool sampled_any; /* some process was sampled at some tick */
	bool target_gone; /* the run is over: its roots are gone */
	/* Seizing (sampler_seize.c, sampler_peek.c) */
	struct thread **active; /* threads seized this tick */
	size_t nactive, cap_active;
	struct thread **deferred; /* of a process, to peek again */
	size_t ndeferred, cap_deferred;
	bool seizing; /* from sampler_seize_all() to sampler_late_mark() */
	/* The stop window (sampler_stops.c) */
	size_t pending;		 /* of the active, SEIZED and not yet stopped */
	uint64_t last_detach_ns; /* of this tick's sampled threads */
	uint64_t pause_from;	 /* this tick's first interrupt, or 0 */
	int loadavg_fd; /* /proc/loadavg, kept open (sampler_stops_spin_worth()) */
	size_t ncpu;	/* CPUs it may run on (cpus_usable()) */
	uint64_t spin_ns; /* the longest spin for stops */
	bool sc_can_read; /* seccomp_can_read(), at the start */
	bool unwinding;	  /* in an unwind (sampler_record.c): stops are not
			 * captured */
	/* Signals and the run (sampler.c) */
	sigset_t waitset; /* stop signals and SIGTSTP, read from sigfd */
	int sigfd;
	bool stopping;	   /* a stop signal came during an unwind */
	bool suspend_owed; /* SIGTSTP came mid-tick (take_signal()) */
	uint64_t serve_at; /* when sampler_between_steps() next looks for events */
	uint64_t progress_at; /* when cfg->progress was last called */
	/* --max-overhead (sampler.c, sampler_budget.h): the rate's control,
	 * and what a --wall stack of this tick counts for (1 without it;
	 * sampler_record.c) */
	struct sampler_budget budget;
	uint64_t tick_weight;
};

/* What became of a peek (sampler_peek_sample()). */
enum peek_use {
	PEEK_USED,  /* the thread's stack is recorded: no stop */
	PEEK_LATER, /* it was running: peek again after the others */
	PEEK_STOP,  /* stop it as before */
};

/* sampler.c: the unwinders' hook (struct sampler_hooks). */
bool sampler_between_steps(void *arg, uint64_t now);
/* sampler.c: ticks a second at the rate the ticks run at now (lowered by
 * --max-overhead: then "once a second" in ticks is not the -f rate's);
 * at least 1. */
uint64_t sampler_ticks_per_sec(const struct sampler *s);

/* sampler_tick.c: one tick; 0, or -1 with errno (the run ends). */
int sampler_tick(struct sampler *s);

/* sampler_seize.c */
/* Seize the threads due of every process; -1 with errno ends the run
 * (whatever was seized is still to be released: stop the world). */
int sampler_seize_all(struct sampler *s);
/* SEIZE th, due.  1: seized; 0: gone (or refused: *eperm counts it);
 * -1: error. */
int sampler_seize_thread(struct sampler *s, struct thread *th, int *eperm);
/* Append th to the array *v of *n threads (room for *cap); 0 or -1. */
int sampler_seize_push(struct thread ***v, size_t *n, size_t *cap,
		       struct thread *th);

/* sampler_peek.c: --wall peeks (see there). */
bool sampler_peek_first(const struct sampler *s, const struct thread *th);
bool sampler_peek_may_wait(const struct sampler *s, const struct thread *th);
enum peek_use sampler_peek_sample(struct sampler *s, struct thread *th,
				  bool may_wait, bool again);
/* th to be peeked again after the process's others; 0 or -1. */
int sampler_peek_defer(struct sampler *s, struct thread *th);
/* Peek the deferred threads again, seize those still awake; 0 or -1. */
int sampler_peek_deferred(struct sampler *s, int *eperm);

/* sampler_stops.c: the stop window. */
void sampler_stops_interrupt_all(struct sampler *s);
/* Interrupt the threads active[from..] seized and not yet interrupted. */
void sampler_stops_interrupt_new(struct sampler *s, size_t from);
/* Spin for the stops rather than sleep for them? */
bool sampler_stops_spin_worth(struct sampler *s);
/* Wait for the stops until none is pending or end (spinning until
 * spin_end). */
void sampler_stops_collect(struct sampler *s, uint64_t end, uint64_t spin_end);
/* Take every waitpid() report already queued; never blocks. */
void sampler_stops_reap(struct sampler *s);

/* sampler_policy.c: what is skipped, and seccomp. */
bool sampler_policy_alone(const struct sampler *s,
			  const struct sampler_proc *p);
/* p is never to be sampled (again): err and why into its image. */
void sampler_policy_skip(struct sampler *s, struct sampler_proc *p, int err,
			 const char *why);
/* In a stop: th's restart_syscall made safe (regs: its registers, or
 * NULL to read them). */
void sampler_policy_guard_seccomp(struct sampler *s, struct thread *th,
				  const struct user_regs_struct *regs);
/* p's first tick: threads under a filter marked for a probe; -1 with
 * errno EACCES when filters cannot be read (the run is refused). */
int sampler_policy_preflight(struct sampler *s, struct sampler_proc *p);

/* sampler_record.c: the capture arena, unwinding, recording. */
/* Room for one more capture before a copy (s->rec.cap.stack set). */
int sampler_record_reserve(struct sampler *s);
/* Keep what the copy in s->rec.cap took, for th; the entry queued. */
const struct queued *sampler_record_queue(struct sampler *s, struct thread *th);
/* Take the last capture queued off the queue and arena. */
void sampler_record_drop_last(struct sampler *s);
/* Unwind one queued capture and record it: 0, or -1 with errno (ENODATA,
 * ECANCELED, ENOENT, ENOMEM, ESRCH).  The caller sets s->unwinding. */
int sampler_record_unwind_one(struct sampler *s, const struct queued *q);
/* After the stop window: unwind and record every queued capture. */
void sampler_record_unwind_queued(struct sampler *s);
/* sampler_record_unwind_queued(), unless an unwind is under way. */
void sampler_record_flush(struct sampler *s);
/* Record count samples of one stack of th: false when out of memory. */
bool sampler_record_emit(struct sampler *s, struct thread *th,
			 const uint64_t *pcs, size_t n, uint64_t count);
/* One of ptprof's own rows (framename.h) for th, count samples: false
 * when out of memory (or count is 0). */
bool sampler_record_own(struct sampler *s, struct thread *th,
			enum framename_own kind, uint64_t count);
/* The same for a process with no thread left to name (p: NULL when it
 * was never in the set): the row under im, thread tid named name. */
bool sampler_record_own_proc(struct sampler *s, struct sampler_proc *p,
			     struct proc_image *im, pid_t tid, const char *name,
			     enum framename_own kind, uint64_t count);
/* --wall, a thread that did not run: its last stack once more. */
bool sampler_record_repeat_last(struct sampler *s, struct thread *th);
void sampler_record_free(struct sampler *s);

/* sampler_late.c: LATE threads. */
void sampler_late_mark(struct sampler *s);
void sampler_late_sweep(struct sampler *s);
size_t sampler_late_count(struct sampler *s);
size_t sampler_late_probes(struct sampler *s);
/* Wait for the LATE threads' stops (a bounded wait), releasing them. */
void sampler_late_release(struct sampler *s);

/* sampler_cpu.c: CPU accounting for the loop, and settling. */
/* th's schedstat read for this tick: 0, or -1. */
int sampler_cpu_read(struct sampler *s, struct thread *th);
void sampler_cpu_read_process(struct sampler *s, struct sampler_proc *p);
bool sampler_cpu_due(struct sampler *s, struct thread *th);
bool sampler_cpu_probe_now(const struct thread *th);
bool sampler_cpu_selected(struct sampler *s, struct thread *th, bool due);
void sampler_cpu_settle_proc(struct sampler *s, struct sampler_proc *p,
			     bool final_read_too);
void sampler_cpu_settle_all(struct sampler *s);

/* sampler_stats.c: --stats counters (sampler.h has the quantiles). */
void sampler_stats_stop_latency(struct sampler_stats *st, uint64_t ns);
void sampler_stats_phases(struct sampler_stats *st, const struct capture *cap,
			  const struct thread *th, const uint64_t t[5],
			  bool captured, bool py);
void sampler_stats_pause(struct sampler_stats *st, uint64_t ns);
void sampler_stats_peek(struct sampler_stats *st, enum peek_result r,
			bool again);

/* sampler_procs.c: the process set (see there).  Calls the loop only
 * through s->hooks. */
int sampler_procs_add_roots(struct sampler *s);
int sampler_procs_watch(struct sampler *s);
void sampler_procs_finish_gone(struct sampler *s);
bool sampler_procs_roots_left(const struct sampler *s);
void sampler_procs_check_exec(struct sampler *s, struct sampler_proc *p);
bool sampler_procs_exited(const struct sampler_proc *p);
void sampler_procs_close_image(struct sampler *s, struct sampler_proc *p);
void sampler_procs_free(struct sampler *s, struct sampler_proc *p);
void sampler_procs_free_all(struct sampler *s);
/* th of p, added to the thread table when new; NULL with EEXIST when
 * the TID is still another process's. */
struct thread *sampler_procs_thread(struct sampler *s, struct sampler_proc *p,
				    pid_t tid);
/* th's TID is another task's, or it exec'd: its user-code stacks and
 * its system call split forgotten. */
void sampler_procs_forget_user_code(struct thread *th);

/* sampler_wait.c: --wall, what a capture taken in a call waits on, into
 * th->wait and th->wait_holder (WAIT_NONE when not in a call). */
void sampler_wait_note(struct sampler *s, struct thread *th,
		       const struct queued *q);
/* ... and before a repeat of th's last stack (th did not run): its
 * holder kept only when the object still names it (one read), else 0. */
void sampler_wait_repeat(struct sampler *s, struct thread *th);
/* p's wait context freed (p is freed, or exec'd). */
void sampler_wait_forget(struct sampler_proc *p);

/* sampler_kernel.c: --wall --kernel (see there).  Read th's kernel
 * stack (a peek's thread, asleep in a call); the stack pcs[0..n) of q
 * with the frames read for q's thread on top, into *out (pcs itself
 * when none): the frames' count with them; they are then used up. */
void sampler_kernel_read(struct sampler *s, const struct thread *th);
size_t sampler_kernel_frames(struct sampler *s, const struct queued *q,
			     const uint64_t *pcs, size_t n,
			     const uint64_t **out);
/* The frames read, unused, dropped. */
void sampler_kernel_drop(struct sampler *s);
void sampler_kernel_free(struct sampler *s);

/* sampler_py.c: the Python half (see there). */
void sampler_py_open(struct sampler *s, struct sampler_proc *p);
void sampler_py_close(struct sampler_proc *p);
void sampler_py_ready(struct sampler *s, struct sampler_proc *p);
int sampler_py_reserve(struct sampler *s);
void sampler_py_frames(struct sampler *s, struct thread *th);
void sampler_py_name(struct sampler *s, struct queued *q);
size_t sampler_py_merge(struct sampler *s, const struct queued *q,
			const uint64_t *pcs, size_t n, bool *unread);
void sampler_py_free(struct sampler *s);

#endif /* PTPROF_SAMPLER_INT_H */
