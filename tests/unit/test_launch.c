/*
 * test_launch - starting ptprof's COMMAND (proc/launch.h):
 * launch_resolve() finds a name on PATH as execvp() would (a path with a
 * slash as is; not found: ENOENT; a directory or a file without x
 * skipped); launch_start() returns once the child has exec'd (its
 * /proc/PID/exe is the new image) and, when exec fails, -1 with the
 * child's errno and no child left; launch_wait() gives the child's
 * status.  The children it starts are signalled by PID only, and every
 * wait is bounded.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/launch.h"
#include "unit.h"

static char dir[] = "/tmp/test_launch.XXXXXX";

static void test_resolve(void)
{
	char path[PATH_MAX], p[PATH_MAX + 32], env[PATH_MAX * 2 + 32];
	FILE *f;

	CHECK(launch_resolve("/bin/sh", path, sizeof(path)) == 0 &&
	      !strcmp(path, "/bin/sh"));
	/* a directory and a file without x come first on PATH: skipped */
	snprintf(p, sizeof(p), "%s/a", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/a/sh", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/b", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/b/sh", dir);
	f = fopen(p, "w");
	if (f)
		fclose(f);
	snprintf(env, sizeof(env), "%s/a:%s/b:/bin:/usr/bin", dir, dir);
	setenv("PATH", env, 1);
	CHECKF(launch_resolve("sh", path, sizeof(path)) == 0 &&
		       (!strcmp(path, "/bin/sh") ||
			!strcmp(path, "/usr/bin/sh")),
	       "%s", path);
	errno = 0;
	CHECK(launch_resolve("no-such-command-ptprof", path, sizeof(path)) ==
		      -1 &&
	      errno == ENOENT);
	errno = 0;
	CHECK(launch_resolve("/no/such/file", path, sizeof(path)) == -1);
	CHECK(launch_resolve("sh", path, 4) == -1); /* too short a buffer */
}

static int reap(pid_t pid, int *status)
{
	for (int i = 0; i < 200; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		usleep(50000);
	}
	kill(pid, SIGKILL); /* ours, by PID */
	return waitpid(pid, status, 0) == pid ? 1 : -1;
}

static void test_start(void)
{
	static char a_sleep[] = "sleep", a_30[] = "30", a_sh[] = "sh",
		    a_c[] = "-c", a_exit3[] = "exit 3", a_x[] = "x";
	char *sleeper[] = { a_sleep, a_30, NULL };
	char *exit3[] = { a_sh, a_c, a_exit3, NULL };
	char *none[] = { a_x, NULL };
	char exe[PATH_MAX], link[64], sleep_path[PATH_MAX], script[PATH_MAX];
	ssize_t n;
	pid_t pid;
	int status = 0;
	FILE *f;

	CHECK(launch_resolve("sleep", sleep_path, sizeof(sleep_path)) == 0);
	pid = launch_start(sleep_path, sleeper);
	CHECK(pid > 0);
	if (pid > 0) {
		/* exec'd already: its image is sleep's, not ours */
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		CHECKF(n > 0 && strstr(exe, "sleep") &&
			       !strstr(exe, "test_launch"),
		       "exe %s", exe);
		kill(pid, SIGKILL);
		CHECK(reap(pid, &status) == 0 && WIFSIGNALED(status) &&
		      WTERMSIG(status) == SIGKILL);
	}

	pid = launch_start("/bin/sh", exit3);
	CHECK(pid > 0);
	if (pid > 0) {
		CHECK(reap(pid, &status) == 0 && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 3);
	}

	/* exec fails: the child's errno, no child left */
	errno = 0;
	CHECK(launch_start("/no/such/file", none) == -1 && errno == ENOENT);
	snprintf(script, sizeof(script), "%s/noexec", dir);
	f = fopen(script, "w");
	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	chmod(script, 0600);
	errno = 0;
	CHECK(launch_start(script, none) == -1 && errno == EACCES);
	errno = 0;
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* launch_wait(): the status of a child that exits by itself. */
static void test_wait(void)
{
	static char a_sh[] = "sh", a_c[] = "-c",
		    a_exit5[] = "sleep 0.2; exit 5";
	char *exit5[] = { a_sh, a_c, a_exit5, NULL };
	sigset_t stop;
	pid_t pid;
	int status = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pid = launch_start("/bin/sh", exit5);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	alarm(20); /* a bound: launch_wait() has none of its own */
	CHECK(launch_wait(pid, &stop, &status) == 0 && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 5);
	alarm(0);
	errno = 0;
	CHECK(waitpid(pid, NULL, WNOHANG) == -1 && errno == ECHILD);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_resolve();
	test_start();
	test_wait();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_result("test_launch");
}
