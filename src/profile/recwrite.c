/*
 * recwrite.c - a recording's output files and the perf maps read for
 * them (see recwrite.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/maps.h"
#include "profile/outfile.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/profile_out.h"
#include "profile/recwrite.h"
#include "profile/stacktab.h"
#include "symbols/perfmap.h"
#include "util/timeutil.h"

void recwrite_say(const struct recwrite *w, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	if (!w->say)
		return;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	w->say(w->say_arg, line ? line : "(out of memory)");
	free(line);
}

/* profile_out_write's EINVAL: the path exists and is not a regular file;
 * EPERM on a link: somebody else's symbolic link, not followed, at FILE or
 * as one of its directories (outfile.h). */
const char *recwrite_why(const char *path, int err)
{
	static char why[PATH_MAX + 128];
	char link[PATH_MAX];
	struct stat st;

	if (err == EINVAL)
		return "not a regular file";
	if (err == EEXIST)
		return "the existing file cannot be kept: its .old name is taken "
		       "by a directory or another user's file (remove it or "
		       "choose another name)";
	if (err == EPERM &&
	    outfile_planted_link(path, link, sizeof(link)) == 1) {
		snprintf(why, sizeof(why),
			 "its directory '%s' is a symbolic link owned by another "
			 "user in a shared sticky directory (not followed)",
			 link);
		return why;
	}
	if (err == EPERM && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return "a symbolic link owned by another user (not followed)";
	return strerror(err);
}

static int open_output(struct recwrite *w)
{
	if (!w->out)
		w->out = profile_out_open(w->rot.legacy, NSEC_PER_SEC /
								 NSEC_PER_USEC /
								 w->o.hz);
	return w->out ? 0 : -1;
}

/* Without a legacy output the table only counts distinct stacks. */
int recwrite_spill(void *arg)
{
	struct recwrite *w = arg;

	if (w->o.legacy_output &&
	    (open_output(w) || profile_out_add(w->out, w->tab)))
		return -1;
	w->records += stacktab_distinct(w->tab);
	stacktab_clear(w->tab);
	return 0;
}

/*
 * The maps of process pid for the legacy file, which holds its samples
 * only: one image, as ever, or the union of its images (it exec'd), in
 * the order they came, as one struct maps held them before images (a
 * later image's mapping replaces an earlier one it overlaps), with the
 * build IDs each had.  *merged is to be freed by the caller.
 */
static const struct maps *pid_maps(const struct procset *ps, pid_t pid,
				   struct maps **merged)
{
	const struct proc_image *first = NULL;
	size_t n = 0, len;
	char *text;
	FILE *f;

	*merged = NULL;
	for (size_t i = 0; i < procset_count(ps); i++) {
		if (procset_at(ps, i)->pid != pid)
			continue;
		if (!n++)
			first = procset_at(ps, i);
	}
	if (n == 1)
		return first->maps;
	*merged = maps_new();
	for (size_t i = 0; *merged && i < procset_count(ps); i++) {
		const struct proc_image *im = procset_at(ps, i);

		if (im->pid != pid || !(f = open_memstream(&text, &len)))
			continue;
		maps_write(im->maps, f);
		if (fclose(f) == 0 && maps_update(*merged, text, len) == 0)
			maps_copy_build_ids(*merged, im->maps);
		free(text);
	}
	return *merged ? *merged : first->maps;
}

/* What a walk over the pprof builder's samples (pprof_out_foreach())
 * needs: the period's samples by image, or the stacks of one PID. */
struct legacy_walk {
	struct recwrite *w;
	const struct procset *ps;
	uint64_t *count; /* by image index */
	pid_t pid;
};

static int count_image(unsigned image, const uint64_t *pcs, size_t n,
		       uint64_t count, void *arg)
{
	struct legacy_walk *lw = arg;

	(void)pcs, (void)n;
	if (image < procset_count(lw->ps))
		lw->count[image] += count;
	lw->w->period_samples += count;
	return 0;
}

/* The period's busiest process, from the pprof builder (which holds the
 * period's samples of every process, while the table holds the root's):
 * its PID, its samples and everybody's into the recwrite.  0, or -1
 * with errno. */
static int find_busiest(struct recwrite *w, const struct procset *ps)
{
	struct legacy_walk lw = { .w = w, .ps = ps };

	lw.count = calloc(procset_count(ps), sizeof(*lw.count));
	if (!lw.count)
		return -1;
	pprof_out_foreach(w->pprof, count_image, &lw);
	w->legacy_pid = procset_busiest(ps, lw.count, &w->legacy_samples);
	free(lw.count);
	return 0;
}

static int add_stack(unsigned image, const uint64_t *pcs, size_t n,
		     uint64_t count, void *arg)
{
	struct legacy_walk *lw = arg;

	if (image >= procset_count(lw->ps) ||
	    procset_at(lw->ps, image)->pid != lw->pid)
		return 0;
	if (stacktab_add(lw->w->tab, pcs, n, count))
		return -1;
	if (stacktab_distinct(lw->w->tab) >= RECWRITE_SPILL_AT)
		return recwrite_spill(lw->w);
	return 0;
}

/* The table made anew with the busiest process's stacks, from the pprof
 * builder, spilled as the sampler spills it; what the root's stacks had
 * spilled to the file already is dropped.  0, or -1 with errno. */
static int refill_table(struct recwrite *w, const struct procset *ps)
{
	struct legacy_walk lw = { .w = w, .ps = ps, .pid = w->legacy_pid };

	if (w->out)
		profile_out_abort(w->out);
	w->out = NULL;
	stacktab_clear(w->tab);
	w->records = 0;
	return pprof_out_foreach(w->pprof, add_stack, &lw);
}

/*
 * The legacy file holds the process with the most samples of the
 * period.  The table holds the root's stacks (sampler_config.tab_pid),
 * so a run of one process (no other with samples in the period: the
 * common case) writes it as it is, at no cost; with others, the pprof
 * builder tells the busiest, and when that is not the root the table is
 * made anew from the builder's stacks of it.
 */
static int write_legacy(struct recwrite *w, const struct procset *ps,
			const struct recwrite_period *per)
{
	pid_t root = procset_at(ps, 0)->pid;
	struct maps *merged;
	int rc = 0;

	w->legacy_pid = root;
	w->legacy_samples = w->period_samples = 0;
	if (!w->o.legacy_output)
		return recwrite_spill(w);
	/* A builder that missed samples (out of memory) cannot tell the
	 * busiest: the root's table, whole, is written, and BASE.pb.gz
	 * then fails for want of memory, as it says (legacy_holds_all()). */
	if (w->pprof && per->others && !pprof_out_failed(w->pprof)) {
		rc = find_busiest(w, ps);
		if (rc == 0 && w->legacy_pid != root)
			rc = refill_table(w, ps);
	}
	if (rc == 0)
		rc = recwrite_spill(w);
	/* Spilled to under the name it had before a SIGUSR2 numbered it. */
	if (rc == 0 && w->out && w->rot.out_renamed)
		rc = profile_out_retarget(w->out, w->rot.legacy);
	if (rc == 0) {
		rc = profile_out_close_pid(w->out,
					   pid_maps(ps, w->legacy_pid, &merged),
					   w->legacy_pid);
		maps_free(merged);
	} else if (w->out) {
		profile_out_abort(w->out);
	}
	w->out = NULL;
	if (rc == 0)
		return 0;
	recwrite_say(w, "cannot write output file '%s': %s", w->rot.legacy,
		     recwrite_why(w->rot.legacy, errno));
	return -1;
}

/* Samples of processes other than the root (image 0's PID), the retired
 * images' included. */
uint64_t recwrite_other_samples(const struct procset *ps)
{
	pid_t root = procset_at(ps, 0)->pid;
	uint64_t n = procset_retired(ps)->samples_other;

	for (size_t i = 0; i < procset_count(ps); i++)
		if (procset_at(ps, i)->pid != root)
			n += procset_at(ps, i)->samples;
	return n;
}

/* pprof_meta.root_of (arg: the procset): the image's process's root
 * while it is there and still is that image (its newest, not ended);
 * NULL otherwise: its PID may be another process's by now. */
static const char *image_root(void *arg, const struct proc_image *im, char *buf,
			      size_t len)
{
	const struct procset *ps = arg;

	return procset_image_root(ps, im, buf, len);
}

/*
 * The perf map of image im: while its process lives (and is that image),
 * through its root (perfmap_load_pid()); once gone, only a launched
 * COMMAND's (or its children's), which ran as us, from our /tmp.  A
 * process named with -p that is gone ran as a uid not recorded: its map
 * cannot be checked, and is not read.
 */
static struct perfmap *jit_load(const struct recwrite *w,
				const struct procset *ps,
				const struct proc_image *im, char *err,
				size_t len)
{
	char buf[64];

	if (procset_image_root(ps, im, buf, sizeof(buf)))
		return perfmap_load_pid(im->pid, err, len);
	if (w->launched)
		return perfmap_load_gone(im->pid, geteuid(), err, len);
	errno = ENOENT;
	return NULL;
}

/* pprof_meta.jit_of (arg: the output): read at the first JIT address of
 * an image, and again when it does not name one (the runtime appends as
 * it compiles).  A map refused is one warning line (no map at all, the
 * runtime's flag not given, is none); the map read before is kept. */
static const struct perfmap *image_jit(void *arg, const struct proc_image *im,
				       bool reread)
{
	struct recwrite *w = arg;
	const struct procset *ps = w->ps;
	struct perfmap *m, **v;
	char err[512];

	if (!w->jit) {
		v = calloc(procset_count(ps) + 1, sizeof(*v));
		if (!v)
			return NULL;
		w->jit = v;
		w->njit = procset_count(ps);
	}
	if (im->index >= w->njit || (w->jit[im->index] && !reread))
		return im->index < w->njit ? w->jit[im->index] : NULL;
	m = jit_load(w, ps, im, err, sizeof(err));
	if (!m) {
		if (!reread && errno != ENOENT)
			recwrite_say(w, "perf map of %s (%d): %s", im->comm,
				     (int)im->pid, err);
		return w->jit[im->index];
	}
	if (!reread && perfmap_malformed(m))
		recwrite_say(w,
			     "perf map of %s (%d): %zu malformed lines skipped",
			     im->comm, (int)im->pid, perfmap_malformed(m));
	perfmap_free(w->jit[im->index]);
	w->jit[im->index] = m;
	return m;
}

void recwrite_forget_jit(struct recwrite *w)
{
	for (size_t i = 0; i < w->njit; i++)
		perfmap_free(w->jit[i]);
	free(w->jit);
	w->jit = NULL;
	w->njit = 0;
}

void recwrite_free(struct recwrite *w)
{
	recwrite_forget_jit(w);
	free(w->all_path);
}

/* The pprof protobuf at path, every image with its own mappings. */
static int write_pprof_to(struct recwrite *w, const char *path,
			  const struct procset *ps,
			  const struct recwrite_period *per)
{
	struct pprof_meta meta = {
		.period_ns = NSEC_PER_SEC / w->o.hz,
		.wall = w->o.wall,
		.time_nanos = (int64_t)w->start.tv_sec * NSEC_PER_SEC +
			      w->start.tv_nsec,
		.duration_nanos = (int64_t)per->duration_ns,
		.root_of = image_root,
		.root_arg = (void *)ps,
		.jit_of = image_jit,
		.jit_arg = w,
		.py = w->py,
		.no_inline = w->o.no_inline,
	};

	w->ps = ps;
	if (pprof_out_write_file(path, w->pprof, ps, &meta) == 0)
		return 0;
	recwrite_say(w, "cannot write output file '%s': %s", path,
		     recwrite_why(path, errno));
	return -1;
}

/* BASE.pb.gz beside the legacy FILE (BASE: FILE without ".prof"). */
char *recwrite_all_path(const char *legacy)
{
	size_t n = strlen(legacy);
	char *path;

	if (n > 5 && !strcmp(legacy + n - 5, ".prof"))
		n -= 5;
	path = malloc(n + sizeof(".pb.gz"));
	if (!path)
		return NULL;
	memcpy(path, legacy, n);
	strcpy(path + n, ".pb.gz");
	return path;
}

/* Did the legacy file get every sample of the period?  (Counted only
 * when others than the root had some: find_busiest().)  Not known when
 * the builder missed some: BASE.pb.gz is tried, and its failure said. */
static bool legacy_holds_all(const struct recwrite *w)
{
	return w->period_samples && w->legacy_samples == w->period_samples &&
	       !pprof_out_failed(w->pprof);
}

/*
 * The legacy format holds one address space: FILE has one process's
 * samples only.  When others have samples and no pprof output was asked
 * for, all of them go to BASE.pb.gz too, and the user is told (one line).
 * So do stacks with Python frames, which FILE holds unnamed.
 */
static int write_all_processes(struct recwrite *w, const struct procset *ps,
			       const struct recwrite_period *per)
{
	char *path;
	int rc;

	/* (Python frames too: the legacy file cannot name them.) */
	if (w->o.pprof_output || !w->o.legacy_output || !w->pprof ||
	    ((!per->others || legacy_holds_all(w)) && !per->py))
		return 0;
	path = recwrite_all_path(w->rot.legacy);
	if (!path) {
		recwrite_say(w, "out of memory");
		return -1;
	}
	rc = write_pprof_to(w, path, ps, per);
	free(w->all_path);
	w->all_path = NULL;
	if (rc == 0)
		w->all_path = path;
	else
		free(path);
	return rc;
}

/* The period's files: RECWRITE_* bits. */
int recwrite_period(struct recwrite *w, const struct procset *ps,
		    const struct recwrite_period *per)
{
	int done = 0;

	if (write_legacy(w, ps, per))
		done |= RECWRITE_FAILED;
	else if (w->o.legacy_output)
		done |= RECWRITE_LEGACY;
	if (w->o.pprof_output) {
		if (write_pprof_to(w, w->rot.pprof, ps, per))
			done |= RECWRITE_FAILED;
		else
			done |= RECWRITE_PPROF;
	}
	if (write_all_processes(w, ps, per))
		done |= RECWRITE_FAILED;
	else if (w->all_path)
		done |= RECWRITE_ALL;
	return done;
}
