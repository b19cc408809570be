/*
 * waitmix - test target: threads blocked on a mix of waits, for the wait
 * labels of a --wall profile (issue 28).
 *
 *   waitmix SECS
 *
 * "wm_holder" locks a mutex and then sleeps (nanosleep) holding it;
 * two "wm_locker" threads block in pthread_mutex_lock() on it, called
 * from wm_lock_wait(); "wm_reader" blocks in read() on a pipe nobody
 * writes, from wm_read_pipe(); "wm_sleeper" sleeps in nanosleep(), from
 * wm_sleep(); "wm_condw" waits in pthread_cond_wait() on a condvar
 * nobody signals, from wm_cond_wait(); "wm_rdlocker" in
 * pthread_rwlock_rdlock() on an rwlock wm_holder holds for writing, from
 * wm_rw_wait(); "wm_semw" in sem_wait() on a semaphore of value 0, from
 * wm_sem_wait().  The main thread prints "holder TID" (the holder's TID),
 * then "ready", and sleeps; after SECS seconds (or on SIGTERM) the
 * process exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static pthread_mutex_t started = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started_cv = PTHREAD_COND_INITIALIZER;
static pid_t holder_tid;
static int pipefd[2];

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static NOIPA void wm_hold(void)
{
	for (;;)
		nap(10);
}

static void *holder(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "wm_holder");
	pthread_mutex_lock(&lock);
	pthread_rwlock_wrlock(&rw);
	pthread_mutex_lock(&started);
	holder_tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_signal(&started_cv);
	pthread_mutex_unlock(&started);
	wm_hold();
	return NULL;
}

static NOIPA void wm_lock_wait(void)
{
	pthread_mutex_lock(&lock);
	KEEP_FRAME();
	pthread_mutex_unlock(&lock);
}

static NOIPA void wm_read_pipe(void)
{
	char c;

	if (read(pipefd[0], &c, 1) < 0)
		nap(0.01);
	KEEP_FRAME();
}

static NOIPA void wm_cond_wait(void)
{
	pthread_mutex_lock(&cv_lock);
	pthread_cond_wait(&never_cv, &cv_lock);
	pthread_mutex_unlock(&cv_lock);
	KEEP_FRAME();
}

static NOIPA void wm_rw_wait(void)
{
	pthread_rwlock_rdlock(&rw);
	KEEP_FRAME();
	pthread_rwlock_unlock(&rw);
}

static NOIPA void wm_sem_wait(void)
{
	if (sem_wait(&sem))
		nap(0.01);
	KEEP_FRAME();
}

static NOIPA void wm_sleep(void)
{
	nap(1);
	KEEP_FRAME();
}

/* A waiting thread: its name, and the call it makes again and again. */
struct waiter {
	const char *name;
	void (*wait)(void);
};

static void *waiter(void *arg)
{
	const struct waiter *w = arg;

	pthread_setname_np(pthread_self(), w->name);
	for (;;)
		w->wait();
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	_exit(0);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, end;
	static const struct waiter waiters[] = {
		{ "wm_locker", wm_lock_wait }, { "wm_locker", wm_lock_wait },
		{ "wm_reader", wm_read_pipe }, { "wm_sleeper", wm_sleep },
		{ "wm_condw", wm_cond_wait },  { "wm_rdlocker", wm_rw_wait },
		{ "wm_semw", wm_sem_wait },
	};
	pthread_t t;

	if (argc != 2 || secs <= 0) {
		fprintf(stderr, "usage: waitmix SECS\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	if (sem_init(&sem, 0, 0)) {
		perror("sem_init");
		return 1;
	}
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	if (pthread_create(&t, NULL, holder, NULL)) {
		fprintf(stderr, "waitmix: pthread_create failed\n");
		return 1;
	}
	pthread_mutex_lock(&started);
	while (!holder_tid)
		pthread_cond_wait(&started_cv, &started);
	pthread_mutex_unlock(&started);
	for (size_t i = 0; i < sizeof(waiters) / sizeof(*waiters); i++)
		if (pthread_create(&t, NULL, waiter, (void *)&waiters[i])) {
			fprintf(stderr, "waitmix: pthread_create failed\n");
			return 1;
		}
	printf("holder %d\nready\n", (int)holder_tid);
	fflush(stdout);
	for (end = now() + secs; now() < end;)
		nap(0.5);
	_exit(0);
}
