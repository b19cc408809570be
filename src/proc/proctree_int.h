/*
 * proctree_int.h - what the three files of the process tree share: the
 * tree itself and its entries (proctree.c: the bookkeeping and the public
 * functions), the /proc walk (proctree_scan.c) and the process-events
 * connector (proctree_cn.c).  Private to them: the contract is
 * proctree.h's.  Functions returning int give 0 (or a count), or -1 with
 * errno.
 */
#ifndef PTPROF_PROCTREE_INT_H
#define PTPROF_PROCTREE_INT_H

#include <linux/cn_proc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/procfs.h"
#include "proc/proctree.h"

enum proctree_state {
	PT_WATCHED,   /* the caller watches it */
	PT_REPORTED,  /* reported NEW, not watched (yet) */
	PT_FORGOTTEN, /* the caller dropped it: no events, never NEW again */
};

struct proctree_proc {
	pid_t pid;
	unsigned char state;
	bool ran;	   /* POLL: proctree_ran() since it was last read */
	bool scan;	   /* read its tree at the next poll (watch, resync) */
	bool leader_gone;  /* NETLINK: its leader exited, threads may remain */
	uint64_t check_ns; /* NETLINK: check its life at a poll from then */
	uint64_t start;	   /* field 22 of /proc/PID/stat (0: unknown) */
	uint64_t seen_ns;  /* when it was last read */
	uint64_t fork_ns;  /* NETLINK: CLOCK_MONOTONIC of its FORK (0: none
			      read), to tell its exit record apart from an
			      older process's under its PID (proctree_ts.c) */
	/* Its CPU time at its exit, from taskstats (proctree_ts.c), before
	 * the connector's EXIT was read: */
	bool have_exit_cpu;
	uint64_t exit_cpu_ns;
	char exit_comm[16];
};

/* A taskstats record of a task the tree did not know (proctree_ts.c):
 * maybe one whose FORK the connector had not been read for yet (ptprof
 * held up between its two sockets), kept for that process's EXIT.  The
 * ring holds the machine's last PROCTREE_TS_RECENT such exits; a PID
 * reused within them (PIDs are handed out in turn, and wrap) names an
 * older process's record too: start_ns tells them apart. */
struct proctree_ts_rec {
	pid_t pid;	   /* 0: free */
	uint64_t start_ns; /* CLOCK_MONOTONIC it started at, or later */
	uint64_t cpu_ns;
	char comm[16];
};
#define PROCTREE_TS_RECENT 256

struct proctree {
	enum proctree_method method;
	int fd;	       /* the connector socket, or -1 */
	int ts_fd;     /* the taskstats socket (proctree_ts.c), or -1 */
	int ts_family; /* ... its generic netlink family */
	struct proctree_ts_rec ts_recent[PROCTREE_TS_RECENT]; /* a ring */
	size_t ts_put;
	uint32_t seq; /* the ack of our last request to the connector */
	struct proctree_proc *procs; /* sorted by pid */
	size_t nprocs, procs_cap;
	struct proctree_event *queue; /* events not handed out yet */
	size_t qhead, qlen, qcap;
	pid_t *todo; /* pids to visit or to read, reused */
	size_t ntodo, todo_cap;
	pid_t *kids; /* the children just read, reused */
	size_t nkids, kids_cap;
	pid_t *due; /* the watched processes to visit at this poll, reused */
	size_t ndue, due_cap;
	struct tidlist tids;
	uint64_t swept_ns; /* last liveness check of unwatched entries */
	bool resync;	   /* events were lost: scan everything */
	struct proctree_counters counters;
};

/* ---- proctree.c: the entries and the events handed out ---- */

/* pid's entry, or NULL. */
struct proctree_proc *proctree_lookup(struct proctree *t, pid_t pid);

/* A new entry for pid (which has none); NULL with ENOMEM.  Pointers to
 * other entries are stale afterwards. */
struct proctree_proc *proctree_insert(struct proctree *t, pid_t pid,
				      enum proctree_state state,
				      uint64_t start);
void proctree_remove(struct proctree *t, pid_t pid);

/* Queue an event for proctree_poll(). */
int proctree_push(struct proctree *t, enum proctree_kind kind, pid_t pid,
		  pid_t ppid);

/* The death of the process pid (watched, or reported NEW): report it,
 * with its CPU time when taskstats told it, and drop the entry. */
int proctree_exited(struct proctree *t, pid_t pid);

/* Append pid to the growable array *arr. */
int proctree_pid_push(pid_t **arr, size_t *n, size_t *cap, pid_t pid);

/* ---- proctree_scan.c: /proc ---- */

/* Start time (field 22 of /proc/PID/stat) and state letter of pid; -1
 * with errno ESRCH when it is gone. */
int proctree_stat(pid_t pid, uint64_t *start, int *state);

/* Whether the process pid that started at start lives. */
bool proctree_alive(pid_t pid, uint64_t start);

/* Report every descendant of root that has no entry yet, parents first. */
int proctree_scan_tree(struct proctree *t, pid_t root);

/* ---- proctree_cn.c: the connector ---- */

/* Ask the connector to start (LISTEN) or stop (IGNORE) sending events. */
int proctree_mcast(struct proctree *t, enum proc_cn_mcast_op op);

/* The connector's socket in t->fd, subscribed. */
int proctree_connect(struct proctree *t);

/* Read and handle what the connector sent (DRAIN_MAX datagrams at most). */
int proctree_drain(struct proctree *t);

/* ---- proctree_ts.c: CPU time at exit (taskstats) ---- */

/* t->ts_fd registered for every CPU's exits, or -1 (and t->ts_fd -1). */
int proctree_ts_open(struct proctree *t);
void proctree_ts_close(struct proctree *t);

/* Read the exit records: each fills in a queued EXIT of its process, or
 * the process's entry (for its EXIT to come), or, neither known yet
 * (ptprof was held up between reading the connector and this socket),
 * the ring of recent records. */
void proctree_ts_drain(struct proctree *t);

/* The record of pid from the ring, taken off it: true when there, and
 * of a process that started at its FORK's time fork_ns (not 0), not of
 * an older one under the same PID. */
bool proctree_ts_take(struct proctree *t, pid_t pid, uint64_t fork_ns,
		      uint64_t *cpu_ns, char comm[16]);

#endif /* PTPROF_PROCTREE_INT_H */
