/*
 * waitgraph.c - deadlocks and chains among blocked threads
 * (waitgraph.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "wait/waitgraph.h"

struct key {
	pid_t pid, tid;
	size_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The node that is tid of pid, or -1. */
static long find(const struct key *keys, size_t n, pid_t pid, pid_t tid)
{
	struct key k = { .pid = pid, .tid = tid };
	const struct key *hit;

	if (!tid)
		return -1;
	hit = bsearch(&k, keys, n, sizeof(*keys), cmp_key);
	return hit ? (long)hit->i : -1;
}

int waitgraph_analyze(const struct waitgraph_node *nodes, size_t n,
		      struct waitgraph_res *res)
{
	struct key *keys = malloc((n ? n : 1) * sizeof(*keys));
	long *next = malloc((n ? n : 1) * sizeof(*next));
	/* 0 unseen, 1 on the current path, 2 done */
	unsigned char *mark = calloc(n ? n : 1, 1);
	int cycles = 0;

	if (!keys || !next || !mark) {
		free(keys);
		free(next);
		free(mark);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		keys[i] = (struct key){ nodes[i].pid, nodes[i].tid, i };
		res[i] = (struct waitgraph_res){ 0, -1, 0 };
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < n; i++) {
		next[i] = find(keys, n, nodes[i].pid, nodes[i].holder);
	}
	/* Cycles: walk each unseen path; meeting a node of the same walk
	 * closes a cycle. */
	for (size_t i = 0; i < n; i++) {
		long j = (long)i;

		while (j >= 0 && !mark[j]) {
			mark[j] = 1;
			j = next[j];
		}
		if (j >= 0 && mark[j] == 1) {
			long k = j;

			cycles++;
			do {
				res[k].cycle = cycles;
				k = next[k];
			} while (k != j);
		}
		for (j = (long)i; j >= 0 && mark[j] == 1; j = next[j])
			mark[j] = 2;
	}
	/* Roots: the end of each chain.  A chain is at most n long (it
	 * stops at a cycle), so this is O(n^2) at worst: 1,000 threads in
	 * one line is a million steps. */
	for (size_t i = 0; i < n; i++) {
		long j = (long)i;

		while (!res[j].cycle && next[j] >= 0)
			j = next[j];
		res[i].root = j;
	}
	/* Waiters: every node off a cycle counts once at each node its
	 * chain passes, up to its root (or the cycle it enters). */
	for (size_t i = 0; i < n; i++) {
		if (res[i].cycle)
			continue;
		for (long k = next[i]; k >= 0; k = next[k]) {
			res[k].waiters++;
			if (res[k].cycle)
				break;
		}
	}
	free(keys);
	free(next);
	free(mark);
	return cycles;
}
