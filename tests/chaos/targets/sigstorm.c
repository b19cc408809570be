/*
 * sigstorm - chaos target: a process that lives on signals and counts
 * every one it gets, to show that a profiler stopping its threads loses
 * none of them.
 *
 *   sigstorm [--gate] SECS N
 *
 * For SECS seconds (0.5..30), with N (1..100000) signals of each queued
 * kind:
 *  - a child process sigqueue()s N SIGRTMIN (process-directed, taken by a
 *    handler) and N SIGRTMIN+2 (blocked everywhere, taken by a thread in
 *    sigtimedwait), each with a value; the handler and the waiting thread
 *    count them and sum the values;
 *  - a thread pthread_sigqueue()s N SIGRTMIN+1 to the two busy threads in
 *    turn; the handler checks it runs on the thread the value names;
 *  - a thread forks SECS*50 children that _exit() at once; the SIGCHLD
 *    handler reaps them (waitpid WNOHANG loop) and sums their statuses;
 *  - ITIMER_REAL (SIGALRM, 20 ms), ITIMER_PROF (SIGPROF, 20 ms of process
 *    CPU time) and a POSIX timer (SIGRTMIN+3, 2 ms, counted with its
 *    overruns) run throughout.
 * Queued signals must all arrive, with their values, on the right thread;
 * every child must be reaped by the handler; SIGALRM and SIGPROF must
 * reach 90% of their expected counts; the POSIX timer's count (deliveries
 * plus overruns) must be exact: at some delivery in its last 200 ms it
 * equals the expirations elapsed (a lost delivery leaves it short for
 * good).  Prints "sigstorm: ok ..." and exits 0, or "sigstorm: FAIL ..."
 * and exits 1.  With --gate it prints "ready" and starts only on SIGUSR1
 * (exits 3 if none comes within 30 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"
#include "chaos.h"

#define NBUSY 2
#define SIG_PROC (SIGRTMIN)
#define SIG_THREAD (SIGRTMIN + 1)
#define SIG_WAIT (SIGRTMIN + 2)
#define SIG_TIMER (SIGRTMIN + 3)
#define TIMER_NS 2000000LL
#define ALRM_US 20000
#define PROF_US 20000
#define FORKS_PER_SEC 50
#define BATCH 50

static double secs;
static long nsig;
static volatile int done;
static pthread_t busy[NBUSY];
volatile uint64_t sink;

static uint64_t proc_count, proc_sum, thread_count, thread_sum, misdirected;
static uint64_t wait_count, wait_sum;
static uint64_t alrm_count, prof_count, timer_count, chld_signals;
static uint64_t reaped, reaped_sum, forked, forked_sum;
static volatile pid_t sender_pid;
static volatile int sender_status = -1;
static int64_t timer_t0, timer_window, timer_min_deficit = INT64_MAX;

#define ADD(v, n) __atomic_add_fetch(&(v), (n), __ATOMIC_RELAXED)

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (sig == SIG_PROC) {
		ADD(proc_count, 1);
		ADD(proc_sum, (uint64_t)si->si_value.sival_int);
	} else if (sig == SIG_THREAD) {
		ADD(thread_count, 1);
		ADD(thread_sum, (uint64_t)si->si_value.sival_int);
		/* pthread_self(), not a thread-local set by the thread: a
		 * signal may come before the new thread ran at all. */
		if (!pthread_equal(pthread_self(),
				   busy[si->si_value.sival_int % NBUSY]))
			ADD(misdirected, 1);
	} else if (sig == SIG_TIMER) {
		uint64_t n = ADD(timer_count, 1 + (uint64_t)si->si_overrun);
		int64_t t = mono_ns();
		int64_t deficit = (t - timer_t0) / TIMER_NS - (int64_t)n;

		/* Only the window's deliveries count; one handler at a time
		 * (the signal is blocked while its handler runs, and the
		 * timer's signal is queued once). */
		if (t >= timer_window && deficit < timer_min_deficit)
			timer_min_deficit = deficit;
	} else if (sig == SIGALRM) {
		ADD(alrm_count, 1);
	} else if (sig == SIGPROF) {
		ADD(prof_count, 1);
	} else if (sig == SIGCHLD) {
		int st;
		pid_t p;

		ADD(chld_signals, 1);
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == sender_pid) {
				sender_status = st;
				continue;
			}
			ADD(reaped, 1);
			ADD(reaped_sum, WIFEXITED(st) ? WEXITSTATUS(st) : 1000);
		}
	}
	errno = saved;
}

/* sigqueue() with retries while the queue is full, until deadline. */
static int queue_one(pid_t pid, pthread_t th, int sig, int val,
		     int64_t deadline)
{
	union sigval v = { .sival_int = val };

	for (;;) {
		int rc = pid ? sigqueue(pid, sig, v) :
			       pthread_sigqueue(th, sig, v);

		if (rc == 0)
			return 0;
		if ((pid ? errno : rc) != EAGAIN || mono_ns() > deadline)
			return -1;
		sleep_ns(200000);
	}
}

/* Pace COUNT sends over 70% of the run, in batches. */
static int64_t batch_pause(long count)
{
	return (int64_t)(secs * 0.7e9) / (count / BATCH + 1);
}

/* The child: N of SIG_PROC and N of SIG_WAIT to the parent. */
static void sender_child(pid_t parent)
{
	int64_t deadline = mono_ns() + (int64_t)(secs * 1e9) + 5000000000LL;
	int64_t pause = batch_pause(2 * nsig);

	for (long i = 0; i < nsig; i++) {
		if (queue_one(parent, 0, SIG_PROC, (int)i, deadline) ||
		    queue_one(parent, 0, SIG_WAIT, (int)i, deadline))
			_exit(1);
		if (i % (BATCH / 2) == BATCH / 2 - 1)
			sleep_ns(pause);
	}
	_exit(0);
}

static void *thread_sender(void *arg)
{
	int64_t deadline = mono_ns() + (int64_t)(secs * 1e9) + 5000000000LL;
	int64_t pause = batch_pause(nsig);

	(void)arg;
	for (long i = 0; i < nsig; i++) {
		if (queue_one(0, busy[i % NBUSY], SIG_THREAD, (int)i, deadline))
			return (void *)1;
		if (i % BATCH == BATCH - 1)
			sleep_ns(pause);
	}
	return NULL;
}

static void *waiter(void *arg)
{
	sigset_t set;
	siginfo_t si;
	struct timespec ts = { 0, 100000000 };

	/* Every signal blocked: the handlers run on the other threads. */
	(void)arg;
	sigfillset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIG_WAIT);
	/* Until done and nothing is left: the last ones may still be queued. */
	for (int idle = 0; idle < 3;) {
		int s = sigtimedwait(&set, &si, &ts);

		if (s == SIG_WAIT) {
			wait_count++;
			wait_sum += (uint64_t)si.si_value.sival_int;
			idle = 0;
		} else if (done && (s >= 0 || errno != EINTR)) {
			idle++;
		}
	}
	return NULL;
}

static void *forker(void *arg)
{
	long n = (long)(secs * FORKS_PER_SEC);
	int64_t pause = (int64_t)(secs * 0.7e9) / n;

	(void)arg;
	for (long i = 0; i < n && !done; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit((int)(i & 0x7f));
		if (p < 0)
			return (void *)1;
		ADD(forked, 1);
		ADD(forked_sum, (uint64_t)(i & 0x7f));
		sleep_ns(pause);
	}
	return NULL;
}

NOIPA static void busy_signalled(void)
{
	while (!done)
		sink = burn_slice(sink);
	KEEP_FRAME();
}

static void *busy_thread(void *arg)
{
	(void)arg;
	busy_signalled();
	return NULL;
}

static void gate(void)
{
	sigset_t set;
	struct timespec ts = { 30, 0 };

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	printf("ready\n");
	fflush(stdout);
	while (sigtimedwait(&set, NULL, &ts) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "sigstorm: no SIGUSR1 within 30 s\n");
			exit(3);
		}
	}
}

/*
 * The process's CPU time as ITIMER_PROF counts it: the kernel's PROF clock
 * (utime + stime, accounted tick by tick), clock ID MAKE_PROCESS_CPUCLOCK(0,
 * CPUCLOCK_PROF) = -8.  CLOCK_PROCESS_CPUTIME_ID (exact run time) can be
 * 20% off it either way over a few seconds, more when something stops the
 * threads at a rate that beats with the scheduler tick.
 */
static int64_t prof_ns(void)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)-8, &ts))
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_itimers(long real_us, long prof_us)
{
	struct itimerval it = { { 0, real_us }, { 0, real_us } };

	setitimer(ITIMER_REAL, &it, NULL);
	it.it_interval.tv_usec = it.it_value.tv_usec = prof_us;
	setitimer(ITIMER_PROF, &it, NULL);
}

/* Append "WHAT=GOT/WANT" to line; a failed check adds "!" and fails. */
static int check(char *line, size_t len, const char *what, uint64_t got,
		 uint64_t want, int ok)
{
	size_t n = strlen(line);

	snprintf(line + n, len - n, " %s=%llu/%llu%s", what,
		 (unsigned long long)got, (unsigned long long)want,
		 ok ? "" : "!");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	int gated = argc > 1 && strcmp(argv[1], "--gate") == 0;
	struct sigaction sa;
	sigset_t set;
	pthread_t ts, tw, tf;
	timer_t timer;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL };
	struct itimerspec its = { { 0, TIMER_NS }, { 0, TIMER_NS } };
	int64_t t0, t1, c0, c1, wait_end;
	void *sender_failed = NULL, *fork_failed = NULL;
	uint64_t want_sum = 0, alrm_want, prof_want, timer_want;
	char line[1024] = "";
	int bad = 0;

	if (argc != 3 + gated || (secs = atof(argv[1 + gated])) < 0.5 ||
	    secs > 30 || (nsig = atol(argv[2 + gated])) < 1 || nsig > 100000) {
		fprintf(stderr, "usage: sigstorm [--gate] SECS(0.5..30) N(1..100000)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* SIGUSR1 (the gate) and SIG_WAIT are blocked in every thread. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIG_WAIT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIG_PROC, &sa, NULL);
	sigaction(SIG_THREAD, &sa, NULL);
	sigaction(SIG_TIMER, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGPROF, &sa, NULL);
	sa.sa_flags |= SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	if (gated)
		gate();

	for (int i = 0; i < NBUSY; i++)
		pthread_create(&busy[i], NULL, busy_thread, (void *)(intptr_t)i);
	pthread_create(&tw, NULL, waiter, NULL);
	t0 = mono_ns();
	c0 = prof_ns();
	sev.sigev_signo = SIG_TIMER;
	timer_t0 = t0;
	timer_window = t0 + (int64_t)(secs * 1e9) - 200000000LL;
	/* The first expiry at an absolute time: expirations are then at
	 * exactly t0 + k * TIMER_NS, however late this thread gets here. */
	its.it_value.tv_sec = (time_t)((t0 + TIMER_NS) / 1000000000LL);
	its.it_value.tv_nsec = (long)((t0 + TIMER_NS) % 1000000000LL);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
	    timer_settime(timer, TIMER_ABSTIME, &its, NULL)) {
		perror("sigstorm: timer");
		return 2;
	}
	set_itimers(ALRM_US, PROF_US);
	sender_pid = fork();
	if (sender_pid == 0)
		sender_child(getppid());
	pthread_create(&ts, NULL, thread_sender, NULL);
	pthread_create(&tf, NULL, forker, NULL);

	sleep_ns((int64_t)(secs * 1e9));
	timer_delete(timer);
	set_itimers(0, 0);
	t1 = mono_ns();
	c1 = prof_ns();
	pthread_join(ts, &sender_failed);
	/* The last queued signals: wait (bounded) until the counts are in. */
	wait_end = mono_ns() + 5000000000LL;
	while (mono_ns() < wait_end &&
	       (sender_status == -1 || proc_count < (uint64_t)nsig ||
		thread_count < (uint64_t)nsig))
		sleep_ns(10000000);
	done = 1;
	pthread_join(tf, &fork_failed);
	for (int i = 0; i < NBUSY; i++)
		pthread_join(busy[i], NULL);
	pthread_join(tw, NULL);
	/* Every child's SIGCHLD: reaped by the handler, bounded wait. */
	wait_end = mono_ns() + 3000000000LL;
	while (mono_ns() < wait_end && reaped < forked)
		sleep_ns(10000000);

	want_sum = (uint64_t)nsig * (uint64_t)(nsig - 1) / 2;
	alrm_want = (uint64_t)((t1 - t0) / (ALRM_US * 1000LL));
	prof_want = (uint64_t)((c1 - c0) / (PROF_US * 1000LL));
	timer_want = (uint64_t)((t1 - t0) / TIMER_NS);
	bad += check(line, sizeof(line), "sender",
		     sender_status == 0 && !sender_failed, 1,
		     sender_status == 0 && !sender_failed);
	bad += check(line, sizeof(line), "rtproc", proc_count, (uint64_t)nsig,
		     proc_count == (uint64_t)nsig && proc_sum == want_sum);
	bad += check(line, sizeof(line), "rtthread", thread_count,
		     (uint64_t)nsig,
		     thread_count == (uint64_t)nsig && thread_sum == want_sum);
	bad += check(line, sizeof(line), "misdirected", misdirected, 0,
		     misdirected == 0);
	bad += check(line, sizeof(line), "rtwait", wait_count, (uint64_t)nsig,
		     wait_count == (uint64_t)nsig && wait_sum == want_sum);
	bad += check(line, sizeof(line), "reaped", reaped, forked,
		     !fork_failed && forked > 0 && reaped == forked &&
			     reaped_sum == forked_sum);
	bad += check(line, sizeof(line), "alrm", alrm_count, alrm_want,
		     alrm_count * 10 >= alrm_want * 9);
	bad += check(line, sizeof(line), "prof", prof_count, prof_want,
		     prof_want > 0 && prof_count * 10 >= prof_want * 9);
	bad += check(line, sizeof(line), "timer", timer_count, timer_want,
		     timer_count * 10 >= timer_want * 9);
	bad += check(line, sizeof(line), "timer_deficit",
		     timer_min_deficit == INT64_MAX || timer_min_deficit < 0 ?
			     999 :
			     (uint64_t)timer_min_deficit,
		     0, timer_min_deficit == 0);
	printf("sigstorm: %s%s chld_signals=%llu\n", bad ? "FAIL" : "ok", line,
	       (unsigned long long)chld_signals);
	return bad ? 1 : 0;
}
