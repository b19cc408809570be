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
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "proc/proctree.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* Every watched process is read at least this often (POLL), and the
 * entries of unwatched ones are checked for life as often. */
#define SWEEP_NS NSEC_PER_SEC

/* How long proctree_new() waits for the connector's answer to LISTEN. */
#define ACK_WAIT_MS 100

/* Connector messages read by one proctree_poll() at most: the rest waits
 * for the next (a full socket only costs a resync). */
#define DRAIN_MAX 8192

/* The socket's receive buffer: forks of a whole busy machine between two
 * polls (each message is about 100 bytes of payload, ~1 KB of skb). */
#define RCVBUF_BYTES (4 << 20)

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
};

struct proctree {
	enum proctree_method method;
	int fd;	      /* the connector socket, or -1 */
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

static struct proctree_proc *proctree_lookup(struct proctree *t, pid_t pid)
{
	bool found;
	size_t i = proctree_index(t, pid, &found);

	return found ? &t->procs[i] : NULL;
}

/* A new entry for pid (which has none); NULL with ENOMEM.  Pointers to
 * other entries are stale afterwards. */
static struct proctree_proc *proctree_insert(struct proctree *t, pid_t pid,
					     enum proctree_state state,
					     uint64_t start)
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

static void proctree_remove(struct proctree *t, pid_t pid)
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

static int proctree_push(struct proctree *t, enum proctree_kind kind, pid_t pid,
			 pid_t ppid)
{
	struct proctree_event *q;

	q = grow_array(t->queue, &t->qcap, t->qlen + 1, sizeof(*q));
	if (!q)
		return -1;
	t->queue = q;
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

/* The death of the watched process pid: report it, drop the entry. */
static int proctree_exited(struct proctree *t, pid_t pid)
{
	proctree_remove(t, pid);
	return proctree_push(t, PROCTREE_EXIT, pid, 0);
}

static int proctree_pid_push(pid_t **arr, size_t *n, size_t *cap, pid_t pid)
{
	pid_t *a = grow_array(*arr, cap, *n + 1, sizeof(*a));

	if (!a)
		return -1;
	*arr = a;
	a[(*n)++] = pid;
	return 0;
}

/* ---- /proc ----------------------------------------------------------- */

/*
 * Start time (field 22 of /proc/PID/stat, clock ticks after boot: a PID
 * the kernel gave to another process since shows another) and state
 * letter of process pid.  0, or -1 with errno (ESRCH: gone).
 */
static int proctree_stat(pid_t pid, uint64_t *start, int *state)
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
static bool proctree_alive(pid_t pid, uint64_t start)
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
static int proctree_scan_tree(struct proctree *t, pid_t root)
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

/* ---- the connector ------------------------------------------------- */

/* Ask the connector to start (LISTEN) or stop (IGNORE) sending events. */
static int proctree_mcast(struct proctree *t, enum proc_cn_mcast_op op)
{
	union {
		struct nlmsghdr h;
		char b[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(op))];
	} m;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct cn_msg *cn = NLMSG_DATA(&m.h);

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	m.h.nlmsg_type = NLMSG_DONE;
	m.h.nlmsg_pid = (uint32_t)getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = 0;
	cn->ack = ++t->seq;
	/* the 4-byte form every kernel takes (6.6 also takes 8 bytes with
	 * an event filter, which older ones drop without a word) */
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (sendto(t->fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0)
		return -1;
	return 0;
}

/*
 * One process event of cn_len payload bytes at data (unaligned: the
 * payload starts 20 bytes into the connector message), copied into *ev.
 * Returns the event's length, or -1 when the message is not a process
 * event.
 */
static ssize_t proctree_event_of(const void *data, size_t len,
				 struct proc_event *ev, struct cn_msg *cn)
{
	size_t n;

	if (len < sizeof(*cn))
		return -1;
	memcpy(cn, data, sizeof(*cn));
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len > len - sizeof(*cn) ||
	    cn->len < offsetof(struct proc_event, event_data))
		return -1;
	n = cn->len < sizeof(*ev) ? cn->len : sizeof(*ev);
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, (const char *)data + sizeof(*cn), n);
	return (ssize_t)cn->len;
}

/*
 * A fork.  Kernel quirk: the connector reports every clone(), threads
 * included, as a FORK, and names as parent the child's real_parent,
 * which for a thread (CLONE_THREAD) is the parent of the creating
 * process, not that process: a thread of a watched process's child would
 * read as a new child of the watched process.  A thread is told by its
 * pid differing from its tgid.  A fork by any thread of a watched or
 * reported process counts: parent_tgid names the process.
 */
static int proctree_on_fork(struct proctree *t, const struct proc_event *ev)
{
	pid_t child = ev->event_data.fork.child_pid;
	pid_t parent = ev->event_data.fork.parent_tgid;
	const struct proctree_proc *p;
	uint64_t start = 0;
	int state;

	if (child != ev->event_data.fork.child_tgid || child <= 0)
		return 0;
	p = proctree_lookup(t, parent);
	if (!p || p->state == PT_FORGOTTEN || proctree_lookup(t, child))
		return 0;
	/* a child gone already is reported all the same (its EXIT, next
	 * in the socket, drops the entry): NETLINK saw it */
	if (proctree_stat(child, &start, &state))
		start = 0;
	if (!proctree_insert(t, child, PT_REPORTED, start))
		return -1;
	return proctree_push(t, PROCTREE_NEW, child, parent);
}

/*
 * An exit.  The connector sends one per thread; the process is gone when
 * its thread group is.  Kernel quirk: the leader's exit (pid == tgid)
 * comes when the main thread exits, which pthread_exit() does while the
 * others run on, and the last thread's exit has pid != tgid; so the
 * leader's exit is checked against /proc, and a process whose leader
 * left is checked again at each exit of its threads, and once more at a
 * later poll: a thread's exit is sent before the thread is a zombie, and
 * the last one sends no later event (and once a second besides).
 */
static int proctree_on_exit(struct proctree *t, const struct proc_event *ev)
{
	pid_t pid = ev->event_data.exit.process_pid;
	pid_t tgid = ev->event_data.exit.process_tgid;
	struct proctree_proc *p = proctree_lookup(t, tgid);

	if (!p || (pid != tgid && !p->leader_gone))
		return 0;
	if (p->state != PT_WATCHED) {
		if (pid == tgid)
			proctree_remove(t, tgid);
		return 0;
	}
	if (proctree_alive(tgid, p->start)) {
		p->leader_gone = true;
		p->check_ns = mono_now_ns() + NSEC_PER_MSEC;
		return 0;
	}
	return proctree_exited(t, tgid);
}

/* Whether an event of len bytes holds the pid field (and all before
 * it): the kernel sends its own struct's size, which may differ from
 * this header's. */
#define PROCTREE_HAS(len, field) \
	((len) >= offsetof(struct proc_event, event_data.field) + sizeof(pid_t))

static int proctree_on_event(struct proctree *t, const void *data, size_t len)
{
	struct proc_event ev;
	struct cn_msg cn;
	ssize_t r = proctree_event_of(data, len, &ev, &cn);
	const struct proctree_proc *p;
	size_t n = (size_t)r;

	if (r < 0)
		return 0;
	t->counters.events++;
	switch (ev.what) {
	case PROC_EVENT_FORK:
		if (!PROCTREE_HAS(n, fork.child_tgid))
			return 0;
		return proctree_on_fork(t, &ev);
	case PROC_EVENT_EXEC:
		if (!PROCTREE_HAS(n, exec.process_tgid))
			return 0;
		/* after de_thread(): the exec'ing thread has the tgid now */
		p = proctree_lookup(t, ev.event_data.exec.process_tgid);
		if (!p || p->state != PT_WATCHED)
			return 0;
		return proctree_push(t, PROCTREE_EXEC, p->pid, 0);
	case PROC_EVENT_EXIT:
		if (!PROCTREE_HAS(n, exit.process_tgid))
			return 0;
		return proctree_on_exit(t, &ev);
	default:
		return 0;
	}
}

/* The netlink messages in one datagram of n bytes. */
static int proctree_on_datagram(struct proctree *t, const void *buf, size_t n)
{
	const struct nlmsghdr *h = buf;
	int left = (int)n;

	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_NOOP)
			continue;
		if (proctree_on_event(t, NLMSG_DATA(h),
				      h->nlmsg_len - NLMSG_LENGTH(0)))
			return -1;
	}
	return 0;
}

/*
 * Read what the connector sent, DRAIN_MAX datagrams at most.  ENOBUFS:
 * the socket overflowed, events were lost: a resync follows.  Datagrams
 * not from the kernel (nl_pid != 0) or longer than the buffer (MSG_TRUNC
 * gives their real length) are dropped.
 */
static int proctree_drain(struct proctree *t)
{
	union {
		struct nlmsghdr h;
		char b[8192];
	} buf;

	for (int i = 0; i < DRAIN_MAX; i++) {
		struct sockaddr_nl from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(t->fd, &buf, sizeof(buf),
				     MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &flen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			t->resync = true;
			continue;
		}
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (from.nl_pid != 0 || (size_t)n > sizeof(buf))
			continue;
		if (proctree_on_datagram(t, &buf, (size_t)n))
			return -1;
	}
	return 0;
}

/* Whether a datagram holds the answer to our last request: 1 (yes, and
 * granted), -1 with errno (refused), 0 (not there). */
static int proctree_is_ack(const struct proctree *t, const void *buf, size_t n)
{
	const struct nlmsghdr *h = buf;
	int left = (int)n;

	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		struct proc_event ev;
		struct cn_msg cn;

		if (proctree_event_of(NLMSG_DATA(h),
				      h->nlmsg_len - NLMSG_LENGTH(0), &ev,
				      &cn) < 0 ||
		    ev.what != PROC_EVENT_NONE || cn.ack != t->seq + 1)
			continue;
		if (!ev.event_data.ack.err)
			return 1;
		errno = (int)ev.event_data.ack.err;
		return -1;
	}
	return 0;
}

/*
 * The connector's answer to our LISTEN: a PROC_EVENT_NONE with our ack
 * + 1 and the error (and not our seq, which the kernel overwrites with
 * its event counter, as in every event).  Kernel quirk: a request the
 * connector ignores gets no answer at all: from a process outside the
 * initial pid or user namespace (the events carry the initial
 * namespace's PIDs), or when nobody listens (the answer is multicast
 * like the events, and an unprivileged LISTEN leaves nobody listening).
 * So no answer within ACK_WAIT_MS is a refusal too.  0, or -1 with
 * errno.
 */
static int proctree_await_ack(struct proctree *t)
{
	uint64_t end = mono_now_ns() + ACK_WAIT_MS * NSEC_PER_MSEC;
	union {
		struct nlmsghdr h;
		char b[8192];
	} buf;

	for (;;) {
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
		uint64_t now = mono_now_ns();
		int ms = (int)((end - now) / NSEC_PER_MSEC) + 1;
		ssize_t n;
		int rc;

		if (now >= end || poll(&pfd, 1, ms) == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = recv(t->fd, &buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno != EINTR && errno != EAGAIN &&
		    errno != ENOBUFS)
			return -1;
		if (n > 0 && (rc = proctree_is_ack(t, &buf, (size_t)n)) != 0)
			return rc > 0 ? 0 : -1;
	}
}

/*
 * The connector's socket, subscribed.  Before Linux 6.6 that needs
 * CAP_NET_ADMIN (to bind to the group and to LISTEN), and the kernel
 * counts LISTENs, not sockets: one never followed by an IGNORE (a crash)
 * leaves it building events for nobody, harmless but for their cost.
 * Since 6.6 any user may listen, and closing the socket unsubscribes.
 */
static int proctree_connect(struct proctree *t)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = CN_IDX_PROC };
	int size = RCVBUF_BYTES, err;

	t->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       NETLINK_CONNECTOR);
	if (t->fd < 0)
		return -1;
	if (bind(t->fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	if (setsockopt(t->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		(void)setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &size,
				 sizeof(size));
	/* refused: no IGNORE, which a kernel before 6.6 would take off its
	 * count of listeners, another program's LISTEN */
	if (proctree_mcast(t, PROC_CN_MCAST_LISTEN) || proctree_await_ack(t))
		goto fail;
	return 0;
fail:
	err = errno;
	close(t->fd);
	t->fd = -1;
	errno = err;
	return -1;
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
	t->swept_ns = mono_now_ns();
	/* our requests apart from another tree's: their answers are
	 * multicast to every listener */
	t->seq = (uint32_t)getpid() << 8 ^ (uint32_t)t->swept_ns;
	if (want_netlink && proctree_connect(t) == 0) {
		t->method = PROCTREE_NETLINK;
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

	if (t->method == PROCTREE_NETLINK && proctree_drain(t))
		err = errno;
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
