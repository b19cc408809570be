/*
 * fdetab.h - which unwind-table entry covers an address of a stripped file.
 *
 * A file without symbols still describes every function compiled with
 * unwind tables: .eh_frame holds one FDE (frame description entry) per
 * function, with its code range, and .eh_frame_hdr (the PT_GNU_EH_FRAME
 * segment) a table of them sorted by start address.  The symbolizer
 * (symbolize.h) names an address no symbol covers by the FDE that does,
 * so that one stripped function is one row of a report, not one row per
 * address (perf, which prints such addresses one by one, does not do
 * this; bench/flat.sh keys functions the same way).
 *
 * fdetab_read() reads the program headers, .eh_frame_hdr and .eh_frame
 * of a file opened by libelf with ELF_C_READ (debugfile_elf_begin():
 * libelf copies with pread() into memory ptprof owns, never mmap, as
 * the file is the target's, see modcache.h), each part at most
 * FDETAB_MAX_PART bytes; the table keeps only the ranges, 16 bytes per
 * FDE, and nothing of the file (libelf frees its copies at elf_end()).
 * .eh_frame ends, as far as this reads, where the file bytes of its
 * PT_LOAD segment end.  fdetab_parse() does
 * the same from bytes already read.  Everything read is hostile input:
 * an entry whose FDE cannot be read (ehframe_fde_range()) or whose
 * initial location is not the table's is left out; a table not sorted
 * is sorted; ranges of length 0 are left out.
 *
 * Addresses are link-time ones (the file's p_vaddr), as the caller's
 * symbols are.  .debug_frame is not read.
 *
 * Contract: fdetab_read() and fdetab_parse() return a table the caller
 * frees with fdetab_free(), or NULL with errno: ENOENT when the file has
 * no .eh_frame_hdr (or an empty one), EINVAL when the file or the table
 * is not one this reads, EFBIG for a part over FDETAB_MAX_PART, EIO when
 * the file is shorter than its headers say, ENOMEM; each with a sentence
 * into err (errlen bytes).
 * fdetab_lookup() is a binary search: 0 with the range, or -1 with
 * errno ENOENT.  Never prints; a table is read-only once made, but not
 * locked.
 */
#ifndef PTPROF_FDETAB_H
#define PTPROF_FDETAB_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* The largest .eh_frame_hdr or .eh_frame read: node 20's are 0.6 and
 * 2.7 MB, chromium's 0.07 and 0.4 MB. */
#define FDETAB_MAX_PART (64u << 20)

struct fdetab;

/* From the file elf (libelf, opened with ELF_C_READ, never mmap). */
struct fdetab *fdetab_read(Elf *elf, char *err, size_t errlen);

/*
 * hdr: the .eh_frame_hdr (hdr_len bytes, at link-time address hdr_addr);
 * frame: .eh_frame from its start (frame_len bytes, at frame_addr).
 */
struct fdetab *fdetab_parse(const uint8_t *hdr, size_t hdr_len,
			    uint64_t hdr_addr, const uint8_t *frame,
			    size_t frame_len, uint64_t frame_addr, char *err,
			    size_t errlen);

/* The FDE covering addr: [*start, *end). */
int fdetab_lookup(const struct fdetab *t, uint64_t addr, uint64_t *start,
		  uint64_t *end);

/* The number of ranges kept. */
size_t fdetab_count(const struct fdetab *t);

void fdetab_free(struct fdetab *t);

#endif /* PTPROF_FDETAB_H */
