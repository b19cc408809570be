/*
 * proctree_cn.c - the process tree from the kernel's process-events
 * connector: the socket, its subscription and the FORK, EXEC and EXIT
 * events read from it (see proctree.h, proctree_int.h).
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
#include "proc/proctree_int.h"
#include "util/timeutil.h"

/* How long proctree_new() waits for the connector's answer to LISTEN. */
#define ACK_WAIT_MS 100

/* Connector messages read by one proctree_poll() at most: the rest waits
 * for the next (a full socket only costs a resync). */
#define DRAIN_MAX 8192

/* The socket's receive buffer: forks of a whole busy machine between two
 * polls (each message is about 100 bytes of payload, ~1 KB of skb). */
#define RCVBUF_BYTES (4 << 20)

/* ---- the connector ------------------------------------------------- */

/* Ask the connector to start (LISTEN) or stop (IGNORE) sending events. */
int proctree_mcast(struct proctree *t, enum proc_cn_mcast_op op)
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
	struct proctree_proc *np;
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
	np = proctree_insert(t, child, PT_REPORTED, start);
	if (!np)
		return -1;
	/* the kernel's ktime_get_ns(): CLOCK_MONOTONIC (proctree_ts.c) */
	np->fork_ns = ev->timestamp_ns ? ev->timestamp_ns : 1;
	if (proctree_push(t, PROCTREE_NEW, child, parent))
		return -1;
	t->queue[t->qlen - 1].born = true; /* all its CPU time is the run's */
	return 0;
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
		/* reported and not watched yet: its EXIT too, for its CPU
		 * time (proctree.h, "CPU time at exit") */
		if (pid != tgid)
			return 0;
		if (p->state == PT_REPORTED)
			return proctree_exited(t, tgid);
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
int proctree_drain(struct proctree *t)
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
int proctree_connect(struct proctree *t)
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
