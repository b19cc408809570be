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
#include <stdint.h>
#include <sys/types.h>

/*
 * /proc/PID/stat (procfs_stat.c): "PID (COMM) S F4 F5 ...".  COMM is the
 * thread's name, any bytes its owner chose (')', spaces, newlines), so it
 * runs from the first '(' to the LAST ')', and the fields follow that,
 * one space apart, numbered as proc(5) numbers them.  fields is the
 * number of the last field read (3: the state only; at most 28): a field
 * past it is 0.
 */
struct procfs_stat {
	char comm[128];		 /* NUL-terminated, cut to fit */
	int state;		 /* 3: R, S, D, T, t, Z, X... */
	int fields;		 /* the last field read, 3 to 28 */
	int ppid;		 /* 4 */
	unsigned long flags;	 /* 9: PF_* */
	uint64_t utime, stime;	 /* 14-15, clock ticks */
	uint64_t cutime, cstime; /* 16-17, of the waited-for children */
	long num_threads;	 /* 20 */
	uint64_t starttime;	 /* 22, clock ticks after boot */
	uint64_t startcode, endcode, startstack; /* 26-28 */
};

/* Parse a stat line (len bytes, no NUL needed): 0, or -1 with errno
 * EINVAL when there is no "(COMM) S" in it. */
int procfs_stat_parse(const char *text, size_t len, struct procfs_stat *st);

/* Read and parse /proc/PID/task/TID/stat (tid 0: /proc/PID/stat).  0, or
 * -1 with errno. */
int procfs_stat_read(pid_t pid, pid_t tid, struct procfs_stat *st);

/*
 * /proc/PID/status (procfs_status.c): "Key:\tvalue" lines, of which these
 * (the Name line is escaped by the kernel, so a thread's name cannot
 * forge one).  have holds the PROCFS_HAVE_* bits of the lines found; a
 * value not found is 0.
 */
enum {
	PROCFS_HAVE_TGID = 1 << 0,
	PROCFS_HAVE_PPID = 1 << 1,
	PROCFS_HAVE_TRACER = 1 << 2,
	PROCFS_HAVE_UID = 1 << 3, /* uid and euid both */
	PROCFS_HAVE_NSPID = 1 << 4,
	PROCFS_HAVE_CAPEFF = 1 << 5,
	PROCFS_HAVE_SECCOMP = 1 << 6,
	PROCFS_HAVE_SECCOMP_FILTERS = 1 << 7,
	PROCFS_HAVE_GID = 1 << 8, /* gid and egid both */
};
struct procfs_status {
	unsigned have;
	int tgid, ppid, tracer_pid; /* Tgid, PPid, TracerPid */
	uid_t uid, euid;	    /* Uid: real, effective */
	gid_t gid, egid;	    /* Gid: real, effective */
	int nspid;	  /* NSpid's last field: the PID in its own namespace */
	uint64_t cap_eff; /* CapEff */
	int seccomp, seccomp_filters; /* Seccomp, Seccomp_filters */
};

/* Parse a status text (len bytes, no NUL needed). */
void procfs_status_parse(const char *text, size_t len,
			 struct procfs_status *st);

/* Read and parse /proc/PID/task/TID/status (tid 0: /proc/PID/status; pid
 * 0 too: /proc/self/status).  0, or -1 with errno. */
int procfs_status_read(pid_t pid, pid_t tid, struct procfs_status *st);

/* Growable list of thread IDs, reused across ticks to avoid allocation. */
struct tidlist {
	pid_t *tids;
	size_t n, cap;
};

/* Fill list with the TIDs in /proc/PID/task (ENOENT: process gone). */
int procfs_list_tasks(pid_t pid, struct tidlist *list);

/*
 * The same through a directory kept open across calls (*dirp, NULL at
 * first; close it with procfs_tasks_close()): a rewind and two getdents
 * per call instead of open, stat, getdents and close.
 */
int procfs_list_tasks_cached(pid_t pid, void **dirp, struct tidlist *list);
void procfs_tasks_close(void **dirp);
void procfs_tidlist_free(struct tidlist *list);

/* Whole file into a malloc'd, NUL-terminated buffer. */
int procfs_read_file(const char *path, char **buf, size_t *len);

/* The same, at most max bytes (a file the kernel fills from what others
 * chose, an epoll set or a socket table, may be large): 0, 1 when the
 * file went on past max (the text is cut there), or -1 with errno. */
int procfs_read_file_max(const char *path, size_t max, char **buf, size_t *len);

/*
 * A small /proc file (stat, status, comm: printed whole at the first
 * read) into buf (size bytes, NUL-terminated): open, one read, close, no
 * allocation.  The length, or -1 with errno (EFBIG: it did not fit).
 */
ssize_t procfs_read_small(const char *path, char *buf, size_t size);

/*
 * /proc/PID/task/TID/maps text (tid 0: /proc/PID/maps).  Read it through
 * a live thread: once the main thread has exited (pthread_exit), the
 * leader's own maps file is empty although the process runs on.
 */
int procfs_read_maps(pid_t pid, pid_t tid, char **buf, size_t *len);

/*
 * State letter of a thread from /proc/PID/task/TID/stat ('R', 'S', 'D',
 * 'T', 't', 'Z', 'X', ...), or -1 with errno.  tid 0 means the process.
 */
int procfs_task_state(pid_t pid, pid_t tid);

/* The same, and the thread's name (comm) into name (len bytes), from one
 * read of its stat file. */
int procfs_task_name_state(pid_t pid, pid_t tid, char *name, size_t len);

/*
 * Whether the process has a thread that is not a zombie.  Its /proc/PID/stat
 * shows the leader's state, which is Z for a live process whose main
 * thread called pthread_exit(): only the threads tell.
 */
bool procfs_process_alive(pid_t pid);

/* Whether PID is a kernel thread (PF_KTHREAD in /proc/PID/stat flags). */
bool procfs_is_kernel_thread(pid_t pid);

/* Tgid of /proc/PID/status: the process a thread ID belongs to, or -1. */
int procfs_tgid(pid_t pid);

/* PPid of /proc/PID/status: the parent process, or -1 with errno. */
int procfs_ppid(pid_t pid);

/* TracerPid of /proc/PID/status (0: not traced), or -1 with errno. */
int procfs_tracer_pid(pid_t pid);

/* TracerPid of one thread (/proc/PID/task/TID/status), or -1 with errno. */
int procfs_tracer_pid_of(pid_t pid, pid_t tid);

/* Real UID of the process (Uid: first field), or -1 with errno. */
int procfs_uid(pid_t pid, uid_t *uid);

/*
 * A thread's on-CPU time and how many times it was scheduled in: the
 * first and third fields of /proc/PID/task/TID/schedstat, opened once
 * (*fd < 0: open it now and keep it in *fd) and read with pread() each
 * tick.  The file is kept only while descriptors are plentiful: one
 * that would take the last quarter of RLIMIT_NOFILE (at least 16) is
 * closed after the read and *fd stays -1 (so that a caller can tell).  A
 * failed read (the thread is gone) closes *fd and sets it to -1, so a TID
 * that comes back, another thread, is opened anew.  0, or -1 with errno
 * (EMFILE: no descriptor was left even for one read).
 */
int procfs_read_schedstat(pid_t pid, pid_t tid, int *fd, uint64_t *cpu_ns,
			  uint64_t *runs);

/*
 * A thread's /proc/PID/task/TID/syscall line, raw (peek.c parses it),
 * into buf (size bytes, NUL-terminated), kept open in *fd as above: the
 * file is a single_open() seq file, so a pread() at 0 makes the kernel
 * print it anew.  The length read, or -1 with errno.
 */
ssize_t procfs_read_task_syscall(pid_t pid, pid_t tid, int *fd, char *buf,
				 size_t size);

/*
 * A thread's state letter (R, S, D, T, t, Z...) from its
 * /proc/PID/task/TID/stat, kept open in *fd (or not) as above.  The letter, or -1
 * with errno.
 */
int procfs_read_task_state(pid_t pid, pid_t tid, int *fd);

/*
 * The same, and the thread's name (comm, the bytes /proc/PID/task/TID/comm
 * holds, without its newline) into name (len bytes, NUL-terminated, cut to
 * fit; NULL: not wanted), from the same pread(): a thread's name costs
 * no file of its own.  The letter, or -1 with errno.
 */
int procfs_read_task_name_state(pid_t pid, pid_t tid, int *fd, char *name,
				size_t len);

/* A thread's user and system CPU time (utime, stime: fields 14-15 of the
 * same file, in clock ticks), kept open in *fd as above; and in *ident
 * (unless NULL) a value that changes when another task has the TID (its
 * start time) or the thread exec'd (its code and stack addresses: a new
 * image; the same image at the same addresses, without ASLR, may give
 * the same).  0, or -1 with errno. */
int procfs_read_task_times(pid_t pid, pid_t tid, int *fd, uint64_t *utime,
			   uint64_t *stime, uint64_t *ident);

/*
 * The number of threads of a process (field 20 of its stat line, read
 * as procfs_read_proc_stat() reads it), with pread() on an fd kept open
 * (*fd < 0 at first).  -1 with errno.
 */
int procfs_num_threads(pid_t pid, int *fd);

/*
 * The process's stat line, kept open in *fd as above (one pread() a
 * call), parsed into st: its leader's, /proc/PID/task/PID/stat, whose
 * thread count (20), state of the leader and image addresses (26-28) are
 * /proc/PID/stat's, but whose times and faults (10-17) are the leader's
 * own: /proc/PID/stat walks every thread to sum those (twice), which a
 * process of 200 threads made 3-4 times dearer to read (see procfs.c).
 * 0, or -1 with errno.
 */
int procfs_read_proc_stat(pid_t pid, int *fd, struct procfs_stat *st);

/*
 * The tasks running or runnable on the whole machine now (the kernel's
 * nr_running(): the 4th field of /proc/loadavg, before its '/'), the
 * reader included; pread() on an fd kept open (*fd < 0 at first).  -1
 * with errno.
 */
int procfs_running_tasks(int *fd);

/*
 * The CPU time of process pid, from /proc/PID/stat, in ns at clock-tick
 * resolution (10 ms with USER_HZ 100): self_ns, of its own threads, the
 * exited ones included (utime + stime, fields 14-15), and of that sys_ns,
 * its time in the kernel (stime); children_ns, of the
 * children it has waited for, with their own waited-for descendants
 * (cutime + cstime, fields 16-17); and its thread count (field 20).
 * Readable until the process is reaped.  0, or -1 with errno.
 */
struct procfs_cpu {
	uint64_t self_ns, sys_ns, children_ns;
	int threads;
};
int procfs_cpu_times(pid_t pid, struct procfs_cpu *c);

/* Thread or process name (comm), NUL-terminated, the newline the kernel
 * ends the file with stripped (one in the name itself is kept). */
int procfs_comm(pid_t pid, pid_t tid, char *buf, size_t len);

/*
 * Whether the kernel would let this process ptrace-attach to pid, asked
 * without touching it: opening /proc/PID/mem takes the same access check
 * (PTRACE_MODE_ATTACH, Yama included).  0, or -1 with errno (EACCES or
 * EPERM: refused).
 */
int procfs_may_trace(pid_t pid);

/* kernel.yama.ptrace_scope, or -1 (errno ENOENT) when Yama is absent. */
int procfs_yama_scope(void);

/* Whether this process has CAP_SYS_PTRACE in its effective set. */
bool procfs_self_has_cap_sys_ptrace(void);

#endif /* PTPROF_PROCFS_H */
