/*
 * pprof_read.c - gunzip, decode and validate a pprof protobuf profile,
 * then turn it into a struct profile (see pprof_read.h).
 *
 * Three steps: zlib inflates into a buffer that never grows past the
 * limit (here); protobuf-c decodes it with an allocator that counts what
 * it hands out (pprof_read_decode.c); then a validating pass over the
 * messages counts records and PCs (pprof_read_check.c), the mappings are
 * put in address spaces (pprof_read_spaces.c), and a building pass fills
 * one storage block (the PCs, then the thread names) and the maps text
 * (pprof_read_build.c).  pprof_read_int.h is what they share.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/pprof_read.h"
#include "profile/pprof_read_int.h"
#include "profile/profile.pb-c.h"
#include "util/errbuf.h"

/* ---- gunzip ---- */

struct inflated {
	unsigned char *buf;
	size_t len, cap;
	size_t limit; /* most bytes it may decompress to */
	size_t in_len;
};

/*
 * The most a gzip file of len bytes may decompress to: PPROF_READ_MAX_BYTES,
 * and PPROF_READ_GZIP_RATIO times the file (deflate reaches 1032 times:
 * a 120 KB gzip bomb would otherwise be a 120 MB protobuf), but never less
 * than PPROF_READ_GZIP_FLOOR, so no small real profile is refused.
 */
static size_t inflate_limit(size_t len)
{
	size_t r = len > PPROF_READ_MAX_BYTES / PPROF_READ_GZIP_RATIO ?
			   PPROF_READ_MAX_BYTES :
			   len * PPROF_READ_GZIP_RATIO;

	return r < PPROF_READ_GZIP_FLOOR ? PPROF_READ_GZIP_FLOOR : r;
}

static int grow_out(struct inflated *o, char *err, size_t errlen)
{
	size_t max = o->limit + 1;
	size_t cap = o->cap > max / 2 ? max : o->cap * 2;
	unsigned char *nb;

	if (o->len == max)
		return errbuf_fail(
			err, errlen, EFBIG,
			"gzip data decompresses to more than %zu bytes (%s)",
			o->limit,
			o->limit == PPROF_READ_MAX_BYTES ?
				"the limit of a protobuf profile" :
				"the limit for a gzip file of this size: a gzip bomb?");
	nb = realloc(o->buf, cap);
	if (!nb)
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	o->buf = nb;
	o->cap = cap;
	return 0;
}

/* One inflate() step's outcome: 1 go on, 0 done, -1 error. */
static int inflate_step(z_stream *z, const unsigned char *in, size_t len,
			char *err, size_t errlen)
{
	int rc = inflate(z, Z_NO_FLUSH);
	size_t at = (size_t)(z->next_in - in);

	if (rc == Z_STREAM_END && !z->avail_in)
		return 0;
	if (rc == Z_STREAM_END && z->avail_in >= 2 && z->next_in[0] == 0x1f &&
	    z->next_in[1] == 0x8b)
		return inflateReset(z) == Z_OK ? 1 : -1; /* another member */
	if (rc == Z_STREAM_END)
		return errbuf_fail(
			err, errlen, EINVAL,
			"bad gzip data at byte %zu: not gzip data after the end of the stream",
			at);
	if (rc == Z_DATA_ERROR)
		return errbuf_fail(err, errlen, EINVAL,
				   "bad gzip data at byte %zu: %s", at,
				   z->msg ? z->msg : "corrupt");
	if (rc == Z_MEM_ERROR)
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	if (!z->avail_in && z->avail_out)
		return errbuf_fail(
			err, errlen, EINVAL,
			"truncated gzip data: the file ends at byte %zu, inside the compressed stream",
			len);
	return 1;
}

static int gunzip(const unsigned char *in, size_t len, struct inflated *o,
		  char *err, size_t errlen)
{
	z_stream z;
	int rc = 1;

	memset(&z, 0, sizeof(z));
	memset(o, 0, sizeof(*o));
	o->limit = inflate_limit(len);
	o->cap = 1 << 16;
	o->buf = malloc(o->cap);
	if (!o->buf || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(o->buf);
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	}
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)len; /* len <= PROFILE_LOAD_MAX_BYTES < 4 GiB */
	while (rc > 0) {
		if (o->len == o->cap && grow_out(o, err, errlen)) {
			rc = -1;
			break;
		}
		z.next_out = o->buf + o->len;
		z.avail_out = (uInt)(o->cap - o->len);
		rc = inflate_step(&z, in, len, err, errlen);
		o->len = (size_t)(z.next_out - o->buf);
	}
	inflateEnd(&z);
	if (rc < 0) {
		free(o->buf);
		o->buf = NULL;
		return -1;
	}
	return 0;
}

static uint64_t period_us(const PbProfile *pp)
{
	const char *unit;

	if (!pp->period_type || pp->period <= 0 || pp->period_type->unit < 0 ||
	    (uint64_t)pp->period_type->unit >= pp->n_string_table)
		return 0;
	unit = pp->string_table[pp->period_type->unit];
	if (!strcmp(unit, "nanoseconds"))
		return (uint64_t)pp->period / 1000;
	if (!strcmp(unit, "microseconds"))
		return (uint64_t)pp->period;
	return 0;
}

/* out->kind: the period type's name (profile.h), made safe to print. */
static void period_kind(const PbProfile *pp, struct profile *out)
{
	const char *k;
	size_t i;

	if (!pp->period_type || pp->period_type->type <= 0 ||
	    (uint64_t)pp->period_type->type >= pp->n_string_table)
		return;
	k = pp->string_table[pp->period_type->type];
	for (i = 0; k[i] && i + 1 < sizeof(out->kind); i++)
		out->kind[i] = (k[i] >= 'a' && k[i] <= 'z') ||
					       (k[i] >= '0' && k[i] <= '9') ||
					       k[i] == '_' ?
				       k[i] :
				       '?';
	out->kind[i] = '\0';
}

static int convert(const PbProfile *pp, struct profile *out, char *err,
		   size_t errlen)
{
	struct rd rd = { .pp = pp, .err = err, .errlen = errlen };
	int rc = -1;

	if (!pprof_read_check(&rd) && !pprof_read_spaces(&rd)) {
		rc = pprof_read_build(&rd, out);
		if (rc) {
			profile_free(out);
			errbuf_fail(err, errlen, ENOMEM, "out of memory");
		}
	}
	out->period_us = rc ? 0 : period_us(pp);
	if (!rc)
		period_kind(pp, out);
	free(rd.maps);
	free(rd.locs);
	free(rd.funcs);
	free(rd.name_off);
	free(rd.map_space);
	free(rd.loc_space);
	free(rd.loc_map);
	return rc;
}

int pprof_read_parse(const void *data, size_t len, struct profile *out,
		     char *err, size_t errlen)
{
	const unsigned char *d = data;
	struct inflated raw = { .buf = NULL };
	struct budget b = { .used = 0 };
	PbProfile *pp;
	int rc, e;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		if (gunzip(d, len, &raw, err, errlen))
			return -1;
		d = raw.buf;
		len = raw.len;
	}
	pp = pprof_read_decode(d, len, &b, err, errlen);
	free(raw.buf);
	if (!pp)
		return -1;
	rc = convert(pp, out, err, errlen);
	e = errno;
	perftools__profiles__profile__free_unpacked(pp, &b.a);
	errno = e;
	return rc;
}
