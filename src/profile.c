/*
 * profile.c - the profile model shared by the readers (see profile.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->records);
	free(p->maps_text);
	free(p->storage_);
	memset(p, 0, sizeof(*p));
}

enum profile_format profile_format_of(const void *data, size_t len)
{
	const unsigned char *d = data;

	if (len >= 2 && ((d[0] == 0x1f && d[1] == 0x8b) || d[0] == 0x0a))
		return PROFILE_PPROF;
	return PROFILE_LEGACY;
}

int profile_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}
