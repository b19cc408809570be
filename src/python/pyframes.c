/*
 * pyframes.c - Python frames interned to synthetic PCs (pyframes.h).
 *
 * The frames are an array in the order interned (PC i is frame i), their
 * strings in a strpool (each kept once), and a hashtab of frame indices
 * by a hash of the frame.  A frame's
 * strings are interned only when the frame is new and there is room for
 * it, so a full registry grows no more.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyframes.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strpool.h"

struct pyent {
	uint32_t qualname, filename; /* strpool indices */
	uint32_t firstline, line;
	bool kernel; /* module PYFRAMES_KERNEL_MODULE, else PYFRAMES_MODULE */
};

struct pyframes {
	struct strpool *strs;
	struct pyent *ents;
	size_t n, cap, max;
	struct hashtab idx; /* frame hash -> frame index */
};

struct pyframes *pyframes_new(size_t max)
{
	struct pyframes *t;

	if (max > PYFRAMES_MAX_LIMIT) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->max = max ? max : PYFRAMES_MAX_DEFAULT;
	t->strs = strpool_new();
	if (!t->strs) {
		pyframes_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void pyframes_free(struct pyframes *t)
{
	if (!t)
		return;
	strpool_free(t->strs);
	free(t->ents);
	hashtab_free(&t->idx);
	free(t);
}

size_t pyframes_count(const struct pyframes *t)
{
	return t ? t->n : 0;
}

/* A name the registry keeps: not too long, no control byte. */
static bool pyframes_name_ok(const char *s)
{
	size_t i;

	if (!s)
		return false;
	for (i = 0; s[i]; i++)
		if (i >= PYFRAMES_NAME_MAX || (unsigned char)s[i] < 0x20)
			return false;
	return true;
}

/* Whether module (pyframes_intern()'s) is the kernel's; -1: neither. */
static int pyframes_kernel_of(const char *module)
{
	if (!module || !strcmp(module, PYFRAMES_MODULE))
		return 0;
	return strcmp(module, PYFRAMES_KERNEL_MODULE) ? -1 : 1;
}

static uint64_t pyframes_hash(const struct pyframe *f, bool kernel)
{
	uint64_t h = HASH_FNV_SEED + kernel;

	/* the NUL between the names: ("ab", "c") is not ("a", "bc") */
	h = hash_fnv1a(h, f->qualname, strlen(f->qualname) + 1);
	h = hash_fnv1a(h, f->filename, strlen(f->filename) + 1);
	h = hash_fnv1a_word(h, ((uint64_t)f->firstline << 32) | f->line);
	return hash_mix64(h);
}

static bool pyframes_equal(const struct pyframes *t, const struct pyent *e,
			   const struct pyframe *f, bool kernel)
{
	return e->kernel == kernel && e->firstline == f->firstline &&
	       e->line == f->line &&
	       !strcmp(strpool_get(t->strs, e->qualname), f->qualname) &&
	       !strcmp(strpool_get(t->strs, e->filename), f->filename);
}

static uint64_t pyframes_pc_of(size_t i)
{
	return PYFRAMES_BASE + (uint64_t)i * PYFRAMES_STEP + PYFRAMES_STEP / 2;
}

/* Frame n, new (hash h): room for it, its strings.  0 or -1 (ENOMEM). */
static int pyframes_add(struct pyframes *t, uint64_t h, const struct pyframe *f,
			bool kernel)
{
	struct pyent *ents;
	int64_t q, file;

	if (hashtab_reserve(&t->idx, t->n + 1))
		return -1;
	ents = grow_array(t->ents, &t->cap, t->n + 1, sizeof(*ents));
	if (!ents)
		return -1;
	t->ents = ents;
	q = strpool_intern(t->strs, f->qualname);
	file = q < 0 ? -1 : strpool_intern(t->strs, f->filename);
	if (file < 0)
		return -1;
	t->ents[t->n] = (struct pyent){ (uint32_t)q, (uint32_t)file,
					f->firstline, f->line, kernel };
	hashtab_add(&t->idx, h, t->n); /* room reserved above */
	t->n++;
	return 0;
}

int pyframes_intern(struct pyframes *t, const struct pyframe *f, uint64_t *pc)
{
	struct hashtab_probe p;
	uint64_t h;
	size_t i;
	int kernel = f ? pyframes_kernel_of(f->module) : -1;

	if (!t || !f || !pc || kernel < 0 || !pyframes_name_ok(f->qualname) ||
	    !pyframes_name_ok(f->filename)) {
		errno = EINVAL;
		return -1;
	}
	h = pyframes_hash(f, kernel);
	hashtab_probe_init(&t->idx, h, &p);
	while (hashtab_next(&t->idx, &p, &i))
		if (pyframes_equal(t, &t->ents[i], f, kernel)) {
			*pc = pyframes_pc_of(i);
			return 0;
		}
	if (t->n >= t->max) {
		errno = ENOSPC;
		return -1;
	}
	if (pyframes_add(t, h, f, kernel)) {
		errno = ENOMEM;
		return -1;
	}
	*pc = pyframes_pc_of(t->n - 1);
	return 0;
}

int pyframes_intern_kernel(struct pyframes *t, const char *func, uint64_t *pc)
{
	struct pyframe f = { .qualname = func,
			     .filename = "",
			     .module = PYFRAMES_KERNEL_MODULE };

	return pyframes_intern(t, &f, pc);
}

bool pyframes_is_pc(uint64_t pc)
{
	uint64_t end = PYFRAMES_BASE +
		       (uint64_t)PYFRAMES_MAX_LIMIT * PYFRAMES_STEP;

	return pc >= PYFRAMES_BASE && pc < end;
}

int pyframes_lookup(const struct pyframes *t, uint64_t pc, struct pyframe *f)
{
	uint64_t i;
	const struct pyent *e;

	if (!t || !f) {
		errno = EINVAL;
		return -1;
	}
	/* pc or a caller's pc-1: both inside frame i's step */
	if (!pyframes_is_pc(pc) ||
	    (i = (pc - PYFRAMES_BASE) / PYFRAMES_STEP) >= t->n) {
		errno = ENOENT;
		return -1;
	}
	e = &t->ents[i];
	f->qualname = strpool_get(t->strs, e->qualname);
	f->filename = strpool_get(t->strs, e->filename);
	f->firstline = e->firstline;
	f->line = e->line;
	f->module = e->kernel ? PYFRAMES_KERNEL_MODULE : PYFRAMES_MODULE;
	return 0;
}
