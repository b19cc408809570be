/*
 * jitter - the benchmark's target, which measures itself.
 *
 *   jitter [-b BUSY] [-i IDLE] [-d SECONDS] [-w WARMUP] [-s DEPTH] [-t GAP_NS]
 *
 * BUSY threads (default 1) spin reading CLOCK_MONOTONIC and record every
 * gap between two consecutive readings longer than GAP_NS (default 2000):
 * time the thread was kept from running, by a profiler's stop, by the
 * scheduler or by anything else (on a VM: the host, too).  The main thread
 * is the first busy thread, so -b 1 -i 0 is a single-threaded CPU-bound
 * program.  Each busy thread spins DEPTH (default 12) calls deep, so that
 * a profiler has a real stack to unwind.  IDLE threads (default 0) block on
 * a condition variable for the whole run.
 *
 * It prints "ready" on stdout once every thread runs, spins WARMUP seconds
 * (default 0) without recording (time for a profiler to attach), then
 * measures for SECONDS (default 5) and prints one line:
 *
 *   jitter busy=B idle=I elapsed_ns=E stolen_ns=S stolen_pct=P
 *          gaps=N p50_ns=.. p99_ns=.. max_ns=.. mean_ns=.. loops=L cpu_us=C
 *
 * elapsed_ns is the measured window.  stolen_ns and stolen_pct are the mean
 * over busy threads of the sum of gaps, and of (sum of gaps)/elapsed.  The
 * gap percentiles and mean are over all gaps recorded (the pauses the
 * threads saw).  loops counts clock readings: less work done means more
 * time stolen.  cpu_us is this process's own user+system CPU time, so that
 * a profiler that runs it as a child can have its own CPU time told apart.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_GAPS (1 << 20)

struct busy {
	pthread_t th;
	uint64_t stolen, loops;
	uint64_t *gaps;
	size_t ngaps;
};

static uint64_t gap_ns = 2000, start_ns, end_ns;
static int depth = 12;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done, started_idle, started_busy;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The measuring loop, at the bottom of the call chain. */
static __attribute__((noinline)) void measure(struct busy *b)
{
	uint64_t prev = now_ns(), end;

	/* Warm-up: spin, record nothing. */
	while (prev < __atomic_load_n(&start_ns, __ATOMIC_RELAXED))
		prev = now_ns();
	end = __atomic_load_n(&end_ns, __ATOMIC_SEQ_CST);
	for (;;) {
		uint64_t t = now_ns();

		b->loops++;
		if (t - prev > gap_ns) {
			b->stolen += t - prev;
			if (b->ngaps < MAX_GAPS)
				b->gaps[b->ngaps++] = t - prev;
		}
		prev = t;
		if (t >= end)
			return;
	}
}

/* DEPTH real frames (no tail calls, no inlining) above measure(). */
static __attribute__((noinline)) int nest(struct busy *b, int d)
{
	int r;

	if (d <= 0) {
		measure(b);
		return 0;
	}
	r = nest(b, d - 1);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static void *spin(void *arg)
{
	__atomic_add_fetch(&started_busy, 1, __ATOMIC_SEQ_CST);
	nest(arg, depth);
	return NULL;
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	started_idle++;
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(struct busy *b, int nbusy, int nidle, uint64_t elapsed)
{
	uint64_t stolen = 0, loops = 0, *all, cpu;
	double pct = 0;
	size_t n = 0;
	struct rusage ru;

	for (int i = 0; i < nbusy; i++)
		n += b[i].ngaps;
	all = calloc(n ? n : 1, sizeof(*all));
	n = 0;
	for (int i = 0; i < nbusy; i++) {
		memcpy(all + n, b[i].gaps, b[i].ngaps * sizeof(*all));
		n += b[i].ngaps;
		stolen += b[i].stolen;
		loops += b[i].loops;
		pct += 100.0 * (double)b[i].stolen / (double)elapsed;
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	getrusage(RUSAGE_SELF, &ru);
	cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	printf("jitter busy=%d idle=%d elapsed_ns=%llu stolen_ns=%llu "
	       "stolen_pct=%.3f gaps=%zu p50_ns=%llu p99_ns=%llu max_ns=%llu "
	       "mean_ns=%llu loops=%llu cpu_us=%llu\n",
	       nbusy, nidle, (unsigned long long)elapsed,
	       (unsigned long long)(stolen / (uint64_t)nbusy), pct / nbusy, n,
	       (unsigned long long)(n ? all[n / 2] : 0),
	       (unsigned long long)(n ? all[n * 99 / 100] : 0),
	       (unsigned long long)(n ? all[n - 1] : 0),
	       (unsigned long long)(n ? stolen / n : 0),
	       (unsigned long long)loops, (unsigned long long)cpu);
	free(all);
}

static void usage(void)
{
	fprintf(stderr, "usage: jitter [-b BUSY] [-i IDLE] [-d SECS] "
			"[-w WARMUP_SECS] [-s DEPTH] [-t GAP_NS]\n");
}

int main(int argc, char **argv)
{
	int nbusy = 1, nidle = 0, c;
	double secs = 5, warmup = 0;
	pthread_t *idlers;
	struct busy *b;

	while ((c = getopt(argc, argv, "b:i:d:w:s:t:")) != -1) {
		switch (c) {
		case 'b':
			nbusy = atoi(optarg);
			break;
		case 'i':
			nidle = atoi(optarg);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		case 'w':
			warmup = atof(optarg);
			break;
		case 's':
			depth = atoi(optarg);
			break;
		case 't':
			gap_ns = strtoull(optarg, NULL, 10);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc || nbusy < 1 || nidle < 0 || secs <= 0 ||
	    warmup < 0 || depth < 0 || depth > 10000) {
		usage();
		return 2;
	}
	b = calloc((size_t)nbusy, sizeof(*b));
	idlers = calloc((size_t)nidle + 1, sizeof(*idlers));
	if (!b || !idlers)
		return 1;
	for (int i = 0; i < nbusy; i++) {
		b[i].gaps = malloc(MAX_GAPS * sizeof(uint64_t));
		if (!b[i].gaps)
			return 1;
	}
	for (int i = 0; i < nidle; i++)
		if (pthread_create(&idlers[i], NULL, idle, NULL)) {
			perror("jitter: pthread_create");
			return 1;
		}
	/* Far in the future until every thread runs. */
	start_ns = end_ns = UINT64_MAX;
	for (int i = 1; i < nbusy; i++)
		if (pthread_create(&b[i].th, NULL, spin, &b[i])) {
			perror("jitter: pthread_create");
			return 1;
		}
	for (;;) {
		int ni, nb = __atomic_load_n(&started_busy, __ATOMIC_SEQ_CST);

		pthread_mutex_lock(&mu);
		ni = started_idle;
		pthread_mutex_unlock(&mu);
		if (ni == nidle && nb == nbusy - 1)
			break;
		usleep(1000);
	}
	{
		uint64_t s = now_ns() + (uint64_t)(warmup * 1e9);

		__atomic_store_n(&end_ns, s + (uint64_t)(secs * 1e9),
				 __ATOMIC_SEQ_CST);
		__atomic_store_n(&start_ns, s, __ATOMIC_SEQ_CST);
	}
	printf("ready\n");
	fflush(stdout);
	nest(&b[0], depth); /* the main thread is busy thread 0 */
	for (int i = 1; i < nbusy; i++)
		pthread_join(b[i].th, NULL);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < nidle; i++)
		pthread_join(idlers[i], NULL);
	report(b, nbusy, nidle, end_ns - start_ns);
	return 0;
}
