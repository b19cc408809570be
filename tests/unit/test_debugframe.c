/*
 * test_debugframe - .debug_frame converted for libunwind: CIEs of
 * versions 1, 3 and 4 and 64-bit DWARF entries convert, and libunwind's
 * own dwarf_search_unwind_table() finds each FDE in the image with the
 * ranges and instructions of the input; malformed entries are skipped and
 * counted; a compressed section inflates to the same image; sizes are
 * bounded (malformed CIEs in bulk cost no memory); random and mutated
 * input never crashes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "elf/debugframe.h"
#include "unit.h"

#define dwarf_search_unwind_table _Ux86_64_dwarf_search_unwind_table
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

/* Where the test's address space has the image. */
#define AT 0x4000000000000000ULL
#define LO 0x400000ULL
#define HI 0x500000ULL

/* A section being written. */
struct sec {
	uint8_t b[4096];
	size_t n;
};

static void put(struct sec *s, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s->b[s->n++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct sec *s, const void *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* Go's CIE: def_cfa rsp 8; offset_extended r16 cfa-8 (data_align -4) */
static const uint8_t go_cie_cfi[] = { 0x0c, 0x07, 0x08, 0x05, 0x10, 0x02 };
/* an FDE: def_cfa_offset_sf 8; advance_loc 10; def_cfa_offset_sf 32 */
static const uint8_t fde_cfi[] = { 0x13, 0x02, 0x4a, 0x13, 0x08 };

/* A 32-bit CIE of `version`, RA column ra, augmentation aug; its offset. */
static size_t put_cie(struct sec *s, int version, unsigned ra, const char *aug,
		      int addr_size)
{
	size_t at = s->n, len;

	put(s, 0, 4);
	put(s, 0xffffffff, 4);
	put(s, (uint64_t)version, 1);
	put_bytes(s, aug, strlen(aug) + 1);
	if (version == 4) {
		put(s, (uint64_t)addr_size, 1);
		put(s, 0, 1);
	}
	put(s, 1, 1);	 /* code_align */
	put(s, 0x7c, 1); /* data_align -4 */
	put(s, ra, 1);	 /* < 128: the same as u8 and ULEB128 */
	put_bytes(s, go_cie_cfi, sizeof(go_cie_cfi));
	len = s->n - at - 4;
	for (int i = 0; i < 4; i++)
		s->b[at + i] = (uint8_t)(len >> (8 * i));
	return at;
}

static void put_fde(struct sec *s, size_t cie, uint64_t pc, uint64_t range,
		    const uint8_t *cfi, size_t ncfi)
{
	put(s, 4 + 8 + 8 + ncfi, 4);
	put(s, cie, 4);
	put(s, pc, 8);
	put(s, range, 8);
	put_bytes(s, cfi, ncfi);
}

/* The same FDE in 64-bit DWARF. */
static void put_fde64(struct sec *s, size_t cie, uint64_t pc, uint64_t range)
{
	put(s, 0xffffffff, 4);
	put(s, 8 + 8 + 8 + sizeof(fde_cfi), 8);
	put(s, cie, 8);
	put(s, pc, 8);
	put(s, range, 8);
	put_bytes(s, fde_cfi, sizeof(fde_cfi));
}

/* The test's address space: the image at AT, nothing else. */
static const struct debugframe *image;

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	(void)as, (void)arg;
	if (write || addr < AT || addr - AT + sizeof(*val) > image->len)
		return -UNW_EINVAL;
	memcpy(val, image->image + (addr - AT), sizeof(*val));
	return 0;
}

static unw_accessors_t accessors = { .access_mem = access_mem };

/* The head of libunwind's struct dwarf_cie_info (see unwind/unwind_cfi.c). */
struct lu_cie_info {
	unw_word_t cie_instr_start, cie_instr_end;
	unw_word_t fde_instr_start, fde_instr_end;
};

/* libunwind finds ip in d (bias added) inside [start, end), with the
 * CIE's and FDE's instructions of the input. */
static int found(unw_addr_space_t as, const struct debugframe *d, uint64_t bias,
		 uint64_t ip, uint64_t start, uint64_t end)
{
	unw_dyn_info_t di;
	unw_proc_info_t pi;
	const struct lu_cie_info *ci;

	image = d;
	debugframe_describe(d, AT, bias, &di);
	if (ip < di.start_ip || ip >= di.end_ip)
		return 0;
	memset(&pi, 0, sizeof(pi));
	if (dwarf_search_unwind_table(as, ip, &di, &pi, 1, NULL) < 0)
		return 0;
	ci = pi.unwind_info;
	return pi.start_ip == start && pi.end_ip == end &&
	       ci->cie_instr_end - ci->cie_instr_start == sizeof(go_cie_cfi) &&
	       !memcmp(d->image + (ci->cie_instr_start - AT), go_cie_cfi,
		       sizeof(go_cie_cfi)) &&
	       ci->fde_instr_end - ci->fde_instr_start == sizeof(fde_cfi) &&
	       !memcmp(d->image + (ci->fde_instr_start - AT), fde_cfi,
		       sizeof(fde_cfi));
}

/* Every kind of entry, good and bad; the good FDEs cover
 * [LO+0x100, LO+0x180) and so on, out of order. */
static void make_section(struct sec *s)
{
	static const uint8_t loop[] = { 0x0f, 0x03, 0x2f, 0xfd, 0xff };
	size_t v3, v4, v1, bad_aug, bad_v4, bad_ra;

	memset(s, 0, sizeof(*s));
	v3 = put_cie(s, 3, 16, "", 8);
	put_fde(s, v3, LO + 0x200, 0x40, fde_cfi, sizeof(fde_cfi));
	v4 = put_cie(s, 4, 16, "", 8);
	put_fde(s, v4, LO + 0x100, 0x80, fde_cfi, sizeof(fde_cfi));
	v1 = put_cie(s, 1, 16, "", 8);
	put_fde64(s, v1, LO + 0x300, 0x10);
	put(s, 0, 4); /* a zero terminator in the middle: skipped over */
	bad_aug = put_cie(s, 3, 16, "zR", 8);
	bad_v4 = put_cie(s, 4, 16, "", 4);
	bad_ra = put_cie(s, 3, 17, "", 8);
	put_fde(s, bad_aug, LO + 0x400, 0x10, fde_cfi, sizeof(fde_cfi));
	put_fde(s, bad_v4, LO + 0x400, 0x10, fde_cfi, sizeof(fde_cfi));
	put_fde(s, bad_ra, LO + 0x400, 0x10, fde_cfi, sizeof(fde_cfi));
	put_fde(s, v3 + 1, LO + 0x400, 0x10, fde_cfi, sizeof(fde_cfi));
	put_fde(s, v3, LO + 0x400, 0, fde_cfi, sizeof(fde_cfi));
	put_fde(s, v3, LO - 0x10, 0x10, fde_cfi, sizeof(fde_cfi));
	put_fde(s, v3, HI - 0x10, 0x20, fde_cfi, sizeof(fde_cfi));
	put_fde(s, v3, LO + 0x400, 0x10, loop, sizeof(loop));
	/* the last entry runs past the end: the walk stops there */
	put(s, 0x1000, 4);
	put(s, v3, 4);
}

#define NSKIPPED 11 /* 3 CIEs, 8 FDEs */

static void check_image(unw_addr_space_t as, const struct debugframe *d,
			uint64_t bias)
{
	CHECK(d->nfde == 3);
	CHECKF(d->skipped == NSKIPPED, "%zu skipped", d->skipped);
	CHECK(d->lo == LO && d->hi == LO + 0x310);
	CHECK(d->len % 8 == 0);
	CHECK(found(as, d, bias, bias + LO + 0x100, bias + LO + 0x100,
		    bias + LO + 0x180));
	CHECK(found(as, d, bias, bias + LO + 0x17f, bias + LO + 0x100,
		    bias + LO + 0x180));
	CHECK(found(as, d, bias, bias + LO + 0x220, bias + LO + 0x200,
		    bias + LO + 0x240));
	CHECK(found(as, d, bias, bias + LO + 0x30f, bias + LO + 0x300,
		    bias + LO + 0x310));
	/* between FDEs, before the first, at the end: nothing */
	CHECK(!found(as, d, bias, bias + LO + 0x180, 0, 0));
	CHECK(!found(as, d, bias, bias + LO, 0, 0));
	CHECK(!found(as, d, bias, bias + LO + 0x310, 0, 0));
}

/* sec compressed as SHF_COMPRESSED says: an Elf64_Chdr, then zlib. */
static size_t compress_section(const struct sec *s, uint8_t *out, size_t cap)
{
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB,
			  .ch_size = s->n,
			  .ch_addralign = 8 };
	uLongf n = cap - sizeof(ch);

	memcpy(out, &ch, sizeof(ch));
	if (compress2(out + sizeof(ch), &n, s->b, s->n, 9) != Z_OK)
		return 0;
	return sizeof(ch) + n;
}

static void test_convert(unw_addr_space_t as)
{
	static struct sec s;
	static uint8_t z[8192];
	struct debugframe *d;
	char err[128];
	size_t zn;

	make_section(&s);
	d = debugframe_build(s.b, s.n, false, LO, HI, 1 << 20, err,
			     sizeof(err));
	CHECKF(d, "%s", err);
	if (d) {
		check_image(as, d, 0);
		check_image(as, d, 0x7f0000000000ULL); /* a PIE's bias */
	}
	debugframe_free(d);

	zn = compress_section(&s, z, sizeof(z));
	CHECK(zn > sizeof(Elf64_Chdr));
	d = debugframe_build(z, zn, true, LO, HI, 1 << 20, err, sizeof(err));
	CHECKF(d, "%s", err);
	if (d)
		check_image(as, d, 0);
	debugframe_free(d);

	/* inflated size over the bound; a corrupt stream; not zlib */
	errno = 0;
	CHECK(!debugframe_build(z, zn, true, LO, HI, s.n - 1, err,
				sizeof(err)) &&
	      errno == EFBIG);
	z[zn / 2] ^= 0x55;
	z[zn / 2 + 1] ^= 0x55;
	errno = 0;
	CHECK(!debugframe_build(z, zn, true, LO, HI, 1 << 20, err,
				sizeof(err)) &&
	      errno == EINVAL && strchr(err, '\n') == NULL);
	z[0] = 2; /* ELFCOMPRESS_ZSTD */
	CHECK(!debugframe_build(z, zn, true, LO, HI, 1 << 20, err,
				sizeof(err)) &&
	      errno == EINVAL);
	CHECK(!debugframe_build(z, 3, true, LO, HI, 1 << 20, err, sizeof(err)));
	/* the converted image over the bound */
	errno = 0;
	CHECK(!debugframe_build(s.b, s.n, false, LO, HI, 64, err,
				sizeof(err)) &&
	      errno == EFBIG);
	/* no FDE inside the executable range */
	errno = 0;
	CHECK(!debugframe_build(s.b, s.n, false, HI, HI + 0x1000, 1 << 20, err,
				sizeof(err)) &&
	      errno == EINVAL && strstr(err, "no usable FDE"));
}

static void test_find(void)
{
	static const char str[] = "\0.text\0.debug_frame\0.debug_framex";
	Elf64_Shdr sh[4];

	memset(sh, 0, sizeof(sh));
	sh[1].sh_name = 1; /* .text */
	sh[1].sh_size = 10;
	sh[2].sh_name = 21; /* .debug_framex */
	sh[2].sh_size = 10;
	sh[3].sh_name = 7; /* .debug_frame */
	sh[3].sh_size = 10;
	CHECK(debugframe_find(sh, 4, str, sizeof(str)) == 3);
	sh[3].sh_type = SHT_NOBITS; /* in a separate debug file */
	CHECK(debugframe_find(sh, 4, str, sizeof(str)) == -1);
	sh[3].sh_type = SHT_PROGBITS;
	sh[3].sh_name = sizeof(str) - 3; /* runs past the table */
	CHECK(debugframe_find(sh, 4, str, sizeof(str)) == -1);
	sh[3].sh_name = 0xffffffff;
	CHECK(debugframe_find(sh, 4, str, sizeof(str)) == -1);
}

/* The peak resident set of this process, in KiB. */
static long peak_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/*
 * 16 MiB of 8-byte CIEs that do not convert (a length of 4: the CIE id
 * and nothing else), which zlib would shrink to 16 KiB in a file: the
 * conversion must not grow by a record per malformed CIE (it grew by 24
 * bytes each, 48 MiB here: 3 times the section, 750 MiB for a section
 * of MODCACHE_MAX_PART).  In a child, whose peak is its own.
 */
static void test_bulk_garbage(void)
{
	const size_t n = 16u << 20;
	int st = -1;
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t *sec = malloc(n);
		struct debugframe *d;
		long before;

		if (!sec)
			_exit(2);
		for (size_t i = 0; i < n; i += 8)
			memcpy(sec + i, "\x04\0\0\0\xff\xff\xff\xff", 8);
		before = peak_kib();
		d = debugframe_build(sec, n, false, LO, HI, 256u << 20, NULL,
				     0);
		/* refused (no FDE), at most 8 MiB more than before */
		_exit(!d && errno == EINVAL && before > 0 &&
				      peak_kib() - before < 8 * 1024 ?
			      0 :
			      1);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "16 MiB of malformed CIEs: child status %d", st);
}

/* Cheap fuzzing: random bytes, and the good section with bytes changed;
 * under the sanitizers, any out-of-bounds read shows. */
static void test_garbage(void)
{
	static struct sec s, m;
	struct debugframe *d;
	uint8_t r[512];

	srand(15);
	for (int k = 0; k < 2000; k++) {
		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (uint8_t)rand();
		debugframe_free(debugframe_build(r, (size_t)rand() % sizeof(r),
						 k & 1, LO, HI, 1 << 20, NULL,
						 0));
	}
	make_section(&s);
	for (int k = 0; k < 20000; k++) {
		m = s;
		for (int j = 0; j < 1 + k % 4; j++)
			m.b[(size_t)rand() % m.n] = (uint8_t)rand();
		d = debugframe_build(m.b, m.n - (size_t)(k % 7), false, LO, HI,
				     1 << 20, NULL, 0);
		CHECK(!d || (d->nfde >= 1 && d->len % 8 == 0 && d->hi > d->lo &&
			     d->hi - d->lo <= INT32_MAX));
		debugframe_free(d);
	}
}

int main(void)
{
	unw_addr_space_t as = unw_create_addr_space(&accessors, 0);

	CHECK(as);
	if (as)
		test_convert(as);
	test_find();
	test_garbage();
	test_bulk_garbage();
	if (as)
		unw_destroy_addr_space(as);
	return unit_result("test_debugframe");
}
