/*
 * procfs.c - read-only facts about a target from /proc (see procfs.h).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/grow.h"
#include "util/timeutil.h"

static int tidlist_push(struct tidlist *list, pid_t tid)
{
	pid_t *p = grow_array(list->tids, &list->cap, list->n + 1, sizeof(*p));

	if (!p)
		return -1;
	list->tids = p;
	list->tids[list->n++] = tid;
	return 0;
}

static pid_t parse_tid(const char *name)
{
	long v = 0;

	if (!*name)
		return 0;
	for (; *name; name++) {
		if (!isdigit((unsigned char)*name) || v > 0x3fffffff)
			return 0;
		v = v * 10 + (*name - '0');
	}
	return (pid_t)v;
}

static int read_tasks(DIR *dir, struct tidlist *list)
{
	struct dirent *de;
	int rc = 0;

	list->n = 0;
	errno = 0;
	while ((de = readdir(dir)) != NULL) {
		pid_t tid = parse_tid(de->d_name);

		if (tid > 0 && tidlist_push(list, tid)) {
			rc = -1;
			break;
		}
	}
	/* a directory of a process that has exited reads as empty or fails */
	if (!rc && (errno || list->n == 0)) {
		errno = errno ? errno : ENOENT;
		rc = -1;
	}
	return rc;
}

static DIR *open_tasks(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return opendir(path);
}

int procfs_list_tasks(pid_t pid, struct tidlist *list)
{
	DIR *dir = open_tasks(pid);
	int rc, err;

	if (!dir)
		return -1;
	rc = read_tasks(dir, list);
	err = errno;
	closedir(dir);
	errno = err;
	return rc;
}

int procfs_list_tasks_cached(pid_t pid, void **dirp, struct tidlist *list)
{
	if (*dirp)
		rewinddir(*dirp);
	else if (!(*dirp = open_tasks(pid)))
		return -1;
	return read_tasks(*dirp, list);
}

void procfs_tasks_close(void **dirp)
{
	if (*dirp)
		closedir(*dirp);
	*dirp = NULL;
}

void procfs_tidlist_free(struct tidlist *list)
{
	free(list->tids);
	list->tids = NULL;
	list->n = list->cap = 0;
}

int procfs_read_file(const char *path, char **buf, size_t *len)
{
	int rc = procfs_read_file_max(path, SIZE_MAX, buf, len);

	return rc < 0 ? -1 : 0;
}

int procfs_read_file_max(const char *path, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b;
	int fd, saved, cut = 0;

	if (max < SIZE_MAX && cap > max + 1)
		cap = max + 1;
	b = malloc(cap);
	if (!b)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		ssize_t r;

		if (n >= max) { /* full: one byte more says whether it is cut */
			char more;

			r = read(fd, &more, 1);
			if (r < 0 && errno == EINTR)
				continue;
			cut = r > 0;
			break;
		}
		if (cap - n < 2) {
			char *nb = grow_array(b, &cap, n + 2, 1);

			if (!nb)
				goto fail;
			b = nb;
		}
		r = read(fd, b + n,
			 cap - n - 1 < max - n ? cap - n - 1 : max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return cut;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(b);
	errno = saved;
	return -1;
}

/*
 * Kernel quirk relied on: the /proc files read here (stat, status, comm)
 * are single_open() seq files, which print the whole text at the first
 * read and hand out as much of it as the buffer holds: a read that
 * returns less than it asked for has it all, and the read that would
 * return 0 need not be made.
 */
ssize_t procfs_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n >= 0 && (size_t)n == size - 1) {
		n = -1;
		saved = EFBIG;
	}
	if (n < 0) {
		errno = saved;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int procfs_read_maps(pid_t pid, pid_t tid, char **buf, size_t *len)
{
	char path[96];

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid,
			 (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return procfs_read_file(path, buf, len);
}

int procfs_task_name_state(pid_t pid, pid_t tid, char *name, size_t len)
{
	struct procfs_stat st;

	if (procfs_stat_read(pid, tid, &st))
		return -1;
	if (name && len)
		snprintf(name, len, "%s", st.comm);
	return st.state;
}

int procfs_task_state(pid_t pid, pid_t tid)
{
	return procfs_task_name_state(pid, tid, NULL, 0);
}

bool procfs_is_kernel_thread(pid_t pid)
{
	const unsigned long pf_kthread = 0x00200000; /* include/linux/sched.h */
	struct procfs_stat st;

	/* flags, field 9 */
	return procfs_stat_read(pid, 0, &st) == 0 && st.fields >= 9 &&
	       (st.flags & pf_kthread);
}

bool procfs_process_alive(pid_t pid)
{
	struct tidlist list = { 0 };
	bool alive = false;

	if (procfs_list_tasks(pid, &list))
		return false;
	for (size_t i = 0; i < list.n && !alive; i++) {
		int state = procfs_task_state(pid, list.tids[i]);

		alive = state > 0 && state != 'Z' && state != 'X';
	}
	procfs_tidlist_free(&list);
	return alive;
}

/* A status line's whole number (bit in have) of pid (tid: of that
 * thread), or -1 with errno (EINVAL when absent or below min). */
static int status_int(pid_t pid, pid_t tid, unsigned bit, int min)
{
	struct procfs_status st;
	int n;

	if (procfs_status_read(pid, tid, &st))
		return -1;
	n = bit == PROCFS_HAVE_TGID ? st.tgid :
	    bit == PROCFS_HAVE_PPID ? st.ppid :
				      st.tracer_pid;
	if (!(st.have & bit) || n < min) {
		errno = EINVAL;
		return -1;
	}
	return n;
}

int procfs_tracer_pid_of(pid_t pid, pid_t tid)
{
	return status_int(pid, tid, PROCFS_HAVE_TRACER, 0);
}

int procfs_tracer_pid(pid_t pid)
{
	return status_int(pid, 0, PROCFS_HAVE_TRACER, 0);
}

int procfs_tgid(pid_t pid)
{
	return status_int(pid, 0, PROCFS_HAVE_TGID, 1);
}

int procfs_ppid(pid_t pid)
{
	return status_int(pid, 0, PROCFS_HAVE_PPID, 0);
}

int procfs_uid(pid_t pid, uid_t *uid)
{
	struct procfs_status st;

	if (procfs_status_read(pid, 0, &st))
		return -1;
	if (!(st.have & PROCFS_HAVE_UID)) {
		errno = EINVAL;
		return -1;
	}
	*uid = st.uid;
	return 0;
}

/*
 * Whether a descriptor just opened may be kept open across ticks.  Every
 * thread keeps one or two (its schedstat, its stat), so 5000 threads under
 * Debian's default soft limit of 1024 would take every descriptor: then
 * any other open (the next thread's file, a module image, the profile)
 * fails with EMFILE.  So a file is kept only if its descriptor is below
 * the limit less a reserve (a quarter of it, at least 16).  open() returns
 * the lowest free descriptor: the kept ones all lie below that line, and
 * the ones above it stay free for everything else.  A file not kept is
 * read anew each time (open, pread, close): three system calls, not one.
 */
static bool may_keep(int fd)
{
	struct rlimit rl;
	rlim_t reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return true;
	reserve = rl.rlim_cur / 4 < 16 ? 16 : rl.rlim_cur / 4;
	return (rlim_t)fd + reserve < rl.rlim_cur;
}

/*
 * A small /proc file kept open in *fd (opened from path when *fd < 0, and
 * kept if may_keep() says so) and read whole with one pread() into buf,
 * NUL-terminated.  A failed read (ESRCH: the task is gone) closes it, so
 * that a TID that comes back, a new task, is opened anew.  The length
 * read, or -1.
 */
static ssize_t pread_kept(const char *path, int *fd, char *buf, size_t size)
{
	int f = *fd, saved;
	ssize_t len;

	if (f < 0) {
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			return -1;
	}
	len = pread(f, buf, size - 1, 0);
	if (len <= 0) {
		saved = len < 0 ? errno : ESRCH;
		close(f);
		*fd = -1;
		errno = saved;
		return -1;
	}
	if (*fd < 0 && may_keep(f))
		*fd = f;
	else if (*fd < 0)
		close(f);
	buf[len] = '\0';
	return len;
}

/* A thread's stat line, kept open in *fd, parsed into st.  0, or -1
 * with errno. */
static int task_stat(pid_t pid, pid_t tid, int *fd, struct procfs_stat *st)
{
	char path[96], buf[512];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	len = pread_kept(path, fd, buf, sizeof(buf));
	if (len < 0)
		return -1;
	return procfs_stat_parse(buf, (size_t)len, st);
}

int procfs_read_task_state(pid_t pid, pid_t tid, int *fd)
{
	return procfs_read_task_name_state(pid, tid, fd, NULL, 0);
}

int procfs_read_task_name_state(pid_t pid, pid_t tid, int *fd, char *name,
				size_t len)
{
	struct procfs_stat st;

	if (task_stat(pid, tid, fd, &st))
		return -1;
	if (name && len)
		snprintf(name, len, "%s", st.comm);
	return st.state;
}

int procfs_read_task_times(pid_t pid, pid_t tid, int *fd, uint64_t *utime,
			   uint64_t *stime, uint64_t *ident)
{
	struct procfs_stat st;

	if (task_stat(pid, tid, fd, &st))
		return -1;
	/* utime and stime are fields 14-15; starttime (22), startcode,
	 * endcode and startstack (26-28) are 0 when the line stops short */
	if (st.fields < 15) {
		errno = EINVAL;
		return -1;
	}
	*utime = st.utime;
	*stime = st.stime;
	if (ident)
		*ident = st.starttime * 0x9e3779b97f4a7c15ULL ^ st.startcode ^
			 (st.endcode << 17) ^ (st.startstack << 3);
	return 0;
}

int procfs_read_schedstat(pid_t pid, pid_t tid, int *fd, uint64_t *cpu_ns,
			  uint64_t *runs)
{
	char buf[96], path[96], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	if (pread_kept(path, fd, buf, sizeof(buf)) < 0)
		return -1;
	*cpu_ns = strtoull(buf, &p, 10);
	strtoull(p, &p, 10); /* time spent waiting on a run queue */
	*runs = strtoull(p, NULL, 10);
	return 0;
}

ssize_t procfs_read_task_syscall(pid_t pid, pid_t tid, int *fd, char *buf,
				 size_t size)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	return pread_kept(path, fd, buf, size);
}

/*
 * Kernel quirk: /proc/PID/stat (do_task_stat() with whole set) adds up
 * the faults and CPU times of every thread, under the process's signal
 * lock; the leader's own file does not, and prints the same thread count
 * and the same addresses of the image (they are the memory's, shared).
 * Measured here at 200 threads: 18-30 us a pread against 8-11.  (A
 * leader that has exited, its threads alive, shows the addresses as 0 in
 * either file: it has no memory of its own any more.)
 */
int procfs_read_proc_stat(pid_t pid, int *fd, struct procfs_stat *st)
{
	char buf[1024], path[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)pid);
	len = pread_kept(path, fd, buf, sizeof(buf));
	if (len < 0)
		return -1;
	return procfs_stat_parse(buf, (size_t)len, st);
}

int procfs_num_threads(pid_t pid, int *fd)
{
	struct procfs_stat st;

	if (procfs_read_proc_stat(pid, fd, &st))
		return -1;
	/* num_threads is field 20 */
	if (st.fields < 20 || st.num_threads <= 0) {
		errno = EINVAL;
		return -1;
	}
	return (int)st.num_threads;
}

int procfs_running_tasks(int *fd)
{
	char buf[128];
	long run = -1;

	if (pread_kept("/proc/loadavg", fd, buf, sizeof(buf)) < 0)
		return -1;
	/* "0.52 0.58 0.59 3/457 12345": the 4th field's running part */
	if (sscanf(buf, "%*s %*s %*s %ld/", &run) != 1 || run < 0 ||
	    run > INT_MAX) {
		errno = EINVAL;
		return -1;
	}
	return (int)run;
}

int procfs_cpu_times(pid_t pid, struct procfs_cpu *c)
{
	long ticks = sysconf(_SC_CLK_TCK);
	struct procfs_stat st;
	uint64_t ns;

	/* utime..cstime are fields 14-17, num_threads 20 */
	if (procfs_stat_read(pid, 0, &st))
		return -1;
	if (st.fields < 20 || ticks <= 0) {
		errno = EINVAL;
		return -1;
	}
	ns = NSEC_PER_SEC / (uint64_t)ticks;
	c->self_ns = (st.utime + st.stime) * ns;
	c->sys_ns = st.stime * ns;
	c->children_ns = (st.cutime + st.cstime) * ns;
	c->threads = (int)st.num_threads;
	return 0;
}

int procfs_comm(pid_t pid, pid_t tid, char *out, size_t len)
{
	char path[96], buf[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)(tid ? tid : pid));
	/* A name is 15 bytes (a kernel thread's, with its workqueue, 63):
	 * one too long for buf is cut as out would cut it. */
	n = procfs_read_small(path, buf, sizeof(buf));
	if (n < 0 && errno != EFBIG)
		return -1;
	if (n < 0)
		n = (ssize_t)sizeof(buf) - 1;
	buf[n] = '\0';
	/* Only the newline the kernel adds is stripped: a thread may put
	 * one in its own name (PR_SET_NAME stores any bytes), and then the
	 * name is all of it; printing it safely is textsafe.h's part. */
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	snprintf(out, len, "%s", buf);
	return 0;
}

int procfs_may_trace(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int procfs_yama_scope(void)
{
	char *buf;
	size_t len;
	int scope;

	if (procfs_read_file("/proc/sys/kernel/yama/ptrace_scope", &buf, &len))
		return -1;
	scope = (int)strtol(buf, NULL, 10);
	free(buf);
	return scope;
}

bool procfs_self_has_cap_sys_ptrace(void)
{
	const unsigned cap_sys_ptrace = 19;
	struct procfs_status st;

	return procfs_status_read(0, 0, &st) == 0 &&
	       (st.have & PROCFS_HAVE_CAPEFF) &&
	       ((st.cap_eff >> cap_sys_ptrace) & 1);
}
