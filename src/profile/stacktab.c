/*
 * stacktab.c - stacks -> counts: an insertion-ordered array of entries
 * and a hashtab from a chain's hash to its entry (see stacktab.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/stacktab.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"

struct entry {
	uint64_t count;
	uint64_t *pcs;
	size_t npcs;
};

struct stacktab {
	struct entry *entries; /* insertion order */
	size_t n, cap;
	struct hashtab idx; /* chain hash -> index into entries */
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
	if (hashtab_reserve(&t->idx, 768)) {
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
	hashtab_free(&t->idx);
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

static int append_entry(struct stacktab *t, const uint64_t *pcs, size_t n,
			uint64_t count)
{
	struct entry *e;

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
	e->count = count;
	t->n++;
	return 0;
}

int stacktab_add(struct stacktab *t, const uint64_t *pcs, size_t npcs,
		 uint64_t count)
{
	struct hashtab_probe p;
	size_t n = 0, i;

	while (n < npcs && n < t->max_depth && pcs[n])
		n++;
	if (n == 0 || count == 0)
		return 0;
	if (hashtab_reserve(&t->idx, t->n + 1))
		return -1;
	hashtab_probe_init(&t->idx, hash_chain(pcs, n), &p);
	while (hashtab_next(&t->idx, &p, &i)) {
		struct entry *e = &t->entries[i];

		if (e->npcs == n && !memcmp(e->pcs, pcs, n * sizeof(*pcs))) {
			e->count += count;
			t->samples += count;
			return 0;
		}
	}
	if (append_entry(t, pcs, n, count))
		return -1;
	hashtab_set(&t->idx, &p, t->n - 1); /* room reserved above */
	t->samples += count;
	return 0;
}

void stacktab_clear(struct stacktab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->entries[i].pcs);
	t->n = 0;
	t->samples = 0;
	hashtab_clear(&t->idx);
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
