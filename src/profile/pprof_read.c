/*
 * pprof_read.c - gunzip, decode and validate a pprof protobuf profile,
 * then turn it into a struct profile (see pprof_read.h).
 *
 * Three steps: zlib inflates into a buffer that never grows past the
 * limit; protobuf-c decodes it with an allocator that counts what it
 * hands out; then a validating pass over the messages counts records and
 * PCs, and a building pass fills one storage block (the PCs, then the
 * thread names) and the maps text.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/pprof_read.h"
#include "profile/profile.pb-c.h"
#include "util/errbuf.h"
#include "util/grow.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;

#define BAD(rd, ...) errbuf_fail((rd)->err, (rd)->errlen, EINVAL, __VA_ARGS__)

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
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Line PbLine;

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

static bool scan_varint(const unsigned char **p, const unsigned char *end,
			uint64_t *v)
{
	*v = 0;
	for (int sh = 0; sh < 70 && *p < end; sh += 7) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return true;
	}
	return false;
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
struct budget {
	ProtobufCAllocator a;
	uint64_t used, limit;
	bool over, failed; /* past the limit; malloc() failed */
};

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

static PbProfile *decode(const unsigned char *buf, size_t len, struct budget *b,
			 char *err, size_t errlen)
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

/* ---- validation ---- */

struct id_index {
	uint64_t id;
	size_t i;
};

struct rd {
	const PbProfile *pp;
	char *err;
	size_t errlen;
	size_t ci;		      /* which value is the count */
	struct id_index *maps, *locs; /* sorted by id */
	struct id_index *funcs;	      /* sorted by id; duplicates allowed */
	size_t nnamed;		      /* locations with a name (check_names) */
	size_t nrecords, npcs;
	uint64_t total;
	size_t *name_off; /* per string: offset in the names, or -1 */
	size_t names_len;
	bool processes; /* a sample has a process_id label */
	bool times;	/* a sample has a time label */
	/* address spaces (find_spaces()): of each mapping, each location */
	size_t *map_space, *loc_space;
	size_t *loc_map; /* location index -> mapping index, or -1 */
	size_t nspaces;
	size_t unmapped; /* the space of samples in no mapping, or -1 */
};

/* The labels ptprof reads from a sample: numbers, and strings as
 * indexes into the string table (-1: none). */
struct labels {
	int64_t tid, name, pid, pname;
	int64_t time; /* 0: none */
	bool has_pid;
};

static const char *str_at(const struct rd *rd, int64_t i)
{
	return rd->pp->string_table[i];
}

static int check_str(const struct rd *rd, int64_t i, const char *what,
		     uint64_t id)
{
	if (i >= 0 && (uint64_t)i < rd->pp->n_string_table)
		return 0;
	return BAD(rd,
		   "%s %" PRIu64 " names string %" PRId64
		   ", outside the string table (%zu strings)",
		   what, id, i, rd->pp->n_string_table);
}

static int check_types(struct rd *rd)
{
	const PbProfile *pp = rd->pp;
	size_t i, unit_count = SIZE_MAX;

	if (!pp->n_string_table || pp->string_table[0][0])
		return BAD(rd, "string_table[0] is not the empty string");
	if (!pp->n_sample_type)
		return BAD(rd, "no sample type");
	for (i = 0; i < pp->n_sample_type; i++) {
		int64_t t = pp->sample_type[i]->type,
			u = pp->sample_type[i]->unit;

		if (check_str(rd, t, "sample type", i) ||
		    check_str(rd, u, "sample type", i))
			return -1;
		if (!strcmp(str_at(rd, u), "count") && unit_count == SIZE_MAX)
			unit_count = i;
		if (!strcmp(str_at(rd, t), "samples") &&
		    !strcmp(str_at(rd, u), "count"))
			break;
	}
	if (i == pp->n_sample_type) /* no samples/count: another count */
		i = unit_count != SIZE_MAX ? unit_count : 0;
	rd->ci = i;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_index *)a)->id;
	uint64_t y = ((const struct id_index *)b)->id;

	return x < y ? -1 : x > y;
}

/* Sort the ids of n messages (ids[i] = id of message i); 0 or a repeat
 * is an error naming what. */
static int index_ids(struct rd *rd, struct id_index *ix, size_t n,
		     const char *what)
{
	qsort(ix, n, sizeof(*ix), cmp_id);
	for (size_t i = 0; i < n; i++) {
		if (!ix[i].id)
			return BAD(rd, "%s %zu has id 0", what, ix[i].i);
		if (i && ix[i].id == ix[i - 1].id)
			return BAD(rd, "two %ss have id %" PRIu64, what,
				   ix[i].id);
	}
	return 0;
}

static const struct id_index *find_id(const struct id_index *ix, size_t n,
				      uint64_t id)
{
	struct id_index key = { .id = id };

	return bsearch(&key, ix, n, sizeof(*ix), cmp_id);
}

static int check_mappings(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	rd->maps = calloc(pp->n_mapping ? pp->n_mapping : 1, sizeof(*rd->maps));
	if (!rd->maps)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_mapping; i++) {
		const PbMapping *m = pp->mapping[i];

		rd->maps[i].id = m->id;
		rd->maps[i].i = i;
		if (check_str(rd, m->filename, "mapping", m->id) ||
		    check_str(rd, m->build_id, "mapping", m->id))
			return -1;
		if (strchr(str_at(rd, m->filename), '\n'))
			return BAD(rd,
				   "mapping %" PRIu64
				   ": file name holds a newline",
				   m->id);
		if (m->memory_start > m->memory_limit)
			return BAD(rd,
				   "mapping %" PRIu64 ": start 0x%" PRIx64
				   " is above its limit 0x%" PRIx64,
				   m->id, m->memory_start, m->memory_limit);
	}
	return index_ids(rd, rd->maps, pp->n_mapping, "mapping");
}

/* Location id's entry: at once when ids are 1, 2, ... (as ptprof and
 * pprof write them), else by binary search. */
static const struct id_index *find_loc(const struct rd *rd, uint64_t id)
{
	size_t n = rd->pp->n_location;

	if (id && id <= n && rd->locs[id - 1].id == id)
		return &rd->locs[id - 1];
	return find_id(rd->locs, n, id);
}

static int check_locations(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	rd->locs = calloc(pp->n_location ? pp->n_location : 1,
			  sizeof(*rd->locs));
	if (!rd->locs)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_location; i++) {
		const PbLocation *l = pp->location[i];

		rd->locs[i].id = l->id;
		rd->locs[i].i = i;
		if (l->mapping_id &&
		    !find_id(rd->maps, pp->n_mapping, l->mapping_id))
			return BAD(rd,
				   "location %" PRIu64 " names mapping %" PRIu64
				   ", which does not exist",
				   l->id, l->mapping_id);
	}
	return index_ids(rd, rd->locs, pp->n_location, "location");
}

/* A "time" label's value in ns, or 0: a number label in nanoseconds
 * (num_unit "nanoseconds", or none, as the writer's default), any int64
 * (profile.h); a string, or another unit, is no time. */
static int64_t label_time(const struct rd *rd,
			  const Perftools__Profiles__Label *l)
{
	if (l->str)
		return 0;
	if (l->num_unit && strcmp(str_at(rd, l->num_unit), "nanoseconds"))
		return 0;
	return l->num;
}

/* The thread, process and time labels of sample i. */
static int sample_labels(const struct rd *rd, size_t i, struct labels *lb)
{
	const PbSample *s = rd->pp->sample[i];

	*lb = (struct labels){ .name = -1, .pname = -1 };
	for (size_t k = 0; k < s->n_label; k++) {
		const Perftools__Profiles__Label *l = s->label[k];
		const char *key;

		if (check_str(rd, l->key, "a label of sample", i) ||
		    check_str(rd, l->str, "a label of sample", i) ||
		    check_str(rd, l->num_unit, "a label of sample", i))
			return -1;
		key = str_at(rd, l->key);
		if (!strcmp(key, "thread_id"))
			lb->tid = l->num;
		else if (!strcmp(key, "thread_name"))
			lb->name = l->str;
		else if (!strcmp(key, "process_id")) {
			lb->pid = l->num;
			lb->has_pid = true;
		} else if (!strcmp(key, "process_name"))
			lb->pname = l->str;
		else if (!strcmp(key, "time"))
			lb->time = label_time(rd, l);
	}
	return 0;
}

/* String i goes into the names block (once). */
static void keep_string(struct rd *rd, int64_t i)
{
	if (i > 0 && rd->name_off[i] == SIZE_MAX) {
		rd->name_off[i] = rd->names_len;
		rd->names_len += strlen(str_at(rd, i)) + 1;
	}
}

static int check_sample(struct rd *rd, size_t i)
{
	const PbSample *s = rd->pp->sample[i];
	struct labels lb;
	int64_t count;

	if (s->n_value != rd->pp->n_sample_type)
		return BAD(rd, "sample %zu has %zu values for %zu sample types",
			   i, s->n_value, rd->pp->n_sample_type);
	count = s->value[rd->ci];
	if (count < 0)
		return BAD(rd, "sample %zu has a negative count %" PRId64, i,
			   count);
	if (sample_labels(rd, i, &lb))
		return -1;
	if (!count)
		return 0;
	if (!s->n_location_id)
		return BAD(rd, "sample %zu has no location", i);
	if (s->n_location_id > PROFILE_MAX_PCS)
		return BAD(rd, "sample %zu has %zu locations, more than %d", i,
			   s->n_location_id, PROFILE_MAX_PCS);
	for (size_t k = 0; k < s->n_location_id; k++)
		if (!find_loc(rd, s->location_id[k]))
			return BAD(rd,
				   "sample %zu names location %" PRIu64
				   ", which does not exist",
				   i, s->location_id[k]);
	if ((uint64_t)count > UINT64_MAX - rd->total)
		return BAD(rd, "sample %zu: the sample counts overflow 64 bits",
			   i);
	rd->total += (uint64_t)count;
	rd->nrecords++;
	rd->npcs += s->n_location_id;
	rd->processes |= lb.has_pid;
	rd->times |= lb.time != 0;
	keep_string(rd, lb.name);
	keep_string(rd, lb.pname);
	return 0;
}

static int check_samples(struct rd *rd)
{
	size_t n = rd->pp->n_string_table;

	rd->name_off = malloc(n * sizeof(*rd->name_off));
	if (!rd->name_off)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	memset(rd->name_off, 0xff, n * sizeof(*rd->name_off));
	for (size_t i = 0; i < rd->pp->n_sample; i++)
		if (check_sample(rd, i))
			return -1;
	return 0;
}

/* The function of Line k of location l, or NULL when none has its id. */
static const PbFunction *line_func(const struct rd *rd, const PbLocation *l,
				   size_t k)
{
	const struct id_index *f;

	if (k >= l->n_line || !rd->funcs)
		return NULL;
	f = find_id(rd->funcs, rd->pp->n_function, l->line[k]->function_id);
	return f ? rd->pp->function[f->i] : NULL;
}

/* String s when it is in the table and not empty, else -1. */
static int64_t some_str(const struct rd *rd, int64_t s)
{
	return s > 0 && (uint64_t)s < rd->pp->n_string_table &&
			       str_at(rd, s)[0] ?
		       s :
		       -1;
}

/* The string index of the name the file gives location l, or -1: the
 * function of its last Line (the others were inlined into it). */
static int64_t loc_name(const struct rd *rd, const PbLocation *l)
{
	const PbFunction *f = l->n_line ? line_func(rd, l, l->n_line - 1) :
					  NULL;

	return f ? some_str(rd, f->name) : -1;
}

/*
 * The string index of the source file the file gives location l, or -1,
 * and its line into *line: those of its first Line, the leaf-most of an
 * inlined chain (the one the DWARF line table gives for the address, as
 * a legacy profile's --lines shows beside the outer function's name).
 * A Line whose function does not exist or has no file name, or whose
 * line is not in 1..PROFILE_MAX_LINE (0 is pprof's "unknown"), gives
 * none: the location keeps its name alone.
 */
static int64_t loc_file(const struct rd *rd, const PbLocation *l,
			unsigned *line)
{
	const PbFunction *f = line_func(rd, l, 0);
	int64_t s = f ? some_str(rd, f->filename) : -1;

	*line = 0;
	if (s < 0 || l->line[0]->line <= 0 ||
	    l->line[0]->line > PROFILE_MAX_LINE)
		return -1;
	*line = (unsigned)l->line[0]->line;
	return s;
}

/* The start line the file gives the function of location l's first
 * Line (the one loc_file() takes the file of), or 0: none, or not in
 * 1..PROFILE_MAX_LINE. */
static unsigned loc_start_line(const struct rd *rd, const PbLocation *l)
{
	const PbFunction *f = line_func(rd, l, 0);

	if (!f || f->start_line <= 0 || f->start_line > PROFILE_MAX_LINE)
		return 0;
	return (unsigned)f->start_line;
}

/*
 * The names the file gives its locations, kept for report to show where
 * no file it can trust names an address (a Go binary has no GNU build ID
 * to check its file against).  Only a help: a function that does not
 * exist or has no name leaves its location unnamed, never refuses the
 * file.  Marks the strings for build_records() to copy.
 */
static int check_names(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	if (!pp->n_function || !pp->n_location)
		return 0;
	rd->funcs = malloc(pp->n_function * sizeof(*rd->funcs));
	if (!rd->funcs)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_function; i++)
		rd->funcs[i] = (struct id_index){ pp->function[i]->id, i };
	qsort(rd->funcs, pp->n_function, sizeof(*rd->funcs), cmp_id);
	for (size_t i = 0; i < pp->n_location; i++) {
		int64_t s = loc_name(rd, pp->location[i]);
		unsigned line;

		if (s < 0)
			continue;
		rd->nnamed++;
		keep_string(rd, s);
		keep_string(rd, loc_file(rd, pp->location[i], &line));
	}
	return 0;
}

/* ---- address spaces ---- */

/*
 * Which mappings share an address space.  A writer of several processes
 * (ptprof: one per image) gives each its own mappings, and a sample's
 * locations are in its own process's mappings only; so the mappings the
 * samples link (one sample's locations) are one group, found with a
 * union-find.  Groups whose mappings do not overlap (but for equal ones)
 * are then put in one space (join_groups()): the report reads each
 * space's files once, and most processes share a few spaces, since
 * address space randomisation puts their mappings apart; two groups that
 * map different files at one address (two non-PIE programs) never share
 * one, so each address is named from its own mapping.  Another tool's
 * profile, of one process, is one space.
 */

static size_t uf_root(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* The mapping index of location id, or SIZE_MAX when it has none. */
static size_t loc_mapping(const struct rd *rd, uint64_t loc_id, size_t *li)
{
	const struct id_index *l = find_loc(rd, loc_id);

	*li = l ? l->i : 0; /* check_sample() found it */
	return l ? rd->loc_map[l->i] : SIZE_MAX;
}

/* Each location's mapping index (SIZE_MAX: none), for loc_mapping(). */
static void map_locations(struct rd *rd)
{
	for (size_t i = 0; i < rd->pp->n_location; i++) {
		uint64_t id = rd->pp->location[i]->mapping_id;
		const struct id_index *m = id ? find_id(rd->maps,
							rd->pp->n_mapping, id) :
						NULL;

		rd->loc_map[i] = m ? m->i : SIZE_MAX;
	}
}

/* The first mapping sample i's locations are in, or SIZE_MAX. */
static size_t sample_mapping(const struct rd *rd, size_t i)
{
	const PbSample *s = rd->pp->sample[i];
	size_t li, m = SIZE_MAX;

	for (size_t k = 0; k < s->n_location_id && m == SIZE_MAX; k++)
		m = loc_mapping(rd, s->location_id[k], &li);
	return m;
}

static void link_mappings(const struct rd *rd, size_t *up)
{
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		size_t first = sample_mapping(rd, i), li;

		if (!s->value[rd->ci] || first == SIZE_MAX)
			continue;
		for (size_t k = 0; k < s->n_location_id; k++) {
			size_t m = loc_mapping(rd, s->location_id[k], &li);

			if (m != SIZE_MAX)
				up[uf_root(up, m)] = uf_root(up, first);
		}
	}
}

/* Steps join_groups() may take (a space tried, an interval compared or
 * moved): past them, the groups left get a space each (more spaces,
 * names still right), so a hostile file of a million mappings cannot
 * make it quadratic. */
#define JOIN_BUDGET (1UL << 25)

/* A space being filled: its mappings' ranges, sorted and disjoint. */
struct jspace {
	size_t *v; /* mapping indexes, by memory_start */
	size_t n, cap;
};

/* The union-find and what join_groups() needs of each group (by root). */
struct groups {
	const struct rd *rd;
	size_t *up;    /* mapping -> its group's root */
	bool *sampled; /* root -> some sample is in it */
	size_t *space; /* root -> its space */
	size_t *order; /* mappings by group, by start within one */
	size_t *first; /* root -> its mappings: order[first..] */
	size_t *count;
	struct jspace *sp; /* the spaces made */
	size_t nsp, capsp;
	size_t budget;
};

static const PbMapping *jmap(const struct groups *g, size_t m)
{
	return g->rd->pp->mapping[m];
}

static bool same_str(const struct rd *rd, int64_t a, int64_t b)
{
	return a == b || !strcmp(str_at(rd, a), str_at(rd, b));
}

/* The same file at the same place (two runs of one non-PIE program). */
static bool same_mapping(const struct rd *rd, const PbMapping *x,
			 const PbMapping *y)
{
	return x->memory_start == y->memory_start &&
	       x->memory_limit == y->memory_limit &&
	       x->file_offset == y->file_offset &&
	       same_str(rd, x->filename, y->filename) &&
	       same_str(rd, x->build_id, y->build_id);
}

/* Mappings a and b may be in one space: they do not overlap, or are the
 * same mapping. */
static bool compatible(const struct groups *g, size_t a, size_t b)
{
	const PbMapping *x = jmap(g, a), *y = jmap(g, b);

	if (x->memory_start >= y->memory_limit ||
	    y->memory_start >= x->memory_limit)
		return true;
	return same_mapping(g->rd, x, y);
}

static const struct groups *sort_groups_;

static int cmp_member(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint64_t x = jmap(sort_groups_, a)->memory_start;
	uint64_t y = jmap(sort_groups_, b)->memory_start;

	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Each group's mappings together, by start (order, first, count). */
static void sort_groups(struct groups *g)
{
	size_t n = g->rd->pp->n_mapping, at = 0;

	for (size_t i = 0; i < n; i++)
		g->count[g->up[i]]++;
	for (size_t i = 0; i < n; i++)
		if (g->up[i] == i) {
			g->first[i] = at;
			at += g->count[i];
			g->count[i] = 0;
		}
	for (size_t i = 0; i < n; i++) {
		size_t r = g->up[i];

		g->order[g->first[r] + g->count[r]++] = i;
	}
	sort_groups_ = g;
	for (size_t i = 0; i < n; i++)
		if (g->up[i] == i && g->sampled[i])
			qsort(g->order + g->first[i], g->count[i],
			      sizeof(*g->order), cmp_member);
	sort_groups_ = NULL;
}

/* Where mapping m would go in space s: the first of its ranges that
 * starts at or after m's limit. */
static size_t jspace_pos(const struct groups *g, const struct jspace *s,
			 size_t m)
{
	size_t lo = 0, hi = s->n;
	uint64_t limit = jmap(g, m)->memory_limit;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (jmap(g, s->v[mid])->memory_start < limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether mapping m conflicts with space s: the range before its place
 * is the only one that may overlap it (the ranges are disjoint). */
static bool jspace_conflicts(const struct groups *g, const struct jspace *s,
			     size_t m)
{
	size_t pos = jspace_pos(g, s, m);

	return pos && !compatible(g, s->v[pos - 1], m);
}

/* Group r fits space s: none of its mappings conflicts. */
static bool group_fits(struct groups *g, size_t r, const struct jspace *s)
{
	for (size_t i = 0; i < g->count[r]; i++) {
		if (!g->budget)
			return false;
		g->budget--;
		if (jspace_conflicts(g, s, g->order[g->first[r] + i]))
			return false;
	}
	return true;
}

/* A group whose own mappings conflict (a library unloaded and another
 * loaded at its place) can share no space: it gets one of its own. */
static bool group_alone(const struct groups *g, size_t r)
{
	for (size_t i = 1; i < g->count[r]; i++)
		if (!compatible(g, g->order[g->first[r] + i - 1],
				g->order[g->first[r] + i]))
			return true;
	return false;
}

/* Add group r's mappings to space s (one of equal ones). */
static int jspace_add(struct groups *g, size_t r, struct jspace *s)
{
	for (size_t i = 0; i < g->count[r]; i++) {
		size_t m = g->order[g->first[r] + i], pos = jspace_pos(g, s, m);
		size_t *nv;

		if (pos && jmap(g, s->v[pos - 1])->memory_limit >
				   jmap(g, m)->memory_start)
			continue; /* the same mapping: there already */
		nv = grow_array(s->v, &s->cap, s->n + 1, sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		memmove(s->v + pos + 1, s->v + pos,
			(s->n - pos) * sizeof(*s->v));
		g->budget -= s->n - pos < g->budget ? s->n - pos : g->budget;
		s->v[pos] = m;
		s->n++;
	}
	return 0;
}

/* A new space for group r (its ranges kept only while the budget lasts:
 * after it, no group joins another). */
static int new_space(struct groups *g, size_t r, bool alone)
{
	struct jspace *ns = grow_array(g->sp, &g->capsp, g->nsp + 1,
				       sizeof(*ns));

	if (!ns)
		return -1;
	g->sp = ns;
	g->sp[g->nsp] = (struct jspace){ .v = NULL };
	g->space[r] = g->nsp++;
	return alone || !g->budget ? 0 : jspace_add(g, r, &g->sp[g->space[r]]);
}

/*
 * Put each sampled group in the first space it fits (no mapping of it
 * overlaps another there, but the same one), else in a new one: so the
 * processes of a file share a few spaces, each of whose files the report
 * reads once, and each address is still named from its own mapping.
 * Groups are taken in mapping order, so the spaces are numbered so too.
 */
static int join_groups(struct groups *g)
{
	size_t n = g->rd->pp->n_mapping;

	for (size_t r = 0; r < n; r++) {
		bool alone;
		size_t k;

		if (g->up[r] != r || !g->sampled[r])
			continue;
		alone = group_alone(g, r);
		for (k = 0; !alone && k < g->nsp && g->budget; k++) {
			g->budget--;
			if (g->sp[k].v && group_fits(g, r, &g->sp[k]))
				break;
		}
		if (!alone && k < g->nsp && g->budget) {
			g->space[r] = k;
			if (jspace_add(g, r, &g->sp[k]))
				return -1;
		} else if (new_space(g, r, alone)) {
			return -1;
		}
	}
	return 0;
}

/* rd->map_space from the groups' spaces; the mappings of no sample are
 * in none (SIZE_MAX): no record needs them. */
static void number_spaces(struct rd *rd, const struct groups *g)
{
	for (size_t i = 0; i < rd->pp->n_mapping; i++) {
		size_t r = g->up[i];

		rd->map_space[i] = g->sampled[r] ? g->space[r] : SIZE_MAX;
	}
	rd->nspaces = g->nsp;
}

/* The space of sample i: its first mapping's; a sample in no mapping
 * is in a space of its own, with no lines (rd->nspaces, made then). */
static size_t sample_space(struct rd *rd, size_t i)
{
	size_t m = sample_mapping(rd, i);

	if (m != SIZE_MAX)
		return rd->map_space[m];
	if (rd->unmapped == SIZE_MAX)
		rd->unmapped = rd->nspaces++;
	return rd->unmapped;
}

/* Each location's space: its mapping's, else that of the first sample
 * it is in (else 0).  Makes the space of the samples in no mapping. */
static void locate_spaces(struct rd *rd)
{
	size_t li, unmapped = 0;

	rd->unmapped = SIZE_MAX;
	for (size_t i = 0; i < rd->pp->n_location; i++) {
		size_t m = rd->loc_map[i];

		rd->loc_space[i] = m != SIZE_MAX ? rd->map_space[m] : SIZE_MAX;
		unmapped += m == SIZE_MAX;
	}
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		size_t sp;

		if (!s->value[rd->ci])
			continue;
		sp = sample_space(rd, i);
		for (size_t k = 0; unmapped && k < s->n_location_id; k++)
			if (loc_mapping(rd, s->location_id[k], &li) ==
				    SIZE_MAX &&
			    rd->loc_space[li] == SIZE_MAX)
				rd->loc_space[li] = sp;
	}
	for (size_t i = 0; i < rd->pp->n_location; i++)
		if (rd->loc_space[i] == SIZE_MAX)
			rd->loc_space[i] = 0; /* in no sample */
}

static void free_groups(struct groups *g)
{
	for (size_t i = 0; g->sp && i < g->nsp; i++)
		free(g->sp[i].v);
	free(g->sp);
	free(g->up);
	free(g->sampled);
	free(g->space);
	free(g->order);
	free(g->first);
	free(g->count);
}

static int alloc_groups(struct rd *rd, struct groups *g)
{
	size_t n = rd->pp->n_mapping ? rd->pp->n_mapping : 1;
	size_t nl = rd->pp->n_location ? rd->pp->n_location : 1;

	*g = (struct groups){ .rd = rd, .budget = JOIN_BUDGET };
	g->up = malloc(n * sizeof(*g->up));
	g->sampled = calloc(n, sizeof(*g->sampled));
	g->space = malloc(n * sizeof(*g->space));
	g->order = malloc(n * sizeof(*g->order));
	g->first = calloc(n, sizeof(*g->first));
	g->count = calloc(n, sizeof(*g->count));
	rd->map_space = malloc(n * sizeof(*rd->map_space));
	rd->loc_space = malloc(nl * sizeof(*rd->loc_space));
	rd->loc_map = malloc(nl * sizeof(*rd->loc_map));
	if (g->up && g->sampled && g->space && g->order && g->first &&
	    g->count && rd->map_space && rd->loc_space && rd->loc_map)
		return 0;
	free_groups(g);
	return errbuf_fail(rd->err, rd->errlen, ENOMEM, "out of memory");
}

static int find_spaces(struct rd *rd)
{
	struct groups g;
	int rc;

	if (alloc_groups(rd, &g))
		return -1;
	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		g.up[i] = i;
	map_locations(rd);
	link_mappings(rd, g.up);
	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		g.up[i] = uf_root(g.up, i);
	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		size_t m = rd->pp->sample[i]->value[rd->ci] ?
				   sample_mapping(rd, i) :
				   SIZE_MAX;

		if (m != SIZE_MAX)
			g.sampled[g.up[m]] = true;
	}
	sort_groups(&g);
	rc = join_groups(&g);
	if (!rc) {
		number_spaces(rd, &g);
		locate_spaces(rd);
	}
	free_groups(&g);
	return rc ? errbuf_fail(rd->err, rd->errlen, ENOMEM, "out of memory") :
		    0;
}

/* ---- building the struct profile ---- */

/* PC k of a record: its location's address, plus 1 for a caller.  The
 * location was found by check_sample(). */
static uint64_t pc_of(const struct rd *rd, uint64_t loc_id, size_t k)
{
	const struct id_index *ix = find_loc(rd, loc_id);
	uint64_t a = ix ? rd->pp->location[ix->i]->address : 0;

	return k ? a + 1 : a;
}

static void build_records(const struct rd *rd, struct profile *out,
			  uint64_t *pcs, char *names)
{
	size_t r = 0;

	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		struct profile_record *rec = &out->records[r];
		struct labels lb;

		if (!s->value[rd->ci])
			continue;
		sample_labels(rd, i, &lb);
		rec->count = (uint64_t)s->value[rd->ci];
		rec->npcs = s->n_location_id;
		rec->pcs = pcs;
		for (size_t k = 0; k < s->n_location_id; k++)
			pcs[k] = pc_of(rd, s->location_id[k], k);
		pcs += s->n_location_id;
		rec->tid = lb.tid;
		if (lb.name > 0)
			rec->thread = names + rd->name_off[lb.name];
		rec->pid = lb.pid;
		if (lb.pname > 0)
			rec->process = names + rd->name_off[lb.pname];
		rec->time_ns = lb.time;
		rec->space = sample_space((struct rd *)rd, i); /* made */
		r++;
	}
	for (size_t i = 0; i < rd->pp->n_string_table; i++)
		if (rd->name_off[i] != SIZE_MAX)
			strcpy(names + rd->name_off[i], str_at(rd, (int64_t)i));
}

/*
 * The build ID of mapping m on a line of pprof's brief form before its
 * maps line, as the legacy format carries it (maps.h): what the
 * symbolizer checks a file against before it trusts its symbols
 * (symbolize.h).  Only a build ID of 2 to 128 hex digits; else nothing.
 * A path with a space is written too, unlike maps_write()'s: this text
 * never leaves ptprof, and the symbolizer reads a brief line from its
 * ends (the start address, and the ID after the last space), so the
 * space that would mislead google-pprof cannot mislead it.  A pprof
 * mapping has no inode, so without this line the file of such a path
 * could not be checked, and would never be trusted for symbols.
 */
static int write_brief(const struct rd *rd, const PbMapping *m, FILE *f)
{
	const char *id = str_at(rd, m->build_id);
	const char *path = str_at(rd, m->filename);
	size_t n = strspn(id, "0123456789abcdefABCDEF");

	if (n < 2 || n > 128 || id[n] || path[0] != '/')
		return 0;
	return fprintf(f, "%" PRIx64 "-%" PRIx64 " r-xp %s (@%" PRIx64 ") %s\n",
		       m->memory_start, m->memory_limit, path, m->file_offset,
		       id);
}

/* A mapping in its space, to sort them by space, then address. */
struct spaced {
	size_t space;
	const PbMapping *m;
};

static int cmp_spaced(const void *a, const void *b)
{
	const struct spaced *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->m->memory_start < y->m->memory_start ?
		       -1 :
		       x->m->memory_start > y->m->memory_start;
}

/* One mapping as a /proc/PID/maps line (its build ID's line before). */
static int write_mapping(const struct rd *rd, const PbMapping *m, FILE *f)
{
	int rc = write_brief(rd, m, f);

	if (rc >= 0)
		rc = fprintf(f,
			     "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64
			     " 00:00 0 %s\n",
			     m->memory_start, m->memory_limit, m->file_offset,
			     str_at(rd, m->filename));
	return rc < 0 ? -1 : 0;
}

/* The sampled mappings, space after space, each space's in address
 * order, equal ones once (two processes', join_groups()); v has room
 * for all; out->spaces says where each space's lines are. */
static int write_spaces(const struct rd *rd, struct spaced *v,
			struct profile *out, FILE *f)
{
	size_t n = 0;

	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		if (rd->map_space[i] != SIZE_MAX)
			v[n++] = (struct spaced){ rd->map_space[i],
						  rd->pp->mapping[i] };
	qsort(v, n, sizeof(*v), cmp_spaced);
	for (size_t i = 0; i < n; i++) {
		struct profile_space *ps = &out->spaces[v[i].space];
		bool again = i && v[i - 1].space == v[i].space;

		if (!again)
			ps->off = (size_t)ftell(f);
		if (again && same_mapping(rd, v[i - 1].m, v[i].m))
			continue;
		if (write_mapping(rd, v[i].m, f))
			return -1;
		ps->len = (size_t)ftell(f) - ps->off;
	}
	return 0;
}

/* The maps text, and where each space's lines are. */
static int build_maps(const struct rd *rd, struct profile *out)
{
	size_t n = rd->pp->n_mapping, len = 0;
	struct spaced *v = malloc((n ? n : 1) * sizeof(*v));
	FILE *f = open_memstream(&out->maps_text, &len);
	int rc;

	out->nspaces = rd->nspaces ? rd->nspaces : 1;
	out->spaces = calloc(out->nspaces, sizeof(*out->spaces));
	if (!v || !f || !out->spaces) {
		free(v);
		if (f)
			fclose(f);
		return -1;
	}
	rc = write_spaces(rd, v, out, f);
	free(v);
	if (fclose(f) || rc)
		return -1;
	out->maps_len = len;
	return 0;
}

static int build(const struct rd *rd, struct profile *out)
{
	size_t pcs_bytes = rd->npcs * sizeof(uint64_t);
	unsigned char *st = malloc(pcs_bytes + rd->names_len + 1);

	out->storage_ = st;
	out->records = calloc(rd->nrecords ? rd->nrecords : 1,
			      sizeof(*out->records));
	if (!st || !out->records || build_maps(rd, out))
		return -1;
	build_records(rd, out, (uint64_t *)(void *)st, (char *)st + pcs_bytes);
	if (rd->nnamed) {
		const char *names = (const char *)st + pcs_bytes;

		out->names = malloc(rd->nnamed * sizeof(*out->names));
		if (!out->names)
			return -1;
		for (size_t i = 0; i < rd->pp->n_location; i++) {
			const PbLocation *l = rd->pp->location[i];
			int64_t k = loc_name(rd, l), fk;
			unsigned line;

			if (k < 0)
				continue;
			fk = loc_file(rd, l, &line);
			out->names[out->nnames++] = (struct profile_name){
				rd->loc_space[i],
				l->address,
				names + rd->name_off[k],
				fk >= 0 ? names + rd->name_off[fk] : NULL,
				line,
				fk >= 0 ? loc_start_line(rd, l) : 0
			};
		}
		qsort(out->names, out->nnames, sizeof(*out->names),
		      profile_name_cmp);
	}
	out->nrecords = rd->nrecords;
	out->total_samples = rd->total;
	out->threads = true; /* the format has them, if only as labels */
	out->processes = rd->processes;
	out->times = rd->times;
	out->time_nanos = rd->pp->time_nanos;
	out->duration_nanos = rd->pp->duration_nanos;
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

	if (!check_types(&rd) && !check_mappings(&rd) &&
	    !check_locations(&rd) && !check_samples(&rd) && !check_names(&rd) &&
	    !find_spaces(&rd)) {
		rc = build(&rd, out);
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
	pp = decode(d, len, &b, err, errlen);
	free(raw.buf);
	if (!pp)
		return -1;
	rc = convert(pp, out, err, errlen);
	e = errno;
	perftools__profiles__profile__free_unpacked(pp, &b.a);
	errno = e;
	return rc;
}
