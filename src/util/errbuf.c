/*
 * errbuf.c - one sentence into a caller's error buffer (errbuf.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "util/errbuf.h"

void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	errno = saved;
}

int errbuf_fail(char *err, size_t errlen, int e, const char *fmt, ...)
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
