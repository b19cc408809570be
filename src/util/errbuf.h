/*
 * errbuf.h - one sentence into a caller's error buffer.
 *
 * The parsers write why they refused input into an `err` buffer of
 * `errlen` bytes the caller gives (HACKING.md, rule 3), and the caller may
 * give none.  errbuf_set() formats into it, truncating as snprintf()
 * does, and does nothing when err is NULL or errlen is 0.
 *
 * Contract: no allocation, never prints; errno is left as it was, so a
 * caller may set errno first and return -1 after.
 */
#ifndef PTPROF_ERRBUF_H
#define PTPROF_ERRBUF_H

#include <stddef.h>

void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* PTPROF_ERRBUF_H */
