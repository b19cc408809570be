/*
 * leb128.h - the one LEB128 reader and writer: the variable-length
 * integers of DWARF (.eh_frame, .debug_frame: ULEB128 and SLEB128),
 * protobuf (a varint is a ULEB128 of at most 10 bytes) and Go's pclntab
 * (a ULEB128 of at most 5 bytes).  Seven bits a byte, low group first,
 * bit 7 set on every byte but the last; an SLEB128's sign is bit 6 of
 * its last byte.  (CPython's location-table varints are 6-bit groups:
 * not these; see python/pyrt_line.c.)
 *
 * Reading, from hostile input: leb128_read_u64() and leb128_read_s64()
 * read at p[*pos], never at or past p[len], and at most `max` bytes
 * (0: no bound but len).  They return
 *   0  the value is in *v;
 *   1  it did not fit in 64 bits: *v holds its low 64 bits (what
 *      readers that do not care, DWARF's, keep), so a caller that does
 *      care tests for != 0;
 *  -1  it runs past len, or past max bytes with bit 7 still set: *v is 0.
 * *pos is moved past every byte read, on failure too (to len, or max
 * bytes on), so a caller's "at byte N" is where the reader stopped.  An
 * SLEB128 that ends below 64 bits is sign-extended.
 *
 * Writing: leb128_put_u64() and leb128_put_s64() write v's shortest
 * encoding into b (room for LEB128_MAX_BYTES) and return its length.
 *
 * All static inline: no state, no allocation, no errno; safe anywhere.
 */
#ifndef PTPROF_LEB128_H
#define PTPROF_LEB128_H

#include <stddef.h>
#include <stdint.h>

#define LEB128_MAX_BYTES 10 /* a 64-bit value's longest shortest encoding */

/* The bytes of a LEB128 at *pos and their value's low 64 bits; *sign:
 * bit 6 of the last byte; *hi0 / *hi1: whether the bits at positions
 * from `from` up (63: a signed value's sign, 64: past an unsigned one)
 * are all 0 / all 1. */
static inline int leb128_read_(const uint8_t *p, size_t len, size_t *pos,
			       size_t max, unsigned from, uint64_t *v,
			       unsigned *shift, int *hi0, int *hi1)
{
	size_t n = 0;
	uint8_t b;

	*v = 0;
	*shift = 0;
	*hi0 = *hi1 = 1;
	do {
		if (*pos >= len || (max && n == max)) {
			*v = 0;
			return -1;
		}
		b = p[(*pos)++];
		n++;
		if (*shift < 64)
			*v |= (uint64_t)(b & 0x7f) << *shift;
		if (*shift + 7 > from) {
			unsigned lo = *shift >= from ? 0 : from - *shift;
			unsigned mask = 0x7fu & ~((1u << lo) - 1);

			*hi0 &= (b & mask) == 0;
			*hi1 &= (b & mask) == mask;
		}
		*shift += 7;
	} while (b & 0x80);
	return 0;
}

/* An unsigned LEB128 (see above): 0, 1 (cut to 64 bits) or -1. */
static inline int leb128_read_u64(const uint8_t *p, size_t len, size_t *pos,
				  size_t max, uint64_t *v)
{
	unsigned shift;
	int hi0, hi1;

	if (leb128_read_(p, len, pos, max, 64, v, &shift, &hi0, &hi1))
		return -1;
	return hi0 ? 0 : 1;
}

/* A signed LEB128 (see above): 0, 1 (cut to 64 bits) or -1. */
static inline int leb128_read_s64(const uint8_t *p, size_t len, size_t *pos,
				  size_t max, int64_t *v)
{
	unsigned shift;
	int hi0, hi1, neg;
	uint64_t u;

	if (leb128_read_(p, len, pos, max, 63, &u, &shift, &hi0, &hi1)) {
		*v = 0;
		return -1;
	}
	neg = (p[*pos - 1] & 0x40) != 0;
	if (neg && shift < 64)
		u |= ~(uint64_t)0 << shift;
	*v = (int64_t)u;
	return (neg ? hi1 : hi0) ? 0 : 1;
}

/* v as a ULEB128 into b (LEB128_MAX_BYTES of room); its length. */
static inline size_t leb128_put_u64(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* v as an SLEB128 into b (LEB128_MAX_BYTES of room); its length. */
static inline size_t leb128_put_s64(uint8_t *b, int64_t v)
{
	size_t n = 0;
	int more;

	do {
		uint8_t byte = v & 0x7f;

		v >>= 7; /* arithmetic on every compiler ptprof builds with */
		more = !((v == 0 && !(byte & 0x40)) ||
			 (v == -1 && (byte & 0x40)));
		b[n++] = more ? byte | 0x80 : byte;
	} while (more);
	return n;
}

#endif /* PTPROF_LEB128_H */
