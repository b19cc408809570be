/*
 * waits - test target: threads blocked on every kind of wait issue 28
 * names (src/wait/), each named (pthread_setname_np) after its role, for
 * the wait decoder's unit test (tests/unit/test_futexwait) and the dump's
 * tests.
 *
 *   waits MODE      MODE: all | hostile-owner | flipping | self | crowd N
 *
 * Output, on stdout, once every thread is in its wait (its
 * /proc/self/task/TID/syscall shows the call, on the object's address
 * for a futex): one line a role, then "ready", e.g.
 *
 *   role NAME tid TID [addr 0xHEX] [owner N] [holder TID] [fd N] [port P]
 *   role pipe_writer pid PID
 *   ready
 *
 * The keys appear in that order, each only when it applies: addr is the
 * object the thread waits on (the pthread_mutex_t, pthread_rwlock_t,
 * sem_t, the pthread_cond_t itself: its futex word is at addr+40 or
 * addr+44, or the raw word), holder the TID of the thread that holds it
 * (a mutex's owner, an rwlock's writer, the thread joined), owner the
 * fake owner written into a hostile word, fd the descriptor the call is
 * on, port a TCP port on 127.0.0.1.  Then the process sleeps; it exits 0
 * by itself after 120 s (or when killed).  A setup that fails, or a
 * thread not in its wait within 60 s: one line on stderr, exit 1; a bad
 * MODE: exit 2.
 *
 * MODE all (the roles; a waiter is printed after what it waits on):
 *   main          the main thread, in nanosleep
 *   dl2_a dl2_b   a two-mutex deadlock: a holds m1 wants m2, b the reverse
 *   dl3_a..dl3_c  a three-thread cycle: each holds its mutex, wants the next
 *   chain_head    holds a mutex, blocked reading a pipe (fd) that the
 *                 process itself keeps open for writing and never writes
 *   chain_w1..w3  wait on chain_head's mutex (no cycle: a chain)
 *   pipe_writer   a forked child (pid) holding the only write end of ...
 *   pipe_reader   ... the pipe this thread reads (fd); the child dies with
 *                 the target (PR_SET_PDEATHSIG)
 *   sock_recv     recv() on one end (fd) of a socketpair
 *   cond_wait     pthread_cond_wait (addr: the condvar)
 *   join_sleeper  sleeps; join_waiter joins it (holder: join_sleeper)
 *   robust_holder holds a robust mutex, sleeps; robust_waiter waits on it
 *   rec_holder    holds a recursive mutex, locked twice, sleeps;
 *                 rec_waiter waits on it
 *   err_holder    holds an errorcheck mutex, sleeps; err_waiter waits
 *   rw_writer     holds an rwlock for writing, sleeps; rw_reader waits
 *   pi_holder     holds a priority-inheritance mutex, sleeps; pi_waiter
 *                 waits on it (FUTEX_LOCK_PI)
 *   sem_wait      sem_wait on a semaphore of value 0 (addr: the sem_t)
 *   epoll         epoll_wait (fd: the epoll descriptor) on a pipe and a
 *                 TCP socket listening on 127.0.0.1 (port)
 *   sleeper       nanosleep
 * MODE hostile-owner: words shaped as a locked, contended normal mutex
 *   (__lock 2, __kind 0), waited on with a raw FUTEX_WAIT of 2:
 *   hostile_init (owner 1, init), hostile_gone (owner: the PID of a
 *   child that has exited and been reaped); and owner_died, a word shaped
 *   as a robust mutex whose owner died (__lock FUTEX_OWNER_DIED |
 *   FUTEX_WAITERS, __kind 16), waited on with that value; bad_nusers
 *   and bad_count, shaped as a normal mutex held by the main thread
 *   (owner: its TID, a thread of the process) but with __nusers 0, or
 *   __count 3: no pthread_mutex_lock() leaves a held mutex so.
 * MODE flipping: flip_waiter sleeps in FUTEX_WAIT on a word (addr) with
 *   the value it had; then flipper, busy, changes the word for good to
 *   values the waiter did not wait with (no wake: the wait stays).
 * MODE self: self_lock locks a normal mutex (addr) twice: a self-deadlock
 *   (holder: itself).
 * MODE crowd N: crowd_holder holds a mutex and sleeps; N threads
 *   (1..1000), each "role crowd", wait on it (addr, holder: crowd_holder).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

#define LIFE_S 120
#define READY_S 60
#define MAX_ROLES 1100

struct role {
	const char *name;
	void (*fn)(struct role *);
	long nr, nr2;	  /* the call it waits in (-1: not checked) */
	uintptr_t lo, hi; /* futex: its address is in [lo, hi) */
	uintptr_t addr;	  /* printed as addr when not 0 */
	struct role *holder;
	long owner; /* printed when not 0 */
	int fd, port;
	void *obj; /* what fn works on */
	volatile pid_t tid;
	pthread_t thread;
};

static struct role roles[MAX_ROLES];
static int nroles;
static double t0;

/* The objects, each with one set of users. */
static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER,
		       m2 = PTHREAD_MUTEX_INITIALIZER, m3[3], mchain, cmx, rmx,
		       recmx, errmx, pimx, crowdmx, selfmx;
static pthread_barrier_t bar2, bar3;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static int chain_pipe[2], writer_pipe[2], sock_pair[2], ep_pipe[2], ep_fd,
	listen_fd;

/* A word shaped as a pthread_mutex_t (glibc x86-64: __lock, __count,
 * __owner, __nusers, __kind, ...). */
struct fake_mutex {
	int32_t lock;
	uint32_t count;
	int32_t owner;
	uint32_t nusers;
	int32_t kind;
	int32_t pad[5];
};
static struct fake_mutex fake_init, fake_gone, fake_died, flip_word;
static struct fake_mutex fake_nousers, fake_count;

static void die(const char *what)
{
	fprintf(stderr, "waits: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sleep until the process's life is over (it then exits from main). */
NOIPA static void sleep_long(void)
{
	for (int i = 0; i < LIFE_S + 10; i++)
		nap(1000);
	KEEP_FRAME();
}

NOIPA static void lock(pthread_mutex_t *m)
{
	int e = pthread_mutex_lock(m);

	if (e) {
		errno = e;
		die("pthread_mutex_lock");
	}
	KEEP_FRAME();
}

static void futex_wait_forever(void *word, int32_t val)
{
	for (;;)
		syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL,
			0);
}

static void *start(void *arg)
{
	struct role *r = arg;

	pthread_setname_np(pthread_self(), r->name);
	r->tid = (pid_t)syscall(SYS_gettid);
	r->fn(r);
	return NULL;
}

/* Each role's body. */
static void do_sleep(struct role *r)
{
	(void)r;
	sleep_long();
}

static void do_lock(struct role *r)
{
	lock(r->obj);
	sleep_long();
}

static void do_hold_twice(struct role *r)
{
	lock(r->obj);
	lock(r->obj);
	sleep_long();
}

static void do_dl2(struct role *r)
{
	pthread_mutex_t *mine = r->obj, *other = mine == &m1 ? &m2 : &m1;

	lock(mine);
	pthread_barrier_wait(&bar2);
	lock(other);
}

static void do_dl3(struct role *r)
{
	pthread_mutex_t *mine = r->obj;
	int i = (int)(mine - m3);

	lock(mine);
	pthread_barrier_wait(&bar3);
	lock(&m3[(i + 1) % 3]);
}

NOIPA static void read_fd(struct role *r)
{
	char c;

	while (read(r->fd, &c, 1) != 0)
		;
	sleep_long();
}

static void do_chain_head(struct role *r)
{
	lock(&mchain);
	read_fd(r);
}

static void do_recv(struct role *r)
{
	char c;

	while (recv(r->fd, &c, 1, 0) != 0)
		;
	sleep_long();
}

static void do_cond(struct role *r)
{
	(void)r;
	pthread_mutex_lock(&cmx);
	for (;;)
		pthread_cond_wait(&cv, &cmx);
}

static void do_join(struct role *r)
{
	pthread_join(r->holder->thread, NULL);
	sleep_long();
}

static void do_wrlock(struct role *r)
{
	(void)r;
	pthread_rwlock_wrlock(&rw);
	sleep_long();
}

static void do_rdlock(struct role *r)
{
	(void)r;
	pthread_rwlock_rdlock(&rw);
	sleep_long();
}

static void do_sem(struct role *r)
{
	(void)r;
	while (sem_wait(&sem))
		;
	sleep_long();
}

static void do_epoll(struct role *r)
{
	struct epoll_event ev;

	while (epoll_wait(r->fd, &ev, 1, -1) <= 0)
		;
	sleep_long();
}

static void do_fake(struct role *r)
{
	struct fake_mutex *f = r->obj;

	futex_wait_forever(&f->lock, f->lock);
}

static void do_flip(struct role *r)
{
	volatile int32_t *w = &((struct fake_mutex *)r->obj)->lock;

	for (uint64_t i = 0;; i++) {
		*w = 1000 + (int32_t)(i % 1000); /* never the value waited */
		if (i % 65536 == 0 && now() - t0 > LIFE_S)
			break;
	}
}

/* A role, described; started by run(). */
static struct role *add(const char *name, void (*fn)(struct role *), long nr)
{
	struct role *r;

	if (nroles == MAX_ROLES) {
		fprintf(stderr, "waits: too many roles\n");
		exit(1);
	}
	r = &roles[nroles++];
	r->name = name;
	r->fn = fn;
	r->nr = r->nr2 = nr;
	r->fd = -1;
	return r;
}

static struct role *add_futex(const char *name, void (*fn)(struct role *),
			      void *obj, size_t span)
{
	struct role *r = add(name, fn, SYS_futex);

	r->obj = obj;
	r->addr = (uintptr_t)obj;
	r->lo = (uintptr_t)obj;
	r->hi = r->lo + span;
	return r;
}

/* A role that ends in sleep_long(), holding obj when not NULL. */
static struct role *add_sleep(const char *name, void (*fn)(struct role *),
			      void *obj)
{
	struct role *r = add(name, fn, SYS_clock_nanosleep);

	r->nr2 = SYS_nanosleep;
	r->obj = obj;
	return r;
}

/* Is the thread asleep in its call (on its address)?  Its syscall file:
 * "NR ARG0 ...", or "running". */
static int in_wait(const struct role *r)
{
	char path[64], buf[256];
	long nr;
	unsigned long a0;
	ssize_t n;
	int fd;

	if (r->nr < 0)
		return 1;
	if (!r->tid)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)r->tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%ld %lx", &nr, &a0) != 2)
		return 0;
	if (nr != r->nr && nr != r->nr2)
		return 0;
	return !r->hi || (a0 >= r->lo && a0 < r->hi);
}

static void wait_in(struct role *r)
{
	while (!in_wait(r)) {
		if (now() - t0 > READY_S) {
			fprintf(stderr,
				"waits: %s is not in its wait after "
				"%d s\n",
				r->name, READY_S);
			exit(1);
		}
		nap(0.005);
	}
}

static void run(struct role *r, size_t stack)
{
	pthread_attr_t a;
	int e;

	pthread_attr_init(&a);
	if (stack)
		pthread_attr_setstacksize(&a, stack);
	e = pthread_create(&r->thread, &a, start, r);
	pthread_attr_destroy(&a);
	if (e) {
		errno = e;
		die("pthread_create");
	}
}

/* Start roles [from, nroles) and wait until each is in its wait. */
static void run_all(int from, size_t stack)
{
	for (int i = from; i < nroles; i++)
		run(&roles[i], stack);
	for (int i = from; i < nroles; i++)
		wait_in(&roles[i]);
}

static void mutex_of(pthread_mutex_t *m, int type, int robust, int pi)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (pi)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* The pipe's write end goes to a child that lives as long as we do. */
static pid_t fork_writer(void)
{
	pid_t parent = getpid(), pid;

	if (pipe(writer_pipe))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		close(writer_pipe[0]);
		for (int i = 0; i < LIFE_S + 10; i++)
			nap(1);
		_exit(0);
	}
	close(writer_pipe[1]);
	return pid;
}

static int tcp_listen(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&sa, &len))
		die("TCP socket on 127.0.0.1");
	*port = ntohs(sa.sin_port);
	return fd;
}

static void epoll_add(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epoll_ctl(ep_fd, EPOLL_CTL_ADD, fd, &ev))
		die("epoll_ctl");
}

static void mode_all(pid_t *writer)
{
	static const char *const nw[] = { "chain_w1", "chain_w2", "chain_w3" };
	struct role *r, *h, *sl, *rh, *ch, *eh, *wh, *ph;
	int port, first;

	*writer = fork_writer(); /* first: the child holds no other fd */
	for (int i = 0; i < 3; i++)
		pthread_mutex_init(&m3[i], NULL);
	pthread_mutex_init(&mchain, NULL);
	pthread_mutex_init(&cmx, NULL);
	mutex_of(&rmx, PTHREAD_MUTEX_NORMAL, 1, 0);
	mutex_of(&recmx, PTHREAD_MUTEX_RECURSIVE, 0, 0);
	mutex_of(&errmx, PTHREAD_MUTEX_ERRORCHECK, 0, 0);
	mutex_of(&pimx, PTHREAD_MUTEX_NORMAL, 0, 1);
	pthread_barrier_init(&bar2, NULL, 2);
	pthread_barrier_init(&bar3, NULL, 3);
	if (pipe(chain_pipe) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock_pair) || pipe(ep_pipe) ||
	    sem_init(&sem, 0, 0))
		die("pipe, socketpair or sem_init");
	ep_fd = epoll_create1(0);
	if (ep_fd < 0)
		die("epoll_create1");
	listen_fd = tcp_listen(&port);
	epoll_add(ep_pipe[0]);
	epoll_add(listen_fd);

	r = add_futex("dl2_a", do_dl2, &m1, sizeof(m1));
	h = add_futex("dl2_b", do_dl2, &m2, sizeof(m2));
	r->holder = h, h->holder = r; /* each waits on the other's mutex */
	r->addr = r->lo = (uintptr_t)&m2, r->hi = r->lo + sizeof(m2);
	h->addr = h->lo = (uintptr_t)&m1, h->hi = h->lo + sizeof(m1);
	{
		static const char *const n3[] = { "dl3_a", "dl3_b", "dl3_c" };
		struct role *c[3];

		for (int i = 0; i < 3; i++)
			c[i] = add_futex(n3[i], do_dl3, &m3[i], 0);
		for (int i = 0; i < 3; i++) {
			int next = (i + 1) % 3;

			c[i]->holder = c[next];
			c[i]->addr = c[i]->lo = (uintptr_t)&m3[next];
			c[i]->hi = c[i]->lo + sizeof(m3[next]);
		}
	}
	h = add("chain_head", do_chain_head, SYS_read);
	h->fd = chain_pipe[0];
	run_all(1, 0); /* chain_head holds mchain before its waiters start */
	first = nroles;
	for (int i = 0; i < 3; i++)
		add_futex(nw[i], do_lock, &mchain, sizeof(mchain))->holder = h;
	r = add("pipe_reader", read_fd, SYS_read);
	r->fd = writer_pipe[0];
	r = add("sock_recv", do_recv, SYS_recvfrom);
	r->fd = sock_pair[0];
	r = add_futex("cond_wait", do_cond, &cv, 0);
	r->lo += 40, r->hi = r->lo + 8; /* __g_signals[0] or [1] */
	sl = add_sleep("join_sleeper", do_sleep, NULL);
	rh = add_sleep("robust_holder", do_lock, &rmx);
	ch = add_sleep("rec_holder", do_hold_twice, &recmx);
	eh = add_sleep("err_holder", do_lock, &errmx);
	wh = add_sleep("rw_writer", do_wrlock, &rw);
	ph = add_sleep("pi_holder", do_lock, &pimx);
	add_futex("sem_wait", do_sem, &sem, sizeof(sem));
	r = add("epoll", do_epoll, SYS_epoll_wait);
	r->nr2 = SYS_epoll_pwait;
	r->fd = ep_fd, r->port = port;
	add_sleep("sleeper", do_sleep, NULL);
	run_all(first, 0);
	/* The waiters on the holders, now that these hold. */
	first = nroles;
	add("join_waiter", do_join, SYS_futex)->holder = sl;
	add_futex("robust_waiter", do_lock, &rmx, sizeof(rmx))->holder = rh;
	add_futex("rec_waiter", do_lock, &recmx, sizeof(recmx))->holder = ch;
	add_futex("err_waiter", do_lock, &errmx, sizeof(errmx))->holder = eh;
	/* A reader sleeps on __readers or __wrphase_futex: the first 16
	 * bytes. */
	add_futex("rw_reader", do_rdlock, &rw, 16)->holder = wh;
	add_futex("pi_waiter", do_lock, &pimx, 4)->holder = ph;
	run_all(first, 0);
}

static void mode_hostile(void)
{
	pid_t gone = fork();
	struct role *r;

	if (gone < 0)
		die("fork");
	if (gone == 0)
		_exit(0);
	if (waitpid(gone, NULL, 0) != gone)
		die("waitpid");
	fake_init = (struct fake_mutex){ .lock = 2, .owner = 1, .nusers = 1 };
	fake_gone = (struct fake_mutex){ .lock = 2,
					 .owner = gone,
					 .nusers = 1 };
	fake_died = (struct fake_mutex){
		.lock = (int32_t)(FUTEX_OWNER_DIED | FUTEX_WAITERS), .kind = 16
	};
	r = add_futex("hostile_init", do_fake, &fake_init, 4);
	r->owner = 1;
	r = add_futex("hostile_gone", do_fake, &fake_gone, 4);
	r->owner = gone;
	add_futex("owner_died", do_fake, &fake_died, 4);
	fake_nousers = (struct fake_mutex){ .lock = 2, .owner = getpid() };
	fake_count = (struct fake_mutex){
		.lock = 2, .count = 3, .owner = getpid(), .nusers = 1
	};
	r = add_futex("bad_nusers", do_fake, &fake_nousers, 4);
	r->owner = getpid();
	r = add_futex("bad_count", do_fake, &fake_count, 4);
	r->owner = getpid();
	run_all(1, 0);
}

static void mode_flipping(void)
{
	struct role *r;

	flip_word.lock = 7;
	add_futex("flip_waiter", do_fake, &flip_word, 4);
	run_all(1, 0);
	r = add("flipper", do_flip, -1);
	r->obj = &flip_word, r->addr = (uintptr_t)&flip_word;
	run_all(2, 0);
	/* The word has moved: the wait stays, nobody wakes it. */
	while (flip_word.lock == 7)
		nap(0.001);
}

static void mode_self(void)
{
	struct role *r;

	pthread_mutex_init(&selfmx, NULL);
	r = add_futex("self_lock", do_hold_twice, &selfmx, sizeof(selfmx));
	r->holder = r;
	run_all(1, 0);
}

static void mode_crowd(int n)
{
	struct role *h;

	pthread_mutex_init(&crowdmx, NULL);
	h = add_sleep("crowd_holder", do_lock, &crowdmx);
	run_all(1, 0);
	for (int i = 0; i < n; i++)
		add_futex("crowd", do_lock, &crowdmx, sizeof(crowdmx))->holder =
			h;
	run_all(2, 64 * 1024);
}

static void print_roles(pid_t writer)
{
	for (int i = 0; i < nroles; i++) {
		struct role *r = &roles[i];

		printf("role %s tid %d", r->name, (int)r->tid);
		if (r->addr)
			printf(" addr 0x%lx", (unsigned long)r->addr);
		if (r->owner)
			printf(" owner %ld", r->owner);
		if (r->holder)
			printf(" holder %d", (int)r->holder->tid);
		if (r->fd >= 0)
			printf(" fd %d", r->fd);
		if (r->port)
			printf(" port %d", r->port);
		printf("\n");
		if (!strcmp(r->name, "pipe_reader"))
			printf("role pipe_writer pid %d\n", (int)writer);
	}
	printf("ready\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pid_t writer = 0;
	struct role *m;

	t0 = now();
	m = add("main", NULL, -1);
	m->tid = getpid();
	if (!strcmp(mode, "all") && argc == 2) {
		mode_all(&writer);
	} else if (!strcmp(mode, "hostile-owner") && argc == 2) {
		mode_hostile();
	} else if (!strcmp(mode, "flipping") && argc == 2) {
		mode_flipping();
	} else if (!strcmp(mode, "self") && argc == 2) {
		mode_self();
	} else if (!strcmp(mode, "crowd") && argc == 3) {
		char *end;
		long n = strtol(argv[2], &end, 10);

		if (*end || end == argv[2] || n < 1 || n > 1000) {
			fprintf(stderr,
				"waits: crowd wants 1 to 1000 threads, "
				"not '%s'\n",
				argv[2]);
			return 2;
		}
		mode_crowd((int)n);
	} else {
		fprintf(stderr, "usage: waits all|hostile-owner|flipping|self|"
				"crowd N\n");
		return 2;
	}
	print_roles(writer);
	while (now() - t0 < LIFE_S)
		nap(1);
	_exit(0);
}
