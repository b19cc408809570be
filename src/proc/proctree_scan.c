/*
 * proctree_scan.c - the process tree from /proc: a process's start time
 * and state, whether it lives, and its descendants from the children
 * files (see proctree.h, proctree_int.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procfs.h"
#include "proc/proctree.h"
#include "proc/proctree_int.h"

/* ---- /proc ----------------------------------------------------------- */

/*
 * Start time (field 22 of /proc/PID/stat, clock ticks after boot: a PID
 * the kernel gave to another process since shows another) and state
 * letter of process pid.  0, or -1 with errno (ESRCH: gone).
 */
int proctree_stat(pid_t pid, uint64_t *start, int *state)
{
	struct procfs_stat st;

	if (procfs_stat_read(pid, 0, &st)) {
		errno = errno == ENOENT ? ESRCH : errno;
		return -1;
	}
	if (st.fields < 22) {
		errno = EINVAL;
		return -1;
	}
	*state = st.state;
	*start = st.starttime;
	return 0;
}

/*
 * Whether the process pid that started at start lives.  A zombie leader
 * (state Z) heads a live process when the main thread called
 * pthread_exit() and others run on: then its threads tell.  A stat file
 * that could not be read for another reason than its absence (EMFILE,
 * ENFILE) says nothing: the process is taken to live, and asked again at
 * the next visit (else a live process would be reported exited, and its
 * sampler would let it go).
 */
bool proctree_alive(pid_t pid, uint64_t start)
{
	uint64_t now_start;
	int state;

	if (proctree_stat(pid, &now_start, &state))
		return errno != ESRCH;
	if (start && now_start != start)
		return false;
	if (state == 'Z' || state == 'X')
		return procfs_process_alive(pid);
	return true;
}

/* Append the numbers of a children file to t->kids. */
static int proctree_parse_kids(struct proctree *t, const char *s)
{
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		s = end;
		if (v > 0 && v <= 0x3fffffff &&
		    proctree_pid_push(&t->kids, &t->nkids, &t->kids_cap,
				      (pid_t)v))
			return -1;
	}
	return 0;
}

/*
 * The children of process pid into t->kids.  Kernel quirk:
 * /proc/PID/task/TID/children lists the children of that one thread (a
 * child's parent is the thread that forked it, and the child hangs on
 * that thread's list), so the file of every thread is read; threads are
 * never listed there (they hang on the thread group, not on children).
 * The list is exact only while the process cannot fork (the kernel's
 * proc documentation: not reliable unless the tasks are stopped): one
 * forked during the read may be missing; the next read finds it.
 * 0, or -1 with errno (ESRCH: the process is gone).
 */
static int proctree_read_kids(struct proctree *t, pid_t pid)
{
	t->nkids = 0;
	if (procfs_list_tasks(pid, &t->tids)) {
		errno = errno == ENOENT ? ESRCH : errno;
		return -1;
	}
	for (size_t i = 0; i < t->tids.n; i++) {
		char path[96], *buf;
		size_t len;
		int rc;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
			 (int)pid, (int)t->tids.tids[i]);
		if (procfs_read_file(path, &buf, &len))
			continue; /* the thread exited meanwhile */
		t->counters.scans++;
		rc = proctree_parse_kids(t, buf);
		free(buf);
		if (rc)
			return -1;
	}
	return 0;
}

/* A process found under ppid: NEW unless it has an entry already, and
 * then it is to be read itself (pushed on t->todo).  0, or -1 ENOMEM. */
static int proctree_found(struct proctree *t, pid_t pid, pid_t ppid)
{
	uint64_t start;
	int state;

	if (proctree_lookup(t, pid))
		return 0;
	if (proctree_stat(pid, &start, &state))
		return 0; /* gone already: nobody's samples */
	if (!proctree_insert(t, pid, PT_REPORTED, start) ||
	    proctree_push(t, PROCTREE_NEW, pid, ppid))
		return -1;
	return proctree_pid_push(&t->todo, &t->ntodo, &t->todo_cap, pid);
}

/*
 * Report every descendant of root that has no entry yet, parents before
 * children: a process is read only after it was reported.  Only the
 * newly found are read further: a known one is the caller's to watch.
 */
int proctree_scan_tree(struct proctree *t, pid_t root)
{
	t->ntodo = 0;
	if (proctree_pid_push(&t->todo, &t->ntodo, &t->todo_cap, root))
		return -1;
	while (t->ntodo) {
		pid_t pid = t->todo[--t->ntodo];

		if (proctree_read_kids(t, pid))
			continue; /* gone: its exit is found on its own */
		for (size_t i = 0; i < t->nkids; i++)
			if (proctree_found(t, t->kids[i], pid))
				return -1;
	}
	return 0;
}
