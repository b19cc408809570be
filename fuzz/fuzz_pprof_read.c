/*
 * fuzz_pprof_read.c - libFuzzer target for pprof_read_parse().
 *
 * The input is a protobuf (as it is after gunzip) or, when it starts with
 * the gzip magic, a gzip file.  It is parsed as given and, when it is not
 * gzip already, once more gzipped (level 1): both must give the same
 * answer.  On success every promise of pprof_read.h about the result is
 * checked: counts >= 1 adding up to total_samples, 1..PROFILE_MAX_PCS
 * PCs per record, thread fields only with profile.threads, maps text
 * NUL-terminated and of maps_len bytes, the names the file gives sorted
 * and their source lines in range, only with a file; then a symbolizer
 * is built from the maps text (under FUZZ_ROOT, so no file is opened)
 * and every PC and PC-1 is looked up.  On failure: errno EINVAL, EFBIG or ENOMEM, *out
 * zeroed, one non-empty line of message.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_util.h"
#include "profile/pprof_read.h"
#include "profile/profile.h"
#include "symbols/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int is_zeroed(const struct profile *p)
{
	static const struct profile zero;

	return memcmp(p, &zero, sizeof(zero)) == 0;
}

static void check_failure(const struct profile *p, const char *err, int e)
{
	if (!is_zeroed(p))
		fuzz_violation("profile not zeroed on failure");
	if (e != EINVAL && e != EFBIG && e != ENOMEM)
		fuzz_violation("errno is not EINVAL, EFBIG or ENOMEM");
	if (!err[0] || strchr(err, '\n'))
		fuzz_violation("error message empty or of several lines");
}

/* The names the file gives: sorted, each with a name, a source line
 * only with a file, within 1..PROFILE_MAX_LINE, found again by
 * profile_name_at(). */
static void check_names(const struct profile *p)
{
	for (size_t i = 0; i < p->nnames; i++) {
		const struct profile_name *n = &p->names[i];

		if (i && profile_name_cmp(&p->names[i - 1], n) > 0)
			fuzz_violation("names not sorted by space, address");
		if (!n->name || !strlen(n->name))
			fuzz_violation("a name that is empty");
		if (n->file ? !strlen(n->file) || n->line < 1 ||
				      n->line > PROFILE_MAX_LINE :
			      n->line != 0)
			fuzz_violation(
				"a source line out of range or without a file");
		if (!profile_name_at(p, n->space, n->addr))
			fuzz_violation("profile_name_at misses a name");
	}
}

static void check_success(const struct profile *p, const char *err)
{
	uint64_t total = 0;

	if (err[0])
		fuzz_violation("error message set on success");
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct profile_record *r = &p->records[i];

		if (r->count == 0 || r->npcs == 0 ||
		    r->npcs > PROFILE_MAX_PCS || !r->pcs)
			fuzz_violation("invalid record accepted");
		if ((r->tid || r->thread) && !p->threads)
			fuzz_violation("thread fields without profile.threads");
		if (r->thread)
			(void)strlen(r->thread);
		total += r->count;
	}
	if (total != p->total_samples)
		fuzz_violation("total_samples is not the sum of the counts");
	if (!p->maps_text || strlen(p->maps_text) != p->maps_len)
		fuzz_violation("maps text is not maps_len bytes and a NUL");
	check_names(p);
}

static void symbolize_all(const struct profile *p)
{
	struct symbolizer *s;

	s = symbolizer_new(p->maps_text, p->maps_len, FUZZ_ROOT, 0);
	if (!s) {
		if (errno != ENOMEM)
			fuzz_violation("symbolizer_new failed without ENOMEM");
		return;
	}
	for (size_t i = 0; i < p->nrecords; i++)
		for (size_t j = 0; j < p->records[i].npcs; j++) {
			fuzz_lookup(s, p->records[i].pcs[j]);
			fuzz_lookup(s, p->records[i].pcs[j] - 1);
		}
	symbolizer_free(s);
}

/* Parse and check; returns the result and the number of records. */
static int parse_checked(const uint8_t *data, size_t len, size_t *nrec)
{
	struct profile p;
	char err[256];
	int rc, e;

	memset(err, 'x', sizeof(err));
	errno = 0;
	rc = pprof_read_parse(data, len, &p, err, sizeof(err));
	e = errno;
	if (rc != 0 && rc != -1)
		fuzz_violation("pprof_parse returned neither 0 nor -1");
	if (!memchr(err, '\0', sizeof(err)))
		fuzz_violation("error buffer not NUL-terminated");
	*nrec = p.nrecords;
	if (rc == -1) {
		check_failure(&p, err, e);
		return rc;
	}
	check_success(&p, err);
	symbolize_all(&p);
	profile_free(&p);
	if (!is_zeroed(&p))
		fuzz_violation("profile_free left fields set");
	return rc;
}

static uint8_t *gzip_mem(const uint8_t *data, size_t len, size_t *outlen)
{
	size_t cap = compressBound(len) + 64;
	uint8_t *out = malloc(cap);
	z_stream z;

	memset(&z, 0, sizeof(z));
	if (!out || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (uint8_t *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return NULL;
	}
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t n1, n2, zlen;
	int rc1, rc2;
	uint8_t *z;

	rc1 = parse_checked(data, len, &n1);
	if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return 0;
	z = gzip_mem(data, len, &zlen);
	if (!z)
		return 0;
	rc2 = parse_checked(z, zlen, &n2);
	free(z);
	if (rc1 != rc2)
		fuzz_violation("gzipped input gives another answer");
	return 0;
}
