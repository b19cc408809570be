/*
 * faulty - kernel time of two kinds, page faults and system calls, in
 * known shares, for the system call bias correction (ptprof(1), SYSTEM
 * CALL BIAS; tests/syscall-truth.test).  Usage:
 *   faulty threads|mixed SECONDS [SPINS]
 * Three activities:
 *   fault_loop -> touch_pages: touches every page of a fresh 4 MiB
 *     mapping (MADV_NOHUGEPAGE: one page fault a page), then munmap():
 *     most of its time is the kernel's, in page faults, whose stops come
 *     back at the touching instruction and look like stops in user code;
 *   compute: SPIN, user code only;
 *   call_loop -> work (SPINS rounds of SPIN, default 10000: ~10 us) and
 *     -> do_call -> getppid(): the stops come often at the call's exit.
 * "threads": one thread each (the main thread waits); "mixed": one thread
 * runs them in turn, ~20 ms each, so that its kernel time is both page
 * faults and calls: the correction cannot tell them apart there, and
 * leaves getppid over-counted (ptprof(1), SYSTEM CALL BIAS; not tested).
 *
 * It measures its own split without a system call in its loops: each
 * thread's CPU-time clock at its start and end only, and CLOCK_MONOTONIC
 * (the vDSO) in between: around each touch_pages() and each fault round,
 * each turn (mixed), and, inside call_loop, the median call over the
 * median round (as sysloop does: a preempted round would count the time
 * it waited).  Not the CPU-time clock in the loops: reading it is a
 * system call that brings the thread's schedstat up to date, and on a
 * busy machine a thread is then often preempted at its exit, where a
 * ptrace stop lands too: stops there would show the clock's call costing
 * a quarter of the fault loop's time (perf: under 1%).  On SECONDS
 * passed, SIGTERM or SIGINT it prints, as percents of the CPU time of
 * its working threads:
 *   "share touch_pages P" "share fault_loop P" "share compute P"
 *   "share work P" "share do_call P" "share call_loop P"
 * (fault_loop and call_loop: the whole activity, their callees included)
 * and "ready" when it starts.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "target.h"

#define MAP_BYTES (4u << 20)
#define PAGE 4096u

static volatile sig_atomic_t stop;
static double end_time;
static unsigned spins = 10000;

/* One per thread: the CPU time of its life, and the time (CLOCK_MONOTONIC,
 * s) it spent in each activity and part, which split the CPU time. */
struct split {
	double cpu, fault, touch, compute, call;
};

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int done(void)
{
	return stop || now() >= end_time;
}

NOIPA void touch_pages(volatile char *p)
{
	for (unsigned i = 0; i < MAP_BYTES; i += PAGE)
		p[i] = (char)i;
	KEEP_FRAME();
}

/* One round: map, touch, unmap; adds the touching's time to *touch. */
NOIPA int fault_round(double *touch)
{
	char *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t;

	if (p == MAP_FAILED)
		return -1;
	/* A transparent huge page would take one fault for 512 pages. */
	(void)madvise(p, MAP_BYTES, MADV_NOHUGEPAGE);
	t = now();
	touch_pages(p);
	*touch += now() - t;
	munmap(p, MAP_BYTES);
	KEEP_FRAME();
	return 0;
}

/* Each activity runs for `budget` seconds (0: until done()). */
NOIPA void fault_loop(struct split *s, double budget)
{
	double t0 = now(), t = t0;

	while (!done() && (!budget || t - t0 < budget)) {
		if (fault_round(&s->touch) < 0)
			break;
		t = now();
	}
	s->fault += t - t0;
	KEEP_FRAME();
}

NOIPA void compute(struct split *s, double budget)
{
	double t0 = now(), t = t0;
	uint64_t x = 1;

	while (!done() && (!budget || t - t0 < budget)) {
		SPIN(x, 200000u);
		t = now();
	}
	s->compute += t - t0 + (double)(x & 1) * 1e-12;
	KEEP_FRAME();
}

NOIPA void work(uint64_t *x, unsigned n)
{
	SPIN(*x, n);
	KEEP_FRAME();
}

NOIPA long do_call(void)
{
	long r = (long)getppid();

	KEEP_FRAME();
	return r;
}

#define KEEP 65536
static uint64_t call_ns[KEEP], round_ns[KEEP];
static uint64_t calls;

/* The last KEEP calls' times, and their rounds'. */
static void keep_round(uint64_t call, uint64_t round)
{
	call_ns[calls % KEEP] = call;
	round_ns[calls % KEEP] = round;
	calls++;
}

NOIPA void call_loop(struct split *s, double budget)
{
	double t0 = now(), t = t0;
	uint64_t x = 1, start = now_ns(), a, b;
	unsigned i;

	while (!done() && (!budget || t - t0 < budget)) {
		for (i = 0; i < 100; i++) {
			work(&x, spins);
			a = now_ns();
			do_call();
			b = now_ns();
			keep_round(b - a, b - start);
			start = b;
		}
		t = now();
	}
	s->call += t - t0 + (double)(x & 1) * 1e-12;
	KEEP_FRAME();
}

static struct split parts[3];

static void *fault_main(void *arg)
{
	fault_loop(arg, 0);
	((struct split *)arg)->cpu = cpu_now();
	return NULL;
}

static void *compute_main(void *arg)
{
	compute(arg, 0);
	((struct split *)arg)->cpu = cpu_now();
	return NULL;
}

static void *call_main(void *arg)
{
	call_loop(arg, 0);
	((struct split *)arg)->cpu = cpu_now();
	return NULL;
}

/* One thread, ~20 ms for each activity in turn. */
NOIPA void mixed(struct split *s)
{
	while (!done()) {
		fault_loop(s, 0.02);
		compute(s, 0.02);
		call_loop(s, 0.02);
	}
	KEEP_FRAME();
}

static void print_shares(void)
{
	struct split t = { 0 };
	uint64_t n = calls < KEEP ? calls : KEEP;
	double total = 0, call_share;

	/* Each thread's CPU time split as its time was. */
	for (int i = 0; i < 3; i++) {
		struct split *p = &parts[i];
		double wall = p->fault + p->compute + p->call;

		if (wall <= 0)
			continue;
		total += p->cpu;
		t.fault += p->cpu * p->fault / wall;
		t.touch += p->cpu * p->touch / wall;
		t.compute += p->cpu * p->compute / wall;
		t.call += p->cpu * p->call / wall;
	}
	call_share = n ? median(call_ns, n) / median(round_ns, n) : 0;
	if (total <= 0)
		total = 1;
	printf("share touch_pages %.1f\n", 100 * t.touch / total);
	printf("share fault_loop %.1f\n", 100 * t.fault / total);
	printf("share compute %.1f\n", 100 * t.compute / total);
	printf("share work %.1f\n", 100 * t.call * (1 - call_share) / total);
	printf("share do_call %.1f\n", 100 * t.call * call_share / total);
	printf("share call_loop %.1f\n", 100 * t.call / total);
	printf("cpu %.3f s, calls %llu\n", total, (unsigned long long)calls);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	void *(*const fn[])(void *) = { fault_main, compute_main, call_main };
	pthread_t th[3];
	struct sigaction sa;

	if (argc < 3 ||
	    (strcmp(argv[1], "threads") && strcmp(argv[1], "mixed"))) {
		fprintf(stderr,
			"usage: faulty threads|mixed SECONDS [SPINS]\n");
		return 2;
	}
	end_time = now() + atof(argv[2]);
	if (argc > 3)
		spins = (unsigned)atoi(argv[3]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	if (!strcmp(argv[1], "mixed")) {
		mixed(&parts[0]);
		parts[0].cpu = cpu_now();
	} else {
		for (int i = 0; i < 3; i++)
			if (pthread_create(&th[i], NULL, fn[i], &parts[i])) {
				perror("faulty");
				return 1;
			}
		for (int i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
	}
	print_shares();
	return 0;
}
