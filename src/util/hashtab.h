/*
 * hashtab.h - the one hash table: a 64-bit hash -> an index into the
 * caller's own array, open addressing with linear probing.
 *
 * Every table in ptprof keeps its entries (stacks, strings, frames,
 * modules) in an array of its own, in the order added; what it needs is
 * the way from a key to the entry's index.  A hashtab stores that, and
 * only that: (hash, index) pairs, 32 bits each (8 bytes a slot: twice
 * the 4 of an index alone, so the slots of a big table stay in cache).
 * The caller hashes its key (util/hash.h), walks the candidates, the
 * indexes stored with an equal hash, compares its full key with each,
 * and on a miss adds the new entry's index.  No callback: the probe is
 * inline, and a slot's hash is compared before the caller's entry is
 * touched.
 *
 *	struct hashtab_probe p;
 *	size_t i;
 *
 *	if (hashtab_reserve(&t->idx, t->n + 1))  // room first: may rehash
 *		return -1;
 *	hashtab_probe_init(&t->idx, h, &p);
 *	while (hashtab_next(&t->idx, &p, &i))
 *		if (same_key(&t->ents[i], key))
 *			return i;                 // found
 *	... append the entry as index t->n ...
 *	hashtab_set(&t->idx, &p, t->n);           // where the probe ended
 *
 * (Or without the reserve before: probe, and on a miss hashtab_add(),
 * which reserves and probes again for the empty slot.)
 *
 * Contract:
 *  - The caller owns the struct (zeroed: an empty table) and the
 *    entries; the table owns its slots, freed by hashtab_free().  The
 *    fields are the table's: read them through the functions only.
 *  - Hashes should be well mixed (hash_mix64()); the table keeps 32 bits
 *    of each (its two halves xor'd), whose low bits pick the slot.  So a
 *    candidate's 64-bit hash may differ: the caller compares full keys,
 *    always.  Equal hashes are fine (every one is a candidate), only slow.
 *  - The table is at most 3/4 full; it grows (doubles, the slots placed
 *    again from the stored hashes: no callback) only in hashtab_reserve()
 *    and hashtab_add().  Lookups never allocate, never fail.
 *  - hashtab_set() stores at the empty slot the probe ended at; valid
 *    only when nothing changed the table since hashtab_probe_init() and
 *    the room was reserved before it.  No room, or the table grown since
 *    the lookup: -1 with ENOSPC, unchanged; a lookup that has not ended
 *    (hashtab_next() not yet false): -1 with EINVAL.
 *  - At most HASHTAB_MAX indexes (a reserve beyond: ENOMEM), each below
 *    UINT32_MAX (else EINVAL).
 *  - No deletion (no caller needs it): hashtab_clear() forgets all.
 *  - Allocation failure (and a size that would overflow) returns -1
 *    with errno ENOMEM and leaves the table as it was.  Not thread-safe;
 *    never prints or exits; not async-signal-safe where it allocates.
 */
#ifndef PTPROF_HASHTAB_H
#define PTPROF_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashtab_slot {
	uint32_t hash; /* hashtab_fold() of the caller's */
	uint32_t ref;  /* index + 1; 0: empty */
};

struct hashtab {
	struct hashtab_slot *slots;
	size_t cap; /* 0 or a power of two, at least HASHTAB_MIN_CAP */
	size_t n;   /* indexes stored */
};

#define HASHTAB_MIN_CAP 16
#define HASHTAB_MAX_CAP ((size_t)1 << 32) /* the 32-bit hash places them */
#define HASHTAB_MAX (HASHTAB_MAX_CAP / 4 * 3)

/* Where a lookup is: the slot to look at next, the hash looked for. */
struct hashtab_probe {
	size_t pos;
	size_t cap; /* the table's when the lookup began */
	uint32_t hash;
};

/* Free the slots; the table is empty and may be used again. */
void hashtab_free(struct hashtab *t);

/* Forget every index, keeping the slots. */
void hashtab_clear(struct hashtab *t);

/* The 32 bits of a hash the table keeps. */
static inline uint32_t hashtab_fold(uint64_t hash)
{
	return (uint32_t)(hash ^ (hash >> 32));
}

/* The indexes stored. */
static inline size_t hashtab_count(const struct hashtab *t)
{
	return t->n;
}

/* The most indexes cap slots take (3/4 of them). */
static inline size_t hashtab_limit(size_t cap)
{
	return cap - cap / 4;
}

/* hashtab_reserve()'s slow path: the slots doubled until n fit. */
int hashtab_grow(struct hashtab *t, size_t n);

/* Room for n indexes in all: 0, or -1 with ENOMEM (table unchanged). */
static inline int hashtab_reserve(struct hashtab *t, size_t n)
{
	return n <= hashtab_limit(t->cap) ? 0 : hashtab_grow(t, n);
}

/* Start a lookup of hash. */
static inline void hashtab_probe_init(const struct hashtab *t, uint64_t hash,
				      struct hashtab_probe *p)
{
	p->hash = hashtab_fold(hash);
	p->cap = t->cap;
	p->pos = t->cap ? (size_t)p->hash & (t->cap - 1) : 0;
}

/* The next index stored with p's hash, in *index: true; false at the
 * empty slot that ends the lookup (p stays there, for hashtab_set()). */
static inline bool hashtab_next(const struct hashtab *t,
				struct hashtab_probe *p, size_t *index)
{
	const struct hashtab_slot *slots = t->slots;
	size_t mask = t->cap - 1, pos = p->pos;
	uint32_t hash = p->hash;

	if (!t->cap)
		return false;
	for (;;) {
		const struct hashtab_slot *s = &slots[pos];

		if (!s->ref) {
			p->pos = pos;
			return false;
		}
		pos = (pos + 1) & mask;
		if (s->hash == hash) {
			p->pos = pos;
			*index = s->ref - 1;
			return true;
		}
	}
}

/* Store index at the end of the lookup p (see the contract). */
int hashtab_set(struct hashtab *t, const struct hashtab_probe *p, size_t index);

/* Store index under hash (not looked for first): 0 or -1 (ENOMEM). */
int hashtab_add(struct hashtab *t, uint64_t hash, size_t index);

#endif /* PTPROF_HASHTAB_H */
