/*
 * fuzz_symbolize_maps.c - libFuzzer target for the symbolizer's maps
 * parser.
 *
 * The input is maps text, with no restriction (NUL bytes, no final
 * newline, huge numbers).  A symbolizer is built from it under FUZZ_ROOT
 * (no file is opened) and looked up at 0, at UINT64_MAX and around every
 * hex number of the text, which hits the edges of every mapping it could
 * have parsed.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "symbolize.h"

#define MAX_LOOKUPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int hex_digit(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Look up v-1, v and v+1 for each run of hex digits (low 64 bits). */
static void lookup_numbers(struct symbolizer *s, const uint8_t *data,
			   size_t len)
{
	size_t i = 0, n = 0;
	uint64_t v;
	int d;

	while (i < len && n < MAX_LOOKUPS) {
		if (hex_digit(data[i]) < 0) {
			i++;
			continue;
		}
		for (v = 0; i < len && (d = hex_digit(data[i])) >= 0; i++)
			v = v << 4 | (uint64_t)d;
		fuzz_lookup(s, v - 1);
		fuzz_lookup(s, v);
		fuzz_lookup(s, v + 1);
		n++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct symbolizer *s;

	s = symbolizer_new((const char *)data, len, FUZZ_ROOT, 0);
	if (!s) {
		if (errno != ENOMEM)
			fuzz_violation("symbolizer_new failed without ENOMEM");
		return 0;
	}
	fuzz_lookup(s, 0);
	fuzz_lookup(s, UINT64_MAX);
	lookup_numbers(s, data, len);
	symbolizer_free(s);
	return 0;
}
