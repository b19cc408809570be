/*
 * gopclntab.c - .gopclntab: PC -> Go function, file and line.
 *
 * The layouts, as Go 1.19's src/debug/gosym/pclntab.go parses them
 * (parsePclnTab) and its src/runtime/symtab.go defines them (pcHeader,
 * _func, step):
 *
 *	header	magic u32, 0, 0, PC quantum u8, pointer size u8, then
 *		pointer-sized words:
 *		1.2:   nfunc; the function table follows at once
 *		1.16:  nfunc, nfiles, funcname, cu, filetab, pctab, pclntab
 *		1.18+: nfunc, nfiles, textStart, funcname, cu, filetab,
 *		       pctab, pclntab
 *		(the last five or six are offsets from the header)
 *	functab	nfunc + 1 pairs (entry, offset of its _func), the last
 *		entry the end of the text: pointer-sized before 1.18,
 *		32-bit after (the entry then an offset from textStart)
 *	_func	entry (pointer, or 32-bit offset from 1.18 on), then
 *		32-bit fields: nameoff, args, deferreturn, pcsp, pcfile,
 *		pcln, npcdata, cuOffset (1.16+), ...
 *
 * 1.20 adds startLine after cuOffset: the fields read here do not move.
 * After the fixed fields (funcID, flag, a pad byte and nfuncdata end
 * them: 40 bytes in 1.18, 44 in 1.20), npcdata 32-bit PC-value table
 * offsets, then nfuncdata 32-bit FUNCDATA offsets from go:func.*
 * (moduledata.gofunc; ~0 for none).  PCDATA 2 (_PCDATA_InlTreeIndex)
 * gives at a PC the index into FUNCDATA 3 (_FUNCDATA_InlTree), an array
 * of inlinedCall (runtime/symtab.go in 1.19, runtime/symtabinl.go from
 * 1.20 on):
 *
 *	1.18: parent i16, funcID u8, pad, file i32, line i32, func_ i32,
 *	      parentPc i32 (20 bytes)
 *	1.20: funcID u8, 3 pad, nameOff i32, parentPc i32, startLine i32
 *	      (16 bytes)
 *
 * The inlined function's name is nameOff (func_) into the function name
 * table; entry + parentPc is an instruction of the caller at the call,
 * whose InlTreeIndex is the caller's entry (or -1: the outer function)
 * and whose line is the call's: runtime/symtabinl.go's inlineUnwinder
 * walks the same way, in both layouts.
 * A PC-value table is a sequence of (value delta, PC delta) varint pairs,
 * the value delta zigzag-coded, the PC delta in units of the quantum,
 * starting from value -1 at the function's entry and ending at a 0
 * value delta (except as the very first byte); the value at a PC is the
 * value of the first pair whose PC lies beyond it.  The pcfile value
 * indexes the function's compilation unit's slice of the cu table,
 * which holds offsets into the file name table (Go 1.16+), or, in 1.2,
 * the file table directly.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/gopclntab.h"
#include "symbols/symbolize.h"
#include "util/errbuf.h"
#include "util/leb128.h"

#define MAGIC_12 0xfffffffbu
#define MAGIC_116 0xfffffffau
#define MAGIC_118 0xfffffff0u
#define MAGIC_120 0xfffffff1u

/* _func's 32-bit fields, counted after the entry (gosym's field(n)). */
#define FIELD_NAMEOFF 1
#define FIELD_PCFILE 5
#define FIELD_PCLN 6
#define FIELD_NPCDATA 7
#define FIELD_CUOFFSET 8

#define PCDATA_INLTREEINDEX 2
#define FUNCDATA_INLTREE 3

/* moduledata's pointer-sized words (runtime/symtab.go): pcHeader 0,
 * funcnametab 1, text 22, gofunc 38 (1.20 added covctrs, ecovctrs). */
#define MD_FUNCNAMETAB 1
#define MD_TEXT 22
#define MD_GOFUNC_118 38
#define MD_GOFUNC_120 40

struct gopclntab {
	uint8_t *data; /* len bytes, and a NUL after them */
	size_t len;
	int version; /* 12, 116, 118, 120 */
	bool big_endian;
	unsigned quantum, ptrsize;
	unsigned fieldsz; /* of the function table's fields */
	uint64_t text_start;
	size_t nfunc;
	/* where each part starts in data; each may run to its end */
	size_t funcnametab, cutab, filetab, pctab, funcdata, functab;
	size_t nfiletab; /* 1.2's file table entries */
	uint8_t *fd;	 /* go:func.* (FUNCDATA), fdlen bytes, or NULL */
	size_t fdlen;
};

/* ---- bounded reads ---------------------------------------------------- */

static bool fits(const struct gopclntab *t, size_t off, size_t n)
{
	return off <= t->len && t->len - off >= n;
}

/* The 32-bit word at p, in the table's byte order. */
static uint32_t get32(const uint8_t *p, bool big_endian)
{
	if (big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		       (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static bool rd32(const struct gopclntab *t, size_t off, uint32_t *v)
{
	if (!fits(t, off, 4))
		return false;
	*v = get32(t->data + off, t->big_endian);
	return true;
}

/* A field of size bytes (4 or 8) at off. */
static bool rdsized(const struct gopclntab *t, size_t off, unsigned size,
		    uint64_t *v)
{
	uint32_t a, b;

	if (size == 4) {
		if (!rd32(t, off, &a))
			return false;
		*v = a;
		return true;
	}
	if (off > SIZE_MAX - 4 || !rd32(t, off, &a) || !rd32(t, off + 4, &b))
		return false;
	*v = t->big_endian ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
	return true;
}

/* Header word i (pointer-sized) after the first 8 bytes. */
static bool header_word(const struct gopclntab *t, unsigned i, uint64_t *v)
{
	return rdsized(t, 8 + (size_t)i * t->ptrsize, t->ptrsize, v);
}

/* A varint (a ULEB128 of at most 5 bytes, its low 32 bits kept) at
 * *off, which it moves past. */
static bool rdvarint(const struct gopclntab *t, size_t *off, uint32_t *v)
{
	uint64_t r;

	if (leb128_read_u64(t->data, t->len, off, 5, &r) < 0)
		return false;
	*v = (uint32_t)r;
	return true;
}

/* ---- the header --------------------------------------------------------- */

/* The magic, in either byte order: the version, or 0. */
static int magic_version(struct gopclntab *t)
{
	static const struct {
		uint32_t magic;
		int version;
	} magics[] = { { MAGIC_12, 12 },
		       { MAGIC_116, 116 },
		       { MAGIC_118, 118 },
		       { MAGIC_120, 120 } };
	uint32_t m;

	for (int be = 0; be < 2; be++) {
		t->big_endian = be;
		rd32(t, 0, &m);
		for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
			if (m == magics[i].magic)
				return magics[i].version;
	}
	return 0;
}

/* The offset of part `word` of the header, inside the table. */
static bool part_at(const struct gopclntab *t, unsigned word, size_t *off)
{
	uint64_t v;

	if (!header_word(t, word, &v) || v >= t->len)
		return false;
	*off = (size_t)v;
	return true;
}

/* The parts of a Go 1.16 or later table: words first..first+4. */
static bool parts_116(struct gopclntab *t, unsigned first)
{
	return part_at(t, first, &t->funcnametab) &&
	       part_at(t, first + 1, &t->cutab) &&
	       part_at(t, first + 2, &t->filetab) &&
	       part_at(t, first + 3, &t->pctab) &&
	       part_at(t, first + 4, &t->funcdata);
}

/* Go 1.2: the function table right after the header, then the offset of
 * the file table, which counts its entries itself. */
static bool parts_12(struct gopclntab *t)
{
	size_t tabsize = (2 * t->nfunc + 1) * t->fieldsz;
	uint32_t fileoff, n;

	t->functab = 8 + t->ptrsize;
	if (!fits(t, t->functab, tabsize) ||
	    !rd32(t, t->functab + tabsize, &fileoff) || !rd32(t, fileoff, &n) ||
	    !fits(t, fileoff, (size_t)n * 4))
		return false;
	t->filetab = fileoff;
	t->nfiletab = n;
	return true;
}

static int parse_header(struct gopclntab *t, char *err, size_t errlen)
{
	uint64_t nfunc, text;

	if (t->len < 16 || !(t->version = magic_version(t))) {
		errbuf_set(err, errlen,
			   "at byte 0: not a Go pclntab (no magic)");
		return -1;
	}
	t->quantum = t->data[6];
	t->ptrsize = t->data[7];
	if (t->data[4] || t->data[5] ||
	    (t->quantum != 1 && t->quantum != 2 && t->quantum != 4) ||
	    (t->ptrsize != 4 && t->ptrsize != 8)) {
		errbuf_set(err, errlen,
			   "at byte 4: bad pclntab header (quantum %u, pointer "
			   "size %u)",
			   t->quantum, t->ptrsize);
		return -1;
	}
	t->fieldsz = t->version >= 118 ? 4 : t->ptrsize;
	/* every function takes two fields of the function table at least:
	 * a count beyond that is a lie, refused before multiplying by it */
	if (!header_word(t, 0, &nfunc) || nfunc == 0 ||
	    nfunc > t->len / (2 * t->fieldsz)) {
		errbuf_set(err, errlen,
			   "at byte 8: bad function count in the pclntab header");
		return -1;
	}
	t->nfunc = (size_t)nfunc;
	if (t->version == 12  ? !parts_12(t) :
	    t->version == 116 ? !parts_116(t, 2) :
				!parts_116(t, 3)) {
		errbuf_set(err, errlen,
			   "at byte 8: a part of the pclntab lies outside its "
			   "%zu bytes",
			   t->len);
		return -1;
	}
	if (t->version != 12)
		t->functab = t->funcdata;
	if (!fits(t, t->functab, (2 * t->nfunc + 1) * t->fieldsz)) {
		errbuf_set(err, errlen,
			   "at byte %zu: the function table of %zu functions "
			   "runs past the end of the pclntab",
			   t->functab, t->nfunc);
		return -1;
	}
	if (t->version >= 118 && !t->text_start && header_word(t, 2, &text))
		t->text_start = text;
	return 0;
}

/* Takes data (len bytes and one more, set to NUL here). */
static struct gopclntab *parse(uint8_t *data, size_t len, uint64_t text_start,
			       char *err, size_t errlen)
{
	struct gopclntab *t = calloc(1, sizeof(*t));

	if (!t) {
		free(data);
		return NULL;
	}
	data[len] = '\0'; /* every string in the table ends, at worst here */
	t->data = data;
	t->len = len;
	t->text_start = text_start;
	if (parse_header(t, err, errlen)) {
		gopclntab_free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

struct gopclntab *gopclntab_new(const void *data, size_t len,
				uint64_t text_start, char *err, size_t errlen)
{
	uint8_t *copy;

	if (!data) {
		errbuf_set(err, errlen, "no pclntab given");
		errno = EINVAL;
		return NULL;
	}
	if (len > GOPCLNTAB_MAX_SIZE) {
		errbuf_set(err, errlen, "the pclntab is larger than %u bytes",
			   GOPCLNTAB_MAX_SIZE);
		errno = EFBIG;
		return NULL;
	}
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, data, len);
	return parse(copy, len, text_start, err, errlen);
}

/* size bytes at off of fd, into a new buffer of size + 1 bytes; NULL
 * with errno (EFBIG past GOPCLNTAB_MAX_SIZE, EIO for a file cut short,
 * a sentence in err). */
static uint8_t *read_part(int fd, uint64_t off, uint64_t size, char *err,
			  size_t errlen)
{
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;

	if (size > GOPCLNTAB_MAX_SIZE || off > INT64_MAX - size) {
		errbuf_set(err, errlen, "the pclntab is larger than %u bytes",
			   GOPCLNTAB_MAX_SIZE);
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)size + 1);
	if (!buf)
		return NULL;
	while (got < size) {
		n = pread(fd, buf + got, (size_t)size - got,
			  (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* a file cut below its section headers' claim */
			errbuf_set(err, errlen,
				   "at byte %zu: the file ends inside the pclntab",
				   got);
			free(buf);
			if (n == 0)
				errno = EIO;
			return NULL;
		}
		got += (size_t)n;
	}
	return buf;
}

struct gopclntab *gopclntab_read(int fd, uint64_t off, uint64_t size,
				 uint64_t text_start, char *err, size_t errlen)
{
	uint8_t *buf = read_part(fd, off, size, err, errlen);

	return buf ? parse(buf, (size_t)size, text_start, err, errlen) : NULL;
}

void gopclntab_free(struct gopclntab *t)
{
	if (!t)
		return;
	free(t->data);
	free(t->fd);
	free(t);
}

int gopclntab_version(const struct gopclntab *t)
{
	return t ? t->version : 0;
}

size_t gopclntab_count(const struct gopclntab *t)
{
	return t ? t->nfunc : 0;
}

/* ---- functions --------------------------------------------------------- */

/* The function table's entry i (0..nfunc, checked by parse_header). */
static uint64_t functab_pc(const struct gopclntab *t, size_t i)
{
	uint64_t v = 0;

	rdsized(t, t->functab + 2 * i * t->fieldsz, t->fieldsz, &v);
	return t->version >= 118 ? v + t->text_start : v;
}

/* A function's _func, located and checked. */
struct func {
	size_t off;	/* of the _func in data */
	uint64_t entry; /* its entry PC */
};

/* _func's 32-bit field n (1..9) after the entry. */
static bool func_field(const struct gopclntab *t, const struct func *f,
		       unsigned n, uint32_t *v)
{
	size_t first = t->version >= 118 ? 4 : t->ptrsize;

	return rd32(t, f->off + first + (n - 1) * 4, v);
}

/*
 * The function holding pc: the last entry at or below pc, if pc lies
 * before the next one, and its _func inside the table, with the same
 * entry (the runtime checks the same, findfunc's "bad findfunctab").
 */
static bool find_func(const struct gopclntab *t, uint64_t pc, struct func *f)
{
	size_t lo = 0, hi = t->nfunc, mid;
	uint64_t funcoff = 0, entry;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (functab_pc(t, mid) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= functab_pc(t, lo))
		return false;
	f->entry = functab_pc(t, lo - 1);
	rdsized(t, t->functab + (2 * (lo - 1) + 1) * t->fieldsz, t->fieldsz,
		&funcoff);
	if (funcoff >= t->len - t->funcdata)
		return false;
	f->off = t->funcdata + (size_t)funcoff;
	if (t->version >= 118) {
		uint32_t e;

		if (!rd32(t, f->off, &e))
			return false;
		entry = e + t->text_start;
	} else if (!rdsized(t, f->off, t->ptrsize, &entry)) {
		return false;
	}
	return entry == f->entry;
}

int gopclntab_func(const struct gopclntab *t, uint64_t pc, const char **name,
		   uint64_t *entry)
{
	struct func f;
	uint32_t nameoff;

	if (!t || !name || !entry) {
		errno = EINVAL;
		return -1;
	}
	if (!find_func(t, pc, &f) ||
	    !func_field(t, &f, FIELD_NAMEOFF, &nameoff) ||
	    nameoff >= t->len - t->funcnametab ||
	    !t->data[t->funcnametab + nameoff]) {
		errno = ENOENT;
		return -1;
	}
	*name = (const char *)t->data + t->funcnametab + nameoff;
	*entry = f.entry;
	return 0;
}

/* ---- PC-value tables ---------------------------------------------------- */

/*
 * The value of the PC-value table at offset off of pctab at pc, for the
 * function f (runtime/symtab.go's pcvalue and step).  Each step reads
 * two bytes at least, so the walk ends within the table's bytes, and
 * after GOPCLNTAB_MAX_STEPS steps (gopclntab.h says why).
 */
static bool pcvalue(const struct gopclntab *t, const struct func *f,
		    uint32_t off, uint64_t pc, int32_t *val)
{
	size_t p = t->pctab + off;
	uint64_t at = f->entry;
	uint32_t v = (uint32_t)-1, uv, pcdelta;

	/* offset 0 is no table (the runtime's pcvalue says the same) */
	if (off == 0 || off >= t->len - t->pctab)
		return false;
	for (unsigned long steps = 0; steps < GOPCLNTAB_MAX_STEPS; steps++) {
		bool first = at == f->entry;

		if (!rdvarint(t, &p, &uv) || (uv == 0 && !first))
			return false;
		/* zigzag: in unsigned arithmetic, a hostile sum wraps */
		v += (uv >> 1) ^ (0u - (uv & 1));
		if (!rdvarint(t, &p, &pcdelta) ||
		    at > UINT64_MAX - (uint64_t)pcdelta * t->quantum)
			return false;
		at += (uint64_t)pcdelta * t->quantum;
		if (pc < at) {
			*val = (int32_t)v;
			return true;
		}
	}
	return false;
}

/* The file name at offset off of the file name table (Go 1.16+), or, in
 * 1.2, of the table itself. */
static const char *string_at(const struct gopclntab *t, size_t base,
			     uint32_t off)
{
	if (off >= t->len - base || !t->data[base + off])
		return NULL;
	return (const char *)t->data + base + off;
}

/* The file name of file number fno of function f. */
static const char *file_name(const struct gopclntab *t, const struct func *f,
			     int32_t fno)
{
	uint32_t cu, off;
	uint64_t idx;

	if (t->version == 12) {
		if (fno <= 0 || (size_t)fno >= t->nfiletab ||
		    !rd32(t, t->filetab + 4 * (size_t)fno, &off))
			return NULL;
		return string_at(t, 0, off);
	}
	if (fno < 0 || !func_field(t, f, FIELD_CUOFFSET, &cu) ||
	    cu == UINT32_MAX)
		return NULL;
	idx = (uint64_t)cu + (uint64_t)fno;
	if (idx >= (t->len - t->cutab) / 4 ||
	    !rd32(t, t->cutab + (size_t)idx * 4, &off) || off == UINT32_MAX)
		return NULL;
	return string_at(t, t->filetab, off);
}

/* The file and line of pc in function f (code inlined into f included). */
static bool line_at(const struct gopclntab *t, const struct func *f,
		    uint64_t pc, const char **file, unsigned *line)
{
	uint32_t pcfile, pcln;
	int32_t fno, ln;
	const char *name;

	if (!func_field(t, f, FIELD_PCFILE, &pcfile) ||
	    !func_field(t, f, FIELD_PCLN, &pcln) ||
	    !pcvalue(t, f, pcfile, pc, &fno) || !pcvalue(t, f, pcln, pc, &ln) ||
	    ln <= 0 || !(name = file_name(t, f, fno)))
		return false;
	*file = name;
	*line = (unsigned)ln;
	return true;
}

int gopclntab_line(const struct gopclntab *t, uint64_t pc, const char **file,
		   unsigned *line)
{
	struct func f;

	if (!t || !file || !line) {
		errno = EINVAL;
		return -1;
	}
	if (!find_func(t, pc, &f) || !line_at(t, &f, pc, file, line)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* ---- inline trees ------------------------------------------------------ */

/* Where f's PC-value table offsets start, after its fixed fields. */
static size_t pcdata_at(const struct gopclntab *t, const struct func *f)
{
	return f->off + (t->version >= 120 ? 44 : 40);
}

/* The offset (into pctab) of f's PCDATA table i. */
static bool func_pcdata(const struct gopclntab *t, const struct func *f,
			unsigned i, uint32_t *off)
{
	uint32_t n;

	return func_field(t, f, FIELD_NPCDATA, &n) && i < n &&
	       rd32(t, pcdata_at(t, f) + 4 * (size_t)i, off);
}

/* The offset (into go:func.*) of f's FUNCDATA i; false for none. */
static bool func_funcdata(const struct gopclntab *t, const struct func *f,
			  unsigned i, uint32_t *off)
{
	size_t at = pcdata_at(t, f);
	uint32_t n;

	if (!func_field(t, f, FIELD_NPCDATA, &n) || !fits(t, at - 1, 1) ||
	    i >= t->data[at - 1] || n > (t->len - at) / 4)
		return false;
	return rd32(t, at + 4 * (size_t)n + 4 * (size_t)i, off) &&
	       *off != UINT32_MAX;
}

/* Entry ix of the inline tree at offset tree of go:func.*: the inlined
 * function's name offset and the offset of its call from the entry. */
static bool inl_entry(const struct gopclntab *t, uint32_t tree, int32_t ix,
		      uint32_t *nameoff, int32_t *parentpc)
{
	size_t size = t->version >= 120 ? 16 : 20;
	uint64_t at = (uint64_t)tree + (uint64_t)ix * size;
	const uint8_t *p;

	if (ix < 0 || at > t->fdlen || t->fdlen - at < size)
		return false;
	p = t->fd + at;
	if (t->version >= 120) {
		*nameoff = get32(p + 4, t->big_endian);
		*parentpc = (int32_t)get32(p + 8, t->big_endian);
	} else {
		*nameoff = get32(p + 12, t->big_endian);
		*parentpc = (int32_t)get32(p + 16, t->big_endian);
	}
	return true;
}

/* The InlTreeIndex at pc; -1 (the outer function) when the table does
 * not say, as the runtime's non-strict lookup answers. */
static int32_t inl_index(const struct gopclntab *t, const struct func *f,
			 uint32_t ixtab, uint64_t pc)
{
	int32_t ix;

	return pcvalue(t, f, ixtab, pc, &ix) ? ix : -1;
}

size_t gopclntab_inline(const struct gopclntab *t, uint64_t pc,
			struct symbol_frame *frames, size_t max,
			const char **outer_file, unsigned *outer_line)
{
	int32_t seen[GOPCLNTAB_MAX_INLINE], ix, parentpc;
	const char *file = NULL, *name;
	uint32_t tree, ixtab, nameoff;
	unsigned line = 0;
	struct func f;
	size_t n = 0;

	if (!t || !frames || !max || t->version < 118 || !t->fd ||
	    !find_func(t, pc, &f) ||
	    !func_funcdata(t, &f, FUNCDATA_INLTREE, &tree) ||
	    !func_pcdata(t, &f, PCDATA_INLTREEINDEX, &ixtab) ||
	    (ix = inl_index(t, &f, ixtab, pc)) < 0)
		return 0;
	for (size_t steps = 0; ix >= 0; steps++) {
		/* a parent seen before is a cycle: no answer */
		for (size_t i = 0; i < steps; i++)
			if (seen[i] == ix)
				return 0;
		if (steps == GOPCLNTAB_MAX_INLINE ||
		    !inl_entry(t, tree, ix, &nameoff, &parentpc) ||
		    !(name = string_at(t, t->funcnametab, nameoff)) ||
		    parentpc < 0)
			return 0;
		seen[steps] = ix;
		if (!line_at(t, &f, pc, &file, &line)) {
			file = NULL;
			line = 0;
		}
		if (n < max) {
			frames[n].func = name;
			frames[n].file = file;
			frames[n].line = line;
			n++;
		}
		pc = f.entry + (uint64_t)parentpc;
		ix = inl_index(t, &f, ixtab, pc);
	}
	if (!line_at(t, &f, pc, &file, &line)) {
		file = NULL;
		line = 0;
	}
	if (outer_file)
		*outer_file = file;
	if (outer_line)
		*outer_line = line;
	return n;
}

int gopclntab_set_funcdata(struct gopclntab *t, const void *data, size_t len)
{
	uint8_t *copy;

	if (!t || !data) {
		errno = EINVAL;
		return -1;
	}
	if (len > GOPCLNTAB_MAX_SIZE) {
		errno = EFBIG;
		return -1;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return -1;
	memcpy(copy, data, len);
	free(t->fd);
	t->fd = copy;
	t->fdlen = len;
	return 0;
}

int gopclntab_read_funcdata(struct gopclntab *t, int fd, uint64_t off,
			    uint64_t size)
{
	uint8_t *buf;

	if (!t) {
		errno = EINVAL;
		return -1;
	}
	buf = read_part(fd, off, size, NULL, 0);
	if (!buf)
		return -1;
	free(t->fd);
	t->fd = buf;
	t->fdlen = (size_t)size;
	return 0;
}

/* Word i of the pointer-sized words at p, in the table's byte order. */
static uint64_t get_word(const struct gopclntab *t, const uint8_t *p, size_t i)
{
	p += i * t->ptrsize;
	if (t->ptrsize == 4)
		return get32(p, t->big_endian);
	return t->big_endian ?
		       (uint64_t)get32(p, true) << 32 | get32(p + 4, true) :
		       (uint64_t)get32(p + 4, false) << 32 | get32(p, false);
}

int gopclntab_gofunc(const struct gopclntab *t, const void *data, size_t len,
		     uint64_t data_addr, uint64_t tab_addr, uint64_t *gofunc)
{
	const uint8_t *b = data;
	size_t words, w, skip;

	if (!t || !data || !gofunc || t->version < 118) {
		errno = EINVAL;
		return -1;
	}
	words = (t->version >= 120 ? MD_GOFUNC_120 : MD_GOFUNC_118) + 1;
	skip = (t->ptrsize - data_addr % t->ptrsize) % t->ptrsize;
	for (size_t off = skip; off <= len && len - off >= words * t->ptrsize;
	     off += t->ptrsize) {
		w = words - 1;
		if (get_word(t, b + off, 0) == tab_addr &&
		    get_word(t, b + off, MD_FUNCNAMETAB) ==
			    tab_addr + t->funcnametab &&
		    get_word(t, b + off, MD_TEXT) == t->text_start &&
		    get_word(t, b + off, w)) {
			*gofunc = get_word(t, b + off, w);
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}
