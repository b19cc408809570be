/*
 * cputime - run a command and record its wall and CPU time, to the
 * microsecond (what /usr/bin/time -f '%e %U %S' does, to 10 ms).
 *
 *   cputime [-t SECS] OUTFILE COMMAND [ARG...]
 *
 * Writes one line to OUTFILE when COMMAND ends:
 *
 *   wall_us=W user_us=U sys_us=S cpu_us=U+S status=X
 *
 * The CPU times are the rusage of COMMAND and of the children it waited
 * for (wait4).  SIGINT, SIGTERM and SIGHUP are passed on to COMMAND.  With
 * -t, COMMAND gets SIGTERM after SECS seconds and SIGKILL 5 s later.  Exits
 * with COMMAND's exit status, or 128+N if signal N killed it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t child;
static volatile sig_atomic_t timed_out;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (child <= 0)
		return;
	kill(child, timed_out ? SIGKILL : SIGTERM);
	timed_out = 1;
	alarm(5);
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct sigaction sa;
	struct rusage ru;
	uint64_t wall, user, sys;
	int status, code, c;
	unsigned limit = 0;
	pid_t pid;
	FILE *out;

	while ((c = getopt(argc, argv, "+t:")) != -1) {
		if (c != 't')
			goto usage;
		limit = (unsigned)atoi(optarg);
	}
	if (argc - optind < 2)
		goto usage;
	argv += optind - 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 127;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	child = pid;
	if (limit)
		alarm(limit);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("cputime: wait4");
			return 127;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000 +
	       (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000);
	user = tv_us(ru.ru_utime);
	sys = tv_us(ru.ru_stime);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 127;
	}
	fprintf(out,
		"wall_us=%llu user_us=%llu sys_us=%llu cpu_us=%llu "
		"status=%d%s\n",
		(unsigned long long)wall, (unsigned long long)user,
		(unsigned long long)sys, (unsigned long long)(user + sys), code,
		timed_out ? " timed_out=1" : "");
	fclose(out);
	return code;

usage:
	fprintf(stderr, "usage: cputime [-t SECS] OUTFILE COMMAND [ARG...]\n");
	return 2;
}
