/*
 * errbuf.h - one sentence into a caller's error buffer.
 *
 * The parsers write why they refused input into an `err` buffer of
 * `errlen` bytes the caller gives (HACKING.md, rule 3), and the caller may
 * give none.  errbuf_set() formats into it, truncating as snprintf()
 * does, and does nothing when err is NULL or errlen is 0; errbuf_fail()
 * does the same, then sets errno and returns -1, the one way a module
 * fails with a sentence (`return errbuf_fail(err, errlen, EINVAL, ...)`).
 *
 * Contract: no allocation, never prints; errbuf_set() leaves errno as it
 * was, so a caller may set errno first and return -1 after.
 */
#ifndef PTPROF_ERRBUF_H
#define PTPROF_ERRBUF_H

#include <stddef.h>

void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* errbuf_set(), then errno = e; returns -1. */
int errbuf_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* PTPROF_ERRBUF_H */
