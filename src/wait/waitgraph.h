/*
 * waitgraph.h - who waits on whom: the deadlocks and the chains among
 * blocked threads (issue 28, part 2).
 *
 * A thread waiting on a mutex, an rwlock held for writing, or a join
 * has one holder (wait_info.holder): an edge waiter -> holder.  Each
 * thread has at most one such edge, so the graph is a functional one:
 * following holders from any thread either ends (a holder that waits on
 * no thread) or comes back to a thread already on the path: a cycle, a
 * deadlock (a thread blocked on a lock cannot let go of the locks it
 * holds; a thread whose holder is itself, a normal mutex locked twice,
 * is a cycle of one).  Waits on descriptors (a pipe's writer, a socket's peer) name
 * processes, not a thread that must act: they are never part of a
 * cycle here, only of a chain's last step (the caller says what the
 * last holder waits on).
 *
 * Contract: waitgraph_analyze(nodes, n, res): nodes[i] is a thread (its
 * pid, tid and holder tid in the same process, 0 for none); a holder
 * that is no node ends its chain.  Fills res[i] for each node:
 *  - cycle: 1.. for the nodes on a cycle (the same number for one
 *    cycle), 0 otherwise; cycles are numbered in the order of their
 *    smallest node index;
 *  - root: the index of the last node its chain reaches: the first
 *    node on it that waits on no node (itself when it waits on none, or
 *    on a thread that is no node), or the cycle's node it enters (a
 *    node on a cycle: itself);
 *  - waiters: how many nodes' chains pass through it (direct and
 *    indirect waiters; on a cycle, those off the cycle).
 * Returns the number of cycles, or -1 with ENOMEM.  O(n log n) (the
 * sort; the walks are linear); never
 * prints.
 */
#ifndef PTPROF_WAITGRAPH_H
#define PTPROF_WAITGRAPH_H

#include <stddef.h>
#include <sys/types.h>

struct waitgraph_node {
	pid_t pid, tid;
	pid_t holder; /* a thread of pid, or 0 */
};

struct waitgraph_res {
	int cycle;
	long root;
	size_t waiters;
};

int waitgraph_analyze(const struct waitgraph_node *nodes, size_t n,
		      struct waitgraph_res *res);

#endif /* PTPROF_WAITGRAPH_H */
