/*
 * test_waitgraph - deadlocks and chains (wait/waitgraph.h): a two-thread
 * cycle, a three-thread cycle, a chain into a cycle, a chain without a
 * cycle (its root the last holder), a holder outside the nodes, a thread
 * that holds its own lock (a cycle of one), the same TIDs in two
 * processes kept apart, and 1,000 threads on one holder.
 */
#include "config.h"

#include <stdlib.h>

#include "unit.h"
#include "wait/waitgraph.h"

static void test_shapes(void)
{
	/* 0<->1 (pid 10); 2->3->4->2 (pid 10); 5->6->0 (chain into the
	 * first cycle); 7->8->9, 9 waits on none; 11 -> 999 (no node);
	 * 13 -> 13 (itself: a cycle of one); pid 20: 1 -> 2, 2 -> 1 (a cycle of its own,
	 * same TIDs as pid 10's). */
	const struct waitgraph_node nodes[] = {
		{ 10, 1, 2 },  { 10, 2, 1 },  { 10, 3, 4 },    { 10, 4, 5 },
		{ 10, 5, 3 },  { 10, 6, 7 },  { 10, 7, 1 },    { 10, 8, 9 },
		{ 10, 9, 11 }, { 10, 11, 0 }, { 10, 12, 999 }, { 10, 13, 13 },
		{ 20, 1, 2 },  { 20, 2, 1 },
	};
	size_t n = sizeof(nodes) / sizeof(*nodes);
	struct waitgraph_res r[sizeof(nodes) / sizeof(*nodes)];

	CHECK(waitgraph_analyze(nodes, n, r) == 4);
	CHECK(r[0].cycle == 1 && r[1].cycle == 1);
	CHECK(r[2].cycle == 2 && r[3].cycle == 2 && r[4].cycle == 2);
	CHECK(r[12].cycle == 4 && r[13].cycle == 4);
	CHECK(!r[5].cycle && !r[6].cycle && !r[7].cycle && !r[8].cycle);
	CHECK(!r[9].cycle && !r[10].cycle && r[11].cycle == 3);
	/* the chain 6 -> 7 -> 1 enters the first cycle at node 0 (tid 1) */
	CHECK(r[5].root == 0 && r[6].root == 0);
	CHECK(r[0].root == 0 && r[1].root == 1);
	/* 8 -> 9 -> 11: the root is 11, which waits on no thread */
	CHECK(r[7].root == 9 && r[8].root == 9 && r[9].root == 9);
	CHECK(r[9].waiters == 2 && r[8].waiters == 1 && r[7].waiters == 0);
	/* a holder that is no node: the chain ends at the waiter */
	CHECK(r[10].root == 10 && r[10].waiters == 0);
	/* its own holder: a cycle of one, its own root */
	CHECK(r[11].root == 11);
	/* off-cycle waiters of the cycle node they enter */
	CHECK(r[0].waiters == 2 && r[1].waiters == 0);
}

static void test_crowd(void)
{
	size_t n = 1001;
	struct waitgraph_node *nodes = calloc(n, sizeof(*nodes));
	struct waitgraph_res *r = calloc(n, sizeof(*r));

	CHECK(nodes && r);
	if (!nodes || !r)
		return;
	nodes[0] = (struct waitgraph_node){ 7, 100, 0 };
	for (size_t i = 1; i < n; i++)
		nodes[i] = (struct waitgraph_node){ 7, (pid_t)(100 + i), 100 };
	CHECK(waitgraph_analyze(nodes, n, r) == 0);
	CHECK(r[0].waiters == 1000 && r[0].root == 0);
	CHECK(r[500].root == 0 && r[500].waiters == 0);
	CHECK(waitgraph_analyze(nodes, 0, r) == 0);
	free(nodes);
	free(r);
}

/* 100,000 threads in one line, each on the next: the root counts all
 * the others; every node's root is the last (linear time: quadratic
 * walks took 5e9 steps here). */
static void test_line(void)
{
	size_t n = 100000;
	struct waitgraph_node *nodes = calloc(n, sizeof(*nodes));
	struct waitgraph_res *r = calloc(n, sizeof(*r));

	CHECK(nodes && r);
	if (!nodes || !r)
		return;
	for (size_t i = 0; i < n; i++)
		nodes[i] = (struct waitgraph_node){
			9, (pid_t)(1000 + i), i + 1 < n ? (pid_t)(1001 + i) : 0
		};
	CHECK(waitgraph_analyze(nodes, n, r) == 0);
	CHECK(r[n - 1].waiters == n - 1 && r[0].waiters == 0);
	CHECK(r[0].root == (long)(n - 1) && r[n / 2].root == (long)(n - 1));
	CHECK(r[n / 2].waiters == n / 2);
	/* closed into a ring: one cycle of all */
	nodes[n - 1].holder = 1000;
	CHECK(waitgraph_analyze(nodes, n, r) == 1);
	CHECK(r[0].cycle == 1 && r[n - 1].cycle == 1 && r[7].root == 7);
	free(nodes);
	free(r);
}

int main(void)
{
	test_line();
	test_shapes();
	test_crowd();
	return unit_result("test_waitgraph");
}
