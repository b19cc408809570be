/*
 * loadseg.c - the segment behind a mapping (see loadseg.h).
 */
#include "config.h"

#include "elf/loadseg.h"

/*
 * The kernel (for the executable) and ld.so (for everything else) map
 * each PT_LOAD segment with mmap() from p_offset rounded down to a page,
 * at its p_vaddr rounded down to a page plus the bias, with the
 * segment's permissions (PF_X gives an executable mapping).  So a
 * mapping's offset is the first page of its segment, or a page inside it
 * when the mapping was split later: RELRO makes the head of the writable
 * segment read-only with mprotect(), and so may a program on its own.
 *
 * GNU ld pads each segment to a page of its own (-z separate-code, its
 * default on x86-64; gold and older GNU ld put the headers, read-only
 * data and code in one segment from offset 0).  lld does not: by default
 * each segment starts in the file right after the previous one and its
 * p_vaddr is moved on a page instead, so segments share file pages.  A
 * C program linked by lld has
 *
 *	LOAD 0x000000 vaddr 0x0000 R	  (headers, .rodata, .eh_frame_hdr)
 *	LOAD 0x000830 vaddr 0x1830 R E	  (.text)
 *	LOAD 0x000b20 vaddr 0x2b20 RW	  (RELRO)
 *
 * and is mapped r-- at bias, r-x at bias + 0x1000 and rw- at bias + 0x2000,
 * each from file offset 0.  The first segment holding offset 0 is the
 * read-only one, which gives the code mapping a bias 0x1000 too high.
 * What tells the segments apart is the permission: a mapping of code is
 * executable and maps the PF_X segment.  Of two PF_X segments sharing
 * the page (a linker script can make them), the one that starts at the
 * mapping's offset beats one that merely holds it.  An executable mapping
 * that no PF_X segment holds (a program's own mprotect(), or the
 * READ_IMPLIES_EXEC personality, which makes every mapping executable)
 * still gets a segment that holds its offset.
 */

/* Whether segment g has file bytes in the page at file offset offset. */
static bool holds(const Elf64_Phdr *g, uint64_t offset)
{
	uint64_t first = g->p_offset & ~(uint64_t)(LOADSEG_PAGE - 1);

	return g->p_type == PT_LOAD && g->p_filesz > 0 && first <= offset &&
	       offset < g->p_offset + g->p_filesz;
}

/* How well segment g fits an executable mapping of offset offset:
 * higher is better. */
static int fit(const Elf64_Phdr *g, uint64_t offset)
{
	uint64_t first = g->p_offset & ~(uint64_t)(LOADSEG_PAGE - 1);

	return ((g->p_flags & PF_X) != 0) * 2 + (first == offset);
}

const Elf64_Phdr *loadseg_exec(const Elf64_Phdr *ph, size_t n, uint64_t offset)
{
	const Elf64_Phdr *best = NULL;
	int best_fit = -1;

	for (size_t i = 0; i < n; i++) {
		int f;

		if (!holds(&ph[i], offset))
			continue;
		f = fit(&ph[i], offset);
		if (f > best_fit) {
			best = &ph[i];
			best_fit = f;
		}
	}
	return best;
}

uint64_t loadseg_bias(const Elf64_Phdr *seg, uint64_t start, uint64_t offset)
{
	/* start maps offset, seg maps p_offset at bias + p_vaddr */
	return start - offset + seg->p_offset - seg->p_vaddr;
}
