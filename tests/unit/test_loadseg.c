/*
 * test_loadseg - the segment an executable mapping maps, and its bias,
 * for the layouts of the linkers in use (program headers as readelf -l
 * shows them for small programs): GNU ld with -z separate-code, gold
 * (GNU ld -z noseparate-code alike), lld with and without it, PIE or
 * not, a Rust program, and code mappings split by mprotect().  A shared
 * library has the layout of a PIE.
 */
#include "config.h"

#include <elf.h>

#include "elf/loadseg.h"
#include "unit.h"

#define R PF_R
#define RX (PF_R | PF_X)
#define RW (PF_R | PF_W)

#define LOAD(off, vaddr, filesz, flags)                                       \
	{                                                                     \
		.p_type = PT_LOAD, .p_flags = (flags), .p_offset = (off),     \
		.p_vaddr = (vaddr), .p_filesz = (filesz), .p_memsz = (filesz) \
	}
#define N(ph) (sizeof(ph) / sizeof(*(ph)))

/* GNU ld 2.40, PIE, -z separate-code (its x86-64 default). */
static const Elf64_Phdr bfd[] = {
	LOAD(0x0000, 0x0000, 0x0628, R),
	LOAD(0x1000, 0x1000, 0x0181, RX),
	LOAD(0x2000, 0x2000, 0x00f4, R),
	LOAD(0x2de8, 0x3de8, 0x0258, RW),
};

/* gold (and GNU ld -z noseparate-code): code from offset 0. */
static const Elf64_Phdr gold[] = {
	{ .p_type = PT_PHDR, .p_offset = 0x40, .p_filesz = 0x230 },
	LOAD(0x0000, 0x0000, 0x08c4, RX),
	LOAD(0x0dd8, 0x1dd8, 0x0250, RW),
};

/* lld 14, PIE: code mid-page, right after the read-only data. */
static const Elf64_Phdr lld[] = {
	LOAD(0x000, 0x0000, 0x824, R),
	LOAD(0x830, 0x1830, 0x2f0, RX),
	LOAD(0xb20, 0x2b20, 0x1f0, RW),
	LOAD(0xd10, 0x3d10, 0x050, RW),
};

/* lld 14, -no-pie (ET_EXEC at 0x200000). */
static const Elf64_Phdr lld_exec[] = {
	LOAD(0x000, 0x200000, 0x774, R),
	LOAD(0x780, 0x201780, 0x2e0, RX),
	LOAD(0xa60, 0x202a60, 0x1b0, RW),
	LOAD(0xc10, 0x203c10, 0x048, RW),
};

/* lld, -z separate-code: code from a page of its own. */
static const Elf64_Phdr lld_sep[] = {
	LOAD(0x0000, 0x0000, 0x0824, R),
	LOAD(0x1000, 0x1000, 0x02f0, RX),
	LOAD(0x2000, 0x2000, 0x01f0, RW),
};

/* rust-lld 22, a Rust program: over 0x10000 of read-only data. */
static const Elf64_Phdr lld_rust[] = {
	LOAD(0x000000, 0x000000, 0x016f04, R),
	LOAD(0x016f10, 0x017f10, 0x03faf0, RX),
	LOAD(0x056a00, 0x058a00, 0x002a20, RW),
	LOAD(0x059420, 0x05c420, 0x0009c0, RW),
};

/* The executable mapping at start of file offset offset maps segment
 * want (NULL: none) with bias `bias`. */
/* librustc_driver (Rust 1.95): a second code segment, 2 MiB aligned. */
static const Elf64_Phdr lld_driver[] = {
	LOAD(0x0000000, 0x0000000, 0x11a0bc4, R),
	LOAD(0x11a0c00, 0x11a1c00, 0x3b1c9c0, RX),
	LOAD(0x4cbd5c0, 0x4cbf5c0, 0x024eb48, RW),
	LOAD(0x5000000, 0x5000000, 0x2be2b8c, RX),
};

static void check_bias(const Elf64_Phdr *ph, size_t n, uint64_t start,
		       uint64_t offset, const Elf64_Phdr *want, uint64_t bias)
{
	const Elf64_Phdr *g = loadseg_exec(ph, n, offset);

	CHECKF(g == want, "offset %#lx: segment %ld, expected %ld",
	       (unsigned long)offset, g ? (long)(g - ph) : -1L,
	       want ? (long)(want - ph) : -1L);
	if (g && g == want)
		CHECKF(loadseg_bias(g, start, offset) == bias,
		       "offset %#lx: bias %#lx, expected %#lx",
		       (unsigned long)offset,
		       (unsigned long)loadseg_bias(g, start, offset),
		       (unsigned long)bias);
}

int main(void)
{
	const uint64_t b = 0x555555554000;

	/* GNU ld: code on pages of its own, the offset says it all; gold:
	 * the code mapping starts the file. */
	check_bias(bfd, N(bfd), b + 0x1000, 0x1000, &bfd[1], b);
	check_bias(gold, N(gold), b, 0, &gold[1], b);

	/* lld: the r-x mapping at b + 0x1000 maps offset 0, as the r-- one
	 * at b does; the first segment holding offset 0 is the r-- one. */
	check_bias(lld, N(lld), b + 0x1000, 0, &lld[1], b);
	check_bias(lld_exec, N(lld_exec), 0x201000, 0, &lld_exec[1], 0);
	check_bias(lld_sep, N(lld_sep), b + 0x1000, 0x1000, &lld_sep[1], b);
	check_bias(lld_rust, N(lld_rust), b + 0x17000, 0x16000, &lld_rust[1],
		   b);

	check_bias(lld_driver, N(lld_driver), b + 0x11a1000, 0x11a0000,
		   &lld_driver[1], b);
	check_bias(lld_driver, N(lld_driver), b + 0x5000000, 0x5000000,
		   &lld_driver[3], b);

	/* Code mappings split by mprotect(): a page inside the code, and
	 * the code's last page, where the writable segment starts. */
	check_bias(lld_rust, N(lld_rust), b + 0x30000, 0x2f000, &lld_rust[1],
		   b);
	check_bias(lld_rust, N(lld_rust), b + 0x57000, 0x56000, &lld_rust[1],
		   b);

	/* No segment has bytes there: past the file, or only a header. */
	check_bias(lld, N(lld), b, 0x5000, NULL, 0);
	check_bias(gold, 1, b, 0, NULL, 0);
	/* An executable mapping of no PF_X segment gets one that holds its
	 * offset (READ_IMPLIES_EXEC makes GNU ld's .rodata r-x). */
	check_bias(bfd, N(bfd), b + 0x2000, 0x2000, &bfd[2], b);
	return unit_result("test_loadseg");
}
