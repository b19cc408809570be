/*
 * wait.c - the wait kinds' names, and the glibc entries that tell which
 * object a futex wait is on (wait.h).
 */
#include "config.h"

#include <string.h>

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
