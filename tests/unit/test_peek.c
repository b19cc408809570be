/*
 * test_peek - the /proc/TID/syscall parser (peek_parse_syscall()) on the
 * kernel's three forms and on garbage, and peek_thread() on real children:
 * one asleep in read() on a pipe (its PC and SP, checked against a ptrace
 * stop's registers afterwards), one spinning ("running"), one gone; and
 * kthreadd, a kernel thread (no user stack).  In that stop also
 * capture_thread_hint() (capture.h), whose copy before the registers hits
 * the SP or misses it: the capture is capture_thread()'s either way.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/maps.h"
#include "proc/peek.h"
#include "unit.h"

static int parse(const char *s, struct peek_syscall *out)
{
	return peek_parse_syscall(s, strlen(s), out);
}

static void check_parse(void)
{
	struct peek_syscall s;

	CHECK(parse("running\n", &s) == 0);
	CHECK(parse("7 0x7ffd1 0x1 0x2 0x0 0x0 0x0 0x7ffe0 0x7f12ab\n", &s) ==
	      1);
	CHECK(s.nr == 7 && s.args[0] == 0x7ffd1 && s.args[1] == 1 &&
	      s.args[2] == 2 && s.args[5] == 0);
	CHECK(s.sp == 0x7ffe0 && s.pc == 0x7f12ab);
	CHECK(parse("-1 0x7ffc2a1b3c40 0x55d0c0ffee01\n", &s) == 1);
	CHECK(s.nr == -1 && s.sp == 0x7ffc2a1b3c40 && s.pc == 0x55d0c0ffee01 &&
	      s.args[0] == 0);
	CHECK(parse("232 0xffffffffffffffff 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		    &s) == 1);
	CHECK(s.args[0] == UINT64_MAX);
	CHECK(parse("2147483647 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n", &s) == 1);

	/* garbage, each rejected with EINVAL */
	static const char *const bad[] = {
		"",
		"\n",
		"running",
		"running\nx",
		"Running\n",
		"7 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8", /* no newline */
		"7 0x1 0x2 0x3 0x4 0x5 0x6 0x7\n",   /* 7 fields */
		"7 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9\n",
		"-1 0x1\n",
		"-1 0x1 0x2 0x3\n",
		"-1 0x1  0x2\n",
		"-1 0x1 0x2 \n",
		" -1 0x1 0x2\n",
		"-1 0x1 0x2\n\n",
		"- 0x1 0x2\n",
		"--1 0x1 0x2\n",
		"-1 1 0x2\n",
		"-1 0x 0x2\n",
		"-1 0X1 0x2\n",
		"-1 0x1A 0x2\n",
		"-1 0x1g 0x2\n",
		"-1 0x10000000000000000 0x2\n", /* 17 digits */
		"-1 -0x1 0x2\n",
		"2147483648 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		"-2147483649 0x1 0x2\n",
		"99999999999 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		"x7 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
		"7\t0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		CHECKF(parse(bad[i], &s) == -1 && errno == EINVAL,
		       "accepted \"%s\"", bad[i]);
	}
	/* a NUL inside, and a length past the longest line */
	CHECK(peek_parse_syscall("-1 0x1\0 0x2\n", 12, &s) == -1);
	char big[400];
	memset(big, '0', sizeof(big));
	memcpy(big, "-1 0x", 5);
	big[sizeof(big) - 1] = '\n';
	CHECK(peek_parse_syscall(big, sizeof(big), &s) == -1);
}

/* pid's maps, or NULL. */
static struct maps *read_maps(pid_t pid)
{
	static char buf[1 << 16];
	char path[64];
	struct maps *m = maps_new();
	ssize_t len = 0, got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !m) {
		maps_free(m);
		return NULL;
	}
	while ((got = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += got;
	close(fd);
	if (maps_update(m, buf, (size_t)len)) {
		maps_free(m);
		return NULL;
	}
	return m;
}

/* capture_thread_hint() of stopped pid with hint: want's capture, and
 * hint_missed as said. */
static void check_hint_one(pid_t pid, const struct maps *m, uint64_t hint,
			   bool missed, const struct capture *want)
{
	struct capture *c = capture_new();

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(capture_thread_hint(pid, m, hint, c) == 0);
	CHECKF(c->hint_missed == missed, "hint %#llx, sp %#llx: missed %d",
	       (unsigned long long)hint, want->regs.rsp, (int)c->hint_missed);
	CHECK(c->regs.rip == want->regs.rip && c->regs.rsp == want->regs.rsp);
	CHECK(c->stack_start == want->stack_start);
	CHECKF(c->stack_len == want->stack_len &&
		       !memcmp(c->stack + c->stack_skip,
			       want->stack + want->stack_skip, want->stack_len),
	       "hint %#llx: %zu bytes, capture_thread() %zu",
	       (unsigned long long)hint, c->stack_len, want->stack_len);
	capture_free(c);
}

static void check_hint(pid_t pid)
{
	struct maps *m = read_maps(pid);
	struct capture *want = capture_new();
	const struct map_entry *e;
	uint64_t sp;

	CHECK(m && want);
	if (!m || !want || capture_thread(pid, m, want)) {
		maps_free(m);
		capture_free(want);
		return;
	}
	sp = want->regs.rsp;
	e = maps_find(m, sp);
	CHECK(e && want->stack_len == e->end - sp);
	check_hint_one(pid, m, 0, false, want);	      /* no hint */
	check_hint_one(pid, m, sp, false, want);      /* 4 KiB above from */
	check_hint_one(pid, m, sp + 64, false, want); /* inside the copy */
	check_hint_one(pid, m, 8, false, want);	      /* in no mapping */
	/* from above the SP: copied again from it */
	if (e && e->end - sp > CAPTURE_HINT_SLACK + 64)
		check_hint_one(pid, m, sp + CAPTURE_HINT_SLACK + 64, true,
			       want);
	maps_free(m);
	capture_free(want);
}

/* A child asleep in read() on a pipe nobody writes to. */
static pid_t start_reader(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void check_blocked(void)
{
	struct capture *cap = capture_new(), *stop = capture_new();
	int wfd = -1, sfd = -1, schedfd = -1, status;
	enum peek_result r = PEEK_FAILED;
	pid_t pid = start_reader(&wfd);

	CHECK(pid > 0 && cap && stop);
	if (pid <= 0 || !cap || !stop)
		return;
	/* until it sleeps in read() (bounded: 10 s on a busy machine) */
	for (int i = 0; i < 1000; i++) {
		r = peek_thread(pid, pid, NULL, &sfd, &schedfd, cap);
		if (r == PEEK_OK && (int64_t)cap->regs.orig_rax == SYS_read)
			break;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	CHECKF(r == PEEK_OK, "peek_thread: %d (%s)", (int)r, strerror(errno));
	CHECK(sfd >= 0 && schedfd >= 0); /* both kept open */
	CHECK(cap->partial && cap->tid == pid);
	CHECK((int64_t)cap->regs.orig_rax == SYS_read);
	CHECK(capture_stop_kind(&cap->regs) == CAPTURE_IN_CALL);
	CHECK(cap->regs.rsp && cap->stack_start == cap->regs.rsp);
	CHECK(cap->stack_len > 0 && cap->stack_len <= CAPTURE_STACK_MAX);
	CHECK(cap->regs.rbp == 0 && cap->regs.rbx == 0);
	/* again, with the kept descriptors: the same */
	r = peek_thread(pid, pid, NULL, &sfd, &schedfd, stop);
	CHECK(r == PEEK_OK && stop->regs.rip == cap->regs.rip &&
	      stop->regs.rsp == cap->regs.rsp);
	/* a ptrace stop shows the same PC and SP, and the same stack */
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) == 0) {
		CHECK(ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0);
		CHECK(waitpid(pid, &status, __WALL) == pid);
		CHECK(capture_thread(pid, NULL, stop) == 0);
		CHECK(!stop->partial);
		CHECKF(stop->regs.rip == cap->regs.rip &&
			       stop->regs.rsp == cap->regs.rsp,
		       "stopped at %llx sp %llx, peeked %llx sp %llx",
		       stop->regs.rip, stop->regs.rsp, cap->regs.rip,
		       cap->regs.rsp);
		CHECK(stop->stack_len == cap->stack_len &&
		      !memcmp(stop->stack, cap->stack, cap->stack_len));
		check_hint(pid);
		ptrace(PTRACE_DETACH, pid, 0, 0);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(wfd);
	/* gone: a failed read, the descriptors closed and reset */
	errno = 0;
	r = peek_thread(pid, pid, NULL, &sfd, &schedfd, cap);
	CHECKF(r == PEEK_FAILED && (errno == ESRCH || errno == ENOENT),
	       "peek_thread of a reaped child: %d (%s)", (int)r,
	       strerror(errno));
	CHECK(schedfd == -1);
	if (sfd >= 0)
		close(sfd);
	capture_free(cap);
	capture_free(stop);
}

static void check_running(void)
{
	struct capture *cap = capture_new();
	int sfd = -1, schedfd = -1, status, running = 0;
	pid_t pid = fork();

	if (pid == 0)
		for (volatile unsigned long x = 0;; x++)
			;
	CHECK(pid > 0 && cap);
	if (pid <= 0 || !cap)
		return;
	/* A spinning thread is runnable even when preempted: never OK. */
	for (int i = 0; i < 50; i++) {
		enum peek_result r = peek_thread(pid, pid, NULL, &sfd, &schedfd,
						 cap);

		CHECKF(r == PEEK_RUNNING || r == PEEK_CHANGED,
		       "peek_thread of a spinning child: %d (%s)", (int)r,
		       strerror(errno));
		running += r == PEEK_RUNNING;
	}
	CHECK(running > 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (sfd >= 0)
		close(sfd);
	if (schedfd >= 0)
		close(schedfd);
	capture_free(cap);
}

/* A kernel thread shows "0 0x0 ... 0x0": no user stack to copy. */
static void check_kernel_thread(void)
{
	struct capture *cap = capture_new();
	int sfd = -1, schedfd = -1;
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "r");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (cap && !strcmp(comm, "kthreadd\n")) {
		enum peek_result r = peek_thread(2, 2, NULL, &sfd, &schedfd,
						 cap);

		CHECKF((r == PEEK_FAILED && errno == EINVAL) ||
			       r == PEEK_RUNNING,
		       "peek_thread of kthreadd: %d (%s)", (int)r,
		       strerror(errno));
	}
	if (sfd >= 0)
		close(sfd);
	if (schedfd >= 0)
		close(schedfd);
	capture_free(cap);
}

int main(void)
{
	check_parse();
	check_blocked();
	check_running();
	check_kernel_thread();
	return unit_result("test_peek");
}
