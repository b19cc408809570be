/*
 * fdetab.c - FDE ranges from .eh_frame_hdr and .eh_frame (fdetab.h).
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/ehframe.h"
#include "symbols/fdetab.h"
#include "util/errbuf.h"

struct fde_range {
	uint64_t start, end;
};

struct fdetab {
	struct fde_range *r; /* sorted by start */
	size_t n;
};

/* NULL with errno e and one sentence into err (errbuf_fail()). */
#define FAIL(e, ...) (errbuf_fail(err, errlen, (e), __VA_ARGS__), NULL)

static int cmp_range(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int32_t sdata4(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * The entries of the binary-search table at tab (count pairs of sdata4
 * relative to the header, ehframe_describe() checked the encoding) whose
 * FDE gives the same start, into t.
 */
static void add_entries(struct fdetab *t, const uint8_t *tab, size_t count,
			uint64_t hdr_addr, const uint8_t *frame,
			size_t frame_len, uint64_t frame_addr)
{
	uint64_t loc, fde, start, end;
	size_t i;

	for (i = 0; i < count; i++, tab += 8) {
		loc = hdr_addr + (uint64_t)(int64_t)sdata4(tab);
		fde = hdr_addr + (uint64_t)(int64_t)sdata4(tab + 4);
		if (fde < frame_addr || fde - frame_addr >= frame_len ||
		    ehframe_fde_range(frame, frame_len, frame_addr,
				      (size_t)(fde - frame_addr), &start,
				      &end) ||
		    start != loc || end == start)
			continue;
		t->r[t->n].start = start;
		t->r[t->n].end = end;
		t->n++;
	}
}

static bool sorted(const struct fdetab *t)
{
	for (size_t i = 1; i < t->n; i++)
		if (t->r[i].start < t->r[i - 1].start)
			return false;
	return true;
}

struct fdetab *fdetab_parse(const uint8_t *hdr, size_t hdr_len,
			    uint64_t hdr_addr, const uint8_t *frame,
			    size_t frame_len, uint64_t frame_addr, char *err,
			    size_t errlen)
{
	unw_dyn_info_t di;
	struct fdetab *t;
	uint64_t off;
	size_t count;

	if (!hdr || hdr_len == 0)
		return FAIL(ENOENT, "there is no .eh_frame_hdr");
	/* the module's range does not matter here: any will do */
	if (ehframe_describe(hdr, hdr_len, hdr_addr, 0, 1, &di))
		return FAIL(EINVAL,
			    ".eh_frame_hdr has a version, encoding or count "
			    "this does not read");
	off = di.u.rti.table_data - hdr_addr;
	count = di.u.rti.table_len * sizeof(unw_word_t) / 8;
	if (off > hdr_len || count > (hdr_len - off) / 8)
		return FAIL(EINVAL,
			    ".eh_frame_hdr claims %zu entries, it has room "
			    "for %zu",
			    count, off > hdr_len ? 0 : (hdr_len - off) / 8);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->r = calloc(count, sizeof(*t->r)))) {
		free(t);
		return FAIL(ENOMEM, "out of memory");
	}
	add_entries(t, hdr + off, count, hdr_addr, frame, frame ? frame_len : 0,
		    frame_addr);
	if (!sorted(t))
		qsort(t->r, t->n, sizeof(*t->r), cmp_range);
	return t;
}

/* The PT_LOAD segment whose file bytes hold link-time address v. */
static bool load_of(Elf *elf, size_t n, uint64_t v, GElf_Phdr *out)
{
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, out) && out->p_type == PT_LOAD &&
		    v >= out->p_vaddr && v - out->p_vaddr < out->p_filesz)
			return true;
	return false;
}

/* The file's bytes [off, off + len), read by libelf (ELF_C_READ: with
 * pread(), into memory elf_end() frees). */
static const uint8_t *chunk(Elf *elf, uint64_t off, uint64_t len)
{
	Elf_Data *d;

	if (len == 0 || len > FDETAB_MAX_PART) {
		errno = len ? EFBIG : EINVAL;
		return NULL;
	}
	d = elf_getdata_rawchunk(elf, (int64_t)off, (size_t)len, ELF_T_BYTE);
	if (!d || !d->d_buf || d->d_size != len) {
		errno = EIO;
		return NULL;
	}
	return d->d_buf;
}

struct fdetab *fdetab_read(Elf *elf, char *err, size_t errlen)
{
	GElf_Phdr ph, hdr = { 0 }, seg;
	const uint8_t *h, *f;
	size_t n, i, flen;
	uint64_t ef;

	if (!elf || elf_getphdrnum(elf, &n))
		return FAIL(EINVAL, "no program headers");
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) &&
		    ph.p_type == PT_GNU_EH_FRAME)
			hdr = ph;
	if (hdr.p_type != PT_GNU_EH_FRAME || hdr.p_filesz == 0)
		return FAIL(ENOENT, "there is no .eh_frame_hdr");
	h = chunk(elf, hdr.p_offset, hdr.p_filesz);
	if (!h)
		return FAIL(errno,
			    "cannot read .eh_frame_hdr (%" PRIu64 " bytes)",
			    (uint64_t)hdr.p_filesz);
	if (ehframe_frame_addr(h, hdr.p_filesz, hdr.p_vaddr, &ef) ||
	    !load_of(elf, n, ef, &seg))
		return FAIL(EINVAL,
			    ".eh_frame_hdr points to no loaded .eh_frame");
	/* .eh_frame runs at most to the end of its segment's file bytes */
	flen = seg.p_filesz - (ef - seg.p_vaddr);
	if (flen > FDETAB_MAX_PART)
		flen = FDETAB_MAX_PART;
	f = chunk(elf, seg.p_offset + (ef - seg.p_vaddr), flen);
	if (!f)
		return FAIL(errno, "cannot read .eh_frame (%zu bytes)", flen);
	return fdetab_parse(h, hdr.p_filesz, hdr.p_vaddr, f, flen, ef, err,
			    errlen);
}

int fdetab_lookup(const struct fdetab *t, uint64_t addr, uint64_t *start,
		  uint64_t *end)
{
	size_t lo = 0, hi = t ? t->n : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= t->r[lo - 1].end) {
		errno = ENOENT;
		return -1;
	}
	*start = t->r[lo - 1].start;
	*end = t->r[lo - 1].end;
	return 0;
}

size_t fdetab_count(const struct fdetab *t)
{
	return t ? t->n : 0;
}

void fdetab_free(struct fdetab *t)
{
	if (!t)
		return;
	free(t->r);
	free(t);
}
