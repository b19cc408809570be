/*
 * hashtab.c - the growth and the stores of the one hash table (see
 * hashtab.h; the lookup is inline there).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hashtab.h"

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

void hashtab_clear(struct hashtab *t)
{
	if (t->cap)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

/* The first empty slot from hash's own in slots[0..cap). */
static size_t hashtab_empty(const struct hashtab_slot *slots, size_t cap,
			    uint32_t hash)
{
	size_t j = (size_t)hash & (cap - 1);

	while (slots[j].ref)
		j = (j + 1) & (cap - 1);
	return j;
}

int hashtab_grow(struct hashtab *t, size_t n)
{
	size_t want = t->cap ? t->cap : HASHTAB_MIN_CAP, cap = 0;
	struct hashtab_slot *slots;

	while (hashtab_limit(want) < n) {
		if (want >= HASHTAB_MAX_CAP) {
			errno = ENOMEM;
			return -1;
		}
		want *= 2;
	}
	if (want == t->cap)
		return 0;
	/* A new array (none to keep): grow_array() for its size checks. */
	slots = grow_array(NULL, &cap, want, sizeof(*slots));
	if (!slots)
		return -1;
	memset(slots, 0, cap * sizeof(*slots));
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].ref)
			slots[hashtab_empty(slots, cap, t->slots[i].hash)] =
				t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

int hashtab_set(struct hashtab *t, const struct hashtab_probe *p, size_t index)
{
	if (!t->cap || p->cap != t->cap || t->n + 1 > hashtab_limit(t->cap)) {
		errno = ENOSPC;
		return -1;
	}
	if (t->slots[p->pos].ref || index >= UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	t->slots[p->pos] = (struct hashtab_slot){ p->hash,
						  (uint32_t)index + 1 };
	t->n++;
	return 0;
}

int hashtab_add(struct hashtab *t, uint64_t hash, size_t index)
{
	uint32_t h = hashtab_fold(hash);

	if (index >= UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (hashtab_reserve(t, t->n + 1))
		return -1;
	t->slots[hashtab_empty(t->slots, t->cap, h)] = (struct hashtab_slot){
		h, (uint32_t)index + 1
	};
	t->n++;
	return 0;
}
