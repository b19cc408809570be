/*
 * debugframe.h - .debug_frame turned into a table libunwind searches.
 *
 * Go binaries (and code built with -fno-asynchronous-unwind-tables -g)
 * have no .eh_frame_hdr: their call frame information is in .debug_frame,
 * a section no segment loads, often compressed (SHF_COMPRESSED, zlib).
 * libunwind 1.6 reads .debug_frame itself only from local memory through
 * its own dl_iterate_phdr search, not for a remote address space; but it
 * can search, in a remote address space, an .eh_frame_hdr-style binary
 * search table (UNW_INFO_FORMAT_IP_OFFSET: entries relative to the
 * table's start_ip, FDEs relative to its segbase) over .eh_frame-style
 * FDEs.  So debugframe_build() converts a .debug_frame into that form,
 * once per module, into one buffer of ours, the "image":
 *
 *	[0, 8 * nfde)	the table: (int32 pc - lo, int32 FDE offset in the
 *			image) pairs, sorted by pc (DW_EH_PE_datarel|sdata4,
 *			the only table encoding libunwind 1.6 reads)
 *	then		the CIEs, then the FDEs, in .eh_frame form
 *
 * What the conversion changes, entry by entry (DWARF 4 section 6.4.1 and
 * the LSB's .eh_frame): CIE id 0xffffffff (or all ones, 64-bit DWARF) ->
 * 0; an FDE's CIE pointer, a section offset -> the distance back from the
 * field to the converted CIE; 64-bit DWARF entries -> 32-bit ones; CIE
 * versions 1, 3 and 4 (4 has address_size and segment_size fields, which
 * .eh_frame CIEs lack, and which libunwind 1.6 would misread) -> version
 * 3; the augmentation "" -> "zR" with FDE pointers DW_EH_PE_udata8, so an
 * FDE's initial location stays the absolute link-time address
 * .debug_frame gives (the caller adds the load bias: di->load_offset);
 * each FDE gains an empty augmentation data field.  The call frame
 * instructions are copied unchanged (DW_CFA_set_loc's operand is 8 bytes
 * in both forms) and must pass ehframe_check_cfi(): the unwinder vets them
 * again when it runs them.
 *
 * Hostile input: a .debug_frame comes from a file the target's user owns.
 * An entry that is malformed (runs past its end or the section's, a CIE
 * with an augmentation, an address size other than 8, a segment size,
 * a return address column libunwind has no slot for, instructions
 * ehframe_check_cfi() refuses; an FDE whose CIE is not a valid CIE, whose
 * range is empty or outside [lo, hi_max), or more than 2 GiB from lo) is
 * skipped and counted; the module then has fewer FDEs.  Every size is
 * bounded by `max` bytes (the inflated section and the image each).
 *
 * Contract: pure functions of the bytes given (zlib inflates into memory
 * of ours); no I/O, never prints.  The caller owns what debugframe_build()
 * returns and frees it with debugframe_free().
 */
#ifndef PTPROF_DEBUGFRAME_H
#define PTPROF_DEBUGFRAME_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libunwind.h>

struct debugframe {
	uint8_t *image;	 /* the table, then the CIEs and FDEs (see above) */
	size_t len;	 /* bytes in image */
	size_t nfde;	 /* entries in the table (>= 1) */
	uint64_t lo, hi; /* link-time PCs the FDEs cover lie in [lo, hi) */
	size_t skipped;	 /* entries skipped as malformed */
};

/*
 * Which section of the n section headers sh is .debug_frame: the names
 * are in strtab (slen bytes, the section header string table).  Its
 * index, or -1 when there is none (or it has no bytes in the file).
 */
int debugframe_find(const Elf64_Shdr *sh, size_t n, const char *strtab,
		    size_t slen);

/*
 * Build the image from the section's bytes sec[0, len): as they are in
 * the file, compressed when `compressed` (SHF_COMPRESSED: an Elf64_Chdr,
 * then a zlib stream; no other ch_type is read).  FDEs are kept when they
 * cover link-time addresses inside [lo, hi_max) (the module's executable
 * segments).  Returns the image (free with debugframe_free()), or NULL
 * with errno EINVAL (no FDE kept; a message in err, errlen bytes, at
 * most one sentence), EFBIG (more than max bytes) or ENOMEM.
 */
struct debugframe *debugframe_build(const uint8_t *sec, size_t len,
				    bool compressed, uint64_t lo,
				    uint64_t hi_max, size_t max, char *err,
				    size_t errlen);

void debugframe_free(struct debugframe *d);

/*
 * Describe d to libunwind: the image lies at `at` in the address space
 * the unwinder's access_mem serves, the module's load bias is bias.
 * Fills di (UNW_INFO_FORMAT_IP_OFFSET) for the PCs [d->lo + bias,
 * d->hi + bias).
 */
void debugframe_describe(const struct debugframe *d, uint64_t at, uint64_t bias,
			 unw_dyn_info_t *di);

#endif /* PTPROF_DEBUGFRAME_H */
