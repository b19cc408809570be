/*
 * eintrspin - test target: waits in epoll_wait (no timeout) on a pipe
 * nobody writes; when the call ends with EINTR (a ptrace stop ends
 * epoll_wait so: it is not restarted) it burns CPU until the file GO
 * exists (it removes it) or 60 s pass, then waits again.  ptprof dump
 * --no-peek stops it, so the reading after its capture finds it running:
 * the dump must still say what it waited on when its stack was taken
 * (tests/dump-woke.test).  Prints "ready" just before it first waits;
 * exits 0 after 60 wake-ups (1 on any other end of the call).
 *
 *   eintrspin GO
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *go = argc > 1 ? argv[1] : "go";
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0), p[2];

	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev)) {
		perror("eintrspin");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (int k = 0; k < 60; k++) {
		if (epoll_wait(ep, &out, 1, -1) >= 0 || errno != EINTR)
			return 1;
		for (double t0 = now_s(); now_s() - t0 < 60;)
			if (unlink(go) == 0)
				break;
	}
	return 0;
}
