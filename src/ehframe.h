/*
 * ehframe.h - libunwind unwind-table descriptors from .eh_frame_hdr.
 *
 * A module's PT_GNU_EH_FRAME segment (.eh_frame_hdr) holds a sorted
 * binary-search table of (initial location, FDE address) pairs.  libunwind
 * can search such a table in a remote address space when it is described
 * as a UNW_INFO_FORMAT_REMOTE_TABLE unw_dyn_info_t; ehframe_describe()
 * builds that descriptor from the header bytes.
 *
 * libunwind 1.6's dwarf_search_unwind_table() only understands tables
 * encoded DW_EH_PE_datarel|DW_EH_PE_sdata4 (it would misread, or abort()
 * on, anything else), so any other table encoding, version or count
 * encoding is rejected here with -1/EINVAL, and the caller falls back.
 *
 * Contract: pure functions of the bytes given; no I/O, never prints.
 */
#ifndef PTPROF_EHFRAME_H
#define PTPROF_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

#include <libunwind.h>

/*
 * hdr: the first bytes of .eh_frame_hdr (at least 4; 32 is always enough),
 * hdr_addr: its runtime address in the target, [start_ip, end_ip): the
 * module's executable range.  Fills di; 0 or -1 with errno EINVAL.
 */
int ehframe_describe(const uint8_t *hdr, size_t len, uint64_t hdr_addr,
		     uint64_t start_ip, uint64_t end_ip, unw_dyn_info_t *di);

/*
 * The address of .eh_frame that the header hdr (len bytes, at address
 * hdr_addr) gives in its eh_frame_ptr field, into *out.  Absolute,
 * pc-relative and data-relative (to the header) 4- and 8-byte encodings;
 * 0, or -1 with errno EINVAL for any other.
 */
int ehframe_frame_addr(const uint8_t *hdr, size_t len, uint64_t hdr_addr,
		       uint64_t *out);

#endif /* PTPROF_EHFRAME_H */
