/*
 * strpool.c - interned strings: an array in index order, and open
 * addressing over it (see strpool.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"
#include "util/strpool.h"

struct strpool {
	char **strs; /* index order */
	size_t n, cap;
	uint32_t *slots; /* index+1 into strs; 0 = empty */
	size_t nslots;	 /* power of two, at least twice n */
};

/* The slot holding s, or the empty slot where it would go. */
static size_t find(const struct strpool *p, const char *s, uint64_t h)
{
	size_t mask = p->nslots - 1, i;

	for (i = h & mask; p->slots[i]; i = (i + 1) & mask)
		if (!strcmp(p->strs[p->slots[i] - 1], s))
			break;
	return i;
}

static int grow_slots(struct strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 256;
	uint32_t *old = p->slots;
	size_t oldn = p->nslots;

	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots) {
		p->slots = old;
		return -1;
	}
	p->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i]) {
			const char *s = p->strs[old[i] - 1];

			p->slots[find(p, s, hash_fnv1a_str(s))] = old[i];
		}
	free(old);
	return 0;
}

static int grow_strs(struct strpool *p)
{
	char **n = grow_array(p->strs, &p->cap, p->n + 1, sizeof(*n));

	if (!n)
		return -1;
	p->strs = n;
	return 0;
}

int64_t strpool_intern(struct strpool *p, const char *s)
{
	uint64_t h = hash_fnv1a_str(s);
	size_t slot;
	char *copy;

	if (p->n >= UINT32_MAX - 1) {
		errno = ENOMEM;
		return -1;
	}
	if ((p->n + 1) * 2 > p->nslots && grow_slots(p))
		return -1;
	slot = find(p, s, h);
	if (p->slots[slot])
		return (int64_t)p->slots[slot] - 1;
	if (p->n == p->cap && grow_strs(p))
		return -1;
	copy = strdup(s);
	if (!copy)
		return -1;
	p->strs[p->n++] = copy;
	p->slots[slot] = (uint32_t)p->n;
	return (int64_t)p->n - 1;
}

struct strpool *strpool_new(void)
{
	struct strpool *p = calloc(1, sizeof(*p));

	if (p && strpool_intern(p, "") == 0)
		return p;
	strpool_free(p);
	errno = ENOMEM;
	return NULL;
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->slots);
	free(p);
}

size_t strpool_count(const struct strpool *p)
{
	return p->n;
}

const char *strpool_get(const struct strpool *p, size_t i)
{
	return i < p->n ? p->strs[i] : NULL;
}

char **strpool_strings(const struct strpool *p)
{
	return p->strs;
}
