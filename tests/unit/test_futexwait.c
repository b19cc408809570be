/*
 * test_futexwait - futexwait_decode() on real glibc objects: the waits
 * target (tests/targets/waits.c) is started in its modes, and each of
 * its threads asleep in futex() is decoded from its /proc syscall line
 * (peek_read_syscall()) and checked against what the target printed:
 * the kind, the object's address, the holder.  Normal, recursive,
 * robust, errorcheck and PI mutexes, a two-mutex deadlock, a condvar, a
 * join, an rwlock held for writing, a semaphore; with the hint a stack
 * would give and with none (the layouts tried in turn), and with a
 * wrong hint (no holder guessed).  Hostile: words shaped as a mutex
 * whose owner is init or an exited child (no holder believed), a robust
 * word whose owner died, a word a busy thread keeps changing, a normal
 * mutex locked twice by one thread (the one self-holder allowed), a
 * holder left out of the thread list; errors: an op that is no wait, an
 * unmapped word, a process gone; words shaped as a held normal mutex
 * but with __nusers 0 or __count 3 (no holder).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/peek.h"
#include "proc/procfs.h"
#include "unit.h"
#include "wait/futexwait.h"

#define MAX_ROLES 64

struct role {
	char name[32];
	pid_t tid, holder;
	uint64_t addr;
	long owner;
};

struct target {
	pid_t pid;
	struct role roles[MAX_ROLES];
	int n;
	struct tidlist tl;
};

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* "role NAME tid T [addr 0x..] [owner N] [holder T] [fd N] [port P]" */
static void parse_role(char *line, struct role *r)
{
	char *save, *tok, *key = NULL;

	memset(r, 0, sizeof(*r));
	strtok_r(line, " \n", &save);
	tok = strtok_r(NULL, " \n", &save);
	snprintf(r->name, sizeof(r->name), "%s", tok ? tok : "");
	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (!key) {
			key = tok;
			continue;
		}
		if (!strcmp(key, "tid"))
			r->tid = (pid_t)atoi(tok);
		else if (!strcmp(key, "addr"))
			r->addr = strtoull(tok, NULL, 16);
		else if (!strcmp(key, "holder"))
			r->holder = (pid_t)atoi(tok);
		else if (!strcmp(key, "owner"))
			r->owner = atol(tok);
		key = NULL;
	}
}

/* Start `waits MODE` and read its roles up to "ready": 0, or -1. */
static int start(struct target *t, const char *mode)
{
	const char *top = getenv("abs_top_builddir");
	char path[4096], line[256];
	int p[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/targets/waits", top ? top : ".");
	memset(t, 0, sizeof(*t));
	if (pipe(p))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(path, "waits", mode, (char *)NULL);
		perror(path);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "ready\n")) {
			fclose(f);
			if (procfs_list_tasks(t->pid, &t->tl))
				return -1;
			qsort(t->tl.tids, t->tl.n, sizeof(pid_t), cmp_tid);
			return 0;
		}
		if (!strncmp(line, "role ", 5) && t->n < MAX_ROLES)
			parse_role(line, &t->roles[t->n++]);
	}
	if (f)
		fclose(f);
	return -1;
}

static void stop(struct target *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	procfs_tidlist_free(&t->tl);
}

static const struct role *role(const struct target *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->roles[i].name, name))
			return &t->roles[i];
	fprintf(stderr, "no role %s\n", name);
	return NULL;
}

/* Decode role name's futex wait with hint; the return of
 * futexwait_decode(), or -2 when its syscall line is no futex call. */
static int decode(const struct target *t, const char *name, enum wait_hint hint,
		  struct wait_info *out)
{
	const struct role *r = role(t, name);
	struct peek_syscall sc;
	int fd = -1, rc;

	memset(out, 0, sizeof(*out));
	if (!r)
		return -2;
	rc = peek_read_syscall(t->pid, r->tid, &fd, &sc);
	if (fd >= 0)
		close(fd);
	CHECKF(rc == 1 && sc.nr == SYS_futex, "%s: syscall %d nr %" PRId64,
	       name, rc, sc.nr);
	if (rc != 1 || sc.nr != SYS_futex)
		return -2;
	struct futexwait_in in = { .pid = t->pid,
				   .tid = r->tid,
				   .uaddr = sc.args[0],
				   .op = sc.args[1],
				   .val = sc.args[2],
				   .hint = hint,
				   .tids = t->tl.tids,
				   .ntids = t->tl.n };
	return futexwait_decode(&in, out);
}

/* kind, addr (0: not checked) and holder of role name, and a piece of
 * the text. */
static void expect(const struct target *t, const char *name,
		   enum wait_hint hint, enum wait_kind kind, uint64_t addr,
		   pid_t holder, const char *text)
{
	struct wait_info w;
	int rc = decode(t, name, hint, &w);

	CHECKF(rc == 0, "%s hint %d: rc %d", name, hint, rc);
	CHECKF(w.kind == kind, "%s hint %d: kind %s, not %s (%s)", name, hint,
	       wait_kind_name(w.kind), wait_kind_name(kind), w.text);
	CHECKF(!addr || w.addr == addr,
	       "%s hint %d: addr 0x%" PRIx64 ", not 0x%" PRIx64, name, hint,
	       w.addr, addr);
	CHECKF(w.holder == holder, "%s hint %d: holder %d, not %d (%s)", name,
	       hint, (int)w.holder, (int)holder, w.text);
	CHECKF(!text || strstr(w.text, text),
	       "%s hint %d: text '%s' lacks '%s'", name, hint, w.text, text);
}

static void check_all(void)
{
	struct target t;
	const struct role *r;
	struct wait_info w;
	static const char *const mutexes[] = { "dl2_a",	     "dl2_b",
					       "dl3_a",	     "dl3_c",
					       "chain_w2",   "robust_waiter",
					       "rec_waiter", "err_waiter" };

	if (start(&t, "all")) {
		CHECKF(0, "waits all did not start");
		stop(&t);
		return;
	}
	/* Every mutex, with the hint and without. */
	for (size_t i = 0; i < sizeof(mutexes) / sizeof(*mutexes); i++) {
		if (!(r = role(&t, mutexes[i])))
			continue;
		expect(&t, r->name, WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr,
		       r->holder, "held by thread");
		expect(&t, r->name, WAIT_HINT_NONE, WAIT_MUTEX, r->addr,
		       r->holder, "held by thread");
	}
	expect(&t, "dl2_a", WAIT_HINT_MUTEX, WAIT_MUTEX, 0,
	       role(&t, "dl2_b")->tid, "mutex 0x");
	expect(&t, "robust_waiter", WAIT_HINT_MUTEX, WAIT_MUTEX, 0,
	       role(&t, "robust_holder")->tid, "robust mutex 0x");
	expect(&t, "rec_waiter", WAIT_HINT_MUTEX, WAIT_MUTEX, 0,
	       role(&t, "rec_holder")->tid, "recursive mutex 0x");
	expect(&t, "rec_waiter", WAIT_HINT_MUTEX, WAIT_MUTEX, 0,
	       role(&t, "rec_holder")->tid, "(count 2)");
	expect(&t, "err_waiter", WAIT_HINT_MUTEX, WAIT_MUTEX, 0,
	       role(&t, "err_holder")->tid, "errorcheck mutex 0x");

	/* PI: FUTEX_LOCK_PI, the owner in the lock word */
	r = role(&t, "pi_waiter");
	expect(&t, "pi_waiter", WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, r->holder,
	       "PI mutex 0x");
	expect(&t, "pi_waiter", WAIT_HINT_NONE, WAIT_MUTEX, r->addr, r->holder,
	       "held by thread");

	/* condvar: the word is __g_signals[0] or [1] of the pthread_cond_t */
	if ((r = role(&t, "cond_wait"))) {
		CHECK(decode(&t, "cond_wait", WAIT_HINT_CONDVAR, &w) == 0);
		CHECKF(w.kind == WAIT_CONDVAR && w.holder == 0 &&
			       (w.addr == r->addr + 40 ||
				w.addr == r->addr + 44),
		       "condvar: %s 0x%" PRIx64 " %s", wait_kind_name(w.kind),
		       w.addr, w.text);
		CHECK(strstr(w.text, "condvar 0x") != NULL);
		/* no hint: the whole pthread_cond_t is checked */
		CHECK(decode(&t, "cond_wait", WAIT_HINT_NONE, &w) == 0);
		CHECKF(w.kind == WAIT_CONDVAR && w.holder == 0 &&
			       strstr(w.text, "1 waiter)"),
		       "unhinted condvar: %s %s", wait_kind_name(w.kind),
		       w.text);
	}

	r = role(&t, "join_waiter");
	expect(&t, "join_waiter", WAIT_HINT_JOIN, WAIT_JOIN, 0, r->holder,
	       "join of thread");
	expect(&t, "join_waiter", WAIT_HINT_NONE, WAIT_JOIN, 0, r->holder,
	       "join of thread");

	r = role(&t, "rw_reader");
	expect(&t, "rw_reader", WAIT_HINT_RWLOCK, WAIT_RWLOCK, r->addr,
	       r->holder, "held for writing by thread");
	expect(&t, "rw_reader", WAIT_HINT_NONE, WAIT_RWLOCK, r->addr, r->holder,
	       "held for writing by thread");

	r = role(&t, "sem_wait");
	expect(&t, "sem_wait", WAIT_HINT_SEM, WAIT_SEM, r->addr, 0,
	       "(value 0)");
	expect(&t, "sem_wait", WAIT_HINT_NONE, WAIT_SEM, r->addr, 0,
	       "(value 0)");

	/* A wrong hint guesses nothing. */
	expect(&t, "sem_wait", WAIT_HINT_MUTEX, WAIT_FUTEX, r->addr, 0, NULL);
	r = role(&t, "dl2_a");
	expect(&t, "dl2_a", WAIT_HINT_RWLOCK, WAIT_FUTEX, r->addr, 0, NULL);
	expect(&t, "dl2_a", WAIT_HINT_SEM, WAIT_FUTEX, r->addr, 0, NULL);
	/* glibc's internal lock is never a pthread_mutex_t: no holder */
	expect(&t, "dl2_a", WAIT_HINT_LIBC_LOCK, WAIT_FUTEX, r->addr, 0,
	       "libc internal lock 0x");
	CHECK(wait_hint_of("__lll_lock_wait_private") == WAIT_HINT_LIBC_LOCK);
	CHECK(wait_hint_of("__lll_lock_wait") == WAIT_HINT_MUTEX);
	/* the calls' names (wait.h) */
	CHECK(!strcmp(wait_syscall_name(SYS_read), "read"));
	CHECK(!strcmp(wait_syscall_name(SYS_epoll_wait), "epoll_wait"));
	CHECK(!strcmp(wait_syscall_name(SYS_clock_nanosleep),
		      "clock_nanosleep"));
	CHECK(wait_syscall_name(-1) == NULL);
	CHECK(wait_syscall_name(SYS_getpid) == NULL);
	CHECK(wait_syscall_name(INT64_MAX) == NULL);

	/* A holder missing from the thread list is not believed. */
	{
		pid_t *keep = t.tl.tids;
		size_t n = t.tl.n, k = 0;
		pid_t *less = calloc(n, sizeof(*less));

		for (size_t i = 0; less && i < n; i++)
			if (keep[i] != r->holder)
				less[k++] = keep[i];
		t.tl.tids = less;
		t.tl.n = k;
		expect(&t, "dl2_a", WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, 0,
		       "is not a thread of this process");
		expect(&t, "dl2_a", WAIT_HINT_NONE, WAIT_FUTEX, r->addr, 0,
		       "is not a thread of this process");
		t.tl.tids = keep;
		t.tl.n = n;
		free(less);
	}
	stop(&t);
}

static void check_hostile(void)
{
	struct target t;
	const struct role *r;
	char want[96];

	if (start(&t, "hostile-owner")) {
		CHECKF(0, "waits hostile-owner did not start");
		stop(&t);
		return;
	}
	static const char *const names[] = { "hostile_init", "hostile_gone" };
	for (int i = 0; i < 2; i++) {
		if (!(r = role(&t, names[i])))
			continue;
		snprintf(want, sizeof(want),
			 "owner TID %ld is not a thread of this process",
			 r->owner);
		expect(&t, r->name, WAIT_HINT_NONE, WAIT_FUTEX, r->addr, 0,
		       want);
		expect(&t, r->name, WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, 0,
		       want);
		expect(&t, r->name, WAIT_HINT_JOIN, WAIT_JOIN, r->addr, 0,
		       NULL);
	}
	/* Shaped as a normal mutex its owner holds, but with fields no
	 * held one has: the owner is a thread here, and still no holder. */
	static const char *const bad[] = { "bad_nusers", "bad_count" };
	for (int i = 0; i < 2; i++) {
		if (!(r = role(&t, bad[i])))
			continue;
		expect(&t, r->name, WAIT_HINT_NONE, WAIT_FUTEX, r->addr, 0,
		       "futex at 0x");
		expect(&t, r->name, WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, 0,
		       "do not fit a held mutex");
	}
	r = role(&t, "owner_died");
	expect(&t, "owner_died", WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, 0,
	       "robust mutex 0x");
	expect(&t, "owner_died", WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr, 0,
	       "(owner died)");
	expect(&t, "owner_died", WAIT_HINT_NONE, WAIT_FUTEX, r->addr, 0,
	       "futex at 0x");
	stop(&t);
}

static void check_flipping_and_self(void)
{
	struct target t;
	struct wait_info w;
	const struct role *r;
	int changing = 0;

	if (start(&t, "flipping") == 0 && (r = role(&t, "flip_waiter"))) {
		int reads = 0;

		for (; reads < 2000 && !changing; reads++) {
			expect(&t, "flip_waiter", WAIT_HINT_NONE, WAIT_FUTEX,
			       r->addr, 0, "futex at 0x");
			decode(&t, "flip_waiter", WAIT_HINT_NONE, &w);
			changing += strstr(w.text, "changing") != NULL;
		}
		/* Whether a read saw it move is the scheduler's: said only. */
		printf("flip_waiter: %d reads, %s saw the word change (%s)\n",
		       reads, changing ? "the last" : "none", w.text);
	} else {
		CHECKF(0, "waits flipping did not start");
	}
	stop(&t);

	if (start(&t, "self") == 0 && (r = role(&t, "self_lock"))) {
		expect(&t, "self_lock", WAIT_HINT_MUTEX, WAIT_MUTEX, r->addr,
		       r->tid, "itself (self-deadlock)");
		expect(&t, "self_lock", WAIT_HINT_NONE, WAIT_MUTEX, r->addr,
		       r->tid, "itself (self-deadlock)");
	} else {
		CHECKF(0, "waits self did not start");
	}
	stop(&t);
}

static void check_errors(void)
{
	struct wait_info w;
	pid_t self = getpid(), tids[1] = { self };
	static uint32_t word = 5;
	struct futexwait_in in = { .pid = self,
				   .tid = self,
				   .uaddr = (uintptr_t)&word,
				   .op = FUTEX_WAKE_PRIVATE,
				   .val = 1,
				   .tids = tids,
				   .ntids = 1 };
	pid_t gone;

	errno = 0;
	CHECK(futexwait_decode(&in, &w) == -1 && errno == EINVAL);
	CHECK(w.kind == WAIT_FUTEX && w.addr == in.uaddr);

	/* a word of our own: plain, its value read */
	in.op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME;
	in.val = 5;
	CHECK(futexwait_decode(&in, &w) == 0 && w.kind == WAIT_FUTEX);
	CHECKF(strstr(w.text, "(value 5)") != NULL, "%s", w.text);

	in.uaddr = 0x10;
	errno = 0;
	CHECK(futexwait_decode(&in, &w) == -1 && errno == EFAULT);
	CHECK(w.kind == WAIT_FUTEX && w.addr == 0x10 && w.holder == 0);
	CHECKF(strstr(w.text, "futex at 0x10") != NULL, "%s", w.text);

	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	in.pid = in.tid = gone;
	in.uaddr = (uintptr_t)&word;
	errno = 0;
	CHECK(futexwait_decode(&in, &w) == -1 && errno == ESRCH);
	CHECKF(strstr(w.text, "gone") != NULL, "%s", w.text);
}

int main(void)
{
	alarm(300); /* bounded, whatever the target does */
	check_errors();
	check_all();
	check_hostile();
	check_flipping_and_self();
	return unit_result("test_futexwait");
}
