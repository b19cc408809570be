/*
 * fuzz_profile_read.c - libFuzzer target for profile_read_parse().
 *
 * The input is a whole profile file.  On success every promise of
 * profile_read.h about the result is checked: the records are exactly the
 * slots of the input, in order and with valid counts, and together with
 * the header, the trailer and the maps text they account for every byte;
 * then a symbolizer is built from the maps text (under FUZZ_ROOT, so no
 * file is opened) and every PC and PC-1 is looked up.  On failure the
 * error contract is checked: errno EINVAL (or ENOMEM), *out zeroed, one
 * non-empty line that names a byte offset inside the input, a message cut
 * (and NUL-terminated) when the buffer is short, the same answer without a
 * buffer.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "profile/profile_read.h"
#include "symbols/symbolize.h"

#define SHORT_ERR 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static uint64_t slot(const uint8_t *data, size_t off)
{
	uint64_t v;

	memcpy(&v, data + off, sizeof(v));
	return le64toh(v);
}

static int is_zeroed(const struct profile *p)
{
	static const struct profile zero;

	return memcmp(p, &zero, sizeof(zero)) == 0;
}

/* "... at byte N: ..." with N <= len, on one line. */
static void check_message(const char *err, size_t len)
{
	const char *at;
	unsigned long long off;
	char colon = 0;

	if (!err[0])
		fuzz_violation("empty error message");
	if (strchr(err, '\n'))
		fuzz_violation("error message of several lines");
	at = strstr(err, " at byte ");
	if (!at || sscanf(at, " at byte %llu%c", &off, &colon) != 2 ||
	    colon != ':')
		fuzz_violation("error message names no byte offset");
	if (off > len)
		fuzz_violation("error offset beyond the end of the input");
}

static void check_failure(const uint8_t *data, size_t len,
			  const struct profile *p, const char *err, int e)
{
	char shrt[SHORT_ERR + 1];
	struct profile q;

	if (!is_zeroed(p))
		fuzz_violation("profile not zeroed on failure");
	if (e == ENOMEM)
		return;
	if (e != EINVAL)
		fuzz_violation("errno is not EINVAL on bad content");
	check_message(err, len);

	memset(shrt, 'x', sizeof(shrt));
	if (profile_read_parse(data, len, &q, shrt, SHORT_ERR) != -1)
		fuzz_violation("second parse succeeded");
	if (shrt[SHORT_ERR] != 'x' || !memchr(shrt, '\0', SHORT_ERR))
		fuzz_violation("short error buffer overrun or unterminated");
	if (strncmp(shrt, err, SHORT_ERR - 1) != 0)
		fuzz_violation("short error message differs");
	if (profile_read_parse(data, len, &q, NULL, 0) != -1 || errno != EINVAL)
		fuzz_violation("parse without a buffer differs");
}

/* Records are the input's slots; returns the offset after the trailer. */
static size_t check_records(const uint8_t *data, size_t len,
			    const struct profile *p)
{
	size_t off = (2 + (size_t)slot(data, 8)) * 8, i, j;
	uint64_t total = 0;

	for (i = 0; i < p->nrecords; i++) {
		const struct profile_record *r = &p->records[i];

		if (r->count == 0 || r->npcs == 0 ||
		    r->npcs > PROFILE_MAX_PCS || r->pcs[0] == 0)
			fuzz_violation("invalid record accepted");
		if (off + (2 + r->npcs) * 8 > len ||
		    slot(data, off) != r->count ||
		    slot(data, off + 8) != r->npcs)
			fuzz_violation("record differs from the input");
		for (j = 0; j < r->npcs; j++)
			if (slot(data, off + (2 + j) * 8) != r->pcs[j])
				fuzz_violation("PC differs from the input");
		total += r->count;
		off += (2 + r->npcs) * 8;
	}
	if (total != p->total_samples)
		fuzz_violation("total_samples is not the sum of the counts");
	return off + 3 * 8;
}

static void check_success(const uint8_t *data, size_t len,
			  const struct profile *p, const char *err)
{
	size_t maps_off;

	if (err[0])
		fuzz_violation("error message set on success");
	if (len < 5 * 8 || p->period_us == 0 || p->period_us != slot(data, 24))
		fuzz_violation("bad header accepted");
	maps_off = check_records(data, len, p);
	if (maps_off > len || len - maps_off != p->maps_len)
		fuzz_violation("profile does not account for every byte");
	if (!p->maps_text || p->maps_text[p->maps_len] != '\0' ||
	    strlen(p->maps_text) != p->maps_len ||
	    memcmp(p->maps_text, data + maps_off, p->maps_len) != 0)
		fuzz_violation("maps text is not the input's tail");
}

static void symbolize_all(const struct profile *p)
{
	struct symbolizer *s;
	size_t i, j;

	s = symbolizer_new(p->maps_text, p->maps_len, FUZZ_ROOT, 0);
	if (!s) {
		if (errno != ENOMEM)
			fuzz_violation("symbolizer_new failed without ENOMEM");
		return;
	}
	for (i = 0; i < p->nrecords; i++) {
		for (j = 0; j < p->records[i].npcs; j++) {
			fuzz_lookup(s, p->records[i].pcs[j]);
			fuzz_lookup(s, p->records[i].pcs[j] - 1);
		}
	}
	symbolizer_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct profile p;
	char err[256];
	int rc, e;

	memset(err, 'x', sizeof(err));
	errno = 0;
	rc = profile_read_parse(data, len, &p, err, sizeof(err));
	e = errno;
	if (rc != 0 && rc != -1)
		fuzz_violation("profile_parse returned neither 0 nor -1");
	if (!memchr(err, '\0', sizeof(err)))
		fuzz_violation("error buffer not NUL-terminated");
	if (rc == -1) {
		check_failure(data, len, &p, err, e);
		return 0;
	}
	check_success(data, len, &p, err);
	symbolize_all(&p);
	profile_free(&p);
	if (!is_zeroed(&p))
		fuzz_violation("profile_free left fields set");
	return 0;
}
