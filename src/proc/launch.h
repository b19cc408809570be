/*
 * launch.h - starting the COMMAND of `ptprof -- COMMAND [ARGS...]`.
 *
 * Contract: never prints or exits in the parent.  launch_resolve() finds
 * the command on PATH the way execvp() would, so "command not found" is
 * reported before anything is started.  launch_start() forks and execs it
 * and returns only once the exec has happened (a close-on-exec pipe tells),
 * so sampling starts on the new image; if exec fails the child is reaped
 * and -1 is returned with the child's errno.  launch_wait() waits for it
 * to exit once sampling is over.
 */
#ifndef PTPROF_LAUNCH_H
#define PTPROF_LAUNCH_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

int launch_resolve(const char *cmd, char *path, size_t len);
pid_t launch_start(const char *path, char *const argv[]);

/*
 * After sampling, for a launched child that has not been reaped: wait for
 * it to exit, releasing every ptrace-stop still reported (a thread whose
 * stop missed the last tick stops later, and must not stay stopped while
 * we wait).  A stop signal sent to ptprof by another process is forwarded
 * to the child; a terminal's (SI_KERNEL) reached it already.  SIGTSTP
 * suspends ptprof.  Uses the reaper (reaper.h).  0 with the wait status,
 * or -1 with errno (ECHILD: the child no longer exists and no report of
 * its exit came: another wait took it).
 */
int launch_wait(pid_t child, const sigset_t *stop_signals, int *status);

#endif /* PTPROF_LAUNCH_H */
