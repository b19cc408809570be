/*
 * proctree.h - finding the descendants of the profiled processes without
 * tracing them.
 *
 * ptprof follows a process tree (--children, and a COMMAND's descendants)
 * but keeps its targets untraced between ticks: no PTRACE_O_TRACEFORK or
 * TRACECLONE.  So the processes a watched one forks are found from the
 * outside, in one of two ways:
 *
 *  - NETLINK: the kernel's process-events connector (NETLINK_CONNECTOR,
 *    CN_IDX_PROC, PROC_CN_MCAST_LISTEN) reports every FORK, EXEC and EXIT
 *    on the machine as it happens.  Subscribing needs a kernel with
 *    CONFIG_PROC_EVENTS, a process in the initial pid and user
 *    namespaces, and before Linux 6.6 CAP_NET_ADMIN.
 *    A fork whose parent's thread group is watched adds the child (a
 *    clone of a thread, child pid != child tgid, is not a process).
 *    Events lost to a full socket buffer (ENOBUFS) are made up for by a
 *    /proc scan of every watched process.
 *  - POLL: reading /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN) of
 *    the watched processes.  A process that did not run cannot have
 *    forked, so the caller says which ran (proctree_ran(): their CPU time
 *    moved), and only those are read at the next proctree_poll(); every
 *    watched process is read at least once a second besides.
 *
 * Either way a process already there when it is watched, and its own
 * descendants, are found by a /proc scan at the next proctree_poll(),
 * parents before children.  A descendant that forks and exits between
 * two polls is missed by POLL (its CPU time goes to nobody's samples);
 * NETLINK sees it.
 *
 * What the caller sees, either way: a NEW's ppid is watched, or was
 * itself reported NEW (a descendant found under it); to skip a NEW
 * process and what it forks, proctree_forget() it.  An EXEC is reported
 * only for a process watched when it exec'd: call proctree_watch()
 * before reading a new process's state, which then shows any earlier
 * exec.  NETLINK may report NEW for a process that has exited already
 * (it lived a few ms): proctree_watch() of it fails with ESRCH.
 *
 * CPU time at exit (NETLINK, with taskstats: CAP_NET_ADMIN and
 * CONFIG_TASKSTATS; proctree_ts.c): an EXIT carries the CPU time the
 * process used in all (cpu_ns, have_cpu), read as it exited, which /proc
 * and its CPU-time clock no longer tell once its parent reaped it.  A
 * process reported NEW that exits before the caller watched it gets an
 * EXIT too (born, with have_cpu when known): the caller may count its
 * time though it never read it.
 *
 * Contract: one tree per run, used from the sampling thread only; never
 * prints or exits.  Functions returning int give 0 (or a count), or -1
 * with errno.  It only reads /proc and the netlink socket: it stops,
 * signals and traces nothing.
 */
#ifndef PTPROF_PROCTREE_H
#define PTPROF_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum proctree_method {
	PROCTREE_NETLINK, /* the process-events connector */
	PROCTREE_POLL,	  /* /proc/PID/task/TID/children */
};

enum proctree_kind {
	PROCTREE_NEW,  /* pid is a new descendant of ppid, a watched one */
	PROCTREE_EXEC, /* watched pid exec'd (NETLINK only: POLL cannot tell) */
	PROCTREE_EXIT, /* watched (or reported) pid exited (no longer watched) */
};

struct proctree_event {
	enum proctree_kind kind;
	pid_t pid;
	pid_t ppid; /* PROCTREE_NEW: its parent; else 0 */
	/* NEW: forked while watched (NETLINK's FORK), so all its CPU time
	 * is the run's; false: there before (a /proc scan found it). */
	bool born;
	/* EXIT: the CPU time it used in all (ns) and its name, when
	 * taskstats told (see "CPU time at exit"). */
	bool have_cpu;
	uint64_t cpu_ns;
	char comm[16];
};

struct proctree;

/* A tree with NETLINK when want_netlink and the subscription works, else
 * POLL.  NULL with errno only when neither can work (no
 * /proc/self/task/TID/children and no connector: ENOTSUP). */
struct proctree *proctree_new(bool want_netlink);
void proctree_free(struct proctree *t);

enum proctree_method proctree_method(const struct proctree *t);
/* "netlink" or "/proc polling", for --stats. */
const char *proctree_method_name(const struct proctree *t);

/* Watch pid: report its descendants from now on, and those it already
 * has at the next proctree_poll().  A pid reported as PROCTREE_NEW is
 * not watched until the caller says so (it may skip it).  Watching a
 * watched pid again does nothing.  -1 with errno ESRCH when pid is gone
 * (or the process reported under it is: the PID was reused). */
int proctree_watch(struct proctree *t, pid_t pid);

/* Stop watching pid (the caller dropped it); its later children are not
 * reported. */
void proctree_forget(struct proctree *t, pid_t pid);

/* POLL: pid, a watched process, ran since the last poll: read its
 * children then.  NETLINK: nothing. */
void proctree_ran(struct proctree *t, pid_t pid);

/* The descriptor to wait on for events (NETLINK), or -1 (POLL). */
int proctree_fd(const struct proctree *t);

/* Up to max events since the last call, in order (a NEW before any
 * event of the same pid; each NEW pid once while it lives).  Returns
 * how many were written; more may wait when it returns max. */
int proctree_poll(struct proctree *t, struct proctree_event *ev, size_t max);

/* The CPU time pid used in all, when taskstats told it at its exit and
 * its EXIT is not handed out yet: the caller found it gone first (its
 * pidfd).  false: not known (it lives, or no taskstats). */
bool proctree_exit_cpu(struct proctree *t, pid_t pid, uint64_t *cpu_ns);

/* Counters for --stats and the benchmark. */
struct proctree_counters {
	unsigned long long events;  /* connector messages read */
	unsigned long long scans;   /* children files read */
	unsigned long long resyncs; /* full rescans after lost events */
};
void proctree_counters(const struct proctree *t, struct proctree_counters *c);

#endif /* PTPROF_PROCTREE_H */
