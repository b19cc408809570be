/*
 * pyrt_line.c - a CPython code object's location table to the line of
 * an instruction (pyrt.h), as PyCode_Addr2Line() does.
 *
 * The instruction of a frame is prev_instr - co_code_adaptive, in
 * 2-byte code units (_PyInterpreterFrame_LASTI); PyCode_Addr2Line()
 * takes it in bytes.  The location table (Objects/locations.md): entries
 * whose first byte has bit 7 set, bits 3-6 a code, bits 0-2 the number
 * of code units covered minus one; code 15 no location, 14 long form
 * (signed varint line delta, then end line, column, end column
 * varints), 13 no columns (signed varint line delta), 10-12 one line
 * (line delta code - 10, two column bytes), 0-9 short form (same line,
 * one column byte).  Varints are 6-bit groups, low first, bit 6 saying
 * another follows; a signed varint keeps its sign in bit 0.
 */
#include "config.h"

#include "python/pyrt.h"

#include <stdint.h>

/* A varint at *p (below end); 0 past the end or past 32 bits.  Not
 * util/leb128.h: CPython's varints are 6-bit groups (bit 6 continues). */
static uint32_t scan_varint(const uint8_t **p, const uint8_t *end)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*p >= end || shift > 30)
			return v;
		b = *(*p)++;
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t scan_svarint(const uint8_t **p, const uint8_t *end)
{
	uint32_t u = scan_varint(p, end);

	return (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* The line delta of the entry at p (its first byte), as get_line_delta. */
static int32_t line_delta(const uint8_t *p, const uint8_t *end)
{
	unsigned code = (*p >> 3) & 15;

	p++;
	switch (code) {
	case 15: /* no location */
		return 0;
	case 14: /* long form */
	case 13: /* no columns */
		return scan_svarint(&p, end);
	case 10:
	case 11:
	case 12: /* one line form */
		return (int32_t)code - 10;
	default: /* short form: the same line */
		return 0;
	}
}

int pyrt_line_table(const uint8_t *table, size_t len, int firstlineno,
		    int64_t addrq)
{
	const uint8_t *p = table, *end = table + len;
	int64_t start, stop = 0, line = firstlineno;
	unsigned code;

	if (addrq < 0)
		return -1;
	/*
	 * Each entry covers ((b & 7) + 1) code units (2 bytes each) from
	 * where the one before ended; the line moves by each entry's delta,
	 * whether or not the entry has a location.  The walk ends with the
	 * table: at most len entries.
	 */
	while (p < end) {
		if (!(*p & 128))
			return -1; /* not the start of an entry: corrupt */
		code = (*p >> 3) & 15;
		start = stop;
		stop += ((*p & 7) + 1) * 2;
		line += line_delta(p, end);
		if (line < 0 || line > INT32_MAX)
			return -1;
		for (p++; p < end && !(*p & 128); p++)
			;
		if (addrq >= start && addrq < stop)
			return code == 15 ? -1 : (int)line;
	}
	return -1;
}

int pyrt_line(const struct pycode *c, int32_t lasti)
{
	if (!c || !c->linetable || lasti < 0 ||
	    (uint32_t)lasti < c->firsttraceable ||
	    (uint32_t)lasti >= c->ncodeunits)
		return -1;
	return pyrt_line_table(c->linetable, c->linetable_len, c->firstlineno,
			       (int64_t)lasti * 2);
}
