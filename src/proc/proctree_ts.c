/*
 * proctree_ts.c - the CPU time of a process of the tree at its exit,
 * from the kernel's per-task statistics (taskstats, over generic
 * netlink; see proctree.h, "CPU time at exit").
 *
 * The connector's EXIT carries no CPU time, and a process reaped by its
 * parent between two ticks has no /proc files and no CPU-time clock
 * left: the time it used since it was last read would be lost (all of
 * it, for one that lived between two ticks).  The kernel sends a
 * taskstats record of every task that exits to the listeners registered
 * for its CPU (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, which needs
 * CAP_NET_ADMIN and CONFIG_TASKSTATS): cpu_run_virtual_total is the
 * task's sum_exec_runtime in ns, the clock the sampler reads; a
 * multi-threaded process's TGID record, at its group's death, sums its
 * threads.  Kernel quirk: taskstats_exit() runs in do_exit() before
 * exit_notify() and the connector's EXIT, so once an EXIT has been read
 * from the connector its taskstats record is in this socket already:
 * proctree_poll() drains the connector first, then this socket, and
 * fills in the EXITs it queued.  Without taskstats (no capability, no
 * CONFIG_TASKSTATS) nothing changes: EXITs carry no CPU time.
 */
#include "config.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proc/proctree.h"
#include "proc/proctree_int.h"
#include "util/timeutil.h"

/* Datagrams read per proctree_poll() at most (one per exiting task). */
#define TS_DRAIN_MAX 4096

/* The socket's receive buffer: the exits of a busy machine between two
 * polls (a record is about 500 bytes). */
#define TS_RCVBUF_BYTES (4 << 20)

/*
 * A record of the ring (proctree_int.h) is of a process whose FORK was
 * read only if the process started no earlier than TS_START_SLACK_NS
 * before its FORK's time: the kernel sets a task's start_time in
 * copy_process() just before it sends the FORK, both CLOCK_MONOTONIC.
 * The record's start is known as the time it was read less its ac_etime
 * (a later start, never an earlier one).  An older process under the
 * same PID (PIDs wrap: one that lived long, whose PID the counter
 * skipped until it exited) started at least one whole cycle of PIDs
 * before; without this, a process whose own record was lost (ENOBUFS)
 * took that one's CPU time, hours of it for a daemon.
 */
#define TS_START_SLACK_NS (100 * NSEC_PER_MSEC)

union ts_buf {
	struct nlmsghdr h;
	char b[4096];
};

/* One generic netlink request of cmd to family, with one attribute. */
static int ts_send(int fd, uint16_t family, uint8_t cmd, uint16_t type,
		   const void *val, size_t len)
{
	union ts_buf m;
	struct genlmsghdr *g;
	struct nlattr *a;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_type = family;
	m.h.nlmsg_flags = NLM_F_REQUEST;
	m.h.nlmsg_pid = (uint32_t)getpid();
	g = NLMSG_DATA(&m.h);
	g->cmd = cmd;
	g->version = 1;
	a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, val, len);
	m.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(a->nla_len));
	return sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&to,
		      sizeof(to)) < 0 ?
		       -1 :
		       0;
}

/* The attribute at a, of the left bytes there: NULL when none fits. */
static struct nlattr *ts_attr(void *a, size_t left)
{
	struct nlattr *na = a;

	if (left < NLA_HDRLEN || na->nla_len < NLA_HDRLEN || na->nla_len > left)
		return NULL;
	return na;
}

/* The attribute after a (*left: the bytes from a on), or NULL. */
static struct nlattr *ts_next(struct nlattr *a, size_t *left)
{
	size_t step = NLA_ALIGN(a->nla_len);

	if (step >= *left)
		return NULL;
	*left -= step;
	return ts_attr((char *)a + step, *left);
}

/* Each attribute a of the n bytes at p (n: a size_t variable, used up). */
#define TS_FOR_ATTRS(a, p, n) \
	for (struct nlattr *a = ts_attr((p), (n)); a; a = ts_next(a, &(n)))

/* The family ID of TASKSTATS (CTRL_CMD_GETFAMILY), or -1. */
static int ts_family(int fd)
{
	static const char name[] = TASKSTATS_GENL_NAME;
	union ts_buf buf;
	ssize_t n;

	if (ts_send(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    name, sizeof(name)))
		return -1;
	n = recv(fd, &buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_LENGTH(GENL_HDRLEN) ||
	    buf.h.nlmsg_type == NLMSG_ERROR || !NLMSG_OK(&buf.h, (int)n) ||
	    buf.h.nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -1;
	size_t left = buf.h.nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	TS_FOR_ATTRS(a, (char *)NLMSG_DATA(&buf.h) + GENL_HDRLEN, left)
	{
		if (a->nla_type == CTRL_ATTR_FAMILY_ID &&
		    a->nla_len >= NLA_HDRLEN + sizeof(uint16_t)) {
			uint16_t id;

			memcpy(&id, (char *)a + NLA_HDRLEN, sizeof(id));
			return id;
		}
	}
	return -1;
}

int proctree_ts_open(struct proctree *t)
{
	char mask[32];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int family;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	int size = TS_RCVBUF_BYTES;

	t->ts_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (t->ts_fd < 0)
		return -1;
	/* the family's answer waited for 0.1 s at most */
	if (bind(t->ts_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(t->ts_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		goto fail;
	if (setsockopt(t->ts_fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)))
		(void)setsockopt(t->ts_fd, SOL_SOCKET, SO_RCVBUF, &size,
				 sizeof(size));
	family = ts_family(t->ts_fd);
	snprintf(mask, sizeof(mask), "0-%ld", ncpu > 1 ? ncpu - 1 : 0);
	/* Registering gives no answer unless it fails (no NLM_F_ACK): an
	 * unprivileged one is told by EPERM on the next read, which then
	 * closes the socket (proctree_ts_drain()). */
	if (family < 0 || ts_send(t->ts_fd, (uint16_t)family, TASKSTATS_CMD_GET,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask,
				  strlen(mask) + 1))
		goto fail;
	t->ts_family = family;
	return 0;
fail:
	close(t->ts_fd);
	t->ts_fd = -1;
	return -1;
}

void proctree_ts_close(struct proctree *t)
{
	if (t->ts_fd < 0)
		return;
	close(t->ts_fd); /* the kernel drops a listener it cannot reach */
	t->ts_fd = -1;
}

/* pid exited having used cpu_ns: its queued EXIT told, else its entry.
 * A thread group's record (tgid: its threads summed) replaces its
 * leader's; it has no name (only the delay accounting's fields are
 * summed), the leader's stays. */
static void ts_record(struct proctree *t, pid_t pid, uint64_t cpu_ns,
		      uint64_t etime_us, const char *comm, bool tgid)
{
	struct proctree_proc *p;

	for (size_t i = t->qhead; i < t->qlen; i++) {
		struct proctree_event *ev = &t->queue[i];

		if (ev->kind != PROCTREE_EXIT || ev->pid != pid ||
		    (ev->have_cpu && !tgid))
			continue;
		ev->have_cpu = true;
		ev->cpu_ns = cpu_ns;
		if (!tgid)
			snprintf(ev->comm, sizeof(ev->comm), "%.15s", comm);
		return;
	}
	p = proctree_lookup(t, pid);
	if (!p && !tgid) {
		struct proctree_ts_rec *r = &t->ts_recent[t->ts_put];

		t->ts_put = (t->ts_put + 1) % PROCTREE_TS_RECENT;
		r->pid = pid;
		r->start_ns = mono_now_ns() - etime_us * NSEC_PER_USEC;
		r->cpu_ns = cpu_ns;
		snprintf(r->comm, sizeof(r->comm), "%.15s", comm);
		return;
	}
	if (!p || (p->have_exit_cpu && !tgid))
		return;
	p->have_exit_cpu = true;
	p->exit_cpu_ns = cpu_ns;
	if (!tgid)
		snprintf(p->exit_comm, sizeof(p->exit_comm), "%.15s", comm);
}

/* One AGGR_PID or AGGR_TGID attribute: the id, then the stats. */
static void ts_on_aggr(struct proctree *t, struct nlattr *aggr, bool tgid)
{
	size_t left = aggr->nla_len - NLA_HDRLEN;
	uint32_t id = 0;
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	TS_FOR_ATTRS(a, (char *)aggr + NLA_HDRLEN, left)
	{
		size_t len = a->nla_len - NLA_HDRLEN;

		if ((a->nla_type == TASKSTATS_TYPE_PID ||
		     a->nla_type == TASKSTATS_TYPE_TGID) &&
		    len >= sizeof(id))
			memcpy(&id, (char *)a + NLA_HDRLEN, sizeof(id));
		if (a->nla_type == TASKSTATS_TYPE_STATS)
			memcpy(&ts, (char *)a + NLA_HDRLEN,
			       len < sizeof(ts) ? len : sizeof(ts));
	}
	if (id)
		ts_record(t, (pid_t)id, ts.cpu_run_virtual_total, ts.ac_etime,
			  ts.ac_comm, tgid);
}

static void ts_on_msg(struct proctree *t, struct nlmsghdr *h)
{
	size_t left;

	if (h->nlmsg_type != t->ts_family ||
	    h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	left = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	TS_FOR_ATTRS(a, (char *)NLMSG_DATA(h) + GENL_HDRLEN, left)
	{
		if (a->nla_type == TASKSTATS_TYPE_AGGR_PID)
			ts_on_aggr(t, a, false);
		else if (a->nla_type == TASKSTATS_TYPE_AGGR_TGID)
			ts_on_aggr(t, a, true);
	}
}

bool proctree_ts_take(struct proctree *t, pid_t pid, uint64_t fork_ns,
		      uint64_t *cpu_ns, char comm[16])
{
	for (size_t i = 0; i < PROCTREE_TS_RECENT; i++) {
		struct proctree_ts_rec *r = &t->ts_recent[i];

		if (r->pid != pid || r->start_ns + TS_START_SLACK_NS < fork_ns)
			continue;
		r->pid = 0;
		*cpu_ns = r->cpu_ns;
		memcpy(comm, r->comm, sizeof(r->comm));
		return true;
	}
	return false;
}

bool proctree_exit_cpu(struct proctree *t, pid_t pid, uint64_t *cpu_ns)
{
	const struct proctree_proc *p;

	proctree_ts_drain(t);
	p = proctree_lookup(t, pid);
	if (p && p->have_exit_cpu) {
		*cpu_ns = p->exit_cpu_ns;
		return true;
	}
	for (size_t i = t->qhead; i < t->qlen; i++)
		if (t->queue[i].kind == PROCTREE_EXIT &&
		    t->queue[i].pid == pid && t->queue[i].have_cpu) {
			*cpu_ns = t->queue[i].cpu_ns;
			return true;
		}
	return false;
}

void proctree_ts_drain(struct proctree *t)
{
	union ts_buf buf;

	for (int i = 0; t->ts_fd >= 0 && i < TS_DRAIN_MAX; i++) {
		struct sockaddr_nl from = { 0 };
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(t->ts_fd, &buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		int left = (int)n;

		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue; /* lost records: those EXITs carry none */
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			proctree_ts_close(t);
			return;
		}
		if (from.nl_pid != 0)
			continue; /* not the kernel's: another socket's */
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_type == NLMSG_ERROR &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
			    e->error) {
				/* the registration refused: no taskstats */
				proctree_ts_close(t);
				return;
			}
			ts_on_msg(t, h);
		}
	}
}
