/*
 * rootopen.c - a file under a process's root, opened as that process
 * could (see rootopen.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/rootopen.h"
#include "util/safeopen.h"
#include "util/timeutil.h"

/* Whether pid is in our mount namespace: the same ns inode (and device,
 * nsfs's).  Not known (pid gone, no /proc/PID/ns): no. */
static bool same_mntns(pid_t pid)
{
	struct stat self, them;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return stat("/proc/self/ns/mnt", &self) == 0 &&
	       stat(path, &them) == 0 && self.st_ino == them.st_ino &&
	       self.st_dev == them.st_dev;
}

/*
 * Whether rootfd is our own root directory: the same mount (its ID, so
 * a namespace's copy of our root mount is not it) and the same inode.
 * A process in our mount namespace can still have another root: after
 * unshare(CLONE_NEWUSER) it may chroot() (CAP_SYS_CHROOT in its own user
 * namespace) into a directory of another mount namespace it made, such
 * as /proc/CHILD/root, where it has bound what it likes, FUSE included;
 * /proc/PID/root then leads there, though /proc/PID/ns/mnt is ours.
 * AT_STATX_DONT_SYNC: attributes as cached, no question to a FUSE or
 * network server.  Not known (no STATX_MNT_ID before Linux 5.8): no.
 */
static bool our_root(int rootfd)
{
	const unsigned int want = STATX_INO | STATX_MNT_ID;
	struct statx a, b;

	return statx(rootfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, want,
		     &a) == 0 &&
	       statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, want, &b) == 0 &&
	       (a.stx_mask & want) == want && (b.stx_mask & want) == want &&
	       a.stx_mnt_id == b.stx_mnt_id && a.stx_ino == b.stx_ino &&
	       a.stx_dev_major == b.stx_dev_major &&
	       a.stx_dev_minor == b.stx_dev_minor;
}

/* The child's word: e (0 or an errno), and with e 0 the fstat() of the
 * file it opened (its owner and mode, for the caller's checks: the
 * descriptor sent is a copy's). */
struct answer {
	int e;
	struct stat st;
};

/* One answer: a->e, and fd when a->e is 0. */
static void send_answer(int sock, int fd, struct answer *a)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { a, sizeof(*a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (!a->e) {
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/*
 * fd's first size bytes copied into a new memfd, rewound: the descriptor
 * the parent gets, so that its fstat() and reads never reach the file's
 * filesystem (a FUSE server the process runs may stop answering: a read
 * of the file itself could then hold ptprof for good).  -1 with errno.
 */
static int copy_to_memfd(int fd, off_t size)
{
	char buf[65536];
	int m = (int)syscall(SYS_memfd_create, "ptprof-rootopen", MFD_CLOEXEC);
	off_t done = 0;

	if (m < 0)
		return -1;
	while (done < size) {
		size_t want = (size_t)(size - done) < sizeof(buf) ?
				      (size_t)(size - done) :
				      sizeof(buf);
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* shorter than it was: what there was */
			break;
		for (ssize_t w = 0, k; w < n; w += k) {
			k = write(m, buf + w, (size_t)(n - w));
			if (k < 0 && errno == EINTR)
				k = 0;
			else if (k < 0) {
				close(m);
				return -1;
			}
		}
		done += n;
	}
	if (lseek(m, 0, SEEK_SET) < 0) {
		close(m);
		return -1;
	}
	return m;
}

/* Every descriptor of ours closed in the child but a and b (a < b): a
 * child stuck in the kernel must not hold ptprof's output and pidfds. */
static void close_others(int a, int b)
{
#ifdef SYS_close_range
	if (a > 3)
		syscall(SYS_close_range, 3u, (unsigned)a - 1, 0u);
	if (b > a + 1)
		syscall(SYS_close_range, (unsigned)a + 1, (unsigned)b - 1, 0u);
	syscall(SYS_close_range, (unsigned)b + 1, ~0u, 0u);
#else
	(void)a;
	(void)b;
#endif
}

/*
 * The child: every signal blocked (a Ctrl-C meant for ptprof is not its
 * business; SIGKILL still ends it), killed with ptprof, down to uid:gid
 * with raw system calls (after fork() in a threaded process glibc's
 * set*id wrappers would wait for threads the child does not have), the
 * file opened, the answer sent; then it waits for the parent to close
 * its end, so that it cannot exit (and be reaped by another waitpid)
 * before the parent holds its pidfd.
 */
static void __attribute__((noreturn))
child(int sock, int rootfd, const char *rel, uid_t uid, gid_t gid)
{
	sigset_t all;
	struct answer a = { 0 };
	int fd = -1, m = -1, e = 0;
	char c;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	close_others(sock < rootfd ? sock : rootfd,
		     sock < rootfd ? rootfd : sock);
	/* an unprivileged ptprof cannot drop its groups, which are its own
	 * user's: it keeps them (and cannot take another uid below) */
	if (syscall(SYS_setgroups, 0, NULL) && (errno != EPERM || !geteuid()))
		e = errno;
	else if (syscall(SYS_setresgid, gid, gid, gid) ||
		 syscall(SYS_setresuid, uid, uid, uid))
		e = errno;
	if (!e) {
		/* after the credential change, which clears it (prctl(2)):
		 * set before, it was gone by the time a walk could hang */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = safeopen_read(rootfd, rel, SAFEOPEN_IN_ROOT, 0, &a.st);
		if (fd < 0)
			e = errno;
		else if (a.st.st_size < 0 ||
			 a.st.st_size > (off_t)ROOTOPEN_MAX_COPY)
			e = EFBIG;
		else if ((m = copy_to_memfd(fd, a.st.st_size)) < 0)
			e = errno;
	}
	a.e = e;
	send_answer(sock, m, &a);
	while (read(sock, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* The child's answer within ms: a descriptor (and the file's fstat()
 * in *st), or -1 with errno. */
static int recv_answer(int sock, int ms, struct stat *st)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct pollfd pf = { .fd = sock, .events = POLLIN };
	uint64_t end = mono_now_ns() + (uint64_t)ms * NSEC_PER_MSEC, now;
	struct answer a = { .e = 0 };
	int fd = -1, r;
	struct iovec iov = { &a, sizeof(a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	do {
		now = mono_now_ns();
		r = now >= end ? 0 :
				 poll(&pf, 1,
				      (int)((end - now + NSEC_PER_MSEC - 1) /
					    NSEC_PER_MSEC));
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		errno = r ? errno : ETIMEDOUT;
		return -1;
	}
	msg.msg_control = c.buf;
	msg.msg_controllen = sizeof(c.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd >= 0 && n == (ssize_t)sizeof(a) && !a.e) {
		*st = a.st;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	/* the child died before it answered (n 0): it was refused
	 * something it needs, as far as anyone can tell */
	errno = n == (ssize_t)sizeof(a) && a.e ? a.e : EPERM;
	return -1;
}

/* The child pid ended (killed first if kill_it), and reaped if it ends
 * within ROOTOPEN_REAP_MS; through pidfd when there is one. */
static void reap(pid_t pid, int pidfd, bool kill_it)
{
	struct pollfd pf = { .fd = pidfd, .events = POLLIN };
	siginfo_t si;

	if (kill_it) {
		if (pidfd >= 0)
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		else
			kill(pid, SIGKILL);
	}
	if (pidfd >= 0) {
		while (poll(&pf, 1, ROOTOPEN_REAP_MS) < 0 && errno == EINTR)
			;
		waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si,
		       WEXITED | WNOHANG | __WALL);
		close(pidfd);
		return;
	}
	/* no pidfd (before Linux 5.3): the PID is still the child's until
	 * someone reaps it, which the first waitpid() that succeeds does */
	for (int i = 0; i < ROOTOPEN_REAP_MS / 10; i++) {
		pid_t r = waitpid(pid, NULL, WNOHANG | __WALL);

		if (r != 0 && !(r < 0 && errno == EINTR))
			break;
		usleep(10 * 1000);
	}
}

/* rel under rootfd as uid:gid, in a child (rootopen.h). */
static int open_as(int rootfd, const char *rel, uid_t uid, gid_t gid,
		   struct stat *st)
{
	int sv[2], fd, e, pidfd;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], rootfd, rel, uid, gid);
	}
	close(sv[1]);
	/* before the child can exit: it waits for sv[0] to close */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = recv_answer(sv[0], ROOTOPEN_WAIT_MS, st);
	e = errno;
	close(sv[0]);
	reap(pid, pidfd, fd < 0 && e == ETIMEDOUT);
	errno = e;
	return fd;
}

int rootopen_read(pid_t pid, int rootfd, const char *rel, uid_t uid, gid_t gid,
		  struct stat *st)
{
	struct stat buf;

	if (!st)
		st = &buf;
	/* Directly only for a process of our own uid, namespace and root:
	 * another user's process could have mounted a FUSE file system of
	 * its own over the file (fusermount lets a user mount on a file he
	 * owns), whose server then holds an fstat() or read of ours. */
	if (pid <= 0 ||
	    (uid == geteuid() && same_mntns(pid) && our_root(rootfd)))
		return safeopen_read(rootfd, rel, SAFEOPEN_IN_ROOT, 0, st);
	return open_as(rootfd, rel, uid, gid, st);
}
