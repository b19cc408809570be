/*
 * grow.c - doubling growth of arrays, with the overflow checks.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

void *grow_array(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need && n <= SIZE_MAX / 2)
		n *= 2;
	if (n < need || (size && n > SIZE_MAX / size)) {
		errno = ENOMEM;
		return NULL;
	}
	p = realloc(arr, n * size);
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	*cap = n;
	return p;
}
