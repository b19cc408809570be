/*
 * fuzz_symbolize_maps.c - libFuzzer target for the maps parser
 * (maps_parse_line()) and the symbolizer built on it.
 *
 * The input is maps text, with no restriction (NUL bytes, no final
 * newline, huge numbers).  Each line is parsed on its own and the
 * promises of maps.h checked: 0 or -1; on success start below end and the
 * path inside the line; on failure EINVAL and one line of message naming
 * a column inside the line.  Then a symbolizer is built from the text
 * under FUZZ_ROOT (no file is opened) and looked up at 0, at UINT64_MAX
 * and around every hex number of the text, which hits the edges of every
 * mapping it could have parsed.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"
#include "proc/maps.h"
#include "symbols/symbolize.h"
#include "util/scan.h"

#define MAX_LOOKUPS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* Look up v-1, v and v+1 for each run of hex digits (low 64 bits). */
static void lookup_numbers(struct symbolizer *s, const uint8_t *data,
			   size_t len)
{
	size_t i = 0, n = 0;
	uint64_t v;
	int d;

	while (i < len && n < MAX_LOOKUPS) {
		if (scan_hex_digit((char)data[i]) < 0) {
			i++;
			continue;
		}
		for (v = 0; i < len && (d = scan_hex_digit((char)data[i])) >= 0;
		     i++)
			v = v << 4 | (uint64_t)d;
		fuzz_lookup(s, v - 1);
		fuzz_lookup(s, v);
		fuzz_lookup(s, v + 1);
		n++;
	}
}

static void check_line(const char *line, size_t len)
{
	struct maps_line ml;
	char err[128];
	size_t col;
	int rc;

	memset(err, 'x', sizeof(err));
	errno = 0;
	rc = maps_parse_line(line, len, &ml, err, sizeof(err));
	if (rc == 0) {
		if (ml.start >= ml.end || ml.path_off > len)
			fuzz_violation("maps_parse_line accepted a bad line");
		return;
	}
	if (rc != -1 || errno != EINVAL)
		fuzz_violation("maps_parse_line failed without -1 and EINVAL");
	if (!memchr(err, '\0', sizeof(err)) || strchr(err, '\n') ||
	    sscanf(err, "bad maps line at column %zu:", &col) != 1 || col < 1 ||
	    col > len + 1)
		fuzz_violation("maps_parse_line's message names no column");
}

static void check_lines(const uint8_t *data, size_t len)
{
	const char *s = (const char *)data, *nl;
	size_t n;

	for (;;) {
		nl = memchr(s, '\n', len);
		n = nl ? (size_t)(nl - s) : len;
		check_line(s, n);
		if (!nl)
			return;
		s += n + 1;
		len -= n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct symbolizer *s;

	check_lines(data, len);
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
