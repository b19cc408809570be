/*
 * procfs.h - what ptprof learns about a target from /proc.
 *
 * Contract: read-only, never touches the target with ptrace, never prints
 * or exits.  Functions return 0 (or a value >= 0) on success, -1 with errno
 * on failure; ENOENT/ESRCH mean the process or thread is gone.
 */
#ifndef PTPROF_PROCFS_H
#define PTPROF_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Growable list of thread IDs, reused across ticks to avoid allocation. */
struct tidlist {
	pid_t *tids;
	size_t n, cap;
};

/* Fill list with the TIDs in /proc/PID/task (ENOENT: process gone). */
int procfs_list_tasks(pid_t pid, struct tidlist *list);
void tidlist_free(struct tidlist *list);

/* Whole file into a malloc'd, NUL-terminated buffer. */
int procfs_read_file(const char *path, char **buf, size_t *len);

/* /proc/PID/maps text. */
int procfs_read_maps(pid_t pid, char **buf, size_t *len);

/*
 * State letter of a thread from /proc/PID/task/TID/stat ('R', 'S', 'D',
 * 'T', 't', 'Z', 'X', ...), or -1 with errno.  tid 0 means the process.
 */
int procfs_task_state(pid_t pid, pid_t tid);

/* TracerPid of /proc/PID/status (0: not traced), or -1 with errno. */
int procfs_tracer_pid(pid_t pid);

/* Real UID of the process (Uid: first field), or -1 with errno. */
int procfs_uid(pid_t pid, uid_t *uid);

/* Thread or process name (comm), NUL-terminated, newline stripped. */
int procfs_comm(pid_t pid, pid_t tid, char *buf, size_t len);

/* kernel.yama.ptrace_scope, or -1 (errno ENOENT) when Yama is absent. */
int procfs_yama_scope(void);

/* Whether this process has CAP_SYS_PTRACE in its effective set. */
bool procfs_self_has_cap_sys_ptrace(void);

#endif /* PTPROF_PROCFS_H */
