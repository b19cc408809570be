/*
 * test_proctree.c - proctree.h on the real kernel, for both methods.
 *
 * The test forks small process trees of its own: each process reports
 * its PID on a pipe, may start a thread or fork further, then blocks
 * reading a "hold" pipe until the test closes its end, reaps its own
 * children and exits.  Each case runs with NETLINK (skipped, said on
 * stderr, when the connector refuses: no CAP_NET_ADMIN before Linux
 * 6.6, a nested pid namespace) and with POLL, and checks what
 * proctree_poll() hands out: the parents of new processes, no threads,
 * exec (NETLINK), exits (a leader's own is not the process's), the
 * descendants already there at proctree_watch(), forgotten processes
 * left alone, and nothing from outside the watched tree.  And the ring
 * of taskstats records kept before their process was known: a record of
 * an older process under a reused PID is not taken for a new one's.
 * Every wait is bounded (a few seconds); only the test's own children
 * are killed, by PID, if one is left.
 *
 * Covers: proctree_scan (the rest of the module, split out).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proctree.h"
#include "proc/proctree_int.h"
#include "unit.h"
#include "util/timeutil.h"

#define WAIT_MS 3000 /* the bound of every wait for an event */
#define MAX_LOG 1024

static int hold[2];   /* the tree lives while hold[1] is open */
static int report[2]; /* each process writes its PID here */

/* ---- the processes under test -------------------------------------- */

static void *idle_thread(void *arg)
{
	char c;

	(void)arg;
	while (read(hold[0], &c, 1) > 0)
		;
	return NULL;
}

/* The child's life: report, a thread if asked, depth - 1 more levels
 * below, then wait for the end of hold and reap what it forked. */
static void __attribute__((noreturn)) member(int depth, bool thread)
{
	pid_t self = getpid();
	pthread_t th;
	char c;

	close(hold[1]);
	(void)!write(report[1], &self, sizeof(self));
	if (thread)
		pthread_create(&th, NULL, idle_thread, NULL);
	if (depth > 1 && fork() == 0)
		member(depth - 1, thread);
	while (read(hold[0], &c, 1) > 0)
		;
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/* Fork a chain of depth processes (child, grandchild, ...); their PIDs,
 * top first, into pids.  0, or -1 when one did not report in time. */
static int spawn(int depth, bool thread, pid_t *pids)
{
	pid_t top = fork();

	if (top < 0)
		return -1;
	if (top == 0)
		member(depth, thread);
	for (int i = 0; i < depth; i++) {
		struct pollfd pfd = { .fd = report[0], .events = POLLIN };

		if (poll(&pfd, 1, WAIT_MS) != 1 ||
		    read(report[0], &pids[i], sizeof(pids[i])) !=
			    sizeof(pids[i]))
			return -1;
	}
	return 0;
}

static void hold_open(void)
{
	if (pipe(hold) || pipe(report))
		_exit(99);
}

/* End every tree forked since hold_open(): close hold, reap the tops. */
static void hold_close(const pid_t *tops, size_t n)
{
	close(hold[1]);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = mono_now_ns() + WAIT_MS * NSEC_PER_MSEC;

		while (waitpid(tops[i], NULL, WNOHANG) == 0) {
			if (mono_now_ns() > end) {
				kill(tops[i], SIGKILL);
				waitpid(tops[i], NULL, 0);
				break;
			}
			usleep(5000);
		}
	}
	close(hold[0]);
	close(report[0]);
	close(report[1]);
}

/* ---- what proctree hands out --------------------------------------- */

struct log {
	struct proctree_event ev[MAX_LOG];
	size_t n;
};

static const struct proctree_event *log_find(const struct log *lg,
					     enum proctree_kind kind, pid_t pid)
{
	for (size_t i = 0; i < lg->n; i++)
		if (lg->ev[i].kind == kind && lg->ev[i].pid == pid)
			return &lg->ev[i];
	return NULL;
}

static size_t log_count(const struct log *lg, enum proctree_kind kind,
			pid_t pid)
{
	size_t n = 0;

	for (size_t i = 0; i < lg->n; i++)
		n += lg->ev[i].kind == kind && lg->ev[i].pid == pid;
	return n;
}

/* The parent the NEW of pid named, or -1. */
static pid_t log_ppid(const struct log *lg, pid_t pid)
{
	const struct proctree_event *e = log_find(lg, PROCTREE_NEW, pid);

	return e ? e->ppid : -1;
}

/* Index of the event, or MAX_LOG. */
static size_t log_index(const struct log *lg, enum proctree_kind kind,
			pid_t pid)
{
	const struct proctree_event *e = log_find(lg, kind, pid);

	return e ? (size_t)(e - lg->ev) : MAX_LOG;
}

/*
 * Poll t every 10 ms (as the sampler would at 100 Hz, saying that ran
 * ran) into lg, watching each NEW process when autowatch, until the
 * event (kind, pid) is in lg or ms have passed.  Whether it came.
 */
static bool wait_for(struct proctree *t, struct log *lg, pid_t ran,
		     bool autowatch, enum proctree_kind kind, pid_t pid, int ms)
{
	uint64_t end = mono_now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	while (!(pid && log_find(lg, kind, pid)) && mono_now_ns() < end) {
		struct pollfd pfd = { .fd = proctree_fd(t), .events = POLLIN };
		struct proctree_event ev[16];
		int n;

		if (pfd.fd >= 0)
			(void)poll(&pfd, 1, 10);
		else
			usleep(10000);
		if (ran)
			proctree_ran(t, ran);
		n = proctree_poll(t, ev, 16);
		CHECKF(n >= 0, "proctree_poll: %s", strerror(errno));
		for (int i = 0; i < n && lg->n < MAX_LOG; i++) {
			lg->ev[lg->n++] = ev[i];
			if (autowatch && ev[i].kind == PROCTREE_NEW)
				(void)proctree_watch(t, ev[i].pid);
		}
	}
	return pid && log_find(lg, kind, pid);
}

/* Every NEW in lg is one of the n pids. */
static void check_only(const struct log *lg, const pid_t *pids, size_t n,
		       const char *what)
{
	for (size_t i = 0; i < lg->n; i++) {
		bool known = lg->ev[i].kind != PROCTREE_NEW;

		for (size_t j = 0; j < n && !known; j++)
			known = lg->ev[i].pid == pids[j];
		CHECKF(known, "%s: unexpected NEW %d (ppid %d)", what,
		       (int)lg->ev[i].pid, (int)lg->ev[i].ppid);
	}
}

/* ---- the cases ----------------------------------------------------- */

/* A child and a grandchild, each with a thread, of the watched test;
 * a thread of the test itself. */
static void test_fork_tree(bool netlink)
{
	struct proctree *t = proctree_new(netlink);
	static struct log lg;
	pid_t pids[2], self = getpid();
	pthread_t th;

	lg.n = 0;
	hold_open();
	CHECK(proctree_watch(t, self) == 0);
	wait_for(t, &lg, self, true, PROCTREE_NEW, 0, 50);
	CHECK(pthread_create(&th, NULL, idle_thread, NULL) == 0);
	CHECK(spawn(2, true, pids) == 0);
	CHECKF(wait_for(t, &lg, self, true, PROCTREE_NEW, pids[0], WAIT_MS),
	       "%s: no NEW for the child", proctree_method_name(t));
	CHECKF(wait_for(t, &lg, self, true, PROCTREE_NEW, pids[1], WAIT_MS),
	       "%s: no NEW for the grandchild", proctree_method_name(t));
	/* a while longer: threads and repeats would show up */
	wait_for(t, &lg, self, true, PROCTREE_NEW, 0, 300);
	CHECK(log_count(&lg, PROCTREE_NEW, pids[0]) == 1);
	CHECK(log_count(&lg, PROCTREE_NEW, pids[1]) == 1);
	CHECK(log_ppid(&lg, pids[0]) == self);
	CHECK(log_ppid(&lg, pids[1]) == pids[0]);
	check_only(&lg, pids, 2, proctree_method_name(t));
	hold_close(pids, 1);
	pthread_join(th, NULL);
	proctree_free(t);
}

/* A child that runs body(the read end of go) once forked; the test
 * keeps go[1] to say go. */
static pid_t fork_gated(void (*body)(int go_fd), int go[2])
{
	pid_t pid;

	if (pipe(go))
		_exit(99);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		body(go[0]);
		_exit(3);
	}
	close(go[0]);
	return pid;
}

static void exec_on_go(int go_fd)
{
	char c;

	if (read(go_fd, &c, 1) == 1)
		execl("/bin/sleep", "sleep", "10", (char *)NULL);
}

/* An exec of a watched child (NETLINK), then its exit, reaped or a
 * zombie still. */
static void test_exec_exit(bool netlink, bool reap)
{
	struct proctree *t = proctree_new(netlink);
	bool nl = proctree_method(t) == PROCTREE_NETLINK;
	static struct log lg;
	int go[2];
	pid_t child, self = getpid();

	lg.n = 0;
	CHECK(proctree_watch(t, self) == 0);
	child = fork_gated(exec_on_go, go);
	CHECK(wait_for(t, &lg, self, true, PROCTREE_NEW, child, WAIT_MS));
	(void)!write(go[1], "g", 1);
	close(go[1]);
	if (nl)
		CHECKF(wait_for(t, &lg, self, true, PROCTREE_EXEC, child,
				WAIT_MS),
		       "netlink: no EXEC of %d", (int)child);
	else /* long enough for the exec */
		wait_for(t, &lg, self, true, PROCTREE_EXEC, child, 100);
	kill(child, SIGKILL);
	if (reap)
		waitpid(child, NULL, 0);
	CHECKF(wait_for(t, &lg, child, true, PROCTREE_EXIT, child, WAIT_MS),
	       "%s: no EXIT of %d (%s)", proctree_method_name(t), (int)child,
	       reap ? "reaped" : "a zombie");
	if (!reap)
		waitpid(child, NULL, 0);
	CHECK(log_count(&lg, PROCTREE_EXIT, child) == 1);
	CHECK(log_index(&lg, PROCTREE_NEW, child) <
	      log_index(&lg, PROCTREE_EXIT, child));
	proctree_free(t);
}

/* Watching a process with a chain of three below: all three at the
 * next poll, parents first, each once; the watched one is not NEW. */
static void test_initial_scan(bool netlink)
{
	static struct log lg;
	pid_t pids[4];
	size_t a, b, c;
	struct proctree *t;

	/* the tree after the forks: the connector cannot tell of them */
	hold_open();
	CHECK(spawn(4, false, pids) == 0);
	t = proctree_new(netlink);

	lg.n = 0;
	CHECK(proctree_watch(t, pids[0]) == 0);
	CHECK(proctree_watch(t, pids[0]) == 0); /* again: nothing more */
	wait_for(t, &lg, 0, false, PROCTREE_NEW, pids[3], WAIT_MS);
	wait_for(t, &lg, 0, false, PROCTREE_NEW, 0, 100);
	a = log_index(&lg, PROCTREE_NEW, pids[1]);
	b = log_index(&lg, PROCTREE_NEW, pids[2]);
	c = log_index(&lg, PROCTREE_NEW, pids[3]);
	CHECKF(a < b && b < c && c < MAX_LOG,
	       "%s: initial scan order %zu %zu %zu", proctree_method_name(t), a,
	       b, c);
	for (int i = 1; i < 4; i++)
		CHECK(log_count(&lg, PROCTREE_NEW, pids[i]) == 1);
	if (c < MAX_LOG)
		CHECK(lg.ev[b].ppid == pids[1] && lg.ev[c].ppid == pids[2]);
	CHECK(log_count(&lg, PROCTREE_NEW, pids[0]) == 0);
	check_only(&lg, pids, 4, proctree_method_name(t));
	hold_close(pids, 1);
	proctree_free(t);
}

/* Two trees, one watched: the other is never reported, through a full
 * second of polling (POLL's sweep) and its growing below. */
static void test_outsider(bool netlink)
{
	struct proctree *t = proctree_new(netlink);
	static struct log lg;
	pid_t in[2], out[2], tops[2];

	lg.n = 0;
	hold_open();
	CHECK(spawn(1, false, in) == 0);
	CHECK(proctree_watch(t, in[0]) == 0);
	wait_for(t, &lg, in[0], true, PROCTREE_NEW, 0, 30);
	CHECK(spawn(2, true, out) == 0);
	wait_for(t, &lg, in[0], true, PROCTREE_NEW, 0, 1200);
	CHECK(!log_find(&lg, PROCTREE_NEW, out[0]));
	CHECK(!log_find(&lg, PROCTREE_NEW, out[1]));
	CHECK(lg.n == 0);
	tops[0] = in[0];
	tops[1] = out[0];
	hold_close(tops, 2);
	proctree_free(t);
}

/* A NEW process forgotten: never NEW again, no EXIT. */
static void test_forget(bool netlink)
{
	struct proctree *t = proctree_new(netlink);
	static struct log lg;
	pid_t pids[1], self = getpid();

	lg.n = 0;
	hold_open();
	CHECK(proctree_watch(t, self) == 0);
	CHECK(spawn(1, false, pids) == 0);
	CHECK(wait_for(t, &lg, self, false, PROCTREE_NEW, pids[0], WAIT_MS));
	proctree_forget(t, pids[0]);
	wait_for(t, &lg, self, false, PROCTREE_NEW, 0, 100);
	hold_close(pids, 1);
	wait_for(t, &lg, self, false, PROCTREE_NEW, 0, 100);
	CHECK(log_count(&lg, PROCTREE_NEW, pids[0]) == 1);
	CHECK(log_count(&lg, PROCTREE_EXIT, pids[0]) == 0);
	proctree_free(t);
}

static void *last_thread(void *arg)
{
	char c;

	(void)!read(*(int *)arg, &c, 1);
	/* the last thread: the process exits.  Not by returning, which
	 * runs the exit handlers (LeakSanitizer's, which would take the
	 * test's inherited heap for leaks of this child). */
	syscall(SYS_exit, 0);
	return NULL;
}

static void leave_leader(int go_fd)
{
	static int fd;
	pthread_t th;

	fd = go_fd;
	pthread_create(&th, NULL, last_thread, &fd);
	pthread_exit(NULL);
}

/*
 * A process whose main thread called pthread_exit() lives on in its other
 * thread: no EXIT (though its leader exited) until that thread ends.
 */
static void test_leader_exit(bool netlink)
{
	struct proctree *t = proctree_new(netlink);
	static struct log lg;
	pid_t child, self = getpid();
	int go[2];

	lg.n = 0;
	CHECK(proctree_watch(t, self) == 0);
	child = fork_gated(leave_leader, go);
	CHECK(wait_for(t, &lg, self, true, PROCTREE_NEW, child, WAIT_MS));
	CHECKF(!wait_for(t, &lg, child, true, PROCTREE_EXIT, child, 300),
	       "%s: EXIT of %d, whose leader only exited",
	       proctree_method_name(t), (int)child);
	(void)!write(go[1], "g", 1);
	close(go[1]);
	CHECKF(wait_for(t, &lg, child, true, PROCTREE_EXIT, child, WAIT_MS),
	       "%s: no EXIT of %d after its last thread",
	       proctree_method_name(t), (int)child);
	waitpid(child, NULL, 0);
	proctree_free(t);
}

/*
 * NETLINK with a socket too small for the events of 50 forks: the lost
 * events (ENOBUFS) are made up for by a rescan, which finds the child
 * that lives, once.
 */
static void test_resync(void)
{
	struct proctree *t = proctree_new(true);
	struct proctree_counters c;
	static struct log lg;
	pid_t pids[1], self = getpid();
	int one = 1;

	lg.n = 0;
	hold_open();
	CHECK(proctree_watch(t, self) == 0);
	wait_for(t, &lg, self, true, PROCTREE_NEW, 0, 30);
	/* the kernel rounds it up to its minimum, a few events */
	CHECK(setsockopt(proctree_fd(t), SOL_SOCKET, SO_RCVBUF, &one,
			 sizeof(one)) == 0);
	for (int i = 0; i < 50; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	CHECK(spawn(1, false, pids) == 0);
	CHECK(wait_for(t, &lg, self, true, PROCTREE_NEW, pids[0], WAIT_MS));
	wait_for(t, &lg, self, true, PROCTREE_NEW, 0, 100);
	proctree_counters(t, &c);
	CHECKF(c.resyncs > 0, "no resync after 50 forks into a small socket");
	CHECK(log_count(&lg, PROCTREE_NEW, pids[0]) == 1);
	hold_close(pids, 1);
	proctree_free(t);
}

/* Every descriptor taken (RLIMIT_NOFILE lowered to 64 first): their
 * count in *n, the old limit in *old. */
static int *take_all_fds(size_t *n, struct rlimit *old)
{
	static int fds[64];
	struct rlimit low;
	int fd;

	*n = 0;
	CHECK(getrlimit(RLIMIT_NOFILE, old) == 0);
	low = *old;
	low.rlim_cur = 64;
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
	while (*n < 64 && (fd = dup(2)) >= 0)
		fds[(*n)++] = fd;
	return fds;
}

/* Out of descriptors, a watched process that lives is not reported
 * gone: /proc could not be read, which says nothing of it. */
static void test_no_fds(bool netlink)
{
	struct proctree *t = proctree_new(netlink);
	static struct log lg;
	struct rlimit old;
	pid_t pids[1];
	size_t n;
	int *fds;

	lg.n = 0;
	hold_open();
	CHECK(spawn(1, false, pids) == 0);
	CHECK(proctree_watch(t, pids[0]) == 0);
	wait_for(t, &lg, pids[0], true, PROCTREE_NEW, 0, 30);
	fds = take_all_fds(&n, &old);
	CHECK(dup(2) == -1 && errno == EMFILE);
	/* POLL visits it once a second, or when it ran. */
	wait_for(t, &lg, pids[0], true, PROCTREE_EXIT, pids[0], 1200);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	CHECKF(!log_find(&lg, PROCTREE_EXIT, pids[0]),
	       "%s: a live process reported gone when out of descriptors",
	       netlink ? "netlink" : "poll");
	hold_close(pids, 1);
	proctree_free(t);
}

/* The EXIT proctree_exited() queued for pid, reported NEW at fork_ns
 * (0: not from a FORK), with rec in the ring. */
static struct proctree_event ring_exit(pid_t pid, uint64_t fork_ns,
				       struct proctree_ts_rec rec)
{
	struct proctree *t = proctree_new(false);
	struct proctree_proc *p;
	struct proctree_event ev = { .pid = -1 };

	CHECK(t != NULL);
	if (!t)
		return ev;
	p = proctree_insert(t, pid, PT_REPORTED, 0);
	CHECK(p != NULL);
	if (p)
		p->fork_ns = fork_ns;
	t->ts_recent[7] = rec;
	CHECK(proctree_exited(t, pid) == 0 && t->qlen > t->qhead);
	if (t->qlen > t->qhead)
		ev = t->queue[t->qlen - 1];
	CHECK(ev.kind == PROCTREE_EXIT && ev.pid == pid);
	proctree_free(t);
	return ev;
}

/* PID reuse: an older process's record under the PID (a daemon that ran
 * an hour and exited; the PID counter wrapped) is not the new one's;
 * the new one's own record, read before its FORK, is. */
static void test_ts_ring(void)
{
	const pid_t pid = 4000001; /* none: no /proc is read */
	uint64_t now = mono_now_ns();
	struct proctree_ts_rec old = { .pid = pid,
				       .start_ns = now - 3600 * NSEC_PER_SEC,
				       .cpu_ns = 3000 * NSEC_PER_SEC,
				       .comm = "daemon" };
	struct proctree_ts_rec own = { .pid = pid,
				       .start_ns = now,
				       .cpu_ns = 12 * NSEC_PER_MSEC,
				       .comm = "cc1" };
	struct proctree_event ev;

	ev = ring_exit(pid, now, old);
	CHECKF(!ev.have_cpu, "an older process's record taken: %llu ns (%s)",
	       (unsigned long long)ev.cpu_ns, ev.comm);
	ev = ring_exit(pid, now, own);
	CHECKF(ev.have_cpu && ev.cpu_ns == own.cpu_ns &&
		       !strcmp(ev.comm, "cc1"),
	       "own record: %d %llu %s", ev.have_cpu,
	       (unsigned long long)ev.cpu_ns, ev.comm);
	/* Not reported by a FORK: its start unknown, the ring not used. */
	ev = ring_exit(pid, 0, own);
	CHECK(!ev.have_cpu);
}

static void run_all(bool netlink)
{
	test_no_fds(netlink);
	test_fork_tree(netlink);
	test_exec_exit(netlink, true);
	test_exec_exit(netlink, false);
	test_initial_scan(netlink);
	test_outsider(netlink);
	test_forget(netlink);
	test_leader_exit(netlink);
}

int main(void)
{
	struct proctree *t = proctree_new(true);
	struct proctree_counters c;

	signal(SIGPIPE, SIG_IGN);
	test_ts_ring();
	CHECKF(t != NULL, "proctree_new: %s", strerror(errno));
	if (!t)
		return unit_result("proctree");
	if (proctree_method(t) == PROCTREE_NETLINK) {
		CHECK(proctree_fd(t) >= 0);
		run_all(true);
		test_resync();
	} else {
		fprintf(stderr, "test_proctree: the connector refused "
				"(no CAP_NET_ADMIN before Linux 6.6, or a "
				"nested pid namespace): NETLINK not tested\n");
	}
	proctree_free(t);

	t = proctree_new(false);
	CHECK(t && proctree_method(t) == PROCTREE_POLL);
	CHECK(t && proctree_fd(t) == -1);
	proctree_free(t);
	run_all(false);

	t = proctree_new(false);
	CHECK(t && proctree_watch(t, getpid()) == 0);
	CHECK(t && proctree_poll(t, NULL, 0) == 0);
	proctree_counters(t, &c);
	CHECK(c.scans > 0 && c.events == 0);
	CHECK(t && proctree_watch(t, -1) == -1 && errno == EINVAL);
	proctree_free(t);
	return unit_result("proctree");
}
