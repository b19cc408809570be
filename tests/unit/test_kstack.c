/*
 * test_kstack - the /proc/TID/stack parser (kstack_parse()) on stacks
 * copied from a 6.18 kernel (sleep, a thread in a futex, in epoll_wait,
 * in a pipe read) and on hostile text (long lines, no newline, bytes out
 * of ASCII, escapes, 1,000 lines, empty); and kstack_read() on children
 * of its own: one blocked reading a pipe, one in nanosleep, one gone, and
 * as uid nobody (a child that drops its privileges): refused.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/kstack.h"
#include "unit.h"

static int parse(const char *s, struct kstack *k)
{
	return kstack_parse(s, strlen(s), k);
}

static int has_frame(const struct kstack *k, const char *prefix)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strncmp(k->frames[i], prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* Real samples: `cat /proc/PID/task/TID/stack`, kernel 6.18. */
static void check_samples(void)
{
	struct kstack k;

	CHECK(parse("[<0>] hrtimer_nanosleep+0xb5/0x130\n"
		    "[<0>] common_nsleep+0x30/0x60\n"
		    "[<0>] __x64_sys_clock_nanosleep+0xde/0x150\n"
		    "[<0>] do_syscall_64+0x71/0x290\n"
		    "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n",
		    &k) == 0);
	CHECKF(k.n == 3, "n %zu", k.n);
	CHECK(!strcmp(k.frames[0], "hrtimer_nanosleep+0xb5"));
	CHECK(!strcmp(k.frames[1], "common_nsleep+0x30"));
	CHECK(!strcmp(k.frames[2], "__x64_sys_clock_nanosleep+0xde"));

	CHECK(parse("[<0>] futex_do_wait+0x46/0x90\n"
		    "[<0>] __futex_wait+0x8a/0x100\n"
		    "[<0>] futex_wait+0x9a/0x150\n"
		    "[<0>] do_futex+0xfd/0x250\n"
		    "[<0>] __x64_sys_futex+0x12d/0x230\n"
		    "[<0>] do_syscall_64+0x71/0x290\n"
		    "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n",
		    &k) == 0);
	CHECK(k.n == 5 && !strcmp(k.frames[0], "futex_do_wait+0x46") &&
	      !strcmp(k.frames[4], "__x64_sys_futex+0x12d"));

	CHECK(parse("[<0>] do_epoll_wait+0x588/0x5e0\n"
		    "[<0>] __x64_sys_epoll_wait+0x6c/0x130\n"
		    "[<0>] do_syscall_64+0x71/0x290\n"
		    "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n",
		    &k) == 0);
	CHECK(k.n == 2 && !strcmp(k.frames[0], "do_epoll_wait+0x588"));

	CHECK(parse("[<0>] anon_pipe_read+0x393/0x440\n"
		    "[<0>] vfs_read+0x397/0x3d0\n"
		    "[<0>] ksys_read+0xc3/0xf0\n"
		    "[<0>] do_syscall_64+0x71/0x290\n"
		    "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n",
		    &k) == 0);
	CHECK(k.n == 3 && !strcmp(k.frames[2], "ksys_read+0xc3"));

	/* older kernels' real addresses; a module's function, with and
	 * without a build ID; compiler suffixes */
	CHECK(parse("[<ffffffffa0123456>] xfs_buf_lock+0x2d/0xe0 [xfs]\n"
		    "[<0>] nfs_wait_bit_killable+0x1e/0x90 [nfs "
		    "0123456789abcdef0123456789abcdef01234567]\n"
		    "[<0>] pipe_wait.isra.0+0x4/0x8\n"
		    "[<0>] x64_sys_call+0x10/0x20\n",
		    &k) == 0);
	CHECKF(k.n == 3, "n %zu", k.n);
	CHECK(!strcmp(k.frames[0], "xfs_buf_lock+0x2d [xfs]"));
	CHECK(!strcmp(k.frames[1], "nfs_wait_bit_killable+0x1e [nfs]"));
	CHECK(!strcmp(k.frames[2], "pipe_wait.isra.0+0x4"));

	/* an entry frame only at the bottom is dropped */
	CHECK(parse("[<0>] do_syscall_64+0x71/0x290\n"
		    "[<0>] foo+0x1/0x2\n",
		    &k) == 0);
	CHECK(k.n == 2 && !strcmp(k.frames[0], "do_syscall_64+0x71"));
}

static void check_hostile(void)
{
	static const char *const bad[] = {
		"[<0>] foo+0x1/0x2",	     /* no newline: a cut read */
		"\n",			     /* empty line */
		"[<0>] f\xc3\xa9+0x1/0x2\n", /* UTF-8 in the name */
		"[<0>] f\x1b[31m+0x1/0x2\n", /* an escape */
		"[<0>] foo+0x1/0x2\x7f\n",   /* DEL */
		"[<0>] foo+0x1/0x2 \n",	     /* a trailing blank */
		"[<0>] foo+0x1/0x2\r\n",     /* CR */
		"[<0>] foo+0x1A/0x2\n",	     /* %x prints lowercase */
		"[<0>] foo+0x/0x2\n",	     /* no digit */
		"[<0>] foo+0x1\n",	     /* no length */
		"[<0>] foo\n",		     /* no offset */
		"[<0>] +0x1/0x2\n",	     /* no name */
		"[<0>]  foo+0x1/0x2\n",	     /* two blanks */
		"[<0> foo+0x1/0x2\n",	     /* no ']' */
		"<0>] foo+0x1/0x2\n",	     /* no '[' */
		"[<>] foo+0x1/0x2\n",	     /* no address */
		"[<00000000000000000>] foo+0x1/0x2\n", /* 17 digits */
		"[<0>] foo+0x11111111111111111/0x2\n",
		"[<0>] foo+0x1/0x2 [xfs\n", /* module unclosed */
		"[<0>] foo+0x1/0x2 []\n",
		"[<0>] foo+0x1/0x2 [x y]\n", /* build ID not hex */
		"[<0>] foo+0x1/0x2 [xfs] x\n",
		"[<0>] 0xffffffffa0000000\n", /* no symbol */
		"[<0>] foo+0x1/0x2\n\n",      /* then an empty line */
	};
	struct kstack k;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int dropped = parse(bad[i], &k);

		/* the last one keeps its frame and drops the empty line */
		if (i == sizeof(bad) / sizeof(bad[0]) - 1)
			CHECKF(k.n == 1 && dropped == 1, "bad[%zu]", i);
		else
			CHECKF(k.n == 0 && dropped == 1,
			       "bad[%zu] kept: n %zu dropped %d", i, k.n,
			       dropped);
	}

	/* a NUL inside a line (len counts it) */
	CHECK(kstack_parse("[<0>] fo\0o+0x1/0x2\n", 19, &k) == 1 && k.n == 0);
	/* nothing past len is read: the frame is cut, so dropped */
	CHECK(kstack_parse("[<0>] foo+0x1/0x2\n", 12, &k) == 1 && k.n == 0);
	/* empty */
	CHECK(kstack_parse("", 0, &k) == 0 && k.n == 0);

	/* a long line, dropped whole; the next line kept */
	{
		size_t n = 100000;
		char *s = malloc(n + 64);

		CHECK(s != NULL);
		if (s) {
			memcpy(s, "[<0>] ", 6);
			memset(s + 6, 'a', n);
			strcpy(s + 6 + n, "+0x1/0x2\n[<0>] bar+0x3/0x4\n");
			CHECK(parse(s, &k) == 1 && k.n == 1 &&
			      !strcmp(k.frames[0], "bar+0x3"));
			free(s);
		}
	}

	/* the longest frame that fits (79 bytes and the NUL), and one more */
	{
		char line[200], name[100];

		memset(name, 'n', 75);
		name[75] = '\0'; /* 75 + "+0x1" = 79 */
		snprintf(line, sizeof(line), "[<0>] %s+0x1/0x2\n", name);
		CHECK(parse(line, &k) == 0 && k.n == 1 &&
		      strlen(k.frames[0]) == KSTACK_NAME_MAX - 1);
		snprintf(line, sizeof(line), "[<0>] %sn+0x1/0x2\n", name);
		CHECK(parse(line, &k) == 1 && k.n == 0);
	}

	/* 1,000 lines: the innermost KSTACK_MAX kept, all in bounds */
	{
		size_t cap = 1000 * 32, len = 0;
		char *s = malloc(cap);

		CHECK(s != NULL);
		if (s) {
			for (int i = 0; i < 1000; i++)
				len += (size_t)snprintf(s + len, cap - len,
							"[<0>] f%d+0x%x/0x10\n",
							i, i);
			CHECK(kstack_parse(s, len, &k) == 0 &&
			      k.n == KSTACK_MAX);
			CHECK(!strcmp(k.frames[0], "f0+0x0") &&
			      !strcmp(k.frames[KSTACK_MAX - 1], "f47+0x2f"));
			free(s);
		}
	}

	/* every byte kept is printable ASCII: bytes 1..255 in a name */
	for (int c = 1; c < 256; c++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "[<0>] a%cb+0x1/0x2\n", c);
		int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '.' ||
			   c == '$';

		kstack_parse(line, (size_t)n, &k);
		CHECKF(k.n == (size_t)keep, "byte 0x%02x: n %zu", c, k.n);
	}
}

/*
 * The kernel stack of tid, once it holds a frame starting with one of
 * the prefixes (the child may not be asleep yet; EAGAIN: it ran between
 * the two readings).  Bounded: at most 20 s on a busy machine.
 */
static int read_until(pid_t pid, const char *const *prefixes, size_t np,
		      struct kstack *k)
{
	for (int i = 0; i < 2000; i++) {
		if (kstack_read(pid, pid, k) == 0)
			for (size_t j = 0; j < np; j++)
				if (has_frame(k, prefixes[j]))
					return 0;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return -1;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void dump_frames(const struct kstack *k)
{
	for (size_t i = 0; i < k->n; i++)
		fprintf(stderr, "  frame %zu: %s\n", i, k->frames[i]);
}

static void check_pipe_read(void)
{
	static const char *const want[] = { "pipe_read", "anon_pipe_read",
					    "pipe_wait" };
	struct kstack k;
	int fds[2];
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		char c;

		close(fds[1]);
		(void)!read(fds[0], &c, 1);
		_exit(0);
	}
	close(fds[0]);
	CHECK(read_until(pid, want, 3, &k) == 0);
	/* the entry frames at the bottom are gone, the read's are there */
	CHECK(k.n > 0 && strncmp(k.frames[k.n - 1], "do_syscall_64", 13) &&
	      strncmp(k.frames[k.n - 1], "entry_SYSCALL", 13));
	CHECK(has_frame(&k, "ksys_read") || has_frame(&k, "vfs_read"));
	if (unit_failures)
		dump_frames(&k);
	stop_child(pid);
	close(fds[1]);
}

static void check_nanosleep(void)
{
	static const char *const want[] = { "hrtimer_nanosleep" };
	struct kstack k;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		nanosleep(&(struct timespec){ 600, 0 }, NULL);
		_exit(0);
	}
	CHECK(read_until(pid, want, 1, &k) == 0);
	CHECK(k.n > 0 && !strncmp(k.frames[0], "hrtimer_nanosleep+0x", 20));
	stop_child(pid);
}

static void check_gone(void)
{
	struct kstack k;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	k.n = 7;
	errno = 0;
	CHECK(kstack_read(pid, pid, &k) == -1);
	CHECKF(errno == ENOENT || errno == ESRCH, "errno %d", errno);
	CHECK(k.n == 0);
	errno = 0;
	CHECK(kstack_read(0, 1, &k) == -1 && errno == EINVAL);
	CHECK(kstack_read(getpid(), -1, &k) == -1 && errno == EINVAL);
}

/* As uid nobody: another's stack (the parent's, root's) and its own are
 * refused, as kstack_available() says.  The child's exit code tells. */
static void check_nobody(void)
{
	pid_t parent = getpid(), pid = fork();
	int status = 0;

	CHECK(pid >= 0);
	if (pid == 0) {
		struct kstack k;
		int bad = 0;

		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		errno = 0;
		if (kstack_read(parent, parent, &k) != -1 ||
		    (errno != EACCES && errno != EPERM) || k.n)
			bad |= 1;
		errno = 0;
		if (kstack_read(getpid(), getpid(), &k) != -1 ||
		    (errno != EACCES && errno != EPERM))
			bad |= 2;
		errno = 0;
		if (kstack_available(0) != -1 ||
		    (errno != EACCES && errno != EPERM))
			bad |= 4;
		if (kstack_available(parent) != -1 ||
		    (errno != EACCES && errno != EPERM))
			bad |= 8;
		_exit(bad);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "nobody's child: status 0x%x", status);
}

int main(void)
{
	check_samples();
	check_hostile();
	if (geteuid() != 0) {
		/* as anyone but root the reads are refused: that much */
		struct kstack k;

		CHECK(kstack_read(getpid(), getpid(), &k) == -1 &&
		      (errno == EACCES || errno == EPERM));
		fprintf(stderr, "test_kstack: not root, reads not tested\n");
		return unit_result("test_kstack");
	}
	CHECKF(kstack_available(0) == 0, "errno %d", errno);
	CHECK(kstack_available(getpid()) == 0);
	check_pipe_read();
	check_nanosleep();
	check_gone();
	check_nobody();
	return unit_result("test_kstack");
}
