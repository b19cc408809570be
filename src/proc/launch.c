/*
 * launch.c - start COMMAND for `ptprof -- COMMAND` (see launch.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/launch.h"
#include "proc/ptctl.h"
#include "proc/reaper.h"
#include "util/timeutil.h"

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

static int copy_path(const char *src, char *path, size_t len)
{
	if (snprintf(path, len, "%s", src) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* A name with a slash is used as it is; anything else is looked up on
 * PATH, as execvp() does.  ENOENT: not found; EACCES: found, not runnable. */
int launch_resolve(const char *cmd, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	bool seen_eacces = false;

	if (!*cmd) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(cmd, '/')) {
		if (is_executable_file(cmd))
			return copy_path(cmd, path, len);
		if (access(cmd, F_OK) == 0)
			errno = EACCES;
		return -1;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = dirs;; p++) {
		const char *colon = strchrnul(p, ':');
		int dl = (int)(colon - p);

		bool fits = snprintf(path, len, "%.*s%s%s", dl, p,
				     dl ? "/" : "", cmd) < (int)len;

		if (fits && is_executable_file(path))
			return 0;
		if (fits && access(path, F_OK) == 0)
			seen_eacces = true;
		if (!*colon)
			break;
		p = colon;
	}
	errno = seen_eacces ? EACCES : ENOENT;
	return -1;
}

/* A file the kernel cannot execute (no #!, not ELF): hand it to /bin/sh,
 * as execvp() does, so "found on PATH" and "runs" agree. */
static void exec_script(const char *path, char *const argv[])
{
	size_t n = 0;
	char **args;

	while (argv[n])
		n++;
	args = calloc(n + 2, sizeof(*args));
	if (!args)
		return;
	args[0] = (char *)"/bin/sh";
	args[1] = (char *)path;
	for (size_t i = 1; i < n; i++)
		args[i + 1] = argv[i];
	execv("/bin/sh", args);
	free(args);
	errno = ENOEXEC;
}

/* In the child: exec, or report errno through the pipe and die. */
static void __attribute__((noreturn))
exec_child(int wfd, const char *path, char *const argv[])
{
	sigset_t none;
	int err;

	/* The signal mask survives exec: give COMMAND the empty one, not the
	 * one ptprof blocks its stop signals and SIGCHLD with. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(path, argv);
	err = errno;
	if (err == ENOEXEC)
		exec_script(path,
			    argv); /* as execvp() does; returns on error */
	(void)!write(wfd, &err, sizeof(err));
	_exit(127);
}

pid_t launch_start(const char *path, char *const argv[])
{
	int fds[2], err = 0;
	ssize_t r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		exec_child(fds[1], path, argv);
	}
	close(fds[1]);
	/* EOF (0 bytes) means exec succeeded: the pipe closed on exec. */
	do
		r = read(fds[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	close(fds[0]);
	if (r == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		errno = err;
		return -1;
	}
	return pid;
}

/* A signal while waiting for the child: suspend, or pass it on. */
static void launch_wait_signal(pid_t child, int sigfd)
{
	struct signalfd_siginfo si;

	if (read(sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo == SIGTSTP)
		raise(SIGSTOP);
	else if (si.ssi_code != SI_KERNEL)
		kill(child, (int)si.ssi_signo); /* sent to ptprof alone */
}

int launch_wait(pid_t child, const sigset_t *stop_signals, int *status)
{
	struct reap_event ev;
	sigset_t set, old;
	int sigfd, rc = -1, saved;

	set = *stop_signals;
	sigaddset(&set, SIGTSTP);
	if (reaper_start() || sigprocmask(SIG_BLOCK, &set, &old))
		return -1;
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0)
		goto out;
	for (bool gone = false;;) {
		while (reaper_next(&ev)) {
			if (ev.pid == child &&
			    (WIFEXITED(ev.status) || WIFSIGNALED(ev.status))) {
				*status = ev.status;
				rc = 0;
				goto out;
			}
			ptctl_release(ev.pid, ev.status);
		}
		/* No report of it, and it no longer exists (not even as a
		 * zombie): its exit was taken by a wait that did not pass
		 * it on.  Waiting on would be for good, deaf to the stop
		 * signals it forwards to a child that is not there.  (The
		 * reports were drained once more after it was found gone:
		 * one queued meanwhile is taken above.) */
		if (gone) {
			errno = ECHILD;
			goto out;
		}
		gone = kill(child, 0) < 0 && errno == ESRCH;
		if (gone)
			continue;
		if (reaper_poll(sigfd, -1, mono_now_ns() + NSEC_PER_SEC) &
		    REAPER_SIGNAL)
			launch_wait_signal(child, sigfd);
	}
out:
	saved = errno;
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return rc;
}
