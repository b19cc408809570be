/*
 * unwind_compare - does ptprof's unwind of a stack copy match libunwind's
 * own ptrace unwind of the stopped thread?  For the test suite.
 *
 *   unwind_compare [-s] PID N [MAXDEPTH]
 *
 * PID is a single-threaded target (its main thread is sampled).  For each
 * of N samples, about 5 ms apart:
 *   PTRACE_SEIZE + PTRACE_INTERRUPT, wait (bounded) for the stop;
 *   read /proc/PID/maps into a struct maps (only merged when it changed,
 *     and then the unwinder's caches are flushed, as the sampler does);
 *   capture_thread(): registers and the stack copy (to its mapping's top);
 *   the reference: stock libunwind-ptrace (_UPT_accessors) unwinds the
 *     thread while it is still stopped;
 *   PTRACE_DETACH (handing back the signal of a signal-delivery-stop);
 *   unwinder_unwind() unwinds the copy, as ptprof does, the thread
 *     running again.
 * With -s the copy is unwound before the detach instead, the thread still
 * stopped: memory read beyond the copy is then what the reference saw, so
 * a mismatch is the unwinder's own, never a stale read.
 * Both chains are capped at MAXDEPTH (default 512) PCs, leaf first, and
 * compared: "equal" (same length, same PCs), "prefix-only" (one is a
 * proper prefix of the other: one unwind stopped early) or "different".
 *
 * Output (stdout): the first few mismatches, then
 *   unwind_compare: N samples, E equal, P prefix-only, D different, mean depth X, max depth Y
 *   unwind_compare: B samples unwound beyond the stack copy (largest copy C bytes), R reads from the target
 *   unwind_compare: K of the M mismatches first differ at a frame whose PC lies beyond the copy
 *   unwind_compare: unwinding the copy took mean U us, max V us, CPU mean W us (thread released|stopped)
 * Depths are those of the reference chains.  B counts samples whose
 * reference unwind reached a frame whose stack pointer lies past the end
 * of the copy (its return address was read beyond the copy); K counts
 * mismatches whose first differing PC was read from beyond the copy (a
 * stale read, when the thread was released).  U and V:
 * the wall time unwinder_unwind() took, that is, how long after the detach
 * the last read beyond the copy can come; W: the CPU time it used (the
 * rest is time the tool waited for a CPU).
 *
 * Exit status: 0 when it ran (whatever the comparison says; the caller
 * judges), 1 on a setup failure or when a sample fails (the target gone,
 * a stop that never came), 2 on usage errors.
 *
 * The target runs on between samples: the thread is detached on every
 * path before the next sample and before any exit.  Should the stop never
 * come (it waits at most STOP_WAIT_MS), the thread is seized but not
 * stopped, which PTRACE_DETACH cannot undo: the tool exits then, and the
 * kernel detaches a dead tracer's tracees.  A time limit (TIME_LIMIT_S)
 * ends the run early, with the samples taken so far.
 */
#include "config.h"

#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libunwind-ptrace.h>

#include "proc/capture.h"
#include "proc/maps.h"
#include "proc/procfs.h"
#include "proc/ptctl.h"
#include "unwind/unwind.h"

#include "tracetool.h"

#define DEFAULT_MAX_DEPTH 512
#define TIME_LIMIT_S 30
#define SAMPLE_GAP_US 5000
#define SHOW_MISMATCHES 5

static const char *me = "unwind_compare";

/*
 * The reference: libunwind-ptrace on the stopped thread.  PCs leaf first,
 * never a zero PC, at most max, as unwinder_unwind() does; sps[i] is the
 * stack pointer of frame i (0 if unknown): a caller's PC was read from
 * just below it.  *max_sp gets the highest of them.
 */
static int unwind_upt(unw_addr_space_t as, pid_t tid, uint64_t *pcs,
		      uint64_t *sps, int max, uint64_t *max_sp)
{
	void *upt = _UPT_create(tid);
	unw_cursor_t c;
	unw_word_t ip, sp;
	int n = 0;

	*max_sp = 0;
	if (!upt)
		return -1;
	if (unw_init_remote(&c, as, upt) < 0 ||
	    unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
		goto out;
	do {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (unw_get_reg(&c, UNW_REG_SP, &sp) < 0)
			sp = 0;
		sps[n] = sp;
		pcs[n++] = ip;
		if (sp > *max_sp)
			*max_sp = sp;
	} while (n < max && unw_step(&c) > 0);
out:
	_UPT_destroy(upt);
	return n;
}

enum verdict { V_EQUAL, V_PREFIX, V_DIFFERENT };

static enum verdict compare(const uint64_t *a, int na, const uint64_t *b,
			    int nb, int *first)
{
	int n = na < nb ? na : nb;

	for (int i = 0; i < n; i++)
		if (a[i] != b[i]) {
			*first = i;
			return V_DIFFERENT;
		}
	*first = n;
	return na == nb ? V_EQUAL : V_PREFIX;
}

static void show_mismatch(int sample, enum verdict v, int first,
			  const struct capture *cap, const uint64_t *ref,
			  int nref, const uint64_t *got, int ngot)
{
	printf("sample %d: %s at frame %d: reference %d frames, copy %d "
	       "frames; rsp 0x%llx, copy %zu bytes\n",
	       sample, v == V_PREFIX ? "prefix-only" : "different", first, nref,
	       ngot, (unsigned long long)cap->regs.rsp, cap->stack_len);
	for (int i = first > 2 ? first - 2 : 0;
	     i < first + 3 && (i < nref || i < ngot); i++) {
		printf("  #%d reference ", i);
		if (i < nref)
			printf("0x%" PRIx64, ref[i]);
		else
			printf("-");
		printf("  copy ");
		if (i < ngot)
			printf("0x%" PRIx64, got[i]);
		else
			printf("-");
		printf("%s\n", i == first ? "   <--" : "");
	}
}

int main(int argc, char **argv)
{
	struct maps *maps = NULL;
	struct unwinder *u = NULL;
	struct capture *cap = NULL;
	unw_addr_space_t as = NULL;
	uint64_t *ref = NULL, *got = NULL, *sps = NULL;
	char *maps_text = NULL, *end;
	size_t maps_len = 0;
	long pid_l, want;
	pid_t pid;
	int max = DEFAULT_MAX_DEPTH, rc = 1;
	unsigned long samples = 0, equal = 0, prefix = 0, different = 0;
	unsigned long beyond = 0, shown = 0, max_depth = 0, bad_beyond = 0;
	size_t max_copy = 0;
	uint64_t depth_sum = 0, deadline, unwind_ns = 0, unwind_max_ns = 0;
	uint64_t unwind_cpu_ns = 0;
	bool stopped = false;
	int opt;
	struct unwinder_counters uc;

	while ((opt = getopt(argc, argv, "s")) != -1) {
		if (opt != 's')
			goto usage;
		stopped = true;
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || argc > 3) {
usage:
		fprintf(stderr, "usage: %s [-s] PID N [MAXDEPTH]\n", me);
		return 2;
	}
	pid_l = strtol(argv[0], &end, 10);
	if (*end || pid_l <= 0) {
		fprintf(stderr, "%s: bad PID '%s'\n", me, argv[0]);
		return 2;
	}
	pid = (pid_t)pid_l;
	want = strtol(argv[1], &end, 10);
	if (*end || want <= 0) {
		fprintf(stderr, "%s: bad N '%s'\n", me, argv[1]);
		return 2;
	}
	if (argc > 2) {
		max = (int)strtol(argv[2], &end, 10);
		if (*end || max <= 0 || max > 65536) {
			fprintf(stderr, "%s: bad MAXDEPTH '%s'\n", me, argv[2]);
			return 2;
		}
	}

	maps = maps_new();
	cap = capture_new();
	ref = calloc((size_t)max, sizeof(*ref));
	got = calloc((size_t)max, sizeof(*got));
	sps = calloc((size_t)max, sizeof(*sps));
	as = unw_create_addr_space(&_UPT_accessors, 0);
	if (!maps || !cap || !ref || !got || !sps || !as) {
		fprintf(stderr, "%s: out of memory\n", me);
		goto out;
	}
	if (update_maps(pid, maps, NULL, &maps_text, &maps_len)) {
		fprintf(stderr, "%s: cannot read the maps of %d: %s\n", me,
			(int)pid, strerror(errno));
		goto out;
	}
	u = unwinder_new(pid, maps);
	if (!u) {
		fprintf(stderr, "%s: unwinder_new: %s\n", me, strerror(errno));
		goto out;
	}

	deadline = now_ns() + TIME_LIMIT_S * 1000000000ull;
	while (samples < (unsigned long)want) {
		uint64_t max_sp, copy_end, t0 = 0, dt = 0, c0 = 0, dc = 0;
		int sig = 0, nref, ngot = 0, first, st;
		enum verdict v;

		if (now_ns() >= deadline) {
			printf("%s: time limit (%d s) reached\n", me,
			       TIME_LIMIT_S);
			break;
		}
		if (ptctl_seize(pid)) {
			fprintf(stderr, "%s: PTRACE_SEIZE %d: %s\n", me,
				(int)pid, strerror(errno));
			goto out;
		}
		if (ptctl_interrupt(pid)) {
			/* Seized, not stopped: only our exit lets it go. */
			fprintf(stderr, "%s: PTRACE_INTERRUPT %d: %s\n", me,
				(int)pid, strerror(errno));
			goto out;
		}
		st = wait_stop(pid, &sig);
		if (st <= 0) {
			fprintf(stderr, "%s: %d %s\n", me, (int)pid,
				st == 0 ? "exited" :
					  "did not stop in time (exiting "
					  "untraces it)");
			goto out;
		}
		/* Stopped: from here on, every path detaches. */
		if (update_maps(pid, maps, u, &maps_text, &maps_len) ||
		    capture_thread(pid, maps, cap)) {
			int err = errno;

			ptctl_detach(pid, sig);
			fprintf(stderr, "%s: maps or capture of %d: %s\n", me,
				(int)pid, strerror(err));
			goto out;
		}
		nref = unwind_upt(as, pid, ref, sps, max, &max_sp);
		if (stopped) {
			t0 = now_ns();
			c0 = cpu_ns();
			ngot = unwinder_unwind(u, cap, got, max);
			dc = cpu_ns() - c0;
			dt = now_ns() - t0;
		}
		if (ptctl_detach(pid, sig)) {
			fprintf(stderr, "%s: PTRACE_DETACH %d: %s\n", me,
				(int)pid, strerror(errno));
			goto out;
		}
		if (nref < 0) {
			fprintf(stderr, "%s: _UPT_create failed\n", me);
			goto out;
		}
		if (!stopped) {
			t0 = now_ns();
			c0 = cpu_ns();
			ngot = unwinder_unwind(u, cap, got, max);
			dc = cpu_ns() - c0;
			dt = now_ns() - t0;
		}
		unwind_ns += dt;
		unwind_cpu_ns += dc;
		if (dt > unwind_max_ns)
			unwind_max_ns = dt;

		samples++;
		depth_sum += (uint64_t)nref;
		if ((unsigned long)nref > max_depth)
			max_depth = (unsigned long)nref;
		copy_end = cap->stack_start + cap->stack_len;
		if (max_sp > copy_end)
			beyond++;
		if (cap->stack_len > max_copy)
			max_copy = cap->stack_len;
		v = compare(ref, nref, got, ngot, &first);
		if (v == V_EQUAL)
			equal++;
		else if (v == V_PREFIX)
			prefix++;
		else
			different++;
		/* Frame first's PC is the return address just below its SP:
		 * was it read from the copy or from beyond it? */
		if (v != V_EQUAL && first > 0 && first < nref && sps[first] &&
		    sps[first] - 8 >= copy_end)
			bad_beyond++;
		if (v != V_EQUAL && shown++ < SHOW_MISMATCHES)
			show_mismatch((int)samples, v, first, cap, ref, nref,
				      got, ngot);
		sleep_us(SAMPLE_GAP_US);
	}

	unwinder_counters(u, &uc);
	printf("%s: %lu samples, %lu equal, %lu prefix-only, %lu different, "
	       "mean depth %.1f, max depth %lu\n",
	       me, samples, equal, prefix, different,
	       samples ? (double)depth_sum / (double)samples : 0.0, max_depth);
	printf("%s: %lu samples unwound beyond the stack copy (largest "
	       "copy %zu bytes), %llu reads from the target\n",
	       me, beyond, max_copy, (unsigned long long)uc.mem_from_target);
	printf("%s: %lu of the %lu mismatches first differ at a frame whose "
	       "PC lies beyond the copy\n",
	       me, bad_beyond, prefix + different);
	printf("%s: unwinding the copy took mean %.0f us, max %.0f us, CPU "
	       "mean %.0f us (thread %s)\n",
	       me, samples ? (double)unwind_ns / (double)samples / 1e3 : 0.0,
	       (double)unwind_max_ns / 1e3,
	       samples ? (double)unwind_cpu_ns / (double)samples / 1e3 : 0.0,
	       stopped ? "stopped" : "released");
	rc = 0;
out:
	unwinder_free(u);
	if (as)
		unw_destroy_addr_space(as);
	maps_free(maps);
	free(maps_text);
	capture_free(cap);
	free(ref);
	free(got);
	free(sps);
	return rc;
}
