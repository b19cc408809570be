/*
 * floor - the cheapest possible ptrace sampler, the benchmark's yardstick.
 *
 *   floor -p PID [-f HZ] [-d SECS] [-T STOP_TIMEOUT_MS]
 *
 * Each tick (absolute CLOCK_MONOTONIC deadlines, HZ per second, default
 * 100) it lists /proc/PID/task, PTRACE_SEIZEs every thread,
 * PTRACE_INTERRUPTs all of them, waits for all the stops (at most
 * STOP_TIMEOUT_MS, default 100), PTRACE_GETREGS each stopped thread and
 * PTRACE_DETACHes each.  No unwinding, no maps, no symbols: what is left is
 * the cost any stop-the-world ptrace sampler pays.  A signal that arrives
 * while a thread is held (a signal-delivery-stop) is passed back on detach;
 * never PTRACE_O_EXITKILL.  A thread that has not stopped by the timeout is
 * released when its stop comes (later in the run, or at the end; if this
 * program dies first the kernel detaches it).
 *
 * It runs for SECS (default: until the target exits) and prints on stderr
 *
 *   floor: T ticks (M missed), S samples, N threads, pause mean A us
 *          p50 B us p99 C us max D us, cpu E us (user U us sys S us),
 *          F us/sample, W s
 *
 * The pause of a tick is from its first PTRACE_INTERRUPT to its last
 * PTRACE_DETACH (how long the target was held, as ptprof measures it).
 * samples counts thread-samples (registers read); cpu is this program's
 * own user+system time (getrusage).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

enum { T_FREE, T_SEIZED, T_STOPPED, T_LATE };

struct thr {
	pid_t tid;
	int state;
	int sig; /* to pass back on detach */
};

/* Open-addressing table of the threads seized this tick and the late ones. */
#define TAB_BITS 16
#define TAB_SIZE (1u << TAB_BITS)
static struct thr tab[TAB_SIZE];
static pid_t *tick_tids; /* slots used this tick, by TID */
static size_t ntick, cap_tick;
static size_t nlate;

static volatile sig_atomic_t quit;
static sigset_t chld_set;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct thr *lookup(pid_t tid, int create)
{
	uint32_t h = ((uint32_t)tid * 2654435761u) >> (32 - TAB_BITS);

	for (uint32_t i = 0; i < TAB_SIZE; i++) {
		struct thr *t = &tab[(h + i) & (TAB_SIZE - 1)];

		if (t->tid == tid)
			return t;
		if (t->tid == 0) {
			if (!create)
				return NULL;
			t->tid = tid;
			t->state = T_FREE;
			t->sig = 0;
			return t;
		}
	}
	return NULL;
}

/* Forget a slot (backward-shift deletion keeps the probing correct). */
static void forget(struct thr *t)
{
	uint32_t i = (uint32_t)(t - tab);

	for (;;) {
		uint32_t j = i;

		tab[i].tid = 0;
		for (;;) {
			uint32_t home;

			j = (j + 1) & (TAB_SIZE - 1);
			if (tab[j].tid == 0)
				return;
			home = ((uint32_t)tab[j].tid * 2654435761u) >>
			       (32 - TAB_BITS);
			/* Move j back to i unless its home lies in (i, j]. */
			if (i <= j ? (home <= i || home > j) :
				     (home <= i && home > j))
				break;
		}
		tab[i] = tab[j];
		i = j;
	}
}

static void on_quit(int sig)
{
	(void)sig;
	quit = 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A reported status for TID: returns 1 if a stop we were owed came in. */
static int handle_status(pid_t tid, int status, uint64_t *last_detach)
{
	struct thr *t = lookup(tid, 0);

	if (!t)
		return 0;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		int owed = t->state == T_SEIZED;

		if (t->state == T_LATE) {
			nlate--;
			forget(t);
		} else {
			t->state = T_FREE; /* forgotten after the tick */
		}
		return owed;
	}
	if (!WIFSTOPPED(status))
		return 0;
	if (t->state == T_LATE) {
		/* Its stop came after the tick gave up on it: release it. */
		int sig = ((unsigned)status >> 16) == 0 ? WSTOPSIG(status) : 0;

		ptrace(PTRACE_DETACH, tid, NULL, (void *)(intptr_t)sig);
		nlate--;
		forget(t);
		*last_detach = now_ns();
		return 0;
	}
	if (t->state != T_SEIZED)
		return 0;
	/* PTRACE_EVENT_STOP: our interrupt, or a group-stop: detach with 0.
	 * No event bits: signal-delivery-stop, whose signal we must give back.
	 * Any other event cannot happen: we set no options. */
	t->sig = ((unsigned)status >> 16) == 0 ? WSTOPSIG(status) : 0;
	t->state = T_STOPPED;
	return 1;
}

/* Reap whatever is queued; returns the number of owed stops that came. */
static size_t reap(uint64_t *last_detach)
{
	size_t got = 0;

	for (;;) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);

		if (tid <= 0)
			return got;
		got += (size_t)handle_status(tid, status, last_detach);
	}
}

static void wait_until(uint64_t deadline, size_t *pending,
		       uint64_t *last_detach)
{
	for (;;) {
		struct timespec ts;
		uint64_t now;
		size_t got = reap(last_detach);

		*pending = got > *pending ? 0 : *pending - got;
		now = now_ns();
		if (*pending == 0 || now >= deadline || quit)
			return;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
		sigtimedwait(&chld_set, NULL, &ts);
	}
}

static int target_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

struct stats {
	uint64_t ticks, missed, samples, max_threads, pause_total;
	uint64_t *pauses;
	size_t cap_pauses;
};

static void record_pause(struct stats *st, uint64_t p)
{
	if (st->ticks == st->cap_pauses) {
		st->cap_pauses = st->cap_pauses ? st->cap_pauses * 2 : 4096;
		st->pauses = realloc(st->pauses,
				     st->cap_pauses * sizeof(*st->pauses));
		if (!st->pauses)
			abort();
	}
	st->pauses[st->ticks++] = p;
	st->pause_total += p;
}

/* List the threads and SEIZE each; returns how many were seized. */
static size_t seize_all(DIR *dir, int *eperm)
{
	struct dirent *de;

	ntick = 0;
	rewinddir(dir);
	while ((de = readdir(dir))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		struct thr *t;

		if (tid <= 0 || !(t = lookup(tid, 1)))
			continue;
		if (t->state != T_FREE)
			continue; /* late from an earlier tick */
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) == -1) {
			*eperm += errno == EPERM;
			forget(t);
			continue;
		}
		t->state = T_SEIZED;
		if (ntick == cap_tick) {
			cap_tick = cap_tick ? cap_tick * 2 : 256;
			tick_tids = realloc(tick_tids,
					    cap_tick * sizeof(pid_t));
			if (!tick_tids)
				abort();
		}
		tick_tids[ntick++] = tid;
	}
	return ntick;
}

/*
 * Interrupt all, wait for all the stops (bounded), then GETREGS and
 * DETACH each.  Returns the pause: first interrupt to last detach.
 */
static uint64_t stop_the_world(uint64_t stop_timeout, struct stats *st)
{
	uint64_t t0 = now_ns(), last_detach = 0;
	size_t pending = ntick;

	/* Each seized thread owes one report: its stop or, if INTERRUPT
	 * failed (it is dying), its exit. */
	for (size_t i = 0; i < ntick; i++)
		ptrace(PTRACE_INTERRUPT, tick_tids[i], NULL, NULL);
	wait_until(t0 + stop_timeout, &pending, &last_detach);
	for (size_t i = 0; i < ntick; i++) {
		struct thr *t = lookup(tick_tids[i], 0);
		struct user_regs_struct regs;

		if (!t)
			continue;
		if (t->state == T_STOPPED) {
			if (ptrace(PTRACE_GETREGS, t->tid, NULL, &regs) == 0)
				st->samples++;
			ptrace(PTRACE_DETACH, t->tid, NULL,
			       (void *)(intptr_t)t->sig);
			last_detach = now_ns();
			forget(t);
		} else if (t->state == T_SEIZED) {
			t->state = T_LATE; /* released when its stop comes */
			nlate++;
		} else {
			forget(t); /* exited */
		}
	}
	return last_detach > t0 ? last_detach - t0 : 0;
}

/* Late threads: give their stops a second to come, then leave them to
 * the kernel's detach at our exit. */
static void release_late(void)
{
	uint64_t dummy, deadline = now_ns() + 1000000000ULL;

	while (nlate && now_ns() < deadline) {
		struct timespec ts = { 0, 10000000 };

		reap(&dummy);
		if (nlate)
			sigtimedwait(&chld_set, NULL, &ts);
	}
}

static void print_stats(struct stats *st, uint64_t start)
{
	struct rusage ru;
	uint64_t user, sys, p50 = 0, p99 = 0, pmax = 0, n = st->ticks;

	getrusage(RUSAGE_SELF, &ru);
	user = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
	       (uint64_t)ru.ru_utime.tv_usec;
	sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 +
	      (uint64_t)ru.ru_stime.tv_usec;
	if (n) {
		qsort(st->pauses, n, sizeof(*st->pauses), cmp_u64);
		p50 = st->pauses[n / 2];
		p99 = st->pauses[n * 99 / 100];
		pmax = st->pauses[n - 1];
	}
	fprintf(stderr,
		"floor: %llu ticks (%llu missed), %llu samples, %llu threads, "
		"pause mean %llu us p50 %llu us p99 %llu us max %llu us, "
		"cpu %llu us (user %llu us sys %llu us), %.2f us/sample, "
		"%.1f s\n",
		(unsigned long long)n, (unsigned long long)st->missed,
		(unsigned long long)st->samples,
		(unsigned long long)st->max_threads,
		(unsigned long long)(n ? st->pause_total / n / 1000 : 0),
		(unsigned long long)(p50 / 1000),
		(unsigned long long)(p99 / 1000),
		(unsigned long long)(pmax / 1000),
		(unsigned long long)(user + sys), (unsigned long long)user,
		(unsigned long long)sys,
		st->samples ? (double)(user + sys) / (double)st->samples : 0.0,
		(double)(now_ns() - start) / 1e9);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: floor -p PID [-f HZ] [-d SECS] [-T STOP_TIMEOUT_MS]\n");
}

int main(int argc, char **argv)
{
	pid_t pid = 0;
	double hz = 100, secs = 0, timeout_ms = 100;
	uint64_t period, start, next, end = 0, stop_timeout;
	struct stats st = { 0 };
	int c, refused = 0;
	char path[64];
	DIR *dir;
	struct sigaction sa;

	while ((c = getopt(argc, argv, "p:f:d:T:")) != -1) {
		switch (c) {
		case 'p':
			pid = (pid_t)atoi(optarg);
			break;
		case 'f':
			hz = atof(optarg);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'T':
			timeout_ms = atof(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc || pid <= 0 || hz <= 0 || hz > 100000 || secs < 0 ||
	    timeout_ms <= 0) {
		usage();
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit; /* no SA_RESTART: end the tick's waits */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Stops are announced by SIGCHLD: block it and wait with a timeout. */
	sigemptyset(&chld_set);
	sigaddset(&chld_set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld_set, NULL);

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	period = (uint64_t)(1e9 / hz);
	stop_timeout = (uint64_t)(timeout_ms * 1e6);
	start = next = now_ns();
	if (secs > 0)
		end = start + (uint64_t)(secs * 1e9);

	while (!quit) {
		struct timespec ts;
		uint64_t now, dummy;
		int eperm = 0;
		size_t n = seize_all(dir, &eperm);

		if (n > st.max_threads)
			st.max_threads = n;
		if (n) {
			refused = 0;
			record_pause(&st, stop_the_world(stop_timeout, &st));
		} else if (target_gone(pid)) {
			break;
		} else if (eperm && ++refused >= 10) {
			fprintf(stderr, "floor: cannot trace %d\n", (int)pid);
			return 1;
		}

		/* Next deadline; skip (and count) the ones already past. */
		next += period;
		now = now_ns();
		while (next <= now) {
			next += period;
			st.missed++;
		}
		if (end && next >= end)
			break;
		ts.tv_sec = (time_t)(next / 1000000000ULL);
		ts.tv_nsec = (long)(next % 1000000000ULL);
		while (!quit && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL) == EINTR)
			;
		if (nlate)
			reap(&dummy); /* release late stops */
	}
	release_late();
	closedir(dir);
	print_stats(&st, start);
	free(st.pauses);
	free(tick_tids);
	return 0;
}
