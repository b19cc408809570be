/*
 * strpool.c - interned strings: an array in index order, and a hashtab
 * from a string's hash to its index (see strpool.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strpool.h"

struct strpool {
	char **strs; /* index order */
	size_t n, cap;
	struct hashtab idx; /* string hash -> index into strs */
};

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
	struct hashtab_probe probe;
	size_t i;
	char *copy;

	/* indices fit 32 bits: the callers keep them so */
	if (p->n >= UINT32_MAX - 1) {
		errno = ENOMEM;
		return -1;
	}
	if (hashtab_reserve(&p->idx, p->n + 1))
		return -1;
	hashtab_probe_init(&p->idx, hash_mix64(hash_fnv1a_str(s)), &probe);
	while (hashtab_next(&p->idx, &probe, &i))
		if (!strcmp(p->strs[i], s))
			return (int64_t)i;
	if (p->n == p->cap && grow_strs(p))
		return -1;
	copy = strdup(s);
	if (!copy)
		return -1;
	p->strs[p->n] = copy;
	hashtab_set(&p->idx, &probe, p->n++); /* room reserved above */
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
	hashtab_free(&p->idx);
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
