/*
 * fuzz_perfmap.c - libFuzzer target for the perf map parser
 * (perfmap_parse(), perfmap.h).
 *
 * The input is a perf map's text, with no restriction (NUL bytes, no
 * final newline, huge numbers, overlapping lines).  The promises checked:
 * the table is built (only ENOMEM may fail it); lines kept plus lines
 * skipped never exceed the newlines of the input; every name a lookup
 * returns is a NUL-terminated string of at most PERFMAP_MAX_NAME bytes
 * with no newline, and its offset is below 2^64 - addr; lookups at 0,
 * UINT64_MAX and around every hex number of the text (the edges of
 * every line it could have parsed) do not crash.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "symbols/perfmap.h"
#include "util/scan.h"

#define MAX_LOOKUPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void check_lookup(const struct perfmap *m, uint64_t addr)
{
	uint64_t off = 0;
	const char *name = perfmap_lookup(m, addr, &off);

	if (!name)
		return;
	if (strnlen(name, PERFMAP_MAX_NAME + 1) > PERFMAP_MAX_NAME ||
	    !name[0] || strchr(name, '\n'))
		fuzz_violation("perfmap_lookup returned a bad name");
	if (off > addr)
		fuzz_violation("perfmap_lookup's offset is past the address");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const char *text = (const char *)data;
	struct perfmap *m = perfmap_parse(text, len);
	size_t lines = 0, n = 0, i = 0;
	uint64_t v;
	int d;

	if (!m) {
		if (errno != ENOMEM)
			fuzz_violation("perfmap_parse failed without ENOMEM");
		return 0;
	}
	for (size_t k = 0; k < len; k++)
		lines += text[k] == '\n';
	if (perfmap_count(m) + perfmap_malformed(m) > lines)
		fuzz_violation("perfmap_parse counted more lines than it has");
	check_lookup(m, 0);
	check_lookup(m, UINT64_MAX);
	while (i < len && n < MAX_LOOKUPS) {
		if (scan_hex_digit(text[i]) < 0) {
			i++;
			continue;
		}
		for (v = 0; i < len && (d = scan_hex_digit(text[i])) >= 0; i++)
			v = v << 4 | (uint64_t)d;
		check_lookup(m, v - 1);
		check_lookup(m, v);
		check_lookup(m, v + 1);
		n++;
	}
	perfmap_free(m);
	return 0;
}
