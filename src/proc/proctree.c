/*
 * proctree.c - the descendants of the watched processes, from the kernel's
 * process-events connector or from /proc (see proctree.h).
 *
 * The tree keeps one entry per process it knows of, in an array sorted by
 * PID: the processes the caller watches, those it was told of (NEW) and
 * has not watched yet, and those it forgot.  An entry is what makes "each
 * NEW pid once while it lives" hold: a pid with an entry is never reported
 * NEW again.  Entries of processes that are not watched are dropped when
 * the process is seen gone (an EXIT event, or a liveness check once a
 * second when polling).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "proc/proctree.h"
#include "proc/proctree_int.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* Every watched process is read at least this often (POLL), and the
 * entries of unwatched ones are checked for life as often. */
#define SWEEP_NS NSEC_PER_SEC

/* ---- the entries ---------------------------------------------------- */

/* Index of pid's entry, or where it would go (*found false). */
static size_t proctree_index(const struct proctree *t, pid_t pid, bool *found)
{
	size_t lo = 0, hi = t->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->nprocs && t->procs[lo].pid == pid;
	return lo;
}

struct proctree_proc *proctree_lookup(struct proctree *t, pid_t pid)
{
	bool found;
	size_t i = proctree_index(t, pid, &found);

	return found ? &t->procs[i] : NULL;
}

/* A new entry for pid (which has none); NULL with ENOMEM.  Pointers to
 * other entries are stale afterwards. */
struct proctree_proc *proctree_insert(struct proctree *t, pid_t pid,
				      enum proctree_state state, uint64_t start)
{
	struct proctree_proc *p;
	bool found;
	size_t i = proctree_index(t, pid, &found);

	p = grow_array(t->procs, &t->procs_cap, t->nprocs + 1, sizeof(*p));
	if (!p)
		return NULL;
	t->procs = p;
	memmove(&p[i + 1], &p[i], (t->nprocs - i) * sizeof(*p));
	t->nprocs++;
	memset(&p[i], 0, sizeof(p[i]));
	p[i].pid = pid;
	p[i].state = (unsigned char)state;
	p[i].start = start;
	return &p[i];
}

void proctree_remove(struct proctree *t, pid_t pid)
{
	bool found;
	size_t i = proctree_index(t, pid, &found);

	if (!found)
		return;
	t->nprocs--;
	memmove(&t->procs[i], &t->procs[i + 1],
		(t->nprocs - i) * sizeof(t->procs[0]));
}

/* ---- the events handed out -------------------------------------------- */

int proctree_push(struct proctree *t, enum proctree_kind kind, pid_t pid,
		  pid_t ppid)
{
	struct proctree_event *q;

	q = grow_array(t->queue, &t->qcap, t->qlen + 1, sizeof(*q));
	if (!q)
		return -1;
	t->queue = q;
	memset(&q[t->qlen], 0, sizeof(q[t->qlen]));
	q[t->qlen].kind = kind;
	q[t->qlen].pid = pid;
	q[t->qlen].ppid = ppid;
	t->qlen++;
	return 0;
}

/* Hand the queued events out in order; -1 with errno when there are none
 * and err (a failure on the way) is set. */
static int proctree_dequeue(struct proctree *t, struct proctree_event *ev,
			    size_t max, int err)
{
	size_t n = t->qlen - t->qhead;

	if (n > max)
		n = max;
	if (n == 0 && err) {
		errno = err;
		return -1;
	}
	if (n)
		memcpy(ev, &t->queue[t->qhead], n * sizeof(*ev));
	t->qhead += n;
	if (t->qhead == t->qlen)
		t->qhead = t->qlen = 0;
	return (int)n;
}

/* The death of the process pid (watched, or reported NEW): report it,
 * with its CPU time when taskstats told it (proctree_ts.c), and drop the
 * entry. */
int proctree_exited(struct proctree *t, pid_t pid)
{
	const struct proctree_proc *p = proctree_lookup(t, pid);
	struct proctree_event *ev;

	if (proctree_push(t, PROCTREE_EXIT, pid, 0)) {
		proctree_remove(t, pid);
		return -1;
	}
	ev = &t->queue[t->qlen - 1];
	if (p && p->have_exit_cpu) {
		ev->have_cpu = true;
		ev->cpu_ns = p->exit_cpu_ns;
		memcpy(ev->comm, p->exit_comm, sizeof(ev->comm));
	} else {
		/* only a process whose FORK was read (its start known)
		 * may take a record of the ring */
		ev->have_cpu = p && p->fork_ns &&
			       proctree_ts_take(t, pid, p->fork_ns, &ev->cpu_ns,
						ev->comm);
	}
	proctree_remove(t, pid);
	return 0;
}

int proctree_pid_push(pid_t **arr, size_t *n, size_t *cap, pid_t pid)
{
	pid_t *a = grow_array(*arr, cap, *n + 1, sizeof(*a));

	if (!a)
		return -1;
	*arr = a;
	a[(*n)++] = pid;
	return 0;
}

/* ---- the public functions ------------------------------------------- */

/* Whether this kernel has the children files (CONFIG_PROC_CHILDREN). */
static bool proctree_can_poll(void)
{
	return access("/proc/thread-self/children", R_OK) == 0;
}

struct proctree *proctree_new(bool want_netlink)
{
	struct proctree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = -1;
	t->ts_fd = -1;
	t->swept_ns = mono_now_ns();
	/* our requests apart from another tree's: their answers are
	 * multicast to every listener */
	t->seq = (uint32_t)getpid() << 8 ^ (uint32_t)t->swept_ns;
	if (want_netlink && proctree_connect(t) == 0) {
		t->method = PROCTREE_NETLINK;
		/* optional: without it, EXITs carry no CPU time */
		(void)proctree_ts_open(t);
		return t;
	}
	t->method = PROCTREE_POLL;
	if (proctree_can_poll())
		return t;
	free(t);
	errno = ENOTSUP;
	return NULL;
}

void proctree_free(struct proctree *t)
{
	if (!t)
		return;
	if (t->fd >= 0) {
		(void)proctree_mcast(t, PROC_CN_MCAST_IGNORE);
		close(t->fd);
	}
	proctree_ts_close(t);
	procfs_tidlist_free(&t->tids);
	free(t->procs);
	free(t->queue);
	free(t->todo);
	free(t->kids);
	free(t->due);
	free(t);
}

enum proctree_method proctree_method(const struct proctree *t)
{
	return t->method;
}

const char *proctree_method_name(const struct proctree *t)
{
	return t->method == PROCTREE_NETLINK ? "netlink" : "/proc polling";
}

int proctree_fd(const struct proctree *t)
{
	return t->method == PROCTREE_NETLINK ? t->fd : -1;
}

int proctree_watch(struct proctree *t, pid_t pid)
{
	struct proctree_proc *p;
	uint64_t start;
	int state;

	if (pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (proctree_stat(pid, &start, &state))
		return -1;
	p = proctree_lookup(t, pid);
	if (p && p->start && p->start != start) {
		/* the process reported under pid is gone, pid reused */
		proctree_remove(t, pid);
		errno = ESRCH;
		return -1;
	}
	if (!p && !(p = proctree_insert(t, pid, PT_WATCHED, start)))
		return -1;
	if (p->state != PT_WATCHED || !p->seen_ns) {
		p->state = PT_WATCHED;
		p->start = start;
		p->scan = true;
	}
	return 0;
}

void proctree_forget(struct proctree *t, pid_t pid)
{
	struct proctree_proc *p = proctree_lookup(t, pid);

	if (p) {
		p->state = PT_FORGOTTEN;
		p->ran = p->scan = p->leader_gone = false;
		p->check_ns = 0;
	}
}

void proctree_ran(struct proctree *t, pid_t pid)
{
	struct proctree_proc *p = proctree_lookup(t, pid);

	if (p && p->state == PT_WATCHED)
		p->ran = true;
}

/* Whether watched process p is to be visited now. */
static bool proctree_due(const struct proctree *t,
			 const struct proctree_proc *p, uint64_t now)
{
	bool late = now - p->seen_ns >= SWEEP_NS;

	if (p->state != PT_WATCHED)
		return false;
	if (p->scan || (p->check_ns && now >= p->check_ns) ||
	    (p->leader_gone && late))
		return true;
	return t->method == PROCTREE_POLL && (p->ran || late);
}

/* Visit watched process pid: its exit, or its new descendants. */
static int proctree_visit(struct proctree *t, pid_t pid, uint64_t now)
{
	struct proctree_proc *p = proctree_lookup(t, pid);

	if (!p)
		return 0;
	if (!proctree_alive(pid, p->start))
		return proctree_exited(t, pid);
	p->ran = p->scan = false;
	p->check_ns = 0;
	p->seen_ns = now;
	return proctree_scan_tree(t, pid);
}

/* Drop the entries of unwatched processes that are gone. */
static void proctree_prune(struct proctree *t)
{
	size_t j = 0;

	for (size_t i = 0; i < t->nprocs; i++) {
		const struct proctree_proc *p = &t->procs[i];

		if (p->state != PT_WATCHED && !proctree_alive(p->pid, p->start))
			continue;
		t->procs[j++] = *p;
	}
	t->nprocs = j;
}

/* Every watched process that is due, visited. */
static int proctree_visit_due(struct proctree *t, uint64_t now)
{
	int rc = 0;

	/* the list first: visits add entries, which moves them */
	t->ndue = 0;
	for (size_t i = 0; i < t->nprocs; i++)
		if (proctree_due(t, &t->procs[i], now) &&
		    proctree_pid_push(&t->due, &t->ndue, &t->due_cap,
				      t->procs[i].pid))
			return -1;
	for (size_t i = 0; i < t->ndue && !rc; i++)
		rc = proctree_visit(t, t->due[i], now);
	return rc;
}

/* After lost events: every watched process read again, every unwatched
 * entry checked. */
static void proctree_resync(struct proctree *t)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].state == PT_WATCHED)
			t->procs[i].scan = true;
	proctree_prune(t);
	t->resync = false;
	t->counters.resyncs++;
}

int proctree_poll(struct proctree *t, struct proctree_event *ev, size_t max)
{
	uint64_t now = mono_now_ns();
	int err = 0;

	/* The connector first: the taskstats record of each EXIT read from
	 * it was sent before it (proctree_ts.c). */
	if (t->method == PROCTREE_NETLINK && proctree_drain(t))
		err = errno;
	proctree_ts_drain(t);
	if (t->resync)
		proctree_resync(t);
	if (now - t->swept_ns >= SWEEP_NS) {
		proctree_prune(t);
		t->swept_ns = now;
	}
	if (!err && proctree_visit_due(t, now))
		err = errno;
	return proctree_dequeue(t, ev, max, err);
}

void proctree_counters(const struct proctree *t, struct proctree_counters *c)
{
	*c = t->counters;
}
