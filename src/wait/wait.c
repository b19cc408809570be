/*
 * wait.c - the wait kinds' names, and the glibc entries that tell which
 * object a futex wait is on (wait.h).
 */
#include "config.h"

#include <string.h>
#include <sys/syscall.h>

#include "wait/wait.h"

static const char *const kind_names[] = {
	[WAIT_NONE] = "",	    [WAIT_MUTEX] = "mutex",
	[WAIT_CONDVAR] = "condvar", [WAIT_JOIN] = "join",
	[WAIT_RWLOCK] = "rwlock",   [WAIT_SEM] = "sem",
	[WAIT_FUTEX] = "futex",	    [WAIT_IO] = "io",
	[WAIT_NET] = "net",	    [WAIT_POLL] = "poll",
	[WAIT_SLEEP] = "sleep",	    [WAIT_CHILD] = "child",
	[WAIT_SIGNAL] = "signal",   [WAIT_SYSCALL] = "syscall",
};

const char *wait_kind_name(enum wait_kind kind)
{
	if ((size_t)kind >= sizeof(kind_names) / sizeof(*kind_names))
		return "";
	return kind_names[kind];
}

/*
 * glibc's entries (2.34+: the nptl folder; the versioned and 64-bit-time names
 * as its .dynsym and .symtab have them), and the internal ones a stack
 * shows when the library's symbol table is read (__lll_lock_wait is
 * exported GLIBC_PRIVATE).  A name is matched whole, so "my_pthread_
 * mutex_lock_wrapper" hints nothing.
 */
static const struct {
	const char *name;
	enum wait_hint hint;
} hints[] = {
	{ "__lll_lock_wait", WAIT_HINT_MUTEX },
	{ "__lll_lock_wait_private", WAIT_HINT_LIBC_LOCK },
	{ "pthread_mutex_lock", WAIT_HINT_MUTEX },
	{ "__pthread_mutex_lock", WAIT_HINT_MUTEX },
	{ "__pthread_mutex_lock_full", WAIT_HINT_MUTEX },
	{ "pthread_mutex_timedlock", WAIT_HINT_MUTEX },
	{ "__pthread_mutex_timedlock", WAIT_HINT_MUTEX },
	{ "__pthread_mutex_clocklock_common", WAIT_HINT_MUTEX },
	{ "pthread_mutex_clocklock", WAIT_HINT_MUTEX },
	{ "__lll_clocklock_wait", WAIT_HINT_MUTEX },
	{ "pthread_cond_wait", WAIT_HINT_CONDVAR },
	{ "__pthread_cond_wait", WAIT_HINT_CONDVAR },
	{ "__pthread_cond_wait_common", WAIT_HINT_CONDVAR },
	{ "pthread_cond_timedwait", WAIT_HINT_CONDVAR },
	{ "__pthread_cond_timedwait", WAIT_HINT_CONDVAR },
	{ "__pthread_cond_timedwait64", WAIT_HINT_CONDVAR },
	{ "pthread_cond_clockwait", WAIT_HINT_CONDVAR },
	{ "__pthread_cond_clockwait64", WAIT_HINT_CONDVAR },
	{ "pthread_join", WAIT_HINT_JOIN },
	{ "__pthread_join", WAIT_HINT_JOIN },
	{ "__pthread_clockjoin_ex", WAIT_HINT_JOIN },
	{ "pthread_timedjoin_np", WAIT_HINT_JOIN },
	{ "pthread_clockjoin_np", WAIT_HINT_JOIN },
	{ "pthread_rwlock_rdlock", WAIT_HINT_RWLOCK },
	{ "pthread_rwlock_wrlock", WAIT_HINT_RWLOCK },
	{ "__pthread_rwlock_rdlock", WAIT_HINT_RWLOCK },
	{ "__pthread_rwlock_wrlock", WAIT_HINT_RWLOCK },
	{ "__pthread_rwlock_rdlock_full64", WAIT_HINT_RWLOCK },
	{ "__pthread_rwlock_wrlock_full64", WAIT_HINT_RWLOCK },
	{ "pthread_rwlock_timedrdlock", WAIT_HINT_RWLOCK },
	{ "pthread_rwlock_timedwrlock", WAIT_HINT_RWLOCK },
	{ "pthread_rwlock_clockrdlock", WAIT_HINT_RWLOCK },
	{ "pthread_rwlock_clockwrlock", WAIT_HINT_RWLOCK },
	{ "sem_wait", WAIT_HINT_SEM },
	{ "__new_sem_wait", WAIT_HINT_SEM },
	{ "__new_sem_wait_slow64", WAIT_HINT_SEM },
	{ "sem_timedwait", WAIT_HINT_SEM },
	{ "__sem_timedwait64", WAIT_HINT_SEM },
	{ "sem_clockwait", WAIT_HINT_SEM },
	{ "__sem_clockwait64", WAIT_HINT_SEM },
	{ "do_futex_wait", WAIT_HINT_SEM },
	{ "clock_nanosleep", WAIT_HINT_SLEEP },
	{ "__clock_nanosleep", WAIT_HINT_SLEEP },
	{ "nanosleep", WAIT_HINT_SLEEP },
	{ "__nanosleep", WAIT_HINT_SLEEP },
	{ "poll", WAIT_HINT_POLL },
	{ "__poll", WAIT_HINT_POLL },
	{ "ppoll", WAIT_HINT_POLL },
	{ "__ppoll", WAIT_HINT_POLL },
};

/* A name as libc's .symtab may have it: "__GI_" before the public name
 * (glibc's internal alias), a ".constprop.0" or ".isra.0" after it (a
 * clone GCC made). */
enum wait_hint wait_hint_of(const char *func)
{
	size_t len;

	if (!func)
		return WAIT_HINT_NONE;
	if (!strncmp(func, "__GI_", 5))
		func += 5;
	len = strcspn(func, ".");
	for (size_t i = 0; i < sizeof(hints) / sizeof(*hints); i++)
		if (strlen(hints[i].name) == len &&
		    !strncmp(func, hints[i].name, len))
			return hints[i].hint;
	return WAIT_HINT_NONE;
}

/* The calls a blocked thread is most often found in (x86-64 numbers,
 * <sys/syscall.h>), by number. */
static const struct {
	int64_t nr;
	const char *name;
} calls[] = {
	{ SYS_read, "read" },
	{ SYS_write, "write" },
	{ SYS_open, "open" },
	{ SYS_close, "close" },
	{ SYS_poll, "poll" },
	{ SYS_ioctl, "ioctl" },
	{ SYS_pread64, "pread64" },
	{ SYS_pwrite64, "pwrite64" },
	{ SYS_readv, "readv" },
	{ SYS_writev, "writev" },
	{ SYS_select, "select" },
	{ SYS_sched_yield, "sched_yield" },
	{ SYS_msync, "msync" },
	{ SYS_pause, "pause" },
	{ SYS_nanosleep, "nanosleep" },
	{ SYS_sendfile, "sendfile" },
	{ SYS_connect, "connect" },
	{ SYS_accept, "accept" },
	{ SYS_sendto, "sendto" },
	{ SYS_recvfrom, "recvfrom" },
	{ SYS_sendmsg, "sendmsg" },
	{ SYS_recvmsg, "recvmsg" },
	{ SYS_shutdown, "shutdown" },
	{ SYS_wait4, "wait4" },
	{ SYS_semop, "semop" },
	{ SYS_msgsnd, "msgsnd" },
	{ SYS_msgrcv, "msgrcv" },
	{ SYS_fcntl, "fcntl" },
	{ SYS_flock, "flock" },
	{ SYS_fsync, "fsync" },
	{ SYS_fdatasync, "fdatasync" },
	{ SYS_rt_sigsuspend, "rt_sigsuspend" },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait" },
	{ SYS_sync, "sync" },
	{ SYS_futex, "futex" },
	{ SYS_io_getevents, "io_getevents" },
	{ SYS_epoll_wait, "epoll_wait" },
	{ SYS_semtimedop, "semtimedop" },
	{ SYS_clock_nanosleep, "clock_nanosleep" },
	{ SYS_waitid, "waitid" },
	{ SYS_openat, "openat" },
	{ SYS_pselect6, "pselect6" },
	{ SYS_ppoll, "ppoll" },
	{ SYS_splice, "splice" },
	{ SYS_tee, "tee" },
	{ SYS_sync_file_range, "sync_file_range" },
	{ SYS_epoll_pwait, "epoll_pwait" },
	{ SYS_accept4, "accept4" },
	{ SYS_recvmmsg, "recvmmsg" },
	{ SYS_sendmmsg, "sendmmsg" },
	{ SYS_syncfs, "syncfs" },
	{ SYS_preadv, "preadv" },
	{ SYS_pwritev, "pwritev" },
	{ SYS_copy_file_range, "copy_file_range" },
	{ SYS_preadv2, "preadv2" },
	{ SYS_pwritev2, "pwritev2" },
#ifdef SYS_io_pgetevents
	{ SYS_io_pgetevents, "io_pgetevents" },
#endif
#ifdef SYS_io_uring_enter
	{ SYS_io_uring_enter, "io_uring_enter" },
#endif
#ifdef SYS_epoll_pwait2
	{ SYS_epoll_pwait2, "epoll_pwait2" },
#endif
#ifdef SYS_futex_waitv
	{ SYS_futex_waitv, "futex_waitv" },
#endif
};

const char *wait_syscall_name(int64_t nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if (calls[i].nr == nr)
			return calls[i].name;
	return NULL;
}
