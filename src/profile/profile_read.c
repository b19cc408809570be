/*
 * profile_read.c - parse and validate a gperftools CPU profile.
 *
 * Two passes over the bytes: the first validates every slot and counts
 * the records without allocating anything; the second copies the record
 * slots into one aligned, host-order array and points the records into it.
 * Every length read from the file is checked against the bytes left before
 * it is used.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/maps.h"
#include "profile/profile_read.h"
#include "util/errbuf.h"

#define SLOT 8u

struct parser {
	const unsigned char *data;
	size_t len;
	char *err;
	size_t errlen;
	/* results of the validating pass */
	uint64_t period_us;
	size_t recs_off;    /* first record */
	size_t trailer_off; /* trailer start */
	size_t maps_off;    /* first byte after the trailer */
	size_t nrecords;
	uint64_t total;
};

/* Bad content: one sentence naming the byte, errno EINVAL, -1. */
#define fail(p, ...) errbuf_fail((p)->err, (p)->errlen, EINVAL, __VA_ARGS__)

/* True when n whole slots are present at off (off <= len always holds). */
static bool have_slots(const struct parser *p, size_t off, size_t n)
{
	return (p->len - off) / SLOT >= n;
}

static uint64_t slot_at(const struct parser *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p->data + off, sizeof(v));
	return le64toh(v);
}

static bool hdr_count_ok(uint64_t hwords)
{
	return hwords >= 3 && hwords <= PROFILE_READ_MAX_HDR;
}

static int parse_header(struct parser *p)
{
	uint64_t hwords;
	size_t need;

	if (p->len == 0)
		return fail(p, "empty profile at byte 0: no header");
	if (!have_slots(p, 0, 2))
		return fail(p,
			    "truncated header at byte 0: file ends at byte %zu",
			    p->len);
	if (slot_at(p, 0) != 0)
		return fail(p,
			    "bad header at byte 0: not a 64-bit little-endian CPU profile (header count is %llu, must be 0)",
			    (unsigned long long)slot_at(p, 0));
	hwords = slot_at(p, SLOT);
	if (!hdr_count_ok(hwords))
		return fail(p,
			    "bad header at byte 8: header slot count is %llu, must be 3 to %d%s",
			    (unsigned long long)hwords, PROFILE_READ_MAX_HDR,
			    hdr_count_ok(__builtin_bswap64(hwords)) ?
				    " (a big-endian profile?)" :
				    "");
	need = (2 + (size_t)hwords) * SLOT;
	if (!have_slots(p, 0, 2 + (size_t)hwords))
		return fail(p,
			    "truncated header at byte 0: need %zu bytes, file ends at byte %zu",
			    need, p->len);
	if (slot_at(p, 2 * SLOT) != 0)
		return fail(p,
			    "bad header at byte 16: format version is %llu, must be 0",
			    (unsigned long long)slot_at(p, 2 * SLOT));
	p->period_us = slot_at(p, 3 * SLOT);
	if (p->period_us == 0)
		return fail(p, "bad header at byte 24: sampling period is 0");
	p->recs_off = need;
	return 0;
}

/*
 * Check the record (or trailer) at off.  Returns its size in bytes, 0 when
 * it is the trailer, or -1 on error.
 */
static long check_record(struct parser *p, size_t off)
{
	uint64_t count, npcs;

	if (off == p->len)
		return fail(p,
			    "missing trailer at byte %zu: file ends after the last record",
			    off);
	if (!have_slots(p, off, 2))
		return fail(p,
			    "truncated record at byte %zu: need 16 bytes for the counts, file ends at byte %zu",
			    off, p->len);
	count = slot_at(p, off);
	npcs = slot_at(p, off + SLOT);
	if (count == 0 && npcs == 1) {
		if (!have_slots(p, off, 3))
			return fail(p,
				    "truncated trailer at byte %zu: file ends at byte %zu",
				    off, p->len);
		if (slot_at(p, off + 2 * SLOT) == 0)
			return 0;
	}
	if (count == 0)
		return fail(p, "bad record at byte %zu: sample count is 0",
			    off);
	if (npcs == 0)
		return fail(p, "bad record at byte %zu: PC count is 0", off);
	if (npcs > PROFILE_MAX_PCS)
		return fail(p,
			    "bad record at byte %zu: PC count %llu exceeds %d",
			    off, (unsigned long long)npcs, PROFILE_MAX_PCS);
	if (!have_slots(p, off, 2 + (size_t)npcs))
		return fail(p,
			    "truncated record at byte %zu: expected %llu PCs, file ends at byte %zu",
			    off, (unsigned long long)npcs, p->len);
	if (slot_at(p, off + 2 * SLOT) == 0)
		return fail(p,
			    "bad record at byte %zu: first PC is 0 but the record is not the trailer",
			    off);
	if (p->total + count < p->total)
		return fail(p,
			    "bad record at byte %zu: sum of sample counts overflows",
			    off);
	p->total += count;
	return (long)((2 + npcs) * SLOT);
}

static int check_records(struct parser *p)
{
	size_t off = p->recs_off;
	long n;

	while ((n = check_record(p, off)) > 0) {
		off += (size_t)n;
		p->nrecords++;
	}
	if (n < 0)
		return -1;
	p->trailer_off = off;
	p->maps_off = off + 3 * SLOT;
	return 0;
}

/* Whether one of the n bytes' lines is a mapping maps.h can parse. */
static bool has_mapping_line(const char *s, size_t n)
{
	struct maps_line ml;
	const char *nl;
	size_t ll;

	while (n) {
		nl = memchr(s, '\n', n);
		ll = nl ? (size_t)(nl - s) : n;
		if (maps_parse_line(s, ll, &ml, NULL, 0) == 0)
			return true;
		if (!nl)
			break;
		s += ll + 1;
		n -= ll + 1;
	}
	return false;
}

static int check_maps(struct parser *p)
{
	const char *text = (const char *)p->data + p->maps_off;
	size_t n = p->len - p->maps_off;
	const char *nul;

	nul = memchr(text, '\0', n);
	if (nul)
		return fail(p, "bad maps text at byte %zu: NUL byte",
			    p->maps_off + (size_t)(nul - text));
	if (n && !has_mapping_line(text, n))
		return fail(p,
			    "bad maps text at byte %zu: no parseable mapping line",
			    p->maps_off);
	return 0;
}

/* The PID of the line "ptprof-pid: PID" (profile_out.h) of the maps
 * text, or 0: a hostile one is any positive int (pid_max is 2^22). */
static int64_t pid_line(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	size_t n = sizeof(PROFILE_PID_LINE) - 1;
	int64_t pid = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) <= n || memcmp(p, PROFILE_PID_LINE, n))
			continue;
		pid = 0;
		for (p += n;
		     p < nl && *p >= '0' && *p <= '9' && pid < (1 << 22); p++)
			pid = pid * 10 + (*p - '0');
		return p == nl && pid <= (1 << 22) ? pid : 0;
	}
	return 0;
}

/*
 * Second pass: the slots in host order, in a copy (own NULL), or in place
 * in own (the bytes parsed, which the profile then holds), and the
 * records pointed into them.
 */
static int build(const struct parser *p, struct profile *out, void *own)
{
	size_t nslots = (p->trailer_off - p->recs_off) / SLOT;
	size_t mlen = p->len - p->maps_off;
	uint64_t *st;
	size_t i, k;

	if (own)
		st = (uint64_t *)(void *)((unsigned char *)own + p->recs_off);
	else
		st = malloc(nslots ? nslots * SLOT : 1);
	out->records = calloc(p->nrecords ? p->nrecords : 1,
			      sizeof(*out->records));
	out->maps_text = malloc(mlen + 1);
	out->storage_ = own ? NULL : st;
	if (!st || !out->records || !out->maps_text)
		return -1;
	for (i = 0; i < nslots; i++)
		st[i] = slot_at(p, p->recs_off + i * SLOT);
	for (i = 0, k = 0; i < p->nrecords; i++) {
		out->records[i].count = st[k];
		out->records[i].npcs = (size_t)st[k + 1];
		out->records[i].pcs = &st[k + 2];
		k += 2 + (size_t)st[k + 1];
	}
	memcpy(out->maps_text, p->data + p->maps_off, mlen);
	out->maps_text[mlen] = '\0';
	out->maps_len = mlen;
	out->nrecords = p->nrecords;
	out->period_us = p->period_us;
	out->total_samples = p->total;
	out->pid = pid_line(out->maps_text, mlen);
	return 0;
}

static int parse(const void *data, size_t len, struct profile *out, void *own,
		 char *err, size_t errlen)
{
	struct parser p = {
		.data = data,
		.len = len,
		.err = err,
		.errlen = errlen,
	};

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (parse_header(&p) || check_records(&p) || check_maps(&p))
		return -1;
	/* in place only where the slots are 8-byte aligned */
	if (own && ((uintptr_t)data + p.recs_off) % _Alignof(uint64_t))
		own = NULL;
	if (build(&p, out, own)) {
		profile_free(out);
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	}
	if (own)
		out->storage_ = own;
	return 0;
}

int profile_read_parse(const void *data, size_t len, struct profile *out,
		       char *err, size_t errlen)
{
	return parse(data, len, out, NULL, err, errlen);
}

int profile_read_adopt(void *data, size_t len, struct profile *out, char *err,
		       size_t errlen)
{
	int rc = parse(data, len, out, data, err, errlen);

	if (rc == 0 && out->storage_ != data)
		free(data); /* copied after all (unaligned) */
	return rc;
}
