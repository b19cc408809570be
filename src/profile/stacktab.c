/*
 * stacktab.c - stacks -> counts, open addressing over an insertion-ordered
 * array of entries (see stacktab.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stacktab.h"
#include "util/grow.h"
#include "util/hash.h"

struct entry {
	uint64_t hash;
	uint64_t count;
	uint64_t *pcs;
	size_t npcs;
};

struct stacktab {
	struct entry *entries; /* insertion order */
	size_t n, cap;
	uint32_t *slots; /* index+1 into entries; 0 = empty */
	size_t nslots;	 /* power of two */
	uint64_t samples;
	unsigned max_depth;
};

struct stacktab *stacktab_new(unsigned max_depth)
{
	struct stacktab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (max_depth == 0 || max_depth > STACKTAB_MAX_CHAIN)
		max_depth = STACKTAB_DEFAULT_DEPTH;
	t->max_depth = max_depth;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void stacktab_free(struct stacktab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].pcs);
	free(t->entries);
	free(t->slots);
	free(t);
}

/* FNV-1a over the PCs, finished with a 64-bit mixer. */
static uint64_t hash_chain(const uint64_t *pcs, size_t n)
{
	uint64_t h = HASH_FNV_SEED;

	for (size_t i = 0; i < n; i++)
		h = hash_fnv1a_word(h, pcs[i]);
	return hash_mix64(h);
}

static bool find_slot(const struct stacktab *t, uint64_t h, const uint64_t *pcs,
		      size_t n, size_t *pos)
{
	size_t mask = t->nslots - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t s = t->slots[i];
		const struct entry *e;

		*pos = i;
		if (!s)
			return false;
		e = &t->entries[s - 1];
		if (e->hash == h && e->npcs == n &&
		    !memcmp(e->pcs, pcs, n * sizeof(*pcs)))
			return true;
	}
}

static int grow_slots(struct stacktab *t)
{
	size_t nslots = t->nslots * 2;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = t->entries[i].hash & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

static int append_entry(struct stacktab *t, uint64_t h, const uint64_t *pcs,
			size_t n, uint64_t count)
{
	struct entry *e;

	if (t->n >= UINT32_MAX - 1) {
		errno = ENOMEM;
		return -1;
	}
	if (t->n == t->cap) {
		struct entry *ne = grow_array(t->entries, &t->cap, t->n + 1,
					      sizeof(*ne));

		if (!ne)
			return -1;
		t->entries = ne;
	}
	e = &t->entries[t->n];
	e->pcs = malloc(n * sizeof(*pcs));
	if (!e->pcs)
		return -1;
	memcpy(e->pcs, pcs, n * sizeof(*pcs));
	e->npcs = n;
	e->hash = h;
	e->count = count;
	t->n++;
	return 0;
}

int stacktab_add(struct stacktab *t, const uint64_t *pcs, size_t npcs,
		 uint64_t count)
{
	size_t n = 0, pos;
	uint64_t h;

	while (n < npcs && n < t->max_depth && pcs[n])
		n++;
	if (n == 0 || count == 0)
		return 0;
	if ((t->n + 1) * 4 > t->nslots * 3 && grow_slots(t))
		return -1;
	h = hash_chain(pcs, n);
	if (find_slot(t, h, pcs, n, &pos)) {
		t->entries[t->slots[pos] - 1].count += count;
	} else {
		if (append_entry(t, h, pcs, n, count))
			return -1;
		t->slots[pos] = (uint32_t)t->n;
	}
	t->samples += count;
	return 0;
}

void stacktab_clear(struct stacktab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].pcs);
	t->n = 0;
	t->samples = 0;
	memset(t->slots, 0, t->nslots * sizeof(*t->slots));
}

size_t stacktab_distinct(const struct stacktab *t)
{
	return t->n;
}

uint64_t stacktab_samples(const struct stacktab *t)
{
	return t->samples;
}

unsigned stacktab_max_depth(const struct stacktab *t)
{
	return t->max_depth;
}

int stacktab_foreach(const struct stacktab *t, stacktab_visit_fn fn, void *arg)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->entries[i];
		int rc = fn(e->pcs, e->npcs, e->count, arg);

		if (rc)
			return rc;
	}
	return 0;
}
