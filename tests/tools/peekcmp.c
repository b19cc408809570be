/*
 * peekcmp - a blocked thread's stack read without a stop (peek.h) against
 * the same thread's stack read in a ptrace stop.  For the test suite, and
 * to measure how often the two agree on real programs.
 *
 *   peekcmp [-n ROUNDS] [-g GAP_MS] [-v] PID
 *   peekcmp -b N PID
 *
 * For each of ROUNDS rounds (default 3, GAP_MS apart, default 100), for
 * each thread of PID:
 *   peek_thread() (kept descriptors, a few tries while PEEK_CHANGED);
 *   the run count again (schedstat): unchanged, or the thread is "changed";
 *   PTRACE_SEIZE + PTRACE_INTERRUPT, wait (bounded) for the stop,
 *   capture_thread(), PTRACE_DETACH (the stop makes some calls return
 *   EINTR in the target: this is a test tool);
 *   both captures unwound with the same unwinder (the thread released, as
 *   ptprof does) and the PC lists compared.
 * Each thread's result, one of:
 *   identical    the same PCs (and the stop found it at the peeked PC/SP)
 *   refused      the partial unwind needed a register it does not have
 *                (unwinder_unwind(): -1, ENODATA): ptprof would stop it
 *   not-blocked  peek_thread() said PEEK_RUNNING or PEEK_FAILED
 *   changed      PEEK_CHANGED every try, or the thread ran or moved between
 *                the peek and the stop (not a comparison)
 *   DIFFERENT    the PCs differ: a wrong stack a peek would have emitted
 * and whether unwinder_after_syscall() agrees on both captures.
 *
 * Output (stdout): with -v a line per thread and round; a DIFFERENT one
 * always, with both PC lists (module+offset); then
 *   peekcmp: T threads, I identical, R refused, N not-blocked, C changed, D DIFFERENT, A after-syscall mismatches
 *   peekcmp: peek mean U us median M us (P peeks), stop mean V us median W us (S stops)
 *   peekcmp: unwinder: N unwinds, F frame-pointer steps, R partial captures refused
 * The peek time is peek_thread()'s wall time (PEEK_OK ones); the stop's,
 * from PTRACE_SEIZE to PTRACE_DETACH returning, capture included.
 *
 * With -b, the cost alone: N peek_thread() calls on each thread in a row
 * (no stop), then N stops (seize, interrupt, wait, capture_thread(),
 * detach) of each thread that was peeked; wall and CPU time per peek
 * and per stop, and the bytes copied:
 *   peekcmp: bench: P peeks (K ok, R running, C changed, F failed), wall mean U us, CPU mean C us, B bytes copied mean
 *   peekcmp: bench: S stops, wall mean V us, CPU mean D us
 *
 * Exit status: 0 when it ran (the caller judges the counts), 1 on a setup
 * failure or a stop that never came, 2 on usage errors.  Every thread is
 * detached before the next one is touched; a stop that never comes (at
 * most STOP_WAIT_MS) ends the tool, and the kernel detaches a dead
 * tracer's tracees.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc/capture.h"
#include "proc/maps.h"
#include "proc/peek.h"
#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "unwind/unwind.h"

#include "tracetool.h"

#define MAX_DEPTH 256
#define MAX_THREADS 4096
#define PEEK_TRIES 5

static const char *me = "peekcmp";

enum verdict { V_IDENTICAL, V_REFUSED, V_NOT_BLOCKED, V_CHANGED, V_DIFFERENT };

struct fds {
	pid_t tid;
	int sys, sched;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_pcs(const char *what, const struct maps *maps,
		      const uint64_t *pcs, int n)
{
	printf("  %s (%d):", what, n);
	for (int i = 0; i < n; i++) {
		const struct map_entry *e = maps_find(maps, pcs[i]);
		const char *base = e && e->path[0] ? strrchr(e->path, '/') :
						     NULL;

		if (e)
			printf(" %s+%#" PRIx64,
			       base ? base + 1 : (e->path[0] ? e->path : "?"),
			       pcs[i] - e->start + e->offset);
		else
			printf(" %#" PRIx64, pcs[i]);
	}
	printf("\n");
}

static struct fds *fds_of(struct fds *t, size_t *n, pid_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if (t[i].tid == tid)
			return &t[i];
	if (*n >= MAX_THREADS)
		return NULL;
	t[*n] = (struct fds){ tid, -1, -1 };
	return &t[(*n)++];
}

struct run {
	pid_t pid;
	struct maps *maps;
	struct unwinder *u;
	struct capture *peeked, *stopped;
	uint64_t *peek_ns, *stop_ns;
	size_t npeek, nstop, cap_times;
	unsigned count[5], after_mismatch;
	bool verbose;
};

/* One thread: its verdict, or -1 when its stop never came. */
static int compare_thread(struct run *r, struct fds *f)
{
	uint64_t pa[MAX_DEPTH], pb[MAX_DEPTH], ns, runs, ns0, runs0, t0;
	pid_t tid = f->tid;
	enum peek_result pr = PEEK_CHANGED;
	int na, nb, st, sig = 0, errno_a = 0;
	char name[64] = "?";

	procfs_task_name_state(r->pid, tid, name, sizeof(name));
	for (int i = 0; i < PEEK_TRIES && pr == PEEK_CHANGED; i++) {
		if (procfs_read_schedstat(r->pid, tid, &f->sched, &ns0, &runs0))
			return V_NOT_BLOCKED;
		t0 = now_ns();
		pr = peek_thread(r->pid, tid, r->maps, &f->sys, &f->sched,
				 r->peeked);
		if (pr == PEEK_OK && r->npeek < r->cap_times)
			r->peek_ns[r->npeek++] = now_ns() - t0;
	}
	if (pr == PEEK_RUNNING || pr == PEEK_FAILED) {
		if (r->verbose)
			printf("%d %s: not-blocked (%s)\n", (int)tid, name,
			       pr == PEEK_RUNNING ? "running" :
						    strerror(errno));
		return V_NOT_BLOCKED;
	}
	if (pr == PEEK_CHANGED) {
		if (r->verbose)
			printf("%d %s: changed (peek)\n", (int)tid, name);
		return V_CHANGED;
	}
	/* Not run since before the peek?  (The stop comes µs later.) */
	if (procfs_read_schedstat(r->pid, tid, &f->sched, &ns, &runs))
		return V_NOT_BLOCKED;
	if (ns != ns0 || runs != runs0) {
		if (r->verbose)
			printf("%d %s: changed (ran after the peek)\n",
			       (int)tid, name);
		return V_CHANGED;
	}
	t0 = now_ns();
	if (ptrace(PTRACE_SEIZE, tid, 0, 0))
		return V_NOT_BLOCKED;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0)) {
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return V_NOT_BLOCKED;
	}
	st = wait_stop(tid, &sig);
	if (st < 0) {
		fprintf(stderr, "%s: thread %d never stopped\n", me, (int)tid);
		return -1;
	}
	if (st == 0)
		return V_NOT_BLOCKED;
	st = capture_thread(tid, r->maps, r->stopped);
	ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
	if (r->nstop < r->cap_times)
		r->stop_ns[r->nstop++] = now_ns() - t0;
	if (st)
		return V_NOT_BLOCKED;
	/* The stop shows the thread at the peeked PC and SP. */
	if (r->stopped->regs.rip != r->peeked->regs.rip ||
	    r->stopped->regs.rsp != r->peeked->regs.rsp) {
		if (r->verbose)
			printf("%d %s: changed (moved before the stop)\n",
			       (int)tid, name);
		return V_CHANGED;
	}
	if (unwinder_after_syscall(r->u, r->peeked) !=
	    unwinder_after_syscall(r->u, r->stopped))
		r->after_mismatch++;
	memset(pa, 0, sizeof(pa));
	na = unwinder_unwind(r->u, r->peeked, pa, MAX_DEPTH);
	if (na < 0)
		errno_a = errno;
	nb = unwinder_unwind(r->u, r->stopped, pb, MAX_DEPTH);
	if (na < 0 && errno_a == ENODATA) {
		if (r->verbose) {
			printf("%d %s: refused (syscall %lld)\n", (int)tid,
			       name, (long long)r->peeked->regs.orig_rax);
			for (na = 0; na < MAX_DEPTH && pa[na]; na++)
				;
			print_pcs("peeked, until refused", r->maps, pa, na);
			print_pcs("stopped", r->maps, pb, nb);
		}
		return V_REFUSED;
	}
	if (na == nb && !memcmp(pa, pb, (size_t)na * sizeof(*pa))) {
		if (r->verbose)
			printf("%d %s: identical (%d frames, syscall %lld)\n",
			       (int)tid, name, na,
			       (long long)r->peeked->regs.orig_rax);
		return V_IDENTICAL;
	}
	printf("%d %s: DIFFERENT (syscall %lld)\n", (int)tid, name,
	       (long long)r->peeked->regs.orig_rax);
	print_pcs("peeked", r->maps, pa, na < 0 ? 0 : na);
	print_pcs("stopped", r->maps, pb, nb);
	return V_DIFFERENT;
}

/* -b: n peeks, then n stops, of each thread. */
static int bench(struct run *r, struct fds *fds, size_t nfds, int n)
{
	uint64_t peeks = 0, ok = 0, peek_ns = 0, peek_cpu = 0, bytes = 0;
	uint64_t by[PEEK_FAILED + 1] = { 0 };
	uint64_t stops = 0, stop_ns = 0, stop_cpu = 0, t0, c0;
	int sig, st;

	for (size_t i = 0; i < nfds; i++)
		for (int k = 0; k < n; k++) {
			t0 = now_ns(), c0 = cpu_ns();
			enum peek_result pr = peek_thread(r->pid, fds[i].tid,
							  r->maps, &fds[i].sys,
							  &fds[i].sched,
							  r->peeked);
			peek_cpu += cpu_ns() - c0;
			peek_ns += now_ns() - t0;
			peeks++;
			by[pr]++;
			if (pr == PEEK_OK) {
				ok++;
				bytes += r->peeked->stack_len;
			}
		}
	for (size_t i = 0; i < nfds; i++)
		for (int k = 0; k < n; k++) {
			pid_t tid = fds[i].tid;

			t0 = now_ns(), c0 = cpu_ns();
			if (ptrace(PTRACE_SEIZE, tid, 0, 0))
				break;
			if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) ||
			    (st = wait_stop(tid, &sig)) < 0) {
				fprintf(stderr, "%s: thread %d never stopped\n",
					me, (int)tid);
				return 1;
			}
			if (st > 0) {
				capture_thread(tid, r->maps, r->stopped);
				ptrace(PTRACE_DETACH, tid, 0,
				       (void *)(uintptr_t)sig);
			}
			stop_cpu += cpu_ns() - c0;
			stop_ns += now_ns() - t0;
			stops++;
		}
	printf("%s: bench: %" PRIu64 " peeks (%" PRIu64 " ok, %" PRIu64
	       " running, %" PRIu64 " changed, %" PRIu64
	       " failed), wall mean %.1f us, CPU mean %.1f us, %.0f bytes "
	       "copied mean\n",
	       me, peeks, ok, by[PEEK_RUNNING], by[PEEK_CHANGED],
	       by[PEEK_FAILED],
	       peeks ? (double)peek_ns / (double)peeks / 1e3 : 0,
	       peeks ? (double)peek_cpu / (double)peeks / 1e3 : 0,
	       ok ? (double)bytes / (double)ok : 0);
	printf("%s: bench: %" PRIu64 " stops, wall mean %.1f us, CPU mean "
	       "%.1f us\n",
	       me, stops, stops ? (double)stop_ns / (double)stops / 1e3 : 0,
	       stops ? (double)stop_cpu / (double)stops / 1e3 : 0);
	return 0;
}

static double mean_us(const uint64_t *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (double)v[i];
	return n ? s / (double)n / 1e3 : 0;
}

static double median_us(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? (double)v[n / 2] / 1e3 : 0;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	struct unwinder_counters uc;
	struct tidlist tids = { 0 };
	struct fds *fds = calloc(MAX_THREADS, sizeof(*fds));
	size_t nfds = 0, total = 0;
	char *maps_text = NULL;
	size_t maps_len = 0;
	int rounds = 3, gap_ms = 100, opt, rc = 0, nbench = 0;

	while ((opt = getopt(argc, argv, "b:n:g:v")) != -1) {
		if (opt == 'b')
			nbench = atoi(optarg);
		else if (opt == 'n')
			rounds = atoi(optarg);
		else if (opt == 'g')
			gap_ms = atoi(optarg);
		else if (opt == 'v')
			r.verbose = true;
		else
			goto usage;
	}
	if (optind + 1 != argc || rounds <= 0 || rounds > 1000 || gap_ms < 0 ||
	    nbench < 0 || nbench > 100000)
		goto usage;
	r.pid = (pid_t)atoi(argv[optind]);
	r.cap_times = (size_t)rounds * MAX_THREADS * PEEK_TRIES;
	r.peek_ns = calloc(r.cap_times, sizeof(uint64_t));
	r.stop_ns = calloc(r.cap_times, sizeof(uint64_t));
	r.peeked = capture_new();
	r.stopped = capture_new();
	r.maps = maps_new();
	if (!fds || !r.peek_ns || !r.stop_ns || !r.peeked || !r.stopped ||
	    !r.maps ||
	    update_maps(r.pid, r.maps, NULL, &maps_text, &maps_len) ||
	    !(r.u = unwinder_new(r.pid, r.maps))) {
		fprintf(stderr, "%s: setup for %d: %s\n", me, (int)r.pid,
			strerror(errno));
		return 1;
	}
	if (nbench) {
		if (procfs_list_tasks(r.pid, &tids))
			return 1;
		for (size_t i = 0; i < tids.n; i++)
			fds_of(fds, &nfds, tids.tids[i]);
		rc = bench(&r, fds, nfds, nbench);
		goto out;
	}
	for (int round = 0; round < rounds && !rc; round++) {
		if (round)
			sleep_us((unsigned)gap_ms * 1000u);
		if (procfs_list_tasks(r.pid, &tids) ||
		    update_maps(r.pid, r.maps, r.u, &maps_text, &maps_len)) {
			fprintf(stderr, "%s: %d: %s\n", me, (int)r.pid,
				strerror(errno));
			rc = 1;
			break;
		}
		for (size_t i = 0; i < tids.n; i++) {
			struct fds *f = fds_of(fds, &nfds, tids.tids[i]);
			int v;

			if (!f)
				break;
			v = compare_thread(&r, f);
			if (v < 0) {
				rc = 1;
				break;
			}
			r.count[v]++;
			total++;
		}
	}
	printf("%s: %zu threads, %u identical, %u refused, %u not-blocked, "
	       "%u changed, %u DIFFERENT, %u after-syscall mismatches\n",
	       me, total, r.count[V_IDENTICAL], r.count[V_REFUSED],
	       r.count[V_NOT_BLOCKED], r.count[V_CHANGED], r.count[V_DIFFERENT],
	       r.after_mismatch);
	printf("%s: peek mean %.1f us median %.1f us (%zu peeks), stop mean "
	       "%.1f us median %.1f us (%zu stops)\n",
	       me, mean_us(r.peek_ns, r.npeek), median_us(r.peek_ns, r.npeek),
	       r.npeek, mean_us(r.stop_ns, r.nstop),
	       median_us(r.stop_ns, r.nstop), r.nstop);
	unwinder_counters(r.u, &uc);
	printf("%s: unwinder: %" PRIu64 " unwinds, %" PRIu64
	       " frame-pointer steps, %" PRIu64 " partial captures refused\n",
	       me, uc.unwinds, uc.fp_steps, uc.partial_refused);
out:
	for (size_t i = 0; i < nfds; i++) {
		if (fds[i].sys >= 0)
			close(fds[i].sys);
		if (fds[i].sched >= 0)
			close(fds[i].sched);
	}
	unwinder_free(r.u);
	maps_free(r.maps);
	free(maps_text);
	capture_free(r.peeked);
	capture_free(r.stopped);
	procfs_tidlist_free(&tids);
	free(fds);
	free(r.peek_ns);
	free(r.stop_ns);
	return rc;
usage:
	fprintf(stderr,
		"usage: %s [-n ROUNDS] [-g GAP_MS] [-v] PID\n"
		"       %s -b N PID\n",
		me, me);
	return 2;
}
