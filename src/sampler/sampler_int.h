/*
 * sampler_int.h - the sampling loop's state, shared by its two files:
 * sampler.c (the ticks: seize, stop, capture, unwind, account) and
 * sampler_procs.c (the process set: roots and descendants found, execs,
 * exits).  Private to them; sampler.h is the contract.
 */
#ifndef PTPROF_SAMPLER_INT_H
#define PTPROF_SAMPLER_INT_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/capture.h"
#include "proc/procfs.h"
#include "proc/proctree.h"
#include "profile/procset.h"
#include "python/pymerge.h"
#include "python/pyrt.h"
#include "sampler/cpuacct.h"
#include "sampler/sampler.h"
#include "sampler/threadtab.h"
#include "unwind/mapsync.h"
#include "unwind/unwind.h"

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
	bool root;	       /* named (-p) or COMMAND: the run waits for it */
	struct proc_image *im; /* its current image, in the set */
	int pidfd;	       /* to tell its exit (and PID reuse) apart */
	void *task_dir;	       /* /proc/PID/task, kept open */
	int stat_fd;	       /* /proc/PID/stat, kept open: the thread count */
	struct tidlist tids;   /* its threads as last listed */
	struct cpuacct_proc acct; /* its CPU time, sweeps */
	struct unwinder *unw;	  /* of its current image */
	struct mapsync mapsync;	  /* its maps re-read when code was loaded */
	pid_t live_tid; /* a thread sampled lately, to read maps through */
	unsigned refused_ticks;
	uint64_t first_tick; /* the tick it was first sampled at */
	uint64_t samples;    /* samples of it (all its images) */
	dev_t exe_dev;	     /* its main executable (/proc/PID/exe) */
	ino_t exe_ino;
	uint64_t exe_tick;     /* the tick its executable was last checked at */
	uint64_t held_threads; /* of them in stats->foreign_traced */
	bool gone;	       /* exited: finished at the end of the tick */
	bool late_vanished;    /* a LATE thread exec'd away its TID */
	size_t held_now;       /* of its threads, seized by us (stop_owed) */
	uint64_t skipped_ns;   /* when it was skipped (skip_proc()) */
	struct sampler_py *py; /* its CPython runtime, or NULL */
	bool py_found;	       /* its image is CPython's (sampler_py_open()) */
	unsigned py_scans;     /* its image's maps looked at for it, */
	size_t py_scan_maps;   /* ... last with so many mappings */
};

struct sampler {
	const struct sampler_config *cfg;
	struct stacktab *tab;
	struct procset *ps;
	struct sampler_stats *st;
	struct threadtab *threads;
	struct sampler_proc **procs; /* the live processes */
	size_t nprocs, cap_procs;
	size_t roots_live;     /* of them, roots */
	struct proctree *tree; /* cfg->children: their descendants */
	struct pollfd *pfds;   /* their pidfds, for poll_exits() */
	size_t cap_pfds;
	bool sampled_any;	/* some process was sampled at some tick */
	struct thread **active; /* threads seized this tick */
	size_t nactive, cap_active;
	struct thread **deferred; /* of a process, to peek again (sampler.c) */
	size_t ndeferred, cap_deferred;
	size_t pending;	      /* of those, SEIZED and not yet stopped */
	struct capture cap;   /* the capture being taken (stack: in arena) */
	struct queued *queue; /* this tick's captures, unwound after it */
	size_t nqueued, cap_queued;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	struct capture view; /* a queued capture, as the unwinder sees it */
	uint64_t *pcs;
	uint64_t tick;
	uint64_t tick_ns;     /* CLOCK_MONOTONIC at its start */
	int64_t tick_real_ns; /* CLOCK_REALTIME at its start (sample_origin) */
	uint64_t period_ns;
	uint64_t last_detach_ns; /* of this tick's sampled threads */
	int loadavg_fd;		 /* /proc/loadavg, kept open (spin_worth()) */
	size_t ncpu;		 /* CPUs it may run on (cpus_usable()) */
	uint64_t spin_ns;	 /* the longest spin for stops */
	sigset_t waitset;	 /* stop signals and SIGTSTP, read from sigfd */
	int sigfd;
	bool target_gone;     /* the run is over: its roots are gone */
	bool unwinding;	      /* in unwind_queued(): stops are not captured */
	bool stopping;	      /* a stop signal came during an unwind */
	bool suspend_owed;    /* SIGTSTP came mid-tick (take_signal()) */
	bool seizing;	      /* from seize_all() to its tick's mark_late() */
	uint64_t serve_at;    /* when between_steps() next looks for events */
	bool sc_can_read;     /* seccomp_can_read(), at the start */
	uint64_t progress_at; /* when cfg->progress was last called */
	/* Python frames (sampler_py.c): the tick's frame arena, the capture
	 * being taken's frames, the merge's buffers. */
	struct pyrt_frame *pyf;
	size_t npyf, cap_pyf;
	size_t py_cur_n;
	int py_cur_status;
	uint64_t py_cur_ns;
	struct pymerge_ref *mrefs;
	uint64_t *mpcs;
	size_t cap_mrefs;
};

/* sampler_procs.c: the process set (see there). */
int sampler_procs_add_roots(struct sampler *s);
int sampler_procs_watch(struct sampler *s);
void sampler_procs_finish_gone(struct sampler *s);
bool sampler_procs_roots_left(const struct sampler *s);
void sampler_procs_check_exec(struct sampler *s, struct sampler_proc *p);
bool sampler_procs_exited(const struct sampler_proc *p);
void sampler_procs_close_image(struct sampler *s, struct sampler_proc *p);
void sampler_procs_free(struct sampler *s, struct sampler_proc *p);

/* sampler.c: what the process set needs of the ticks. */
bool sampler_between_steps(void *arg, uint64_t now);
void sampler_unwind_queued(struct sampler *s);
void sampler_forget_user_code(struct thread *th);
void sampler_settle_proc(struct sampler *s, struct sampler_proc *p,
			 bool final_read_too);

/* sampler_py.c: the Python half (see there). */
void sampler_py_open(struct sampler *s, struct sampler_proc *p);
void sampler_py_close(struct sampler_proc *p);
void sampler_py_ready(struct sampler *s, struct sampler_proc *p);
int sampler_py_reserve(struct sampler *s);
void sampler_py_frames(struct sampler *s, struct thread *th);
size_t sampler_py_merge(struct sampler *s, const struct queued *q,
			const uint64_t *pcs, size_t n, bool *unread);

#endif /* PTPROF_SAMPLER_INT_H */
