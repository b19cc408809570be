/*
 * pprof_read_decode.c - decoding a pprof protobuf (pprof_read.h) with
 * bounded memory: its bytes are scanned first, without allocating, for
 * what protobuf-c would allocate, and refused over the budget; then
 * protobuf-c decodes it with an allocator that enforces the budget.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_read.h"
#include "profile/pprof_read_int.h"
#include "util/errbuf.h"
#include "util/leb128.h"

/* ---- a scan of the wire format, before anything is decoded ---- */

/*
 * protobuf-c allocates while it decodes: a struct per message, an array
 * per repeated field, a copy per string, and, while it scans a message
 * of more than 16 fields, slabs of 32 bytes a field (freed after).  A
 * 2-byte empty message becomes a struct of up to 100 bytes, so a small
 * gzip file could make it allocate gigabytes before any check ran.  So
 * the bytes are walked first, without allocating: the fields of the
 * profile, of each sample and of each location are counted, what
 * protobuf-c will allocate is added up (each block as glibc's malloc
 * spends it: 8 bytes of header, rounded up to 16, 32 at least), and the
 * profile is refused before decoding when that exceeds the budget or a
 * sample has more locations than a record may have.
 */

#define PB_SLAB_COST 64 /* a scanned field: 32 bytes, slabs doubling */

struct scan {
	const unsigned char *buf; /* the whole protobuf, for offsets */
	char *err;
	size_t errlen;
	uint64_t mem; /* what decoding will allocate */
	size_t nsample, nlocation, nmapping, nfunction, nstring, ntype;
	size_t nunknown;   /* fields of no known number, kept by protobuf-c */
	size_t max_values; /* most values in one sample */
	size_t max_values_at; /* that sample's index */
};

/* What malloc(n) costs: glibc's chunk of n + 8 bytes, rounded to 16. */
static uint64_t chunk(uint64_t n)
{
	n = (n + 8 + 15) & ~(uint64_t)15;
	return n < 32 ? 32 : n;
}

/* What an array of n pointers or 64-bit numbers costs (none when empty). */
static uint64_t arr(uint64_t n)
{
	return n ? chunk(n * 8) : 0;
}

static int scan_bad(struct scan *sc, const unsigned char *at, const char *what)
{
	return errbuf_fail(sc->err, sc->errlen, EINVAL,
			   "not a pprof protobuf profile: %s at byte %zu of "
			   "the protobuf",
			   what, (size_t)(at - sc->buf));
}

/* A varint (a ULEB128 of at most 10 bytes, its low 64 bits kept) at
 * *p, which it moves past. */
static bool scan_varint(const unsigned char **p, const unsigned char *end,
			uint64_t *v)
{
	size_t pos = 0;
	int rc = leb128_read_u64(*p, (size_t)(end - *p), &pos, LEB128_MAX_BYTES,
				 v);

	*p += pos;
	return rc >= 0;
}

/* One field of a message: its number, wire type, and for wire type 2
 * its payload [*data, *data + *len). */
struct pb_field {
	uint64_t num;
	unsigned wire;
	const unsigned char *data;
	size_t len;
	size_t raw_len; /* of the whole field, key included */
};

/* protobuf-c keeps a field it does not know: an entry and a copy. */
static uint64_t unknown_cost(struct scan *sc, const struct pb_field *f)
{
	sc->nunknown++;
	return sizeof(ProtobufCMessageUnknownField) + chunk(f->raw_len);
}

/* The field at *p (advanced past it); -1 with the error set. */
static int scan_field_(struct scan *sc, const unsigned char **p,
		       const unsigned char *end, struct pb_field *f)
{
	const unsigned char *at = *p;
	uint64_t key, v;

	if (!scan_varint(p, end, &key) || !(key >> 3))
		return scan_bad(sc, at, "bad field key");
	f->num = key >> 3;
	f->wire = key & 7;
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case 0:
		if (!scan_varint(p, end, &v))
			return scan_bad(sc, at, "truncated varint");
		return 0;
	case 1:
	case 5:
		if ((size_t)(end - *p) < (f->wire == 1 ? 8u : 4u))
			return scan_bad(sc, at, "truncated fixed-size field");
		*p += f->wire == 1 ? 8 : 4;
		return 0;
	case 2:
		if (!scan_varint(p, end, &v) || v > (uint64_t)(end - *p))
			return scan_bad(sc, at,
					"length runs past the end of its message");
		f->data = *p;
		f->len = (size_t)v;
		*p += v;
		return 0;
	default:
		return scan_bad(sc, at, "unsupported wire type");
	}
}

static int scan_field(struct scan *sc, const unsigned char **p,
		      const unsigned char *end, struct pb_field *f)
{
	const unsigned char *at = *p;

	if (scan_field_(sc, p, end, f))
		return -1;
	f->raw_len = (size_t)(*p - at);
	return 0;
}

/* Elements of a repeated scalar field occurrence: a packed run counts
 * its varints (bytes without the high bit), else 1. */
static size_t scan_elems(const struct pb_field *f)
{
	size_t n = 0;

	if (f->wire != 2)
		return 1;
	for (size_t i = 0; i < f->len; i++)
		n += !(f->data[i] & 0x80);
	return n;
}

/* A message with no repeated field, whose fields are numbered 1 to
 * known: its fields, for the slabs, and those it does not know. */
static int scan_flat(struct scan *sc, const struct pb_field *m, size_t size,
		     uint64_t known)
{
	const unsigned char *p, *end;
	struct pb_field f;
	uint64_t nf = 0;

	if (m->wire != 2)
		return 0; /* not a message: protobuf-c refuses it */
	p = m->data;
	end = p + m->len;
	while (p < end) {
		if (scan_field(sc, &p, end, &f))
			return -1;
		nf++;
		if (f.num > known)
			sc->mem += unknown_cost(sc, &f);
	}
	sc->mem += chunk(size) + (nf > 16 ? nf * PB_SLAB_COST : 0);
	return 0;
}

static int scan_sample(struct scan *sc, const struct pb_field *m)
{
	const unsigned char *p = m->data, *end = m->data + m->len;
	size_t nloc = 0, nval = 0, nlab = 0, nf = 0;
	struct pb_field f;

	while (p < end) {
		if (scan_field(sc, &p, end, &f))
			return -1;
		nf++;
		if (f.num == 1)
			nloc += scan_elems(&f);
		else if (f.num == 2)
			nval += scan_elems(&f);
		else if (f.num == 3) {
			nlab++;
			if (scan_flat(sc, &f, sizeof(PbLabel), 4))
				return -1;
		} else
			sc->mem += unknown_cost(sc, &f);
	}
	if (nloc > PROFILE_MAX_PCS)
		return errbuf_fail(sc->err, sc->errlen, EINVAL,
				   "sample %zu has %zu locations, more than %d",
				   sc->nsample, nloc, PROFILE_MAX_PCS);
	if (nval > sc->max_values) {
		sc->max_values = nval;
		sc->max_values_at = sc->nsample;
	}
	sc->mem += chunk(sizeof(PbSample)) + arr(nloc) + arr(nval) + arr(nlab) +
		   (nf > 16 ? nf * PB_SLAB_COST : 0);
	sc->nsample++;
	return 0;
}

static int scan_location(struct scan *sc, const struct pb_field *m)
{
	const unsigned char *p = m->data, *end = m->data + m->len;
	size_t nline = 0, nf = 0;
	struct pb_field f;

	while (p < end) {
		if (scan_field(sc, &p, end, &f))
			return -1;
		nf++;
		if (f.num == 4) {
			nline++;
			if (scan_flat(sc, &f, sizeof(PbLine), 3))
				return -1;
		} else if (f.num > 5)
			sc->mem += unknown_cost(sc, &f);
	}
	sc->mem += chunk(sizeof(PbLocation)) + arr(nline) +
		   (nf > 16 ? nf * PB_SLAB_COST : 0);
	sc->nlocation++;
	return 0;
}

/* One field of the profile. */
static int scan_top(struct scan *sc, const struct pb_field *f)
{
	switch (f->num) {
	case 1:
		sc->ntype++;
		return scan_flat(sc, f, sizeof(Perftools__Profiles__ValueType),
				 2);
	case 2:
		return f->wire == 2 ? scan_sample(sc, f) : 0;
	case 3:
		sc->nmapping++;
		return scan_flat(sc, f, sizeof(PbMapping), 10);
	case 4:
		return f->wire == 2 ? scan_location(sc, f) : 0;
	case 5:
		sc->nfunction++;
		return scan_flat(sc, f, sizeof(Perftools__Profiles__Function),
				 5);
	case 6:
		sc->nstring++;
		sc->mem += chunk(f->len + 1);
		return 0;
	case 11:
		return scan_flat(sc, f, sizeof(Perftools__Profiles__ValueType),
				 2);
	case 13:
		sc->mem += arr(scan_elems(f));
		return 0;
	default:
		if (f->num > 14)
			sc->mem += unknown_cost(sc, f);
		return 0;
	}
}

/* The most decoding may allocate for a protobuf of len bytes. */
static uint64_t decode_budget(size_t len)
{
	uint64_t b = (uint64_t)len * PPROF_READ_MEM_PER_BYTE + (1u << 20);

	return b < PPROF_READ_MAX_MEM ? b : PPROF_READ_MAX_MEM;
}

static int scan(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	struct scan sc = { .buf = buf, .err = err, .errlen = errlen };
	const unsigned char *p = buf, *end = len ? buf + len : buf;
	uint64_t nf = 0, budget = decode_budget(len);
	struct pb_field f;

	sc.mem = chunk(sizeof(PbProfile));
	while (len && p < end) {
		if (scan_field(&sc, &p, end, &f) || scan_top(&sc, &f))
			return -1;
		nf++;
	}
	/* the arrays of pointers of the repeated fields, and the slabs */
	sc.mem += arr(sc.ntype) + arr(sc.nsample) + arr(sc.nmapping) +
		  arr(sc.nlocation) + arr(sc.nfunction) + arr(sc.nstring) +
		  (nf > 16 ? nf * PB_SLAB_COST : 0);
	if (sc.ntype && sc.max_values > sc.ntype)
		return errbuf_fail(err, errlen, EINVAL,
				   "sample %zu has %zu values for %zu sample types",
				   sc.max_values_at, sc.max_values, sc.ntype);
	if (sc.mem > budget)
		return errbuf_fail(
			err, errlen, EFBIG,
			"protobuf profile of %zu bytes (%zu samples, %zu locations, %zu strings, %zu unknown fields) needs %" PRIu64
			" bytes of memory to decode, more than its limit of %" PRIu64,
			len, sc.nsample, sc.nlocation, sc.nstring, sc.nunknown,
			sc.mem, budget);
	return 0;
}

/* ---- decoding, with an allocation budget ---- */

/* The scan above should keep decoding within the budget; the allocator
 * enforces it anyway, charging each block as scan() does. */
static void *budget_alloc(void *data, size_t size)
{
	struct budget *b = data;
	uint64_t c = chunk(size);
	void *p;

	if (c > b->limit - b->used) {
		b->over = true;
		return NULL;
	}
	b->used += c;
	p = malloc(size ? size : 1);
	b->failed |= !p;
	return p;
}

static void budget_free(void *data, void *p)
{
	(void)data;
	free(p);
}

PbProfile *pprof_read_decode(const unsigned char *buf, size_t len,
			     struct budget *b, char *err, size_t errlen)
{
	PbProfile *pp;

	b->a.alloc = budget_alloc;
	b->a.free = budget_free;
	b->a.allocator_data = b;
	b->limit = decode_budget(len);
	if (scan(buf, len, err, errlen))
		return NULL;
	pp = perftools__profiles__profile__unpack(&b->a, len, buf);
	if (pp)
		return pp;
	if (b->over)
		errbuf_fail(err, errlen, EFBIG,
			    "protobuf profile of %zu bytes needs more than %" PRIu64
			    " bytes of memory to decode",
			    len, b->limit);
	else if (b->failed)
		errbuf_fail(err, errlen, ENOMEM,
			    "out of memory decoding the protobuf profile (%zu bytes)",
			    len);
	else
		errbuf_fail(err, errlen, EINVAL,
			    "not a pprof protobuf profile: protobuf decoding failed (%zu bytes)",
			    len);
	return NULL;
}
