/*
 * profile.c - the profile model shared by the readers (see profile.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->records);
	free(p->maps_text);
	free(p->names);
	free(p->spaces);
	free(p->storage_);
	for (size_t i = 0; i < p->nparts_; i++)
		profile_free(&p->parts_[i]);
	free(p->parts_);
	memset(p, 0, sizeof(*p));
}

int profile_name_cmp(const void *a, const void *b)
{
	const struct profile_name *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

const struct profile_name *profile_name_at(const struct profile *p,
					   size_t space, uint64_t addr)
{
	const struct profile_name key = { .space = space, .addr = addr };

	if (!p->nnames)
		return NULL;
	return bsearch(&key, p->names, p->nnames, sizeof(key),
		       profile_name_cmp);
}

const char *profile_name_of(const struct profile *p, size_t space,
			    uint64_t addr)
{
	const struct profile_name *n = profile_name_at(p, space, addr);

	return n ? n->name : NULL;
}

size_t profile_nspaces(const struct profile *p)
{
	return p->spaces ? p->nspaces : 1;
}

const char *profile_space_maps(const struct profile *p, size_t i, size_t *len)
{
	*len = 0;
	if (!p->spaces) {
		*len = i == 0 ? p->maps_len : 0;
		return i == 0 ? p->maps_text : NULL;
	}
	if (i >= p->nspaces || !p->maps_text)
		return NULL;
	*len = p->spaces[i].len;
	return p->maps_text + p->spaces[i].off;
}

enum profile_format profile_format_of(const void *data, size_t len)
{
	const unsigned char *d = data;

	if (len >= 2 && ((d[0] == 0x1f && d[1] == 0x8b) || d[0] == 0x0a))
		return PROFILE_PPROF;
	return PROFILE_LEGACY;
}
