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
	size_t *depth = malloc((n ? n : 1) * sizeof(*depth));
	size_t *byd = malloc((n + 1) * sizeof(*byd));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	int cycles = 0;
	size_t len;

	if (!keys || !next || !mark || !depth || !byd || !order) {
		free(keys);
		free(next);
		free(mark);
		free(depth);
		free(byd);
		free(order);
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
	/* Roots and depths, each path walked once: a node's root is its
	 * holder's (memoized in res[].root), its depth one more; a node on
	 * a cycle, or that waits on no node, is its own root at depth 0. */
	for (size_t i = 0; i < n; i++)
		if (res[i].cycle || next[i] < 0) {
			res[i].root = (long)i;
			depth[i] = 0;
		}
	for (size_t i = 0; i < n; i++) {
		long j = (long)i, k, r;
		size_t d;

		while (res[j].root < 0)
			j = next[j];
		r = res[j].root;
		d = depth[j];
		/* the path from i to j, backwards: count it, then fill it */
		for (k = (long)i, len = 0; k != j; k = next[k])
			len++;
		for (k = (long)i; k != j; k = next[k]) {
			res[k].root = r;
			depth[k] = d + len--;
		}
	}
	/* Waiters: deepest first, each node off a cycle hands its count and
	 * itself to its holder (a counting sort by depth keeps it O(n)). */
	for (size_t i = 0; i <= n; i++)
		byd[i] = 0;
	for (size_t i = 0; i < n; i++)
		byd[depth[i]]++;
	for (size_t i = n; i-- > 0;)
		byd[i] += byd[i + 1];
	for (size_t i = 0; i < n; i++)
		order[--byd[depth[i]]] = i;
	for (size_t o = 0; o < n; o++) {
		size_t i = order[o];

		if (!res[i].cycle && next[i] >= 0)
			res[next[i]].waiters += 1 + res[i].waiters;
	}
	free(depth);
	free(byd);
	free(order);
	free(keys);
	free(next);
	free(mark);
	return cycles;
}
