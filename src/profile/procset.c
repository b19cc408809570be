/*
 * procset.c - the processes of a run, and their images (procset.h).
 *
 * An array of pointers to images allocated one by one, so that an image
 * stays where it is while the array grows.  A pid's newest image is found
 * from the end: the images of a pid that execs are found in order, and a
 * PID reused by a later process has the later image.  The images
 * retired (procset_retire()) leave their counts in ret, and the PIDs of
 * those sampled in a bitmap (pid_max bits at most: 512 kB for 2^22
 * PIDs), for procset_sampled_pids().
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "profile/procset.h"
#include "util/grow.h"

struct procset {
	struct proc_image **im;
	size_t n, cap;
	struct procset_retired ret;
	unsigned char *pid_bits; /* PIDs of retired images with samples */
	size_t pid_bytes;
};

struct procset *procset_new(void)
{
	return calloc(1, sizeof(struct procset));
}

void procset_free(struct procset *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		maps_free(ps->im[i]->maps);
		free(ps->im[i]);
	}
	free(ps->im);
	free(ps->pid_bits);
	free(ps);
}

static struct proc_image *image_new(unsigned index, pid_t pid, pid_t ppid,
				    const char *comm)
{
	struct proc_image *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->maps = maps_new();
	if (!im->maps) {
		free(im);
		return NULL;
	}
	im->index = index;
	im->pid = pid;
	im->ppid = ppid;
	if (comm)
		strncpy(im->comm, comm, sizeof(im->comm) - 1);
	return im;
}

struct proc_image *procset_add(struct procset *ps, pid_t pid, pid_t ppid,
			       const char *comm)
{
	struct proc_image **a = grow_array(ps->im, &ps->cap, ps->n + 1,
					   sizeof(*a));
	struct proc_image *im, *prev;

	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	ps->im = a;
	im = image_new((unsigned)ps->n, pid, ppid, comm);
	if (!im) {
		errno = ENOMEM;
		return NULL;
	}
	prev = procset_find(ps, pid);
	if (prev) {
		prev->ended = true;
		im->exec_no = prev->exec_no + 1;
		im->ppid = prev->ppid;
	}
	ps->im[ps->n++] = im;
	return im;
}

size_t procset_count(const struct procset *ps)
{
	return ps->n;
}

struct proc_image *procset_at(const struct procset *ps, size_t i)
{
	return i < ps->n ? ps->im[i] : NULL;
}

struct proc_image *procset_find(const struct procset *ps, pid_t pid)
{
	for (size_t i = ps->n; i-- > 0;)
		if (ps->im[i]->pid == pid)
			return ps->im[i];
	return NULL;
}

int procset_note_start(struct proc_image *im)
{
	struct procfs_stat st;

	if (procfs_stat_read(im->pid, 0, &st)) {
		if (errno != ENOENT && errno != ESRCH)
			return -1;
		st.starttime = PROCSET_START_ENDED;
	}
	im->start = st.starttime;
	im->have_start = true;
	return 0;
}

/*
 * Has skipped image im's process left its PID?  1: yes, it ended or
 * another has the PID (PIDs wrap on an endless run: the one
 * skipped long ago may be a new process's now, which is to be sampled);
 * 0: no, or its start is unknown (the skip holds by PID then); -1: its
 * stat could not be read (errno says why).
 */
static int skip_moved(const struct proc_image *im)
{
	struct procfs_stat st;

	if (im->have_start && im->start == PROCSET_START_ENDED)
		return 1;
	if (procfs_stat_read(im->pid, 0, &st))
		return -1;
	return im->have_start && st.starttime != im->start;
}

/* Is im's process gone, or another under its PID?  Unknown: no. */
static bool skip_gone(const struct proc_image *im)
{
	int r = skip_moved(im);

	return r > 0 || (r < 0 && (errno == ENOENT || errno == ESRCH));
}

bool procset_skip_applies(const struct procset *ps, pid_t pid)
{
	const struct proc_image *im = procset_find(ps, pid);

	/* Start unknown or stat unreadable: the skip holds by PID (not
	 * sampling cannot harm it); no /proc read when it is unknown. */
	return im && im->skipped && (!im->have_start || skip_moved(im) <= 0);
}

size_t procset_sampled(const struct procset *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += ps->im[i]->samples > 0;
	return n + ps->ret.sampled;
}

/* Is pid among the retired images' sampled PIDs? */
static bool retired_pid(const struct procset *ps, pid_t pid)
{
	size_t byte = (size_t)pid / 8;

	return pid > 0 && byte < ps->pid_bytes &&
	       (ps->pid_bits[byte] >> (pid % 8) & 1);
}

/* The distinct PIDs of the retired images with samples. */
static size_t retired_pids(const struct procset *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->pid_bytes; i++)
		n += (size_t)__builtin_popcount(ps->pid_bits[i]);
	return n;
}

/* pid into the bitmap of retired sampled PIDs: 0, or -1 (no memory). */
static int note_retired_pid(struct procset *ps, pid_t pid)
{
	size_t byte = (size_t)pid / 8;

	if (pid <= 0)
		return 0;
	if (byte >= ps->pid_bytes) {
		/* doubled, so that a PID a little higher each time (they
		 * climb to pid_max, then wrap) costs few reallocs */
		size_t len = ps->pid_bytes ? ps->pid_bytes : 512;
		unsigned char *b;

		while (len <= byte)
			len *= 2;
		b = realloc(ps->pid_bits, len);
		if (!b)
			return -1;
		memset(b + ps->pid_bytes, 0, len - ps->pid_bytes);
		ps->pid_bits = b;
		ps->pid_bytes = len;
	}
	ps->pid_bits[byte] |= (unsigned char)(1u << (pid % 8));
	return 0;
}

/* Distinct PIDs among the sampled images: a PID counts at its first
 * sampled image (its later ones, after exec or reuse, are the same PID). */
/* Without memory for the sort below: each image against those before. */
static size_t sampled_pids_slow(const struct procset *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++) {
		const struct proc_image *im = ps->im[i];
		bool seen = false;

		if (!im->samples)
			continue;
		seen = retired_pid(ps, im->pid);
		for (size_t j = 0; j < i && !seen; j++)
			seen = ps->im[j]->pid == im->pid && ps->im[j]->samples;
		n += !seen;
	}
	return n + retired_pids(ps);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The PIDs of the sampled images, sorted, counted once each: ptprof top
 * asks every second, and a run with --children can hold tens of
 * thousands of images (20000: 417 ms a time compared pairwise). */
size_t procset_sampled_pids(const struct procset *ps)
{
	pid_t *v = malloc((ps->n ? ps->n : 1) * sizeof(*v));
	size_t k = 0, n = 0;

	if (!v)
		return sampled_pids_slow(ps);
	for (size_t i = 0; i < ps->n; i++)
		if (ps->im[i]->samples && !retired_pid(ps, ps->im[i]->pid))
			v[k++] = ps->im[i]->pid;
	qsort(v, k, sizeof(*v), cmp_pid);
	for (size_t i = 0; i < k; i++)
		n += !i || v[i] != v[i - 1];
	free(v);
	return n + retired_pids(ps);
}

const char *procset_image_root(const struct procset *ps,
			       const struct proc_image *im, char *buf,
			       size_t len)
{
	if (procset_find(ps, im->pid) != im || im->ended)
		return NULL;
	snprintf(buf, len, "/proc/%d/root/", (int)im->pid);
	if (access(buf, X_OK))
		return NULL;
	buf[strlen(buf) - 1] = '\0';
	return buf;
}

/* Image i's count for procset_busiest(). */
static uint64_t count_of(const struct procset *ps, const uint64_t *count,
			 size_t i)
{
	return count ? count[i] : ps->im[i]->samples;
}

/* A PID's share in procset_busiest(): its first image's index. */
struct pid_total {
	pid_t pid;
	size_t first;
	uint64_t total;
};

static int cmp_pid_first(const void *a, const void *b)
{
	const struct pid_total *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->first > y->first) - (x->first < y->first);
}

/* Without memory for the sort: each PID added up over its images, once,
 * at its first. */
static pid_t busiest_slow(const struct procset *ps, const uint64_t *count,
			  uint64_t *most)
{
	pid_t best = ps->im[0]->pid;

	for (size_t i = 0; i < ps->n; i++) {
		pid_t pid = ps->im[i]->pid;
		uint64_t t = 0;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = ps->im[j]->pid == pid;
		for (size_t j = i; j < ps->n && !seen; j++)
			t += ps->im[j]->pid == pid ? count_of(ps, count, j) : 0;
		if (!seen && t > *most)
			best = pid, *most = t;
	}
	return best;
}

/* The images sorted by PID (then by index), each PID's run added up; the
 * largest total wins, a tie going to the PID whose first image came
 * first (the images are looked at in that order: a later one must do
 * better). */
pid_t procset_busiest(const struct procset *ps, const uint64_t *count,
		      uint64_t *most)
{
	struct pid_total *v, best = { 0 };
	uint64_t dummy;

	if (!most)
		most = &dummy;
	*most = 0;
	if (!ps->n)
		return 0;
	v = malloc(ps->n * sizeof(*v));
	if (!v)
		return busiest_slow(ps, count, most);
	for (size_t i = 0; i < ps->n; i++)
		v[i] = (struct pid_total){ ps->im[i]->pid, i,
					   count_of(ps, count, i) };
	qsort(v, ps->n, sizeof(*v), cmp_pid_first);
	best = (struct pid_total){ ps->im[0]->pid, 0, 0 };
	for (size_t i = 0, j; i < ps->n; i = j) {
		struct pid_total t = v[i];

		for (j = i + 1; j < ps->n && v[j].pid == t.pid; j++)
			t.total += v[j].total;
		if (t.total > best.total ||
		    (t.total == best.total && t.first < best.first))
			best = t;
	}
	free(v);
	*most = best.total;
	return best.pid;
}

int procset_cmp_busiest(const void *a, const void *b)
{
	const struct proc_image *x = *(const struct proc_image *const *)a;
	const struct proc_image *y = *(const struct proc_image *const *)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The PROCSET_KEEP_BUSIEST-th image in procset_cmp_busiest()'s order
 * (NULL: there are no more than that many, or no memory: all are
 * kept).  An image at or before it is kept: its samples only grow while
 * it lives and stay once it ended, so one ranked below ten others now
 * stays below ten to the end, and the ten --stats lists at the end are
 * among those kept.
 */
static const struct proc_image *kth_busiest(const struct procset *ps)
{
	const struct proc_image **v, *kth;

	if (ps->n <= PROCSET_KEEP_BUSIEST)
		return NULL;
	v = malloc(ps->n * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, ps->im, ps->n * sizeof(*v));
	qsort(v, ps->n, sizeof(*v), procset_cmp_busiest);
	kth = v[PROCSET_KEEP_BUSIEST - 1];
	free(v);
	return kth;
}

/* An ended image's maps freed for an empty one (none: they stay). */
static void empty_maps(struct procset *ps, struct proc_image *im)
{
	struct maps *none;

	if (!maps_entry(im->maps, 0) || !(none = maps_new()))
		return;
	maps_free(im->maps);
	im->maps = none;
	ps->ret.maps_emptied++;
}

/* The skipped images procset_retire() keeps for the end-of-run warning
 * (record_warn.c): the first, and the first never sampled, in order. */
struct skip_pins {
	bool first, unsampled;
};

/* Is skipped image im one of them?  (Called once per image, in order.) */
static bool skip_pinned(struct skip_pins *pin, const struct proc_image *im)
{
	bool pinned = !pin->first || (!im->samples && !pin->unsampled);

	pin->first = true;
	pin->unsampled |= !im->samples;
	return pinned;
}

/* Can image i go (procset_retire())?  A skipped image asks /proc last,
 * for the few that may go. */
static bool can_retire(const struct procset *ps, size_t i,
		       const struct proc_image *kth, struct skip_pins *pin)
{
	const struct proc_image *im = ps->im[i];
	bool pinned = im->skipped && skip_pinned(pin, im);

	if (!i || !im->ended || pinned || !kth ||
	    procset_cmp_busiest(&im, &kth) <= 0)
		return false;
	return !im->skipped || skip_gone(im);
}

size_t procset_retire(struct procset *ps)
{
	const struct proc_image *kth = kth_busiest(ps);
	struct skip_pins pin = { false, false };
	size_t k = 0, gone = 0;

	/* Renumbering as it goes keeps the order can_retire() compares
	 * in: an image before kth has a lower index still, one after it a
	 * higher one (not renumbered yet). */
	for (size_t i = 0; i < ps->n; i++) {
		struct proc_image *im = ps->im[i];

		if (im->ended)
			empty_maps(ps, im);
		if (!can_retire(ps, i, kth, &pin) ||
		    (im->samples && note_retired_pid(ps, im->pid))) {
			im->index = (unsigned)k;
			ps->im[k++] = im;
			continue;
		}
		ps->ret.images++;
		ps->ret.sampled += im->samples > 0;
		ps->ret.skipped += im->skipped != 0;
		ps->ret.skipped_partly += im->skipped && im->samples;
		if (im->pid != ps->im[0]->pid)
			ps->ret.samples_other += im->samples;
		maps_free(im->maps);
		free(im);
		gone++;
	}
	ps->n = k;
	return gone;
}

const struct procset_retired *procset_retired(const struct procset *ps)
{
	return &ps->ret;
}
