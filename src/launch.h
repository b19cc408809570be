/*
 * launch.h - starting the COMMAND of `ptprof -- COMMAND [ARGS...]`.
 *
 * Contract: never prints or exits in the parent.  launch_resolve() finds
 * the command on PATH the way execvp() would, so "command not found" is
 * reported before anything is started.  launch_start() forks and execs it
 * and returns only once the exec has happened (a close-on-exec pipe tells),
 * so sampling starts on the new image; if exec fails the child is reaped
 * and -1 is returned with the child's errno.
 */
#ifndef PTPROF_LAUNCH_H
#define PTPROF_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

int launch_resolve(const char *cmd, char *path, size_t len);
pid_t launch_start(const char *path, char *const argv[]);

#endif /* PTPROF_LAUNCH_H */
