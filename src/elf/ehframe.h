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
 * ehframe_check_cfi() vets the call frame instructions of a CIE or FDE
 * before libunwind runs them: its DWARF expression evaluator (1.6,
 * src/dwarf/Gexpr.c) follows DW_OP_skip and DW_OP_bra wherever they point,
 * so `DW_CFA_def_cfa_expression { DW_OP_skip -3 }` spins forever inside
 * one unw_step(), and DW_OP_div of INT64_MIN by -1 raises SIGFPE.  No
 * libunwind setting bounds either, so such rules are refused here.
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
 * p, len: call frame instructions (DW_CFA_*, DWARF 4 section 6.4.2, with
 * the GNU extensions GCC emits); ptr_enc: the FDE pointer encoding (the
 * CIE's 'R' augmentation), which DW_CFA_set_loc's operand has.  0 when
 * every instruction decodes inside [p, p + len) and every DWARF
 * expression in them (DW_CFA_def_cfa_expression, DW_CFA_expression,
 * DW_CFA_val_expression) passes ehframe_check_expr(); else -1 with errno
 * EINVAL.  Linear in len.
 */
int ehframe_check_cfi(const uint8_t *p, size_t len, uint8_t ptr_enc);

/*
 * One DWARF expression of len bytes (at most EHFRAME_EXPR_MAX).  0 when
 * libunwind 1.6 evaluates it in at most one pass: every operation is one
 * it implements, every operand lies inside the expression, every
 * DW_OP_skip/DW_OP_bra jumps forward to the start of an operation or to
 * the end, and there is no DW_OP_div (which traps on INT64_MIN / -1).
 * Else -1 with errno EINVAL.
 */
#define EHFRAME_EXPR_MAX 4096
int ehframe_check_expr(const uint8_t *p, size_t len);

/*
 * The address of .eh_frame that the header hdr (len bytes, at address
 * hdr_addr) gives in its eh_frame_ptr field, into *out.  Absolute,
 * pc-relative and data-relative (to the header) 4- and 8-byte encodings;
 * 0, or -1 with errno EINVAL for any other.
 */
int ehframe_frame_addr(const uint8_t *hdr, size_t len, uint64_t hdr_addr,
		       uint64_t *out);

/*
 * The code range [*start, *end) of the FDE at byte off of .eh_frame
 * (frame: len bytes from the section's start, at address frame_addr):
 * its initial location and address range, read in the pointer encoding
 * its CIE gives (augmentation 'R'; absptr without one).  0, or -1 with
 * errno EINVAL when the entry at off is no FDE (a CIE, the terminator, a
 * 64-bit length, which no x86-64 compiler writes in .eh_frame), when it
 * or its CIE runs past len, when the CIE's augmentation string has more
 * than 16 letters or a LEB128 field of it more than 10 bytes (none real
 * has), or when the encoding is other than an absolute or pc-relative 4-
 * or 8-byte one.  Constant time.
 */
int ehframe_fde_range(const uint8_t *frame, size_t len, uint64_t frame_addr,
		      size_t off, uint64_t *start, uint64_t *end);

#endif /* PTPROF_EHFRAME_H */
