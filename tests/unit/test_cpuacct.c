/*
 * test_cpuacct - CPU accounting when file descriptors run short (issue
 * 12, item 3), on this test's own thread under RLIMIT_NOFILE 64:
 *  - with descriptors to spare, schedstat is kept open;
 *  - once the lowest free descriptor is in the last quarter of the limit
 *    (at least 16), it is read but not kept (unkept, sched_fd -1);
 *  - with no descriptor left, the read fails with EMFILE;
 *  - cpuacct_due() never guesses: a thread whose state cannot be read is
 *    not due in CPU mode (-1, EMFILE), first seen or with a carry due;
 *    in --wall mode a first-seen thread is due without a read;
 *  - the CPU time of the interval that ends at a check goes into the
 *    carry at the next check (the ticks are jittered: cpuacct_due()).
 * And the CPU-mode arithmetic (issue 13, items 3 and 4), on made-up
 * carries: weights never put the threads together more than half a
 * period ahead, but for a busy thread; a stack due for the small carries
 * counts for what it took; the end's settling gives whole periods with
 * the rounding carried from one thread to the next, within a budget.
 * And a thread that is owed a sample but asleep (issue 26): never due on
 * a guess, however large its carry; what the carry holds beyond 64 ms
 * goes to uncaught_w in whole periods; it is read at every check, never
 * quiet, while it is owed; a stop that found it asleep (cpuacct_missed())
 * leaves its carry, takes no small carries and is not running.
 * And narrowed sweeps (issue 30): a sweep the process clock calls for is
 * called off when the quiet threads that ran in the last second explain
 * the time, leaving the rest unexplained; never in --wall mode.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler/cpuacct.h"
#include "unit.h"
#include "util/timeutil.h"

#define LIMIT 64
#define PERIOD_NS (1000 * 1000) /* 1 ms: a short burn makes a carry due */

static int fds[LIMIT];
static int nfds;

/* Open /dev/null until the lowest free descriptor is at least below, or
 * (below < 0) until none is left. */
static void take_fds(int below)
{
	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return;
		fds[nfds++] = fd;
		if (below >= 0 && fd + 1 >= below)
			return;
	}
}

static void give_fds(void)
{
	while (nfds)
		close(fds[--nfds]);
}

/* Burn ms of this thread's CPU time. */
static void burn_ms(unsigned ms)
{
	uint64_t end = mono_now_ns() + (uint64_t)ms * NSEC_PER_MSEC;
	volatile uint64_t x = 0;

	while (mono_now_ns() < end)
		x++;
}

/* A thread due with carry c (ns) while all threads hold sum. */
static uint64_t weigh(struct cpuacct_proc *p, struct cpuacct *c, int64_t carry,
		      int64_t sum)
{
	c->carry = carry;
	p->carry_sum = sum;
	return cpuacct_weight(c, p);
}

static void check_weights(void)
{
	struct cpuacct_proc p;
	struct cpuacct c = { 0 };
	const int64_t P = PERIOD_NS;
	int64_t budget, resid = 0;
	uint64_t n = 0;

	cpuacct_proc_init(&p, getpid(), PERIOD_NS, false);
	/* Its own carry, rounded; what is given is taken off. */
	CHECK(weigh(&p, &c, 3 * P + P / 3, 3 * P + P / 3) == 3);
	CHECK(c.carry == P / 3 && p.carry_sum == P / 3);
	/* Just over half a period while the others were counted ahead: 0,
	 * and nothing taken off. */
	CHECK(weigh(&p, &c, P / 2 + 1, -P / 4) == 0);
	CHECK(c.carry == P / 2 + 1 && p.carry_sum == -P / 4);
	/* ... but a busy thread counts ahead of its schedstat. */
	c.borrowing = true;
	CHECK(weigh(&p, &c, 0, -P / 4) == 1);
	CHECK(c.carry == -P && p.carry_sum == -P / 4 - P && !c.borrowing);
	/* Due for the small carries: counts for what it took. */
	c.pool_w = 4;
	CHECK(weigh(&p, &c, P / 10, 5 * P) == 4);
	CHECK(c.carry == P / 10 - 4 * P && c.pool_stack && !c.pool_w);
	/* Settling: ten threads of 0.3 periods each make 3 periods. */
	for (int i = 0; i < 10; i++)
		n += cpuacct_periods(&p, 3 * P / 10, &resid);
	CHECKF(n == 3 && resid == 0, "n %llu resid %lld", (unsigned long long)n,
	       (long long)resid);
	/* ... within a budget: 2.5 periods of carry, 1 of budget. */
	c.carry = 5 * P / 2;
	p.carry_sum = c.carry;
	budget = P;
	resid = 0;
	CHECK(cpuacct_settle(&c, &p, &budget, &resid) == 1);
	CHECK(budget == 0 && c.carry == 3 * P / 2 && p.carry_sum == c.carry);
	CHECK(cpuacct_settle(&c, &p, &budget, &resid) == 0);
}

/* Check the thread, then read it as a quiet thread last checked long
 * ago, having used 1 ms then, since when the process clock left
 * unexplained_ns to the threads not read. */
static int read_quiet(struct cpuacct *c, struct cpuacct_proc *p, pid_t tid,
		      int64_t unexplained_ns)
{
	cpuacct_new_tick(c);
	CHECK(cpuacct_read(c, p, tid) == 0);
	cpuacct_due(c, p, tid, mono_now_ns());
	c->cpu_base = c->cpu_read = 1000 * 1000;
	c->read_ns = 0;
	c->quiet = true;
	p->clock_read = true;
	p->ncpu = 1;
	p->clock_ns = mono_now_ns();
	p->unexpl_total = c->unexpl_base + unexplained_ns;
	cpuacct_new_tick(c);
	return cpuacct_read(c, p, tid);
}

/*
 * Another task under a TID whose counters are ahead of the old one's: a
 * non-leader's execve() gives the leader's TID to a thread that may have
 * run for seconds.  Its whole time was counted again under the leader's
 * TID (198 samples for 1 s at 100 Hz).  Counters that moved by more than
 * the wall time since the last check are another task's.
 */
static void check_other_task(void)
{
	struct cpuacct c = { 0 };
	struct cpuacct_proc p;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	struct timespec pause = { 0, 5 * 1000 * 1000 }, cpu;

	cpuacct_proc_init(&p, pid, PERIOD_NS, false);
	cpuacct_init(&c);
	/* 60 ms of CPU time, however long a busy machine takes to give it
	 * (burn_ms() burns wall time); the sleep brings schedstat up to
	 * date. */
	while (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 &&
	       cpu.tv_sec == 0 && cpu.tv_nsec < 60 * 1000 * 1000)
		burn_ms(1);
	nanosleep(&pause, NULL);
	CHECK(cpuacct_read(&c, &p, tid) == 0);
	cpuacct_due(&c, &p, tid, mono_now_ns());
	/* This thread, read again: its own counters. */
	burn_ms(3);
	nanosleep(&pause, NULL);
	cpuacct_new_tick(&c);
	CHECK(cpuacct_read(&c, &p, tid) == 0);
	cpuacct_due(&c, &p, tid, mono_now_ns());
	/* A busy thread read an eighth of a period after its last check,
	 * the interval before which was two periods long, its reading then
	 * lagging: its counters moved by more than the wall time since, and
	 * are its own (a first version lost a third of such a thread's time
	 * at 1000 Hz). */
	c.cpu_base = c.cpu_read = c.cpu_now - 2 * PERIOD_NS;
	c.read_ns = mono_now_ns() - PERIOD_NS / 8;
	cpuacct_new_tick(&c);
	CHECK(cpuacct_read(&c, &p, tid) == 0);
	cpuacct_due(&c, &p, tid, mono_now_ns());
	/* The old task under the TID had run 1 ms when last checked; the
	 * counters read now (60 ms and more) are another's. */
	c.cpu_base = c.cpu_read = 1000 * 1000;
	c.read_ns = mono_now_ns(); /* however long the machine kept us */
	cpuacct_new_tick(&c);
	CHECK(cpuacct_read(&c, &p, tid) == 1);
	CHECK(!c.have_cpu && cpuacct_explain(&c) == 0);

	/* A quiet thread, last checked long ago (wall time allows it all),
	 * read at a sweep: the process clock says its threads' time was
	 * explained but for 2 ms, so 60 ms and more are another task's (the
	 * leader in pause(), after another thread that ran 1 s exec'd). */
	CHECK(read_quiet(&c, &p, tid, 2 * 1000 * 1000) == 1);
	/* ... but not when the process clock allows it. */
	CHECK(read_quiet(&c, &p, tid, 10 * 1000 * 1000 * 1000LL) == 0);
	cpuacct_close(&c);
}

static pid_t sleeper_tid;

static void *sleeper(void *arg)
{
	struct timespec forever = { 3600, 0 };

	(void)arg;
	__atomic_store_n(&sleeper_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	nanosleep(&forever, NULL);
	return NULL;
}

/* One due check of c at a new tick. */
static int check_once(struct cpuacct *c, struct cpuacct_proc *p, pid_t tid)
{
	cpuacct_new_tick(c);
	CHECK(cpuacct_read(c, p, tid) == 0);
	return cpuacct_due(c, p, tid, mono_now_ns());
}

/* A sleeping thread owed 70 ms of samples (issue 26). */
static void check_caught_running(void)
{
	const int64_t P = PERIOD_NS;
	struct cpuacct_proc p;
	struct cpuacct c = { 0 };
	struct timespec nap = { 0, 1000 * 1000 };
	pthread_t t;
	pid_t tid;
	int rc;

	CHECK(pthread_create(&t, NULL, sleeper, NULL) == 0);
	while (!(tid = __atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE)))
		nanosleep(&nap, NULL);
	nanosleep(&nap, NULL); /* asleep in nanosleep by now */
	cpuacct_proc_init(&p, getpid(), PERIOD_NS, false);
	cpuacct_init(&c);
	CHECK(check_once(&c, &p, tid) == 0); /* first seen, asleep */
	c.carry = 70 * P;
	p.carry_sum = 70 * P;
	rc = check_once(&c, &p, tid);
	/* Not due (a first version stopped it wherever it was once 8
	 * periods were pending); 6 periods given up on. */
	CHECKF(rc == 0, "due %d", rc);
	CHECKF(c.uncaught_w == 6 && c.carry == 64 * P && p.carry_sum == 64 * P,
	       "uncaught %llu carry %lld sum %lld",
	       (unsigned long long)c.uncaught_w, (long long)c.carry,
	       (long long)p.carry_sum);
	/* Idle at every check, yet never quiet while owed. */
	for (int i = 0; i < 12; i++)
		CHECK(check_once(&c, &p, tid) == 0);
	CHECK(!c.quiet && c.uncaught_w == 6);
	/* Paid (a stack taken while it ran): it may go quiet again. */
	c.carry = 0;
	p.carry_sum = 0;
	for (int i = 0; i < 10; i++)
		CHECK(check_once(&c, &p, tid) == 0);
	CHECK(c.quiet);
	/* A stop that found it asleep keeps its carry, takes no pool, and
	 * is not running: its carry is a small one (idle_sum), and its
	 * next check asks whether it ran since (not on_cpu). */
	c.carry = P;
	c.pool_w = 2;
	c.borrowing = true;
	c.on_cpu = true;
	c.contrib = 0;
	p.idle_sum = 0;
	cpuacct_missed(&c, &p);
	CHECK(c.carry == P && !c.pool_w && !c.borrowing);
	CHECKF(!c.on_cpu && p.idle_sum == P && c.contrib == P,
	       "on_cpu %d idle_sum %lld contrib %lld", c.on_cpu,
	       (long long)p.idle_sum, (long long)c.contrib);
	cpuacct_close(&c);
}

/* Narrowed sweeps (cpuacct.c): made-up readings, no file read. */
static void check_narrowed(void)
{
	const int64_t P = PERIOD_NS;
	uint64_t now = mono_now_ns() + 10ULL * 1000 * 1000 * 1000;
	struct cpuacct_proc p;
	struct cpuacct c = { 0 }, idle = { 0 };

	cpuacct_proc_init(&p, getpid(), PERIOD_NS, false);
	p.clock_read = true;
	p.now = 100 * P;
	CHECK(!cpuacct_proc_end(&p, 0)); /* the first reading */
	p.now = 103 * P;
	CHECK(cpuacct_proc_end(&p, 0) && p.sweep && p.sweep_unexpl == 3 * P);
	/* Quiet, found running 100 ms ago: read first; 2 s ago, or never,
	 * or not quiet: not. */
	c.have_cpu = c.quiet = true;
	c.active_ns = now - 100 * 1000 * 1000;
	CHECK(cpuacct_recent(&c, &p, now));
	idle = c;
	idle.active_ns = now - 2ULL * 1000 * 1000 * 1000;
	CHECK(!cpuacct_recent(&idle, &p, now));
	idle.active_ns = 0;
	CHECK(!cpuacct_recent(&idle, &p, now));
	/* It used 2.8 periods since its last read: no longer quiet, and the
	 * 0.2 left unexplained is no sweep. */
	c.cpu_read = 5 * P;
	c.cpu_now = 5 * P + 28 * P / 10;
	CHECK(cpuacct_wake(&c) == (uint64_t)(28 * P / 10) && !c.quiet);
	CHECK(cpuacct_wake(&c) == 0); /* read once */
	CHECK(cpuacct_proc_narrow(&p, (uint64_t)(28 * P / 10)));
	CHECKF(!p.sweep && p.unexplained == 2 * P / 10, "sweep %d left %lld",
	       p.sweep, (long long)p.unexplained);
	/* One that used nothing stays quiet. */
	idle.cpu_read = idle.cpu_now = 7 * P;
	idle.quiet = true;
	CHECK(cpuacct_wake(&idle) == 0 && idle.quiet);
	/* Explaining 1 of 3 periods leaves a sweep. */
	p.unexplained = 0;
	p.now = 106 * P;
	CHECK(cpuacct_proc_end(&p, 0));
	CHECK(!cpuacct_proc_narrow(&p, (uint64_t)P) && p.sweep);
	/* --wall: every quiet thread is read. */
	cpuacct_proc_init(&p, getpid(), PERIOD_NS, true);
	p.clock_read = true;
	p.now = 100 * P;
	cpuacct_proc_end(&p, 0);
	p.now = 103 * P;
	CHECK(cpuacct_proc_end(&p, 0));
	c.quiet = true;
	CHECK(!cpuacct_recent(&c, &p, now));
	CHECK(!cpuacct_proc_narrow(&p, (uint64_t)(3 * P)) && p.sweep);
}

int main(void)
{
	struct rlimit rl = { LIMIT, LIMIT };
	/* Zeroed, as struct thread entries are (threadtab.h). */
	struct cpuacct kept = { 0 }, unkept = { 0 }, none = { 0 }, busy = { 0 };
	struct cpuacct_proc cpu, wall;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int rc;

	check_other_task();
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > LIMIT)
		rl.rlim_max = LIMIT;
	rl.rlim_cur = LIMIT;
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	cpuacct_proc_init(&cpu, pid, PERIOD_NS, false);
	cpuacct_proc_init(&wall, pid, PERIOD_NS, true);

	/* Plenty: kept. */
	cpuacct_init(&kept);
	CHECK(cpuacct_read(&kept, &cpu, tid) == 0);
	CHECKF(kept.sched_fd >= 0 && !kept.unkept, "fd %d", kept.sched_fd);

	/* In the reserve (64 - 16 = 48 and up): read, not kept. */
	take_fds(LIMIT - 16);
	cpuacct_init(&unkept);
	CHECK(cpuacct_read(&unkept, &cpu, tid) == 0);
	CHECKF(unkept.sched_fd < 0 && unkept.unkept, "fd %d", unkept.sched_fd);

	/* A thread with a reading and a kept file, whose carry comes due
	 * while it sleeps most of the interval: its state must be read. */
	give_fds();
	cpuacct_init(&busy);
	CHECK(cpuacct_read(&busy, &cpu, tid) == 0);
	CHECK(cpuacct_due(&busy, &cpu, tid, mono_now_ns()) == 1); /* R, first */
	burn_ms(5);
	nanosleep(&pause, NULL);
	/* The burn goes into the carry one check late (the ticks are
	 * jittered: cpuacct_due()).  (How much of the 5 ms it got depends
	 * on the machine's load: only where it went is checked.  Whether
	 * this check is due depends on it too: a thread running at two
	 * checks in a row may be sampled ahead of its schedstat.) */
	cpuacct_new_tick(&busy);
	CHECK(cpuacct_read(&busy, &cpu, tid) == 0);
	CHECK(cpuacct_due(&busy, &cpu, tid, mono_now_ns()) >= 0);
	CHECKF(busy.carry == 0 && busy.pending > 0, "carry %lld pending %llu",
	       (long long)busy.carry, (unsigned long long)busy.pending);
	nanosleep(&pause, NULL);
	/* Its state file, if that check read it, is closed: the next check
	 * must open it, and finds no descriptor. */
	if (busy.stat_fd >= 0) {
		close(busy.stat_fd);
		busy.stat_fd = -1;
	}

	/* None left: the read fails, and nothing is due on a guess. */
	take_fds(-1);
	cpuacct_init(&none);
	errno = 0;
	CHECK(cpuacct_read(&none, &cpu, tid) == -1 && errno == EMFILE);
	errno = 0;
	rc = cpuacct_due(&unkept, &cpu, tid, mono_now_ns()); /* first seen */
	CHECKF(rc == -1 && errno == EMFILE, "rc %d errno %d", rc, errno);
	cpuacct_new_tick(&busy);
	CHECK(cpuacct_read(&busy, &cpu, tid) == 0); /* its fd is kept */
	errno = 0;
	rc = cpuacct_due(&busy, &cpu, tid, mono_now_ns());
	CHECKF(rc == -1 && errno == EMFILE, "rc %d errno %d", rc, errno);
	unkept = (struct cpuacct){ 0 };
	cpuacct_init(&unkept);
	CHECK(cpuacct_due(&unkept, &wall, tid, mono_now_ns()) == 1);
	give_fds();

	cpuacct_close(&kept);
	cpuacct_close(&busy);
	check_weights();
	check_caught_running();
	check_narrowed();
	return unit_result("test_cpuacct");
}
