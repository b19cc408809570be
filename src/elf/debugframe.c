/*
 * debugframe.c - .debug_frame -> an .eh_frame-style image (see
 * debugframe.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "elf/debugframe.h"
#include "elf/ehframe.h"
#include "util/errbuf.h"
#include "util/grow.h"
#include "util/leb128.h"

#define DW_EH_PE_udata8 0x04
#define CIE_VERSION_OUT 3
/* libunwind 1.6 keeps DWARF_NUM_PRESERVED_REGS (17 on x86-64) register
 * locations and indexes them with the CIE's return address column
 * unchecked (Gparser.c): a larger column reads past the array. */
#define RA_COLUMN_MAX 16
/* A table entry: two int32. */
#define ENTRY_SIZE 8

/* A cursor over hostile bytes: reads past the end set bad and give 0. */
struct rd {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || n > r->len - r->pos) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->pos + i] << (8 * i);
	r->pos += n;
	return v;
}

/* A LEB128's low 64 bits; sign-extended when `sign` (SLEB128). */
static uint64_t rd_leb(struct rd *r, bool sign)
{
	uint64_t v;
	int64_t s;

	if (r->bad ||
	    (sign ? leb128_read_s64(r->p, r->len, &r->pos, 0, &s) :
		    leb128_read_u64(r->p, r->len, &r->pos, 0, &v)) < 0) {
		r->bad = true;
		return 0;
	}
	return sign ? (uint64_t)s : v;
}

/* A growing buffer of at most max bytes: a write past it sets bad. */
struct wr {
	uint8_t *p;
	size_t len, cap, max;
	bool bad, full; /* full: bad for want of room under max */
};

static void wr_bytes(struct wr *w, const void *b, size_t n)
{
	uint8_t *np;

	if (!w->bad && n > w->max - w->len)
		w->full = true;
	if (w->bad || w->full) {
		w->bad = true;
		return;
	}
	np = grow_array(w->p, &w->cap, w->len + n, 1);
	if (!np) {
		w->bad = true;
		return;
	}
	w->p = np;
	if (n)
		memcpy(w->p + w->len, b, n);
	w->len += n;
}

static void wr_fixed(struct wr *w, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	wr_bytes(w, b, n);
}

static void wr_uleb(struct wr *w, uint64_t v)
{
	uint8_t b[LEB128_MAX_BYTES];

	wr_bytes(w, b, leb128_put_u64(b, v));
}

static void wr_sleb(struct wr *w, int64_t v)
{
	uint8_t b[LEB128_MAX_BYTES];

	wr_bytes(w, b, leb128_put_s64(b, v));
}

/* Overwrite the 4 bytes at off (written before) with v. */
static void wr_patch32(struct wr *w, size_t off, uint32_t v)
{
	if (w->bad)
		return;
	for (size_t i = 0; i < 4; i++)
		w->p[off + i] = (uint8_t)(v >> (8 * i));
}

int debugframe_find(const Elf64_Shdr *sh, size_t n, const char *strtab,
		    size_t slen)
{
	static const char name[] = ".debug_frame";

	for (size_t i = 0; i < n && i < INT32_MAX; i++)
		if (sh[i].sh_name < slen &&
		    slen - sh[i].sh_name >= sizeof(name) &&
		    !memcmp(strtab + sh[i].sh_name, name, sizeof(name)) &&
		    sh[i].sh_type != SHT_NOBITS && sh[i].sh_size > 0)
			return (int)i;
	return -1;
}

/* The SHF_COMPRESSED section sec[0, len) inflated into a new buffer of
 * *out_len bytes; NULL with errno (and err) if it cannot be. */
static uint8_t *inflate_section(const uint8_t *sec, size_t len, size_t max,
				size_t *out_len, char *err, size_t errlen)
{
	z_stream zs;
	Elf64_Chdr ch;
	uint8_t *buf;
	int rc;

	if (len < sizeof(ch) || len - sizeof(ch) > UINT32_MAX) {
		errbuf_set(err, errlen, "compressed section of %zu bytes", len);
		errno = EINVAL;
		return NULL;
	}
	memcpy(&ch, sec, sizeof(ch));
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size == 0) {
		errbuf_set(err, errlen,
			   "compression type %u, size %llu: not zlib",
			   ch.ch_type, (unsigned long long)ch.ch_size);
		errno = EINVAL;
		return NULL;
	}
	if (ch.ch_size > max || ch.ch_size > UINT32_MAX) {
		errbuf_set(err, errlen, "inflates to %llu bytes, more than %zu",
			   (unsigned long long)ch.ch_size, max);
		errno = EFBIG;
		return NULL;
	}
	if (!(buf = malloc(ch.ch_size)))
		return NULL;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	zs.next_in = (Bytef *)(uintptr_t)(sec + sizeof(ch));
	zs.avail_in = (uInt)(len - sizeof(ch));
	zs.next_out = buf;
	zs.avail_out = (uInt)ch.ch_size;
	rc = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (rc != Z_STREAM_END || zs.total_out != ch.ch_size) {
		errbuf_set(err, errlen,
			   "the zlib stream is corrupt or not the %llu bytes its "
			   "header says",
			   (unsigned long long)ch.ch_size);
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	*out_len = (size_t)ch.ch_size;
	return buf;
}

/* One entry (CIE or FDE) of the section: [start, end), its fields from
 * body (after the length and the id) to end. */
struct entry {
	size_t start, body, end;
	uint64_t id;
	bool cie, empty;
};

/* The entry at *pos; 1 (and *pos past it), 0 at the end, -1 when the
 * rest cannot be walked (a length past the end, a reserved length). */
static int next_entry(const uint8_t *s, size_t len, size_t *pos,
		      struct entry *e)
{
	struct rd r = { s, len, *pos, false };
	uint64_t n;
	size_t idsz = 4;

	if (len - *pos < 4)
		return 0;
	memset(e, 0, sizeof(*e));
	e->start = *pos;
	n = rd_fixed(&r, 4);
	if (n >= 0xfffffff0 && n != 0xffffffff)
		return -1;
	if (n == 0xffffffff) { /* 64-bit DWARF */
		n = rd_fixed(&r, 8);
		idsz = 8;
	}
	if (r.bad || n > len - r.pos)
		return -1;
	e->end = r.pos + (size_t)n;
	*pos = e->end;
	if (n < idsz) { /* a zero terminator or padding; or too short */
		e->empty = true;
		return 1;
	}
	e->id = rd_fixed(&r, idsz);
	e->cie = idsz == 4 ? e->id == 0xffffffff : e->id == UINT64_MAX;
	e->body = r.pos;
	return 1;
}

/* A CIE of the section that converted: where it is in the output.  Only
 * those are kept: each one put at least 17 bytes in the output (bounded
 * by max), where a malformed one costs as little as 8 bytes of input. */
struct cie {
	size_t start; /* section offset of the CIE */
	size_t out;   /* its offset in the output's CIEs and FDEs */
};

/* Convert the CIE e of s into w; false if it is malformed. */
static bool convert_cie(const uint8_t *s, const struct entry *e, struct wr *w,
			size_t *out)
{
	struct rd r = { s, e->end, e->body, false };
	uint64_t code_align, ra;
	int64_t data_align;
	uint8_t version;
	size_t at;

	version = (uint8_t)rd_fixed(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return false;
	if (rd_fixed(&r, 1) != 0) /* an augmentation: .debug_frame has none */
		return false;
	if (version == 4 && (rd_fixed(&r, 1) != 8 || rd_fixed(&r, 1) != 0))
		return false; /* address_size 8, segment_size 0 */
	code_align = rd_leb(&r, false);
	data_align = (int64_t)rd_leb(&r, true);
	ra = version == 1 ? rd_fixed(&r, 1) : rd_leb(&r, false);
	if (r.bad || ra > RA_COLUMN_MAX ||
	    ehframe_check_cfi(s + r.pos, e->end - r.pos, DW_EH_PE_udata8))
		return false;
	at = w->len;
	wr_fixed(w, 0, 4); /* length, patched below */
	wr_fixed(w, 0, 4); /* CIE id of .eh_frame */
	wr_fixed(w, CIE_VERSION_OUT, 1);
	wr_bytes(w, "zR", 3);
	wr_uleb(w, code_align);
	wr_sleb(w, data_align);
	wr_uleb(w, ra);
	wr_uleb(w, 1); /* augmentation data: */
	wr_fixed(w, DW_EH_PE_udata8, 1);
	wr_bytes(w, s + r.pos, e->end - r.pos);
	wr_patch32(w, at, (uint32_t)(w->len - at - 4));
	*out = at;
	return !w->bad;
}

/* The converted CIE at section offset off, or NULL. */
static const struct cie *find_cie(const struct cie *cies, size_t n,
				  uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].start < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && cies[lo].start == off ? &cies[lo] : NULL;
}

/* A table entry while building: the FDE's pc - lo, its output offset. */
struct fde_ref {
	uint32_t pc, out;
};

struct build {
	const uint8_t *s;
	size_t len;
	uint64_t lo, hi_max, hi;
	struct cie *cies;
	size_t ncies, cap_cies;
	struct fde_ref *fdes;
	size_t nfdes, cap_fdes;
	struct wr w;
	size_t skipped;
};

/* Convert the FDE e into b->w and the table; false if malformed. */
static bool convert_fde(struct build *b, const struct entry *e)
{
	struct rd r = { b->s, e->end, e->body, false };
	const struct cie *cie = find_cie(b->cies, b->ncies, e->id);
	uint64_t pc, range;
	struct fde_ref *f;
	size_t at;

	pc = rd_fixed(&r, 8);
	range = rd_fixed(&r, 8);
	if (!cie || r.bad || range == 0 || pc < b->lo || pc >= b->hi_max ||
	    range > b->hi_max - pc || pc + range - b->lo > INT32_MAX ||
	    ehframe_check_cfi(b->s + r.pos, e->end - r.pos, DW_EH_PE_udata8))
		return false;
	f = grow_array(b->fdes, &b->cap_fdes, b->nfdes + 1, sizeof(*f));
	if (!f) {
		b->w.bad = true;
		return false;
	}
	b->fdes = f;
	at = b->w.len;
	wr_fixed(&b->w, 0, 4);		       /* length, patched */
	wr_fixed(&b->w, at + 4 - cie->out, 4); /* back to the CIE */
	wr_fixed(&b->w, pc, 8);		       /* udata8, absolute */
	wr_fixed(&b->w, range, 8);
	wr_uleb(&b->w, 0); /* augmentation data */
	wr_bytes(&b->w, b->s + r.pos, e->end - r.pos);
	wr_patch32(&b->w, at, (uint32_t)(b->w.len - at - 4));
	if (b->w.bad || b->w.len > INT32_MAX)
		return false;
	f[b->nfdes++] = (struct fde_ref){ (uint32_t)(pc - b->lo),
					  (uint32_t)at };
	if (pc + range > b->hi)
		b->hi = pc + range;
	return true;
}

/* Walk the section: CIEs (pass 0), then FDEs (pass 1). */
static void walk(struct build *b, int pass)
{
	struct entry e;
	size_t pos = 0;

	while (!b->w.bad && next_entry(b->s, b->len, &pos, &e) == 1) {
		if (e.empty || e.cie != (pass == 0))
			continue;
		if (pass == 0) {
			struct cie *c;
			size_t out;

			if (!convert_cie(b->s, &e, &b->w, &out)) {
				b->skipped++;
				continue;
			}
			c = grow_array(b->cies, &b->cap_cies, b->ncies + 1,
				       sizeof(*c));
			if (!c) {
				b->w.bad = true;
				break;
			}
			b->cies = c;
			c[b->ncies++] = (struct cie){ e.start, out };
		} else if (!convert_fde(b, &e)) {
			b->skipped++;
		}
	}
}

static int by_pc(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->out < y->out ? -1 : x->out > y->out;
}

/* The image: the sorted table, then the CIEs and FDEs, padded to 8
 * bytes (libunwind reads aligned words). */
static struct debugframe *assemble(struct build *b, size_t max)
{
	size_t table = b->nfdes * ENTRY_SIZE, len;
	struct debugframe *d;

	if (b->w.len > max || table > max - b->w.len ||
	    table + b->w.len > INT32_MAX - 8) {
		errno = EFBIG;
		return NULL;
	}
	len = (table + b->w.len + 7) & ~(size_t)7;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->image = calloc(1, len))) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	qsort(b->fdes, b->nfdes, sizeof(*b->fdes), by_pc);
	for (size_t i = 0; i < b->nfdes; i++) {
		uint32_t v[2] = { b->fdes[i].pc,
				  (uint32_t)(b->fdes[i].out + table) };

		for (size_t k = 0; k < ENTRY_SIZE; k++)
			d->image[i * ENTRY_SIZE + k] = (uint8_t)(v[k / 4] >>
								 (8 * (k % 4)));
	}
	memcpy(d->image + table, b->w.p, b->w.len);
	d->len = len;
	d->nfde = b->nfdes;
	d->lo = b->lo;
	d->hi = b->hi;
	d->skipped = b->skipped;
	return d;
}

struct debugframe *debugframe_build(const uint8_t *sec, size_t len,
				    bool compressed, uint64_t lo,
				    uint64_t hi_max, size_t max, char *err,
				    size_t errlen)
{
	struct build b = { .lo = lo, .hi_max = hi_max };
	struct debugframe *d = NULL;
	uint8_t *plain = NULL;

	if (compressed) {
		if (!(plain = inflate_section(sec, len, max, &len, err,
					      errlen)))
			return NULL;
		sec = plain;
	}
	b.s = sec;
	b.len = len;
	b.hi = lo;
	b.w.max = max;
	walk(&b, 0);
	walk(&b, 1);
	if (b.w.bad) {
		errbuf_set(err, errlen, "converted, more than %zu bytes", max);
		errno = b.w.full ? EFBIG : ENOMEM;
	} else if (b.nfdes == 0) {
		errbuf_set(err, errlen, "no usable FDE (%zu entries skipped)",
			   b.skipped);
		errno = EINVAL;
	} else if (!(d = assemble(&b, max))) {
		errbuf_set(err, errlen, "cannot assemble %zu FDEs", b.nfdes);
	}
	free(plain);
	free(b.cies);
	free(b.fdes);
	free(b.w.p);
	return d;
}

void debugframe_free(struct debugframe *d)
{
	if (!d)
		return;
	free(d->image);
	free(d);
}

void debugframe_describe(const struct debugframe *d, uint64_t at, uint64_t bias,
			 unw_dyn_info_t *di)
{
	memset(di, 0, sizeof(*di));
	di->format = UNW_INFO_FORMAT_IP_OFFSET;
	di->start_ip = d->lo + bias; /* the table's PCs are from here */
	di->end_ip = d->hi + bias;
	di->load_offset = bias; /* added to the FDEs' absolute PCs */
	di->u.rti.segbase = at; /* the FDEs' offsets are from here */
	di->u.rti.table_data = at;
	di->u.rti.table_len = d->nfde * ENTRY_SIZE / sizeof(unw_word_t);
}
