/*
 * test_recwrite.c - recwrite.h: the legacy FILE holds the busiest
 * process of the period, and a pprof builder that ran out of memory
 * (it misses samples) is not trusted to tell which, nor to tell that
 * FILE holds every sample: the root's table is written as it is, and
 * BASE.pb.gz is tried, so that its failure is said (RECWRITE_FAILED).
 * The files go to a directory of the test's own, removed at the end.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/pprof_out.h"
#include "profile/pprof_out_int.h"
#include "profile/procset.h"
#include "profile/recwrite.h"
#include "profile/stacktab.h"
#include "unit.h"

static char dir[] = "/tmp/test_recwrite.XXXXXX";
static char said[512];

static void say(void *arg, const char *sentence)
{
	(void)arg;
	snprintf(said, sizeof(said), "%s", sentence);
}

/* A period: root (pid 100) has root_n samples in the table and the
 * builder, busy (pid 200) busy_n in the builder; the builder failed or
 * not.  The RECWRITE_* bits; *legacy: the PID FILE holds. */
static int period(uint64_t root_n, uint64_t busy_n, bool failed, pid_t *legacy)
{
	struct procset *ps = procset_new();
	struct recwrite w = { 0 };
	struct recwrite_period per = { .others = true };
	struct proc_image *root, *busy;
	uint64_t pc_root = 0x401000, pc_busy = 0x402000;
	int done;

	CHECK(ps != NULL);
	root = procset_add(ps, 100, 0, "root");
	busy = procset_add(ps, 200, 100, "busy");
	CHECK(root && busy);
	w.o.hz = 100;
	w.o.legacy_output = "out.prof";
	w.tab = stacktab_new(64);
	w.pprof = pprof_out_new(64);
	w.say = say;
	snprintf(w.rot.legacy, sizeof(w.rot.legacy), "%s/out.prof", dir);
	CHECK(w.tab && w.pprof && root->maps && busy->maps);
	CHECK(stacktab_add(w.tab, &pc_root, 1, root_n) == 0);
	if (root_n && !failed) {
		struct sample_origin from = { .image = root, .tid = 100 };

		pprof_out_add(w.pprof, &from, &pc_root, 1, root_n);
	}
	{
		struct sample_origin from = { .image = busy, .tid = 200 };

		pprof_out_add(w.pprof, &from, &pc_busy, 1, busy_n);
	}
	/* The root's add ran out of memory: the builder holds busy's only. */
	if (failed)
		w.pprof->failed = true;
	said[0] = '\0';
	done = recwrite_period(&w, ps, &per);
	*legacy = w.legacy_pid;
	free(w.all_path);
	stacktab_free(w.tab);
	pprof_out_free(w.pprof);
	procset_free(ps);
	return done;
}

int main(void)
{
	char path[sizeof(dir) + 32];
	pid_t legacy;
	int done;

	CHECKF(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	/* The busier process, from the builder; all in BASE.pb.gz too. */
	done = period(1, 10, false, &legacy);
	CHECKF(legacy == 200 && (done & RECWRITE_LEGACY) &&
		       (done & RECWRITE_ALL) && !(done & RECWRITE_FAILED),
	       "legacy %d done %#x (%s)", (int)legacy, done, said);
	/* The builder missed the root's sample: it cannot tell the busiest
	 * nor that FILE holds all (it would say so of busy, 10 of its 10):
	 * FILE holds the root's table, BASE.pb.gz fails, said. */
	done = period(1, 10, true, &legacy);
	CHECKF(legacy == 100 && (done & RECWRITE_FAILED) && said[0],
	       "legacy %d done %#x (%s)", (int)legacy, done, said);
	snprintf(path, sizeof(path), "%s/out.prof", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out.pb.gz", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out.prof.old", dir);
	unlink(path); /* the first period's, kept by the second */
	CHECKF(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
	return unit_result("test_recwrite");
}
