/*
 * rotate.c - continuous profiling: periods, their writers, --keep (see
 * rotate.h).
 */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/bgwrite.h"
#include "profile/outfile.h"
#include "profile/outname.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/profile_out.h"
#include "profile/recwrite.h"
#include "profile/rotate.h"
#include "profile/stacktab.h"
#include "util/errbuf.h"
#include "util/timeutil.h"

int rotate_expand_name(const char *name, pid_t pid, time_t start,
		       unsigned long seq, bool numbered, char *buf, size_t len)
{
	struct outname_vars v = { .pid = pid, .start = start, .seq = seq };

	return outname_expand(name, &v, numbered, buf, len);
}

/* The current period's names; numbered when the run rotates. */
static int period_names(struct recwrite *w, char *err, size_t len)
{
	struct rotate *r = &w->rot;
	const struct recwrite_opts *o = &w->o;

	if (o->legacy_output &&
	    rotate_expand_name(o->legacy_output, r->pid, w->start.tv_sec,
			       r->seq, r->numbered, r->legacy,
			       sizeof(r->legacy)))
		return errbuf_fail(err, len, errno,
				   "cannot write output file '%s': %s",
				   o->legacy_output, strerror(errno));
	if (o->pprof_output &&
	    rotate_expand_name(o->pprof_output, r->pid, w->start.tv_sec, r->seq,
			       r->numbered, r->pprof, sizeof(r->pprof)))
		return errbuf_fail(err, len, errno,
				   "cannot write output file '%s': %s",
				   o->pprof_output, strerror(errno));
	return 0;
}

/* The names a period's writer writes, by RECWRITE_* bit: for --keep. */
static void note_names(struct recwrite *w, struct rotate_kept *names)
{
	struct rotate *r = &w->rot;

	names[0].path = w->o.legacy_output ? strdup(r->legacy) : NULL;
	names[1].path = w->o.pprof_output ? strdup(r->pprof) : NULL;
	names[2].path = w->o.legacy_output && !w->o.pprof_output && w->pprof ?
				recwrite_all_path(r->legacy) :
				NULL;
	for (int k = 0; k < 3; k++)
		names[k].seq = r->seq;
}

/* Is the file at path a regular file of the effective user's (its
 * identity into *st)?  Not a link, nor anybody else's. */
static bool kept_is_ours(const char *path, struct stat *st)
{
	return outfile_lstat(path, st) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid();
}

/* Remove f if its name still holds the very file written under it: in a
 * shared directory (/tmp) the name may have been moved away (a shipping
 * loop) and taken by another user's file since, which root must leave.
 * Looked up and removed in the directory pinned at the start: a
 * directory swapped for a link since is not removed through. */
static void kept_remove(const struct recwrite *w, const struct rotate_kept *f)
{
	struct stat st;

	if (!f->ours || !kept_is_ours(f->path, &st) || st.st_dev != f->dev ||
	    st.st_ino != f->ino)
		return;
	if (outfile_unlink(f->path) && errno != ENOENT)
		recwrite_say(w, "--keep: cannot remove '%s': %s", f->path,
			     strerror(errno));
}

/* --keep: one more file of output k; the oldest beyond keep removed (only
 * files this run wrote, by the names it wrote them under, and only while
 * they are still those files).  Takes path. */
static void keep_file(struct recwrite *w, int k, unsigned long seq, char *path)
{
	struct rotate *r = &w->rot;
	struct rotate_kept *v;
	struct stat st;
	size_t i;

	if (!w->o.keep || !path) {
		free(path);
		return;
	}
	v = realloc(r->kept[k], (r->nkept[k] + 1) * sizeof(*v));
	if (!v) {
		free(path);
		return;
	}
	r->kept[k] = v;
	/* Writers may end out of order: oldest (lowest seq) first. */
	for (i = r->nkept[k]; i > 0 && v[i - 1].seq > seq; i--)
		v[i] = v[i - 1];
	v[i] = (struct rotate_kept){ .seq = seq, .path = path };
	if (kept_is_ours(path, &st))
		v[i].ours = true, v[i].dev = st.st_dev, v[i].ino = st.st_ino;
	r->nkept[k]++;
	while (r->nkept[k] > w->o.keep) {
		kept_remove(w, &v[0]);
		free(v[0].path);
		memmove(v, v + 1, --r->nkept[k] * sizeof(*v));
	}
}

/* A period written (result: RECWRITE_* bits, or -1 when its writer died):
 * its files join the kept ones. */
static void period_written(struct recwrite *w, struct rotate_kept *names,
			   int result)
{
	static const int bit[3] = { RECWRITE_LEGACY, RECWRITE_PPROF,
				    RECWRITE_ALL };

	if (result < 0 || (result & RECWRITE_FAILED))
		w->rot.rs.failed++;
	w->rot.files++;
	for (int k = 0; k < 3; k++) {
		if (result >= 0 && (result & bit[k]))
			keep_file(w, k, names[k].seq, names[k].path);
		else
			free(names[k].path);
		names[k].path = NULL;
	}
}

/* bgwrite_done_fn: tag is the writer's slot in rot.inflight, which is
 * free again after. */
static void writer_done(void *arg, unsigned long tag, int result, int err)
{
	struct recwrite *w = arg;

	if (result < 0)
		recwrite_say(w,
			     "the writer of period %lu died before it wrote its "
			     "files: %s",
			     w->rot.inflight[tag][0].seq, strerror(err));
	period_written(w, w->rot.inflight[tag], result);
	w->rot.inflight[tag][0].seq = 0;
}

/* In the writer child: the period's files (bgwrite_fn). */
static int write_in_child(void *arg)
{
	struct recwrite *w = arg;

	return recwrite_period(w, w->rot.ps, &w->rot.per);
}

/* A free slot of rot.inflight (its seq 0): there are as many as writers
 * may be under way, and rotate() is called with one free at least. */
static unsigned long free_inflight(const struct rotate *r)
{
	for (unsigned long i = 0; i < BGWRITE_MAX; i++)
		if (!r->inflight[i][0].seq)
			return i;
	return 0;
}

/* The heap in use now, into rs (glibc's mallinfo2(); nothing without). */
static void note_heap(struct rotate_stats *rs)
{
#ifdef HAVE_MALLINFO2
	size_t used = mallinfo2().uordblks;

	if (!rs->heap_first)
		rs->heap_first = used;
	if (used > rs->heap_max)
		rs->heap_max = used;
	rs->heap_last = used;
#else
	(void)rs;
#endif
}

/* The period ends here: hand it to a writer (or write it here when no
 * child can be forked), then start the next with empty builders. */
static int rotate(struct recwrite *w, const struct rotate_counts *st,
		  uint64_t now, char *err, size_t len)
{
	struct rotate *r = &w->rot;
	unsigned long slot = free_inflight(r);
	int result;

	if (!r->numbered) { /* a SIGUSR2 without --rotate: from now on */
		r->numbered = true;
		r->out_renamed = w->out != NULL;
		if (period_names(w, err, len))
			return -1;
	}
	r->per = (struct recwrite_period){
		.duration_ns = now - r->start_ns,
		.others = recwrite_other_samples(r->ps) > r->others_at,
		.py = st->py_merged > r->py_at,
	};
	note_names(w, r->inflight[slot]);
	r->inflight[slot][0].seq = r->seq;
	/* Flushed first: the child writes what the stream holds. */
	if (w->out)
		profile_out_flush(w->out);
	if (bgwrite_start(&r->bg, slot, write_in_child, w) == 0) {
		r->rs.forked++;
		profile_out_release(w->out);
	} else {
		result = recwrite_period(w, r->ps, &r->per);
		period_written(w, r->inflight[slot], result);
		r->inflight[slot][0].seq = 0;
	}
	w->out = NULL;
	r->out_renamed = false;
	stacktab_clear(w->tab);
	w->records = 0;
	if (w->pprof)
		pprof_out_reset(w->pprof);
	/* The builders are empty: no stack names an ended image now, and
	 * the writer child has its own copy of them.  The perf maps read
	 * here (a period written without a child) are by image index, which
	 * retiring renumbers: read again when needed. */
	if (procset_retire(r->ps))
		recwrite_forget_jit(w);
	r->seq++;
	clock_gettime(CLOCK_REALTIME, &w->start);
	r->start_ns = mono_now_ns();
	r->others_at = recwrite_other_samples(r->ps);
	r->py_at = st->py_merged;
	r->asked = false;
	if (period_names(w, err, len))
		return -1;
	if (w->o.stats)
		note_heap(&r->rs);
	return 0;
}

/*
 * Between ticks (the progress hook): collect the writers that ended, and
 * rotate when --rotate's time came or a SIGUSR2 did.  A period lasts a
 * second at least (%t names files to the second), and waits while
 * BGWRITE_MAX writers are still under way (the disk is behind: the
 * period goes on, nothing is lost).  Measured for --stats: how long the
 * sampler was held, and the ticks missed by the next call (250 ms).
 */
int rotate_tick(struct recwrite *w, const struct rotate_counts *st, char *err,
		size_t len)
{
	static const struct timespec zero = { 0, 0 };
	struct rotate *r = &w->rot;
	uint64_t now = mono_now_ns(), t;

	bgwrite_poll(&r->bg, writer_done, w);
	if (r->rs.counting) {
		r->rs.missed_after += st->missed_ticks - r->rs.missed_at;
		r->rs.counting = false;
	}
	/* Blocked, so it waits here, never killing ptprof (its default). */
	if (sigtimedwait(&r->usr2, NULL, &zero) == SIGUSR2)
		r->asked = true;
	if (!r->asked && !(w->o.rotate_s && now >= r->next_due))
		return 0;
	if (now - r->start_ns < NSEC_PER_SEC || r->bg.busy == BGWRITE_MAX)
		return 0;
	if (rotate(w, st, now, err, len))
		return -1;
	while (w->o.rotate_s && r->next_due <= now)
		r->next_due += (uint64_t)w->o.rotate_s * NSEC_PER_SEC;
	t = mono_now_ns() - now;
	r->rs.rotations++;
	r->rs.hold_ns += t;
	if (t > r->rs.hold_max_ns)
		r->rs.hold_max_ns = t;
	r->rs.missed_at = st->missed_ticks;
	r->rs.counting = true;
	return 0;
}

/* SIGUSR2 blocked with the stop signals, before COMMAND starts (it gets
 * an empty mask): from then on it waits for rotate_tick(), where it
 * rotates, instead of killing ptprof (its default action). */
void rotate_block_signal(struct recwrite *w)
{
	sigemptyset(&w->rot.usr2);
	sigaddset(&w->rot.usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &w->rot.usr2, NULL);
}

/* Before sampling: the first period and its names. */
int rotate_start(struct recwrite *w, pid_t pid, struct procset *ps, char *err,
		 size_t len)
{
	struct rotate *r = &w->rot;

	r->pid = pid;
	r->seq = 1;
	r->numbered = w->o.rotate_s > 0;
	r->ps = ps;
	r->start_ns = mono_now_ns();
	r->next_due = r->start_ns + (uint64_t)w->o.rotate_s * NSEC_PER_SEC;
	bgwrite_init(&r->bg);
	if (period_names(w, err, len))
		return -1;
	/* Each output's directory opened once (outfile.h): a run writes
	 * for hours, and a directory another user owns may be swapped for
	 * a link meanwhile.  Best effort: a directory that cannot be
	 * pinned now fails its file's write later, which says why. */
	if (w->o.legacy_output)
		outfile_pin_dir(r->legacy);
	if (w->o.pprof_output)
		outfile_pin_dir(r->pprof);
	return 0;
}

/* After sampling: the writers still under way, then the last period,
 * written here.  Returns recwrite_period()'s bits. */
int rotate_finish(struct recwrite *w, const struct procset *ps,
		  const struct rotate_counts *st, uint64_t end_ns)
{
	struct rotate *r = &w->rot;
	struct rotate_kept names[3];
	int result;

	bgwrite_wait(&r->bg, writer_done, w);
	r->per = (struct recwrite_period){
		.duration_ns = r->seq == 1 ? st->elapsed_ns :
					     end_ns - r->start_ns,
		.others = recwrite_other_samples(ps) > r->others_at,
		.py = st->py_merged > r->py_at,
	};
	note_names(w, names);
	result = recwrite_period(w, ps, &r->per);
	period_written(w, names, result);
	return result;
}

void rotate_wait(struct recwrite *w)
{
	bgwrite_wait(&w->rot.bg, writer_done, w);
}

void rotate_free(struct recwrite *w)
{
	outfile_unpin_all();
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < w->rot.nkept[k]; i++)
			free(w->rot.kept[k][i].path);
		free(w->rot.kept[k]);
	}
}
