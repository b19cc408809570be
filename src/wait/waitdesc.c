/*
 * waitdesc.c - a blocked thread's wait, from its system call (waitdesc.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "proc/kstack.h"
#include "proc/procfs.h"
#include "proc/vmread.h"
#include "util/timeutil.h"
#include "wait/fdname.h"
#include "wait/futexwait.h"
#include "wait/waitdesc.h"

struct waitdesc {
	pid_t pid;
	struct tidlist tl;	/* the threads, ascending */
	struct fdname_ctx *fdn; /* on first need */
	/* A process in another PID namespace (a container): glibc's lock
	 * words hold its own TIDs (NSpid), not ours.  ns[i] is the TID of
	 * host[i] there, ns ascending; NULL when the namespace is ours. */
	pid_t *ns, *host;
	size_t nns;
};

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

struct nspair {
	pid_t ns, host;
};

static int cmp_ns(const void *a, const void *b)
{
	pid_t x = ((const struct nspair *)a)->ns,
	      y = ((const struct nspair *)b)->ns;

	return (x > y) - (x < y);
}

/* Its threads' TIDs in its own PID namespace, if that is not ours
 * (NSpid of each thread's status).  A thread whose NSpid cannot be read
 * is left out: no lock can then be said to be held by it. */
static void map_namespace(struct waitdesc *wd)
{
	char path[64];
	struct stat ours, theirs;
	struct nspair *v;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)wd->pid);
	if (stat("/proc/self/ns/pid", &ours) || stat(path, &theirs) ||
	    (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev))
		return;
	v = calloc(wd->tl.n ? wd->tl.n : 1, sizeof(*v));
	wd->ns = calloc(wd->tl.n ? wd->tl.n : 1, sizeof(*wd->ns));
	wd->host = calloc(wd->tl.n ? wd->tl.n : 1, sizeof(*wd->host));
	if (!v || !wd->ns || !wd->host) {
		free(v);
		return; /* wd->ns set: every owner unknown, none believed */
	}
	for (size_t i = 0; i < wd->tl.n; i++) {
		struct procfs_status st;

		if (procfs_status_read(wd->pid, wd->tl.tids[i], &st) ||
		    !(st.have & PROCFS_HAVE_NSPID) || st.nspid <= 0)
			continue;
		v[wd->nns++] = (struct nspair){ st.nspid, wd->tl.tids[i] };
	}
	qsort(v, wd->nns, sizeof(*v), cmp_ns);
	for (size_t i = 0; i < wd->nns; i++) {
		wd->ns[i] = v[i].ns;
		wd->host[i] = v[i].host;
	}
	free(v);
}

/* The TID in its namespace of host thread tid, or 0. */
static pid_t ns_of(const struct waitdesc *wd, pid_t tid)
{
	for (size_t i = 0; i < wd->nns; i++)
		if (wd->host[i] == tid)
			return wd->ns[i];
	return 0;
}

/* Our TID of the thread its namespace calls tid, or 0. */
static pid_t host_of(const struct waitdesc *wd, pid_t tid)
{
	for (size_t i = 0; i < wd->nns; i++)
		if (wd->ns[i] == tid)
			return wd->host[i];
	return 0;
}

struct waitdesc *waitdesc_new(pid_t pid)
{
	struct waitdesc *wd = calloc(1, sizeof(*wd));

	if (!wd)
		return NULL;
	wd->pid = pid;
	if (procfs_list_tasks(pid, &wd->tl)) {
		int err = errno;

		free(wd);
		errno = err == ENOENT ? ESRCH : err;
		return NULL;
	}
	qsort(wd->tl.tids, wd->tl.n, sizeof(*wd->tl.tids), cmp_tid);
	map_namespace(wd);
	return wd;
}

void waitdesc_free(struct waitdesc *wd)
{
	if (!wd)
		return;
	free(wd->ns);
	free(wd->host);
	fdname_ctx_free(wd->fdn);
	procfs_tidlist_free(&wd->tl);
	free(wd);
}

/* The calls on one descriptor (argument 0), and what they do on it. */
static int fd_call(int64_t nr, enum fdname_want *want, bool *net)
{
	*net = false;
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
		*want = FDNAME_READ;
		return 1;
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
		*want = FDNAME_WRITE;
		return 1;
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
	case SYS_accept:
	case SYS_accept4:
		*want = FDNAME_READ;
		*net = true;
		return 1;
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_sendmmsg:
	case SYS_connect:
		*want = FDNAME_WRITE;
		*net = true;
		return 1;
	case SYS_flock:
	case SYS_fcntl:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_ioctl:
		*want = FDNAME_ANY;
		return 1;
	default:
		return 0;
	}
}

enum wait_kind waitdesc_kind_of_call(int64_t nr)
{
	enum fdname_want want;
	bool net;

	if (nr < 0)
		return WAIT_NONE;
	if (fd_call(nr, &want, &net))
		return net ? WAIT_NET : WAIT_IO;
	switch (nr) {
	case SYS_futex:
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
		return WAIT_FUTEX;
	case SYS_poll:
	case SYS_ppoll:
	case SYS_select:
	case SYS_pselect6:
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return WAIT_POLL;
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		return WAIT_SLEEP;
	case SYS_wait4:
	case SYS_waitid:
		return WAIT_CHILD;
	case SYS_pause:
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
		return WAIT_SIGNAL;
	default:
		return WAIT_SYSCALL;
	}
}

static struct fdname_ctx *fdn(struct waitdesc *wd)
{
	if (!wd->fdn)
		wd->fdn = fdname_ctx_new(wd->pid);
	return wd->fdn;
}

/* A call on one descriptor. */
static int on_fd(struct waitdesc *wd, enum fdname_want want,
		 struct wait_info *out, const char *verb)
{
	struct fdname_ctx *c = fdn(wd);
	int rc;

	if (!c)
		return -1;
	rc = fdname_describe(c, (int)out->args[0], want, &out->fds[0],
			     out->peers, WAIT_MAX_FDS);
	out->nfds = 1;
	snprintf(out->text, sizeof(out->text), "%s fd %d: %s", verb,
		 (int)out->args[0], out->fds[0].name);
	return rc;
}

/* A set of one descriptor (make's pselect on its jobserver pipe, a
 * poll on one socket, an epoll set of one): its name goes in the text,
 * as for a read, since the writers list the descriptors only when there
 * are two or more. */
static void name_single(struct wait_info *out)
{
	size_t len = strlen(out->text);

	if (out->nfds != 1 || out->fds_more || len >= sizeof(out->text))
		return;
	snprintf(out->text + len, sizeof(out->text) - len, ": fd %d %s",
		 out->fds[0].fd, out->fds[0].name);
}

/* poll/ppoll: the pollfd array (fd, events, revents: 8 bytes each). */
static int on_poll(struct waitdesc *wd, struct wait_info *out)
{
	struct {
		int32_t fd;
		int16_t events, revents;
	} pfd[WAIT_MAX_FDS];
	uint64_t n = out->args[1], take = n < WAIT_MAX_FDS ? n : WAIT_MAX_FDS;
	struct fdname_ctx *c = fdn(wd);

	snprintf(out->text, sizeof(out->text), "poll on %" PRIu64 " fd%s", n,
		 n == 1 ? "" : "s");
	if (!c || (take &&
		   vmread_all(wd->pid, out->args[0], pfd, take * sizeof(*pfd))))
		return -1;
	for (uint64_t i = 0; i < take; i++) {
		if (pfd[i].fd < 0)
			continue;
		fdname_describe(c, pfd[i].fd, FDNAME_ANY,
				&out->fds[out->nfds++], NULL, 0);
	}
	out->fds_more = n - take;
	name_single(out);
	return 0;
}

/* select/pselect6: the read and write sets (argument 1, 2), up to nfds. */
static int on_select(struct waitdesc *wd, struct wait_info *out)
{
	uint64_t nfds = out->args[0], bits[16];
	size_t words = (nfds + 63) / 64;
	struct fdname_ctx *c = fdn(wd);

	snprintf(out->text, sizeof(out->text), "select on fds below %" PRIu64,
		 nfds);
	if (!c)
		return -1;
	if (words > 16)
		words = 16;
	for (int set = 1; set <= 2; set++) {
		if (!out->args[set] || !words)
			continue;
		if (vmread_all(wd->pid, out->args[set], bits,
			       words * sizeof(*bits)))
			return -1;
		for (size_t b = 0; b < words * 64 && b < nfds; b++) {
			if (!(bits[b / 64] >> (b % 64) & 1))
				continue;
			if (out->nfds == WAIT_MAX_FDS) {
				out->fds_more++;
				continue;
			}
			fdname_describe(c, (int)b,
					set == 1 ? FDNAME_READ : FDNAME_WRITE,
					&out->fds[out->nfds++], NULL, 0);
		}
	}
	name_single(out);
	return 0;
}

static int on_epoll(struct waitdesc *wd, struct wait_info *out)
{
	struct fdname_ctx *c = fdn(wd);

	snprintf(out->text, sizeof(out->text), "epoll_wait on fd %d",
		 (int)out->args[0]);
	if (!c)
		return -1;
	out->nfds = fdname_epoll(c, (int)out->args[0], out->fds, WAIT_MAX_FDS,
				 &out->fds_more);
	snprintf(out->text, sizeof(out->text),
		 "epoll_wait on fd %d: %zu fd%s watched", (int)out->args[0],
		 out->nfds + out->fds_more,
		 out->nfds + out->fds_more == 1 ? "" : "s");
	name_single(out);
	return 0;
}

/* nanosleep(req, rem) / clock_nanosleep(clock, flags, req, rem). */
static int on_sleep(struct waitdesc *wd, struct wait_info *out)
{
	struct timespec req, now;
	bool abs = out->nr == SYS_clock_nanosleep && (out->args[1] & 1);
	uint64_t at = out->nr == SYS_clock_nanosleep ? out->args[2] :
						       out->args[0];
	clockid_t clock = out->nr == SYS_clock_nanosleep ?
				  (clockid_t)out->args[0] :
				  CLOCK_MONOTONIC;

	snprintf(out->text, sizeof(out->text), "sleep");
	if (vmread_all(wd->pid, at, &req, sizeof(req)) || req.tv_nsec < 0 ||
	    req.tv_nsec >= 1000000000L || req.tv_sec < 0)
		return -1;
	if (abs && clock_gettime(clock, &now) == 0) {
		/* A deadline is the target's to choose: seconds past a
		 * year away are said as such, not multiplied into an
		 * overflow. */
		int64_t secs = (int64_t)req.tv_sec - now.tv_sec;
		int64_t left = secs > 31536000 ?
				       INT64_C(31536000000000000) :
				       secs * 1000000000LL +
					       (req.tv_nsec - now.tv_nsec);

		snprintf(out->text, sizeof(out->text),
			 "sleep until a deadline %.3f s away",
			 left > 0 ? left / 1e9 : 0.0);
	} else {
		snprintf(out->text, sizeof(out->text),
			 "sleep of %.3f s (requested)",
			 req.tv_sec + req.tv_nsec / 1e9);
	}
	return 0;
}

static int on_child(struct waitdesc *wd, struct wait_info *out)
{
	/* wait4(pid, ...): > 0 one child, -1 any, 0 / < -1 a group;
	 * waitid(idtype, id, ...): P_PID 1. */
	int64_t who = (int64_t)(int32_t)out->args[0];

	(void)wd;
	if (out->nr == SYS_waitid)
		who = out->args[0] == 1 ? (int64_t)(int32_t)out->args[1] : -1;
	if (who > 0) {
		out->peers[0] = (pid_t)who;
		snprintf(out->text, sizeof(out->text), "wait for child %d",
			 (int)who);
	} else {
		snprintf(out->text, sizeof(out->text), "wait for any child");
	}
	return 0;
}

static int on_futex(struct waitdesc *wd, pid_t tid, enum wait_hint hint,
		    struct wait_info *out)
{
	struct futexwait_in in = { .pid = wd->pid,
				   .tid = tid,
				   .uaddr = out->args[0],
				   .op = out->args[1],
				   .val = out->args[2],
				   .hint = hint,
				   .tids = wd->tl.tids,
				   .ntids = wd->tl.n };
	char at[32], text[sizeof(out->text)], *p;
	pid_t ns_holder;
	int rc;

	if (!wd->ns)
		return futexwait_decode(&in, out);
	/* In another PID namespace: the words are read against its own
	 * TIDs, and the holder and the text given back in ours. */
	in.tid = ns_of(wd, tid);
	in.tids = wd->ns;
	in.ntids = wd->nns;
	rc = futexwait_decode(&in, out);
	ns_holder = out->holder;
	if (!ns_holder)
		return rc;
	out->holder = host_of(wd, ns_holder);
	snprintf(at, sizeof(at), "thread %d", (int)ns_holder);
	p = strstr(out->text, at);
	if (out->holder && p) {
		snprintf(text, sizeof(text), "%.*sthread %d%s",
			 (int)(p - out->text), out->text, (int)out->holder,
			 p + strlen(at));
		memcpy(out->text, text, sizeof(text));
	}
	return rc;
}

/*
 * restart_syscall: a nanosleep, a poll or a futex wait with a timeout,
 * interrupted by a stop (SIGSTOP and SIGCONT, a debugger's attach, a
 * ptrace stop of --no-peek) and resumed by the kernel from its restart
 * block, which /proc/TID/syscall does not show: it says 219 and
 * meaningless arguments.  The kernel stack (root only) names a poll or
 * futex wait continued, not a sleep (on 6.x its frames end at
 * do_syscall_64); the libc function the user stack is in (the hint)
 * names a sleep or a poll; else the text says what it can be.
 */
static int on_restart(pid_t pid, pid_t tid, enum wait_hint hint,
		      struct wait_info *out)
{
	static const struct {
		const char *frame;
		enum wait_kind kind;
		const char *text;
	} resumed[] = {
		{ "hrtimer_nanosleep_restart", WAIT_SLEEP, "sleep" },
		{ "do_restart_poll", WAIT_POLL, "poll" },
		{ "futex_wait_restart", WAIT_FUTEX, "futex wait" },
	};
	struct kstack *ks;

	out->kind = WAIT_SYSCALL;
	snprintf(out->text, sizeof(out->text),
		 "restart_syscall: a sleep, poll or futex wait with a timeout, "
		 "resumed after a stop");
	if (hint == WAIT_HINT_SLEEP || hint == WAIT_HINT_POLL) {
		out->kind = hint == WAIT_HINT_SLEEP ? WAIT_SLEEP : WAIT_POLL;
		snprintf(out->text, sizeof(out->text),
			 "%s resumed after a stop (restart_syscall: time left "
			 "unknown)",
			 hint == WAIT_HINT_SLEEP ? "sleep" : "poll");
		return 0;
	}
	ks = malloc(sizeof(*ks));
	if (!ks)
		return -1;
	if (kstack_read(pid, tid, ks) == 0) {
		for (size_t i = 0; i < ks->n; i++)
			for (size_t r = 0;
			     r < sizeof(resumed) / sizeof(*resumed); r++) {
				size_t len = strlen(resumed[r].frame);

				if (strncmp(ks->frames[i], resumed[r].frame,
					    len) ||
				    ks->frames[i][len] != '+')
					continue;
				out->kind = resumed[r].kind;
				snprintf(out->text, sizeof(out->text),
					 "%s resumed after a stop "
					 "(restart_syscall: time left unknown)",
					 resumed[r].text);
				free(ks);
				return 0;
			}
	}
	free(ks);
	return 0;
}

int waitdesc_thread(struct waitdesc *wd, pid_t tid,
		    const struct peek_syscall *sc, enum wait_hint hint,
		    struct wait_info *out)
{
	enum fdname_want want;
	bool net;

	memset(out, 0, sizeof(*out));
	out->nr = sc->nr;
	memcpy(out->args, sc->args, sizeof(out->args));
	out->kind = waitdesc_kind_of_call(sc->nr);
	if (out->kind == WAIT_NONE)
		return 0;
	if (fd_call(sc->nr, &want, &net))
		return on_fd(wd, want, out,
			     want == FDNAME_READ ?
				     (net ? "receive on" : "read on") :
			     want == FDNAME_WRITE ?
				     (net ? "send on" : "write on") :
				     "call on");
	switch (sc->nr) {
	case SYS_futex:
		return on_futex(wd, tid, hint, out);
	case SYS_poll:
	case SYS_ppoll:
		return on_poll(wd, out);
	case SYS_select:
	case SYS_pselect6:
		return on_select(wd, out);
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return on_epoll(wd, out);
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		return on_sleep(wd, out);
	case SYS_wait4:
	case SYS_waitid:
		return on_child(wd, out);
	case SYS_restart_syscall:
		return on_restart(wd->pid, tid, hint, out);
	case SYS_pause:
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
		/* nginx's master, a shell's wait builtin: named, not numbered */
		snprintf(out->text, sizeof(out->text), "%s for a signal",
			 sc->nr == SYS_pause	     ? "pause" :
			 sc->nr == SYS_rt_sigsuspend ? "sigsuspend" :
						       "sigtimedwait");
		return 0;
	default:
		if (wait_syscall_name(sc->nr))
			snprintf(out->text, sizeof(out->text),
				 "%s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64
				 ")",
				 wait_syscall_name(sc->nr), sc->args[0],
				 sc->args[1], sc->args[2]);
		else
			snprintf(out->text, sizeof(out->text),
				 "system call %" PRId64 "(0x%" PRIx64
				 ", 0x%" PRIx64 ", 0x%" PRIx64 ")",
				 sc->nr, sc->args[0], sc->args[1], sc->args[2]);
		return 0;
	}
}

int waitdesc_read(struct waitdesc *wd, pid_t tid, enum wait_hint hint,
		  struct wait_info *out)
{
	struct peek_syscall sc;
	int fd = -1, r = peek_read_syscall(wd->pid, tid, &fd, &sc);
	int err = errno;

	if (fd >= 0)
		close(fd);
	if (r <= 0) {
		memset(out, 0, sizeof(*out));
		out->nr = -1;
		errno = err;
		return r < 0 ? -1 : 0;
	}
	return waitdesc_thread(wd, tid, &sc, hint, out);
}
