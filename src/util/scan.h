/*
 * scan.h - numbers in text that may be hostile: hex and decimal fields.
 *
 * The /proc files, perf maps and maps lines ptprof parses are read as
 * bytes [*p, end): no NUL is needed or looked for, nothing past end is
 * read.  Each scanner reads one number at *p (no blank skipped, no sign
 * but scan_int()'s '-', no "0x": a caller that expects one checks it),
 * and on success stores it and moves *p past its digits.  It fails (-1,
 * *p and *out untouched) when there is no digit, more digits than
 * allowed, or a value out of bounds: overflow is a bound like any other.
 * What follows the number (a blank, a newline, the end) is the caller's
 * to check.  errno is never set.
 */
#ifndef PTPROF_SCAN_H
#define PTPROF_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* scan_hex() flags. */
enum {
	SCAN_LOWER = 1, /* lowercase digits only, as the kernel's %x prints */
};

/* The value of one hex digit (either case), or -1. */
int scan_hex_digit(char ch);

/* 1 to max_digits (at most 16) hex digits; 0, or -1. */
int scan_hex(const char **p, const char *end, size_t max_digits, unsigned flags,
	     uint64_t *out);

/* Decimal digits, their value at most max; 0, or -1. */
int scan_dec(const char **p, const char *end, uint64_t max, uint64_t *out);

/* An optional '-' and decimal digits, the value within [min, max]; 0, or
 * -1. */
int scan_int(const char **p, const char *end, int64_t min, int64_t max,
	     int64_t *out);

#endif /* PTPROF_SCAN_H */
