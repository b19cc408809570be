/*
 * tracer - hold a process traced, so that a test can show ptprof a target
 * that "is already traced by PID N".
 *
 *   tracer PID [SECONDS]
 *
 * PTRACE_SEIZEs PID, which keeps running (SEIZE, unlike ATTACH, sends no
 * SIGSTOP), and stays its tracer until PID exits, tracer is killed, or
 * SECONDS (default 60) pass: SIGALRM then ends tracer, and the kernel
 * detaches PID as it does for any tracer that exits.  Meanwhile every
 * signal PID gets is handed on to it and a group-stop is left in place
 * (PTRACE_LISTEN), so PID behaves as if untraced: a test can still stop,
 * continue or kill it.  The test reads TracerPid in /proc/PID/status to
 * know when the seize has happened.
 *
 * Exit status: 0 when PID exited, 1 when the seize failed, 2 on bad usage.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* Let a stopped PID go on as it would untraced. */
static void resume(pid_t pid, int status)
{
	int sig = WSTOPSIG(status);

	if ((status >> 16) == PTRACE_EVENT_STOP) {
		/* A group-stop is reported as an event stop of a stop signal;
		 * LISTEN keeps it stopped until SIGCONT, as untraced. */
		if (group_stop_sig(sig))
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		return;
	}
	/* Signal-delivery-stop: deliver the signal. */
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
}

int main(int argc, char **argv)
{
	long pid = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	unsigned secs = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 60;
	int status;

	if (argc < 2 || argc > 3 || pid <= 0 || secs == 0) {
		fprintf(stderr, "usage: tracer PID [SECONDS]\n");
		return 2;
	}
	if (ptrace(PTRACE_SEIZE, (pid_t)pid, NULL, NULL)) {
		fprintf(stderr, "tracer: PTRACE_SEIZE %ld: %s\n", pid,
			strerror(errno));
		return 1;
	}
	alarm(secs);
	for (;;) {
		if (waitpid((pid_t)pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 0;
		if (WIFSTOPPED(status))
			resume((pid_t)pid, status);
	}
}
