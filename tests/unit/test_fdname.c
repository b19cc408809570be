/*
 * test_fdname.c - wait/fdname.c: a target's descriptors named.
 *
 * The test forks a target (comm "fdn-target") that makes, and reports
 * over a pipe: pipe A (it reads, its child "fdn-writer" writes), pipe B
 * (it reads and holds the write end itself, as does the child: the
 * "nobody else writes" bug), pipe D (it writes, the test reads), a
 * socketpair whose other end the child holds, a TCP listener and an
 * established connection on 127.0.0.1 with 5 bytes unread, a UDP socket,
 * a file at offset 42 whose name has a newline and an escape in it, a
 * unix socket bound to a path that forges a row of /proc/net/unix for
 * another socketpair's inode, an epoll set of pipe A, the UDP socket and
 * pipe E's read end, whose number then holds /dev/null (the pipe kept
 * open by a dup: still registered),
 * and 10,000 more descriptors.  Then it waits on a control pipe: one
 * byte closes the file, the next exits.  The test kills only the two
 * processes it started, by PID.  Two contexts share one /proc scan made
 * under a second apart; fdname_scan_release() makes the next one anew.
 * Covers: fdname_net
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "wait/fdname.h"

#define EXTRA_FDS 10000

struct report {
	int ok;
	pid_t writer; /* the target's child */
	int a_rd, b_rd, d_wr, sp, lst, est, udp, file, epfd, forged, named;
	int lst6;   /* -1: no IPv6 here */
	int reused; /* registered in epfd, then made /dev/null */
	int nfds;   /* descriptors open in all */
	unsigned long a_ino, b_ino, d_ino, f_ino; /* f: the forged-for pair */
	unsigned port, cport, uport, port6;
	char path[128], sockpath[128];
};

static char dir[] = "/tmp/fdnameXXXXXX";

static void die(const char *what)
{
	perror(what);
	_exit(2);
}

static unsigned long ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);

	return getsockname(fd, (struct sockaddr *)&a, &l) ? 0 :
							    ntohs(a.sin_port);
}

static int inet_sock(int type)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	return fd;
}

/* The target: never returns. */
static void target(int rep, int ctl, int d_wr)
{
	struct report r = { .d_wr = d_wr };
	int a[2], b[2], sp[2], fp[2], cfd, ep, dummy = 0;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	struct rlimit rl;
	char c;

	prctl(PR_SET_NAME, "fdn-target");
	if (pipe(a) || pipe(b) || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, fp))
		die("pipe");
	r.writer = fork();
	if (r.writer < 0)
		die("fork");
	if (r.writer == 0) { /* holds A's and B's write ends, sp[1] */
		prctl(PR_SET_NAME, "fdn-writer");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(a[0]);
		close(b[0]);
		close(sp[0]);
		close(fp[0]);
		close(fp[1]);
		for (;;)
			pause();
	}
	close(a[1]);
	close(sp[1]);
	r.a_rd = a[0];
	r.b_rd = b[0];
	r.sp = sp[0];
	r.a_ino = ino_of(a[0]);
	r.b_ino = ino_of(b[0]);
	r.d_ino = ino_of(d_wr);
	r.f_ino = ino_of(fp[0]);
	r.forged = fp[0];

	r.lst = inet_sock(SOCK_STREAM);
	if (listen(r.lst, 4))
		die("listen");
	r.port = port_of(r.lst);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	peer = (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons((uint16_t)r.port),
				     .sin_addr.s_addr = htonl(
					     INADDR_LOOPBACK) };
	if (connect(cfd, (struct sockaddr *)&peer, sizeof(peer)))
		die("connect");
	r.cport = port_of(cfd);
	r.est = accept(r.lst, (struct sockaddr *)&peer, &pl);
	if (r.est < 0 || write(cfd, "hello", 5) != 5)
		die("accept");
	/* the 5 bytes are in est's receive queue before we say ready */
	for (int i = 0; i < 1000; i++) {
		int q = 0;

		if (ioctl(r.est, FIONREAD, &q) == 0 && q == 5)
			break;
		usleep(1000);
	}
	{ /* a TCP listener on ::1, where the machine has IPv6 */
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
					   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		socklen_t l6 = sizeof(a6);

		r.lst6 = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (r.lst6 >= 0 &&
		    (bind(r.lst6, (struct sockaddr *)&a6, sizeof(a6)) ||
		     listen(r.lst6, 1) ||
		     getsockname(r.lst6, (struct sockaddr *)&a6, &l6))) {
			close(r.lst6);
			r.lst6 = -1;
		}
		r.port6 = ntohs(a6.sin6_port);
	}
	r.udp = inet_sock(SOCK_DGRAM);
	r.uport = port_of(r.udp);

	/* a file named with a newline and an escape, at offset 42 */
	snprintf(r.path, sizeof(r.path), "%s/evil\nname\x1b[31m", dir);
	r.file = open(r.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r.file < 0 || write(r.file, dir, 10) != 10 ||
	    lseek(r.file, 42, SEEK_SET) != 42)
		die("file");

	/* a unix socket bound to a path that forges a row for fp's inode */
	snprintf(r.sockpath, sizeof(r.sockpath),
		 "%s/u\n0000000000000000: 00000002 00000000 00000000 0001 "
		 "03 %lu forged",
		 dir, r.f_ino);
	memcpy(un.sun_path, r.sockpath, strlen(r.sockpath));
	r.named = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (r.named < 0 ||
	    bind(r.named, (struct sockaddr *)&un,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			     strlen(r.sockpath))) ||
	    listen(r.named, 1))
		die("bind unix");

	ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN };
	ev.data.fd = r.a_rd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, r.a_rd, &ev))
		die("epoll");
	ev.data.fd = r.udp;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, r.udp, &ev))
		die("epoll");
	r.epfd = ep;
	{
		int e[2], null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || pipe2(e, O_CLOEXEC))
			die("pipe E");
		ev.data.fd = r.reused = e[0];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, e[0], &ev) ||
		    fcntl(e[0], F_DUPFD_CLOEXEC, 0) < 0 ||
		    dup3(null, e[0], O_CLOEXEC) != e[0])
			die("reuse");
		close(null);
	}

	/* 10,000 more: the file, dup'd (RLIMIT_NOFILE raised as needed) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < EXTRA_FDS + 200) {
		rl.rlim_cur = EXTRA_FDS + 200;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	r.nfds = 0;
	for (int i = 0; i < EXTRA_FDS && fcntl(r.file, F_DUPFD_CLOEXEC, 0) >= 0;
	     i++)
		r.nfds++;
	r.ok = 1;
	if (write(rep, &r, sizeof(r)) != (ssize_t)sizeof(r))
		die("report");
	/* one byte: close the file; the next (or the end): exit */
	if (read(ctl, &c, 1) == 1) {
		close(r.file);
		dummy = write(rep, "c", 1) == 1;
	}
	if (read(ctl, &c, 1) < 0)
		dummy = 0;
	_exit(dummy ? 0 : 1);
}

static int describe(struct fdname_ctx *c, int fd, enum fdname_want want,
		    char *name, pid_t *peers)
{
	struct wait_fd out;
	int rc;

	memset(&out, 'x', sizeof(out));
	rc = fdname_describe(c, fd, want, &out, peers, peers ? 4 : 0);
	CHECK(out.fd == fd);
	CHECK(memchr(out.name, '\0', sizeof(out.name)) != NULL);
	snprintf(name, sizeof(out.name), "%s", out.name);
	return rc;
}

#define EXPECT(c, fd, want, ...)                                             \
	do {                                                                 \
		char got_[200], exp_[400];                                   \
		snprintf(exp_, sizeof(exp_), __VA_ARGS__);                   \
		CHECK(describe(c, fd, want, got_, NULL) == 0);               \
		CHECKF(strcmp(got_, exp_) == 0, "fd %d: \"%s\", not \"%s\"", \
		       fd, got_, exp_);                                      \
	} while (0)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	int rep[2], ctl[2], d[2];
	struct report r;
	pid_t pid, self = getpid(), peers[4];
	struct fdname_ctx *c;
	struct wait_fd eps[8];
	char name[200], me[64];
	size_t more, n;
	double t0, t1;

	if (!mkdtemp(dir) || pipe(rep) || pipe(ctl) || pipe(d))
		return 99;
	pid = fork();
	if (pid < 0)
		return 99;
	if (pid == 0) {
		close(rep[0]);
		close(ctl[1]);
		close(d[0]);
		target(rep[1], ctl[0], d[1]);
	}
	close(rep[1]);
	close(ctl[0]);
	close(d[1]);
	if (read(rep[0], &r, sizeof(r)) != (ssize_t)sizeof(r) || !r.ok) {
		fprintf(stderr, "the target did not start\n");
		kill(pid, SIGKILL);
		return 99;
	}
	CHECKF(r.nfds == EXTRA_FDS, "%d extra descriptors", r.nfds);
	{
		char comm[32] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		if (!f || !fgets(comm, sizeof(comm), f))
			return 99;
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(me, sizeof(me), "%d (%s)", (int)self, comm);
	}

	/* the cost: a context, 8 descriptors, the machine's /proc scan */
	t0 = now_ms();
	c = fdname_ctx_new(pid);
	CHECK(c != NULL);
	for (int i = 0; i < 8; i++) {
		int fds[8] = { r.a_rd, r.b_rd, r.d_wr, r.sp,
			       r.lst,  r.est,  r.udp,  r.file };

		describe(c, fds[i], FDNAME_ANY, name, NULL);
	}
	t1 = now_ms();
	fdname_ctx_free(c);
	fprintf(stderr,
		"fdname_ctx_new + 8 descriptors of a target with %d: %.1f ms\n",
		r.nfds + 20, t1 - t0);

	/* the same, without a pipe or unix socket: no /proc scan */
	t0 = now_ms();
	c = fdname_ctx_new(pid);
	for (int i = 0; c && i < 8; i++) {
		int fds[4] = { r.lst, r.est, r.udp, r.file };

		describe(c, fds[i % 4], FDNAME_ANY, name, NULL);
	}
	t1 = now_ms();
	fdname_ctx_free(c);
	fprintf(stderr,
		"the same, 8 of TCP, UDP, file (no /proc scan): %.1f ms\n",
		t1 - t0);

	/* Shared: a context takes the scan another made under a second
	 * ago (a pipe made since is not in it); after fdname_scan_release()
	 * the next context scans anew.  The first half is checked only when
	 * the machine was quick enough for the scan to be still fresh. */
	{
		struct fdname_ctx *c2, *c3;
		int q[2];
		char want[200];

		c = fdname_ctx_new(pid);
		t0 = now_ms();
		describe(c, r.a_rd, FDNAME_READ, name, NULL);
		CHECK(pipe(q) == 0);
		c2 = fdname_ctx_new(self);
		describe(c2, q[0], FDNAME_READ, name, NULL);
		t1 = now_ms();
		snprintf(want, sizeof(want), "pipe:[%lu] no writer found",
			 ino_of(q[0]));
		CHECKF(t1 - t0 > 900 || strcmp(name, want) == 0,
		       "a shared scan: %s", name);
		fdname_scan_release();
		fdname_ctx_free(c); /* c's scan outlives the release */
		describe(c2, q[0], FDNAME_READ, name, NULL);
		c3 = fdname_ctx_new(self);
		describe(c3, q[0], FDNAME_READ, name, NULL);
		snprintf(want, sizeof(want), "pipe:[%lu] written by %s",
			 ino_of(q[0]), me);
		CHECKF(!strncmp(name, want, strlen(want)),
		       "after fdname_scan_release(): %s", name);
		fdname_ctx_free(c2);
		fdname_ctx_free(c3);
		close(q[0]);
		close(q[1]);
	}

	c = fdname_ctx_new(pid);
	/* pipes: their other end */
	EXPECT(c, r.a_rd, FDNAME_READ, "pipe:[%lu] written by %d (fdn-writer)",
	       r.a_ino, (int)r.writer);
	CHECK(describe(c, r.a_rd, FDNAME_READ, name, peers) == 0);
	CHECK(peers[0] == r.writer && peers[1] == 0);
	EXPECT(c, r.b_rd, FDNAME_READ,
	       "pipe:[%lu] written by %d (fdn-target) (this process), "
	       "%d (fdn-writer)",
	       r.b_ino, (int)pid, (int)r.writer);
	CHECK(describe(c, r.b_rd, FDNAME_ANY, name, peers) == 0);
	CHECK(peers[0] == pid && peers[1] == r.writer && peers[2] == 0);
	EXPECT(c, r.d_wr, FDNAME_WRITE, "pipe:[%lu] read by %s", r.d_ino, me);
	EXPECT(c, r.d_wr, FDNAME_ANY, "pipe:[%lu] read by %s", r.d_ino, me);

	/* sockets */
	EXPECT(c, r.lst, FDNAME_ANY, "TCP 127.0.0.1:%u LISTEN", r.port);
	EXPECT(c, r.est, FDNAME_READ,
	       "TCP 127.0.0.1:%u <- 127.0.0.1:%u ESTABLISHED rx 5 tx 0", r.port,
	       r.cport);
	if (r.lst6 >= 0)
		EXPECT(c, r.lst6, FDNAME_ANY, "TCP [::1]:%u LISTEN", r.port6);
	else
		fprintf(stderr, "no IPv6 on ::1: its check skipped\n");
	EXPECT(c, r.udp, FDNAME_ANY, "UDP 127.0.0.1:%u rx 0 tx 0", r.uport);
	EXPECT(c, r.sp, FDNAME_READ, "unix (unnamed) peer %d (fdn-writer)",
	       (int)r.writer);
	CHECK(describe(c, r.sp, FDNAME_READ, name, peers) == 0);
	CHECK(peers[0] == r.writer && peers[1] == 0);
	/* the forged row makes fp's inode show twice: not believed */
	EXPECT(c, r.forged, FDNAME_ANY,
	       "unix socket:[%lu] (its row forged) peer %d (fdn-target) "
	       "(this process)",
	       r.f_ino, (int)pid);
	/* the forging socket's own path, cut at its newline */
	EXPECT(c, r.named, FDNAME_ANY, "unix %s/u", dir);

	/* a file: its path raw (the writer escapes it), its offset */
	EXPECT(c, r.file, FDNAME_READ, "%s @42", r.path);

	/* epoll: the watched descriptors, or one and two more; a number
	 * registered, then reused for another file, is not described as
	 * that file */
	n = fdname_epoll(c, r.epfd, eps, 8, &more);
	CHECKF(n == 3 && more == 0, "%zu + %zu", n, more);
	for (size_t i = 0; i < n && i < 8; i++) {
		char exp[200];

		if (eps[i].fd == r.reused) {
			snprintf(exp, sizeof(exp),
				 "fd %d (not the one registered)", r.reused);
			CHECKF(strcmp(eps[i].name, exp) == 0, "%s",
			       eps[i].name);
			continue;
		}
		describe(c, eps[i].fd, FDNAME_ANY, exp, NULL);
		CHECK(eps[i].fd == r.a_rd || eps[i].fd == r.udp);
		CHECKF(strcmp(eps[i].name, exp) == 0, "%s", eps[i].name);
	}
	CHECK(fdname_epoll(c, r.epfd, eps, 1, &more) == 1 && more == 2);
	CHECK(fdname_epoll(c, r.file, eps, 8, &more) == 0 && more == 0);
	CHECK(fdname_epoll(c, 999999, eps, 8, &more) == 0 && more == 0);

	/* no such descriptor; one closed between two calls */
	errno = 0;
	CHECK(describe(c, 999999, FDNAME_ANY, name, peers) == -1);
	CHECK(errno == EBADF && peers[0] == 0);
	CHECK(strcmp(name, "fd 999999 (closed)") == 0);
	CHECK(describe(c, -1, FDNAME_ANY, name, NULL) == -1 && errno == EBADF);
	CHECK(describe(c, r.file, FDNAME_ANY, name, NULL) == 0);
	CHECK(write(ctl[1], "c", 1) == 1 && read(rep[0], name, 1) == 1);
	errno = 0;
	CHECK(describe(c, r.file, FDNAME_ANY, name, NULL) == -1);
	CHECK(errno == EBADF);

	/* the process gone */
	kill(r.writer, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	errno = 0;
	CHECK(describe(c, r.a_rd, FDNAME_READ, name, NULL) == -1);
	CHECKF(errno == ESRCH, "%s", strerror(errno));
	fdname_ctx_free(c);
	fdname_ctx_free(NULL);

	unlink(r.path);
	unlink(r.sockpath);
	rmdir(dir);
	return unit_result("test_fdname");
}
