/*
 * toptab.c - samples by function and thread, since the start and over a
 * sliding window (see toptab.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/toptab.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"

/* Counts since the start and by second (ring slot: second % SECONDS). */
struct counts {
	uint64_t flat, cum;
	uint32_t wflat[TOPTAB_SECONDS], wcum[TOPTAB_SECONDS];
};

struct func {
	char *name, *module;
	uint64_t stamp; /* the last stack it was counted in (cum once) */
	struct counts c;
};

struct thread {
	pid_t pid, tid;
	char name[64];
	uint32_t last_leaf; /* function id */
	uint64_t samples;
	uint32_t w[TOPTAB_SECONDS];
};

struct toptab {
	struct func *funcs;
	size_t nfuncs, funcs_cap, max_funcs;
	int64_t other; /* TOPTAB_OTHER's id, -1 until needed */
	struct thread *threads;
	size_t nthreads, threads_cap, max_threads;
	int64_t other_thread;
	/* hash -> id; room reserved once for the cap and the row past it */
	struct hashtab fidx, tidx;
	uint64_t total;
	uint32_t wtotal[TOPTAB_SECONDS];
	uint64_t cur;	/* the ring's second */
	uint64_t stamp; /* stacks added */
};

struct toptab *toptab_new(size_t max_funcs, size_t max_threads)
{
	struct toptab *t;

	if (!max_funcs || !max_threads || max_funcs > UINT32_MAX / 4 ||
	    max_threads > UINT32_MAX / 4) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->max_funcs = max_funcs;
	t->max_threads = max_threads;
	t->other = t->other_thread = -1;
	if (hashtab_reserve(&t->fidx, max_funcs + 1) ||
	    hashtab_reserve(&t->tidx, max_threads + 1)) {
		toptab_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void toptab_free(struct toptab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfuncs; i++) {
		free(t->funcs[i].name);
		free(t->funcs[i].module);
	}
	free(t->funcs);
	free(t->threads);
	hashtab_free(&t->fidx);
	hashtab_free(&t->tidx);
	free(t);
}

static uint64_t name_hash(const char *name, const char *module)
{
	uint64_t h = hash_fnv1a(HASH_FNV_SEED, name, strlen(name) + 1);

	if (module)
		h = hash_fnv1a(h, module, strlen(module) + 1);
	return hash_mix64(h);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The id of (name, module) (hash h), or -1 with p where it goes. */
static int64_t func_find(const struct toptab *t, const char *name,
			 const char *module, uint64_t h,
			 struct hashtab_probe *p)
{
	size_t i;

	hashtab_probe_init(&t->fidx, h, p);
	while (hashtab_next(&t->fidx, p, &i))
		if (!strcmp(t->funcs[i].name, name) &&
		    same_str(t->funcs[i].module, module))
			return (int64_t)i;
	return -1;
}

/* A new function where the lookup p ended (the index has room: it is
 * sized for the cap and TOPTAB_OTHER). */
static int64_t add_func(struct toptab *t, const struct hashtab_probe *p,
			const char *name, const char *module)
{
	struct func *nf = grow_array(t->funcs, &t->funcs_cap, t->nfuncs + 1,
				     sizeof(*nf));
	struct func *f;

	if (!nf)
		return -1;
	t->funcs = nf;
	f = &t->funcs[t->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->module = module ? strdup(module) : NULL;
	if (!f->name || (module && !f->module)) {
		free(f->name);
		free(f->module);
		errno = ENOMEM;
		return -1;
	}
	hashtab_set(&t->fidx, p, t->nfuncs);
	return (int64_t)t->nfuncs++;
}

int64_t toptab_intern(struct toptab *t, const char *name, const char *module)
{
	struct hashtab_probe p;
	int64_t id;

	if (!t || !name) {
		errno = EINVAL;
		return -1;
	}
	id = func_find(t, name, module, name_hash(name, module), &p);
	if (id >= 0)
		return id;
	if (t->nfuncs < t->max_funcs)
		return add_func(t, &p, name, module);
	if (t->other < 0) { /* the one row past the cap */
		id = func_find(t, TOPTAB_OTHER, NULL,
			       name_hash(TOPTAB_OTHER, NULL), &p);
		t->other = id >= 0 ? id : add_func(t, &p, TOPTAB_OTHER, NULL);
	}
	return t->other;
}

static struct thread *new_thread(struct toptab *t,
				 const struct hashtab_probe *p, pid_t pid,
				 pid_t tid)
{
	struct thread *nt = grow_array(t->threads, &t->threads_cap,
				       t->nthreads + 1, sizeof(*nt));

	if (!nt)
		return NULL;
	t->threads = nt;
	nt = &t->threads[t->nthreads];
	memset(nt, 0, sizeof(*nt));
	nt->pid = pid;
	nt->tid = tid;
	hashtab_set(&t->tidx, p, t->nthreads++);
	return nt;
}

/* The thread (pid, tid), added when new; past the cap, the one row of
 * the others (pid and tid 0). */
static struct thread *thread_of(struct toptab *t, pid_t pid, pid_t tid)
{
	uint64_t h = hash_mix64(((uint64_t)(uint32_t)pid << 32) |
				(uint32_t)tid);
	struct hashtab_probe p;
	size_t i;

	hashtab_probe_init(&t->tidx, h, &p);
	while (hashtab_next(&t->tidx, &p, &i))
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return &t->threads[i];
	if (t->nthreads < t->max_threads || (pid == 0 && tid == 0))
		return new_thread(t, &p, pid, tid);
	return thread_of(t, 0, 0);
}

void toptab_advance(struct toptab *t, uint64_t sec)
{
	uint64_t from;

	if (!t || sec <= t->cur)
		return;
	/* Empty the slots of the seconds passed, each once. */
	from = sec - t->cur > TOPTAB_SECONDS ? sec - TOPTAB_SECONDS + 1 :
					       t->cur + 1;
	for (uint64_t s = from; s <= sec; s++) {
		size_t k = s % TOPTAB_SECONDS;

		t->wtotal[k] = 0;
		for (size_t i = 0; i < t->nfuncs; i++)
			t->funcs[i].c.wflat[k] = t->funcs[i].c.wcum[k] = 0;
		for (size_t i = 0; i < t->nthreads; i++)
			t->threads[i].w[k] = 0;
	}
	t->cur = sec;
}

static void bump(uint32_t *b, uint64_t count)
{
	*b = count > UINT32_MAX - *b ? UINT32_MAX : *b + (uint32_t)count;
}

int toptab_add(struct toptab *t, uint64_t sec, const uint32_t *fids, size_t n,
	       uint64_t count, pid_t pid, pid_t tid, const char *tname)
{
	struct thread *th;
	bool in_ring;
	size_t k = sec % TOPTAB_SECONDS;

	if (!t || !fids || !n) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (fids[i] >= t->nfuncs) {
			errno = EINVAL;
			return -1;
		}
	th = thread_of(t, pid, tid);
	if (!th)
		return -1;
	toptab_advance(t, sec);
	in_ring = t->cur - sec < TOPTAB_SECONDS;
	t->stamp++;
	for (size_t i = 0; i < n; i++) {
		struct func *f = &t->funcs[fids[i]];

		if (i == 0) {
			f->c.flat += count;
			if (in_ring)
				bump(&f->c.wflat[k], count);
		}
		if (f->stamp == t->stamp)
			continue; /* recursion: cum once per stack */
		f->stamp = t->stamp;
		f->c.cum += count;
		if (in_ring)
			bump(&f->c.wcum[k], count);
	}
	t->total += count;
	th->samples += count;
	th->last_leaf = fids[0];
	if (in_ring) {
		bump(&t->wtotal[k], count);
		bump(&th->w[k], count);
	}
	if (tname && *tname && th->tid)
		snprintf(th->name, sizeof(th->name), "%s", tname);
	return 0;
}

/* The sum of the last window buckets of ring w. */
static uint64_t window_sum(const struct toptab *t, const uint32_t *w,
			   unsigned window)
{
	uint64_t sum = 0;

	for (uint64_t k = 0; k < window && k <= t->cur; k++)
		sum += w[(t->cur - k) % TOPTAB_SECONDS];
	return sum;
}

static unsigned clamp_window(unsigned window)
{
	if (window < 1)
		return 1;
	return window > TOPTAB_SECONDS ? TOPTAB_SECONDS : window;
}

uint64_t toptab_total(const struct toptab *t, unsigned window)
{
	if (!t)
		return 0;
	if (!window)
		return t->total;
	return window_sum(t, t->wtotal, clamp_window(window));
}

size_t toptab_nfuncs(const struct toptab *t)
{
	return t ? t->nfuncs : 0;
}

size_t toptab_nthreads(const struct toptab *t)
{
	return t ? t->nthreads : 0;
}

static void fill_row(const struct toptab *t, const struct func *f,
		     unsigned window, struct toptab_row *r)
{
	r->name = f->name;
	r->module = f->module;
	r->flat = f->c.flat;
	r->cum = f->c.cum;
	r->wflat = window_sum(t, f->c.wflat, window);
	r->wcum = window_sum(t, f->c.wcum, window);
}

/* The two keys a row sorts by, most important first. */
static void row_keys(const struct toptab_row *r, enum toptab_sort by,
		     bool by_window, uint64_t key[2])
{
	uint64_t flat = by_window ? r->wflat : r->flat;
	uint64_t cum = by_window ? r->wcum : r->cum;

	key[0] = by == TOPTAB_BY_CUM ? cum : flat;
	key[1] = by == TOPTAB_BY_CUM ? flat : cum;
}

static int cmp_rows(const struct toptab_row *a, const struct toptab_row *b,
		    enum toptab_sort by, bool by_window)
{
	uint64_t ka[2], kb[2];

	row_keys(a, by, by_window, ka);
	row_keys(b, by, by_window, kb);
	for (int i = 0; i < 2; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Rows of every function with samples on the basis, sorted: insertion
 * into the first max (the table is small, max smaller still). */
size_t toptab_rows(struct toptab *t, unsigned window, enum toptab_sort by,
		   bool by_window, struct toptab_row *rows, size_t max)
{
	size_t n = 0;

	if (!t || (!rows && max)) {
		errno = EINVAL;
		return (size_t)-1;
	}
	window = clamp_window(window);
	for (size_t i = 0; i < t->nfuncs; i++) {
		struct toptab_row r;
		uint64_t key[2];
		size_t j;

		fill_row(t, &t->funcs[i], window, &r);
		row_keys(&r, by, by_window, key);
		if (!key[0] && !key[1])
			continue;
		if (n == max &&
		    (!max || cmp_rows(&r, &rows[n - 1], by, by_window) >= 0))
			continue;
		j = n < max ? n++ : n - 1;
		for (; j > 0 && cmp_rows(&r, &rows[j - 1], by, by_window) < 0;
		     j--)
			rows[j] = rows[j - 1];
		rows[j] = r;
	}
	return n;
}

static void fill_thread(const struct toptab *t, const struct thread *th,
			unsigned window, struct toptab_thread *o)
{
	o->pid = th->pid;
	o->tid = th->tid;
	o->name = th->tid ? th->name : TOPTAB_OTHER_THREADS;
	o->last_leaf = th->last_leaf < t->nfuncs ?
			       t->funcs[th->last_leaf].name :
			       "";
	o->samples = th->samples;
	o->wsamples = window_sum(t, th->w, window);
}

static int cmp_threads(const struct toptab_thread *a,
		       const struct toptab_thread *b, bool by_window)
{
	uint64_t x = by_window ? a->wsamples : a->samples;
	uint64_t y = by_window ? b->wsamples : b->samples;

	if (x != y)
		return x < y ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

size_t toptab_threads(struct toptab *t, unsigned window, bool by_window,
		      struct toptab_thread *out, size_t max)
{
	size_t n = 0;

	if (!t || (!out && max)) {
		errno = EINVAL;
		return (size_t)-1;
	}
	window = clamp_window(window);
	for (size_t i = 0; i < t->nthreads; i++) {
		struct toptab_thread r;
		size_t j;

		fill_thread(t, &t->threads[i], window, &r);
		if (!(by_window ? r.wsamples : r.samples))
			continue;
		if (n == max &&
		    (!max || cmp_threads(&r, &out[n - 1], by_window) >= 0))
			continue;
		j = n < max ? n++ : n - 1;
		for (; j > 0 && cmp_threads(&r, &out[j - 1], by_window) < 0;
		     j--)
			out[j] = out[j - 1];
		out[j] = r;
	}
	return n;
}
