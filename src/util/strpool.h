/*
 * strpool.h - interned strings, numbered densely in the order first seen.
 *
 * The pprof protobuf keeps every string once in a table and refers to it
 * by index; a pool gives that index.  Entry 0 is always "" (the protobuf
 * format demands it), so strpool_intern("") is 0.
 *
 * Contract: the pool owns copies of its strings; strpool_get() and
 * strpool_strings() return pointers valid until strpool_free().  Not
 * thread-safe; never prints or exits.  strpool_intern() returns the
 * index, or -1 with errno ENOMEM (the pool is unchanged then).
 */
#ifndef PTPROF_STRPOOL_H
#define PTPROF_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool;

struct strpool *strpool_new(void);
void strpool_free(struct strpool *p);

int64_t strpool_intern(struct strpool *p, const char *s);

size_t strpool_count(const struct strpool *p);

/* String i (0 <= i < count). */
const char *strpool_get(const struct strpool *p, size_t i);

/* All of them, in index order: an array of strpool_count() pointers. */
char **strpool_strings(const struct strpool *p);

#endif /* PTPROF_STRPOOL_H */
