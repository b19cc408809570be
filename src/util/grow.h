/*
 * grow.h - room for one more: the growth of every array ptprof keeps.
 *
 * Contract: grow_array() returns an array with room for at least need
 * elements of size bytes each, the old elements kept: arr itself when it
 * has room (*cap >= need), else arr realloc'd to double its capacity (16
 * elements at first) or to need, whichever is more, and *cap updated.
 * On failure (ENOMEM, also when the size would overflow) it returns NULL
 * with errno set and leaves arr and *cap as they were, so the caller
 * still owns arr.  The caller stores the result:
 *
 *	struct x *nv = grow_array(v, &cap, n + 1, sizeof(*nv));
 *	if (!nv)
 *		return -1;
 *	v = nv;
 *
 * Not async-signal-safe (realloc).  The sampler calls it in its stop window
 * only to make room for one more capture (reserve_capture()): amortised
 * doubling, so after the first ticks it returns at once.
 */
#ifndef PTPROF_GROW_H
#define PTPROF_GROW_H

#include <stddef.h>

void *grow_array(void *arr, size_t *cap, size_t need, size_t size);

#endif /* PTPROF_GROW_H */
