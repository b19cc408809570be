/*
 * test_fdetab - FDE ranges from .eh_frame_hdr and .eh_frame: tables
 * built here byte by byte (what GCC and lld write, then hostile ones:
 * unsorted, lying, cut short, out of range), and this test's own
 * executable, whose function must be covered by an FDE that starts at
 * it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "symbols/fdetab.h"
#include "unit.h"

#define FRAME_ADDR 0x1000u
#define HDR_ADDR 0x800u

struct tables {
	uint8_t frame[1024];
	size_t flen;
	uint8_t hdr[512];
	size_t hlen, count;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A CIE: version 1, augmentation aug with its data (n bytes), code
 * alignment 1, data alignment -8, return address register 16; its
 * offset. */
static size_t add_cie(struct tables *t, const char *aug, const uint8_t *data,
		      size_t n)
{
	size_t at = t->flen, p = at + 8;
	uint8_t *f = t->frame;

	put32(f + at + 4, 0); /* CIE id */
	f[p++] = 1;
	memcpy(f + p, aug, strlen(aug) + 1);
	p += strlen(aug) + 1;
	f[p++] = 1;
	f[p++] = 0x78;
	f[p++] = 16;
	if (aug[0] == 'z')
		f[p++] = (uint8_t)n;
	if (n) /* data may be NULL then: memcpy() wants a pointer anyway */
		memcpy(f + p, data, n);
	p += n;
	while ((p - at) % 8)
		f[p++] = 0; /* DW_CFA_nop */
	put32(f + at, (uint32_t)(p - at - 4));
	t->flen = p;
	return at;
}

/* An FDE of the CIE at cie for [start, start + len): pc-relative sdata4
 * (wide: absolute 8-byte values); its offset. */
static size_t add_fde(struct tables *t, size_t cie, uint64_t start,
		      uint64_t len, int wide)
{
	size_t at = t->flen, p = at + 8;
	uint8_t *f = t->frame;

	put32(f + at + 4, (uint32_t)(at + 4 - cie));
	if (wide) {
		put64(f + p, start);
		put64(f + p + 8, len);
		p += 16;
	} else {
		put32(f + p, (uint32_t)(start - (FRAME_ADDR + p)));
		put32(f + p + 4, (uint32_t)len);
		p += 8;
		f[p++] = 0; /* augmentation data length */
	}
	while ((p - at) % 8)
		f[p++] = 0;
	put32(f + at, (uint32_t)(p - at - 4));
	t->flen = p;
	return at;
}

/* The header, version 1: eh_frame_ptr pcrel sdata4, count udata4, then
 * a table (datarel sdata4) of t->count entries, set by add_entry(). */
static void begin_hdr(struct tables *t)
{
	t->hdr[0] = 1;
	t->hdr[1] = 0x1b;
	t->hdr[2] = 0x03;
	t->hdr[3] = 0x3b;
	put32(t->hdr + 4, (uint32_t)(FRAME_ADDR - (HDR_ADDR + 4)));
	t->count = 0;
	t->hlen = 12;
}

static void add_entry(struct tables *t, uint64_t loc, size_t fde_off)
{
	put32(t->hdr + t->hlen, (uint32_t)(loc - HDR_ADDR));
	put32(t->hdr + t->hlen + 4,
	      (uint32_t)(FRAME_ADDR + fde_off - HDR_ADDR));
	t->hlen += 8;
	put32(t->hdr + 8, (uint32_t)++t->count);
}

static struct fdetab *parse(const struct tables *t)
{
	char err[256] = "";

	return fdetab_parse(t->hdr, t->hlen, HDR_ADDR, t->frame, t->flen,
			    FRAME_ADDR, err, sizeof(err));
}

/* addr is in [start, end) of t, or in none (start == end == 0). */
static void expect_at(const struct fdetab *t, uint64_t addr, uint64_t start,
		      uint64_t end)
{
	uint64_t s = 0, e = 0;
	int rc = fdetab_lookup(t, addr, &s, &e);

	if (start == end)
		CHECKF(rc == -1 && errno == ENOENT,
		       "0x%lx: found [0x%lx, 0x%lx), expected none",
		       (unsigned long)addr, (unsigned long)s, (unsigned long)e);
	else
		CHECKF(rc == 0 && s == start && e == end,
		       "0x%lx: rc %d [0x%lx, 0x%lx), expected [0x%lx, 0x%lx)",
		       (unsigned long)addr, rc, (unsigned long)s,
		       (unsigned long)e, (unsigned long)start,
		       (unsigned long)end);
}

/* GCC's layout: one "zR" CIE (pcrel sdata4), three FDEs, sorted table. */
static void test_usual(void)
{
	static const uint8_t r[] = { 0x1b };
	struct tables t = { .flen = 0 };
	struct fdetab *ft;
	size_t cie = add_cie(&t, "zR", r, 1);
	size_t a = add_fde(&t, cie, 0x2000, 0x100, 0);
	size_t b = add_fde(&t, cie, 0x2100, 0x80, 0);
	size_t c = add_fde(&t, cie, 0x3000, 0x10, 0);

	begin_hdr(&t);
	add_entry(&t, 0x2000, a);
	add_entry(&t, 0x2100, b);
	add_entry(&t, 0x3000, c);
	ft = parse(&t);
	CHECK(ft && fdetab_count(ft) == 3);
	expect_at(ft, 0x2000, 0x2000, 0x2100);
	expect_at(ft, 0x20ff, 0x2000, 0x2100);
	expect_at(ft, 0x2100, 0x2100, 0x2180);
	expect_at(ft, 0x2180, 0, 0); /* a gap: no FDE */
	expect_at(ft, 0x1fff, 0, 0);
	expect_at(ft, 0x300f, 0x3000, 0x3010);
	expect_at(ft, 0x3010, 0, 0);
	expect_at(ft, UINT64_MAX, 0, 0);
	fdetab_free(ft);

	/* the same table unsorted: sorted again */
	begin_hdr(&t);
	add_entry(&t, 0x3000, c);
	add_entry(&t, 0x2000, a);
	add_entry(&t, 0x2100, b);
	ft = parse(&t);
	CHECK(ft && fdetab_count(ft) == 3);
	expect_at(ft, 0x2050, 0x2000, 0x2100);
	expect_at(ft, 0x3001, 0x3000, 0x3010);
	fdetab_free(ft);
	expect_at(NULL, 0x2000, 0, 0);
}

/* Entries that lie are left out, the rest kept. */
static void test_lies(void)
{
	static const uint8_t r[] = { 0x1b };
	struct tables t = { .flen = 0 };
	struct fdetab *ft;
	size_t cie = add_cie(&t, "zR", r, 1);
	size_t a = add_fde(&t, cie, 0x2000, 0x100, 0);
	size_t z = add_fde(&t, cie, 0x2200, 0, 0);
	size_t b = add_fde(&t, cie, 0x2300, 0x40, 0);
	size_t l = add_fde(&t, cie, 0x2400, 0x40, 0);

	put32(t.frame + l, 0xffffffff); /* a 64-bit length */
	begin_hdr(&t);
	add_entry(&t, 0x2000, a);
	add_entry(&t, 0x2100, b);     /* the FDE starts at 0x2300 */
	add_entry(&t, 0x2200, z);     /* length 0 */
	add_entry(&t, 0x2400, cie);   /* the CIE itself */
	add_entry(&t, 0x2400, l);     /* 64-bit length */
	add_entry(&t, 0x2500, 4096);  /* past .eh_frame */
	add_entry(&t, 0x2600, a + 2); /* inside an FDE */
	add_entry(&t, 0x2700, 0 - (size_t)FRAME_ADDR); /* before it */
	ft = parse(&t);
	CHECKF(ft && fdetab_count(ft) == 1, "%zu kept", fdetab_count(ft));
	expect_at(ft, 0x2010, 0x2000, 0x2100);
	expect_at(ft, 0x2110, 0, 0);
	expect_at(ft, 0x2310, 0, 0);
	fdetab_free(ft);

	/* .eh_frame cut inside the last FDE: that one goes */
	begin_hdr(&t);
	add_entry(&t, 0x2000, a);
	add_entry(&t, 0x2300, b);
	t.flen = b + 10;
	ft = parse(&t);
	CHECK(ft && fdetab_count(ft) == 1);
	fdetab_free(ft);
	ft = fdetab_parse(t.hdr, t.hlen, HDR_ADDR, NULL, 0, FRAME_ADDR, NULL,
			  0);
	CHECK(ft && fdetab_count(ft) == 0);
	fdetab_free(ft);
}

/* Headers this does not read. */
static void test_bad_hdr(void)
{
	static const uint8_t r[] = { 0x1b };
	struct tables t = { .flen = 0 };
	size_t cie = add_cie(&t, "zR", r, 1);
	size_t a = add_fde(&t, cie, 0x2000, 0x100, 0);
	char err[256] = "";

	begin_hdr(&t);
	add_entry(&t, 0x2000, a);
	put32(t.hdr + 8, 1000); /* more entries than it holds */
	CHECK(!parse(&t) && errno == EINVAL);
	CHECK(!fdetab_parse(t.hdr, t.hlen, HDR_ADDR, t.frame, t.flen,
			    FRAME_ADDR, err, sizeof(err)) &&
	      strstr(err, "1000 entries"));
	put32(t.hdr + 8, 1);
	t.hdr[0] = 2; /* version */
	CHECK(!parse(&t) && errno == EINVAL);
	t.hdr[0] = 1;
	t.hdr[3] = 0x03; /* table not datarel sdata4 */
	CHECK(!parse(&t) && errno == EINVAL);
	t.hdr[3] = 0x3b;
	CHECK(!fdetab_parse(NULL, 0, 0, NULL, 0, 0, err, sizeof(err)) &&
	      errno == ENOENT);
	CHECK(!fdetab_parse(t.hdr, 3, HDR_ADDR, t.frame, t.flen, FRAME_ADDR,
			    NULL, 0) &&
	      errno == EINVAL);
}

/* CIE augmentations: personality and LSDA before 'R', none at all
 * (absptr), one that cannot be skipped. */
static void test_cies(void)
{
	/* P: indirect pcrel sdata4 + 4 bytes; L: pcrel sdata4; R */
	static const uint8_t plr[] = { 0x9b, 1, 2, 3, 4, 0x1b, 0x1b };
	static const uint8_t xr[] = { 0, 0x1b };
	struct tables t = { .flen = 0 };
	struct fdetab *ft;
	size_t c1 = add_cie(&t, "zPLR", plr, sizeof(plr));
	size_t c2 = add_cie(&t, "", NULL, 0);
	size_t c3 = add_cie(&t, "zXR", xr, sizeof(xr));
	size_t a = add_fde(&t, c1, 0x2000, 0x100, 0);
	size_t b = add_fde(&t, c2, 0x3000, 0x100, 1);
	size_t c = add_fde(&t, c3, 0x4000, 0x100, 0);
	size_t d = add_fde(&t, c2, UINT64_MAX - 0x10, 0x100, 1);

	/* the FDE of "zPLR" has one byte of augmentation data more: no
	 * matter, only its first two fields are read */
	begin_hdr(&t);
	add_entry(&t, 0x2000, a);
	add_entry(&t, 0x3000, b);
	add_entry(&t, 0x4000, c);
	add_entry(&t, UINT64_MAX - 0x10, d); /* wraps: refused */
	ft = parse(&t);
	CHECKF(ft && fdetab_count(ft) == 2, "%zu kept", fdetab_count(ft));
	expect_at(ft, 0x2001, 0x2000, 0x2100);
	expect_at(ft, 0x30ff, 0x3000, 0x3100);
	expect_at(ft, 0x4000, 0, 0);
	fdetab_free(ft);
}

/*
 * CIEs longer to read than any compiler writes: an augmentation string
 * of 17 letters, and a code alignment factor in an 11-byte LEB128.  One
 * CIE serves every FDE, so each FDE would read it all again: refused,
 * while 16 letters and 10 bytes are still read.
 */
static void test_cie_bounds(void)
{
	static const uint8_t r[] = { 0x1b };
	char aug[32] = "z";
	struct tables t = { .flen = 0 };
	struct fdetab *ft;
	size_t c[4], f[4], at, p;

	memset(aug + 1, 'S', 14);
	strcpy(aug + 15, "R"); /* 16 letters */
	c[0] = add_cie(&t, aug, r, sizeof(r));
	memset(aug + 1, 'S', 15);
	strcpy(aug + 16, "R"); /* 17 */
	c[1] = add_cie(&t, aug, r, sizeof(r));
	/* "zR", code alignment 1 in 10 then 11 bytes (0x81 ... 0x00) */
	for (int k = 0; k < 2; k++) {
		at = t.flen;
		p = at + 8;
		put32(t.frame + at + 4, 0);
		t.frame[p++] = 1;
		memcpy(t.frame + p, "zR", 3);
		p += 3;
		for (int i = 0; i < 9 + k; i++)
			t.frame[p++] = i ? 0x80 : 0x81;
		t.frame[p++] = 0;
		t.frame[p++] = 0x78;
		t.frame[p++] = 16;
		t.frame[p++] = 1;
		t.frame[p++] = 0x1b;
		while ((p - at) % 8)
			t.frame[p++] = 0;
		put32(t.frame + at, (uint32_t)(p - at - 4));
		t.flen = p;
		c[2 + k] = at;
	}
	begin_hdr(&t);
	for (int i = 0; i < 4; i++) {
		f[i] = add_fde(&t, c[i], 0x2000 + 0x100 * (uint64_t)i, 0x80, 0);
		add_entry(&t, 0x2000 + 0x100 * (uint64_t)i, f[i]);
	}
	ft = parse(&t);
	CHECKF(ft && fdetab_count(ft) == 2, "%zu kept", fdetab_count(ft));
	expect_at(ft, 0x2010, 0x2000, 0x2080);
	expect_at(ft, 0x2110, 0, 0);
	expect_at(ft, 0x2210, 0x2200, 0x2280);
	expect_at(ft, 0x2310, 0, 0);
	fdetab_free(ft);
}

static volatile int sink;

static __attribute__((noinline, noclone)) int fdetab_target(int x)
{
	sink += x;
	return sink * 3;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the executable comes first */
}

/* This executable's own table: the FDE of a function starts at it. */
static void test_self(void)
{
	uint64_t bias = 0, fn, s = 0, e = 0;
	char err[256] = "";
	struct fdetab *ft;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	CHECK(elf != NULL);
	dl_iterate_phdr(first_bias, &bias);
	fn = (uint64_t)(uintptr_t)fdetab_target - bias;
	ft = fdetab_read(elf, err, sizeof(err));
	CHECKF(ft != NULL, "%s", err);
	CHECKF(fdetab_lookup(ft, fn + 1, &s, &e) == 0 && s == fn && e > fn + 1,
	       "0x%lx: [0x%lx, 0x%lx)", (unsigned long)fn, (unsigned long)s,
	       (unsigned long)e);
	CHECK(fdetab_target(2) != 0);
	fdetab_free(ft);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	/* not an ELF file */
	elf = elf_memory(err, sizeof(err));
	CHECK(!fdetab_read(elf, err, sizeof(err)) && errno == EINVAL);
	elf_end(elf);
	CHECK(!fdetab_read(NULL, NULL, 0) && errno == EINVAL);
}

int main(void)
{
	test_usual();
	test_lies();
	test_bad_hdr();
	test_cies();
	test_cie_bounds();
	test_self();
	return unit_result("test_fdetab");
}
