/*
 * ehframe.c - .eh_frame_hdr -> unw_dyn_info_t (see ehframe.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "elf/ehframe.h"
#include "util/leb128.h"

/* DWARF pointer encodings (LSB 4.1, "DWARF Exception Header Encoding"). */
#define DW_EH_PE_omit 0xff
#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

/* Size of a value of this encoding's format, or 0 if not supported. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: /* a native pointer: 8 bytes on x86-64 */
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	default:
		return 0;
	}
}

static uint64_t read_value(const uint8_t *p, uint8_t enc)
{
	uint32_t u32;
	uint64_t u64;

	if (enc_size(enc) == 8) {
		memcpy(&u64, p, 8);
		return u64;
	}
	memcpy(&u32, p, 4);
	return (enc & 0x0f) == DW_EH_PE_sdata4 ?
		       (uint64_t)(int64_t)(int32_t)u32 :
		       u32;
}

int ehframe_describe(const uint8_t *hdr, size_t len, uint64_t hdr_addr,
		     uint64_t start_ip, uint64_t end_ip, unw_dyn_info_t *di)
{
	uint8_t ptr_enc, cnt_enc, tab_enc;
	size_t ptr_size, cnt_size;
	uint64_t count;

	if (len < 4 || hdr[0] != 1)
		goto bad;
	ptr_enc = hdr[1];
	cnt_enc = hdr[2];
	tab_enc = hdr[3];
	if (tab_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    ptr_enc == DW_EH_PE_omit || cnt_enc == DW_EH_PE_omit)
		goto bad;
	ptr_size = enc_size(ptr_enc);
	cnt_size = enc_size(cnt_enc);
	/* absptr is no format for a count (libunwind reads 4 bytes) */
	if ((cnt_enc & 0x0f) == DW_EH_PE_absptr)
		goto bad;
	/* the count is a plain number: no pc/data-relative modifier */
	if (!ptr_size || !cnt_size || (cnt_enc & 0x70) ||
	    len < 4 + ptr_size + cnt_size)
		goto bad;
	count = read_value(hdr + 4 + ptr_size, cnt_enc);
	if (count == 0 || count > (1u << 26))
		goto bad;
	memset(di, 0, sizeof(*di));
	di->format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di->start_ip = start_ip;
	di->end_ip = end_ip;
	di->u.rti.segbase = hdr_addr; /* datarel entries are relative to it */
	di->u.rti.table_data = hdr_addr + 4 + ptr_size + cnt_size;
	/* two sdata4 per entry, counted in unw_word_t units */
	di->u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Skip one (U|S)LEB128 at *pos of p[0..len): 0, or -1 if it runs past. */
static int skip_leb(const uint8_t *p, size_t len, size_t *pos)
{
	uint64_t v;

	return leb128_read_u64(p, len, pos, 0, &v) < 0 ? -1 : 0;
}

static int skip_bytes(size_t len, size_t *pos, size_t n)
{
	if (n > len - *pos)
		return -1;
	*pos += n;
	return 0;
}

/* Read a ULEB128 (its low 64 bits) at *pos: 0, or -1 if it runs past. */
static int read_uleb(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	return leb128_read_u64(p, len, pos, 0, v) < 0 ? -1 : 0;
}

/* DWARF expression operations (DWARF 4 section 7.7.1) libunwind 1.6
 * evaluates, besides the lit, reg and breg ranges. */
enum {
	OP_addr = 0x03,
	OP_deref = 0x06,
	OP_const1u = 0x08,
	OP_const1s = 0x09,
	OP_const2u = 0x0a,
	OP_const2s = 0x0b,
	OP_const4u = 0x0c,
	OP_const4s = 0x0d,
	OP_const8u = 0x0e,
	OP_const8s = 0x0f,
	OP_constu = 0x10,
	OP_consts = 0x11,
	OP_dup = 0x12,
	OP_drop = 0x13,
	OP_over = 0x14,
	OP_pick = 0x15,
	OP_swap = 0x16,
	OP_rot = 0x17,
	OP_abs = 0x19,
	OP_and = 0x1a,
	OP_div = 0x1b,
	OP_minus = 0x1c,
	OP_xor = 0x27,
	OP_plus_uconst = 0x23,
	OP_bra = 0x28,
	OP_eq = 0x29,
	OP_ne = 0x2e,
	OP_skip = 0x2f,
	OP_lit0 = 0x30,
	OP_breg0 = 0x70,
	OP_breg31 = 0x8f,
	OP_regx = 0x90,
	OP_bregx = 0x92,
	OP_deref_size = 0x94,
	OP_nop = 0x96,
};

/*
 * Step over the operation at *pos (its operands inside len); a jump's
 * target goes to *target (else SIZE_MAX).  0, or -1 if libunwind would
 * not evaluate it or it runs past the end.
 */
static int expr_op(const uint8_t *p, size_t len, size_t *pos, size_t *target)
{
	uint8_t op = p[(*pos)++];
	int16_t off;

	*target = SIZE_MAX;
	if (op >= OP_lit0 && op < OP_breg0) /* lit0-31, reg0-31 */
		return 0;
	if (op >= OP_breg0 && op <= OP_breg31)
		return skip_leb(p, len, pos);
	switch (op) {
	case OP_deref:
	case OP_dup:
	case OP_drop:
	case OP_over:
	case OP_swap:
	case OP_rot:
	case OP_abs:
	case OP_and:
	case OP_nop:
		return 0;
	case OP_div:
		return -1; /* sword(INT64_MIN) / -1: SIGFPE in libunwind */
	case OP_const1u:
	case OP_const1s:
	case OP_pick:
	case OP_deref_size:
		return skip_bytes(len, pos, 1);
	case OP_const2u:
	case OP_const2s:
		return skip_bytes(len, pos, 2);
	case OP_const4u:
	case OP_const4s:
		return skip_bytes(len, pos, 4);
	case OP_addr:
	case OP_const8u:
	case OP_const8s:
		return skip_bytes(len, pos, 8);
	case OP_constu:
	case OP_consts:
	case OP_plus_uconst:
	case OP_regx:
		return skip_leb(p, len, pos);
	case OP_bregx:
		return skip_leb(p, len, pos) ? -1 : skip_leb(p, len, pos);
	case OP_bra:
	case OP_skip:
		if (skip_bytes(len, pos, 2))
			return -1;
		off = (int16_t)(p[*pos - 2] | p[*pos - 1] << 8);
		if (off < 0 || (size_t)off > len - *pos)
			return -1; /* backward (may never end) or out of range */
		*target = *pos + (size_t)off;
		return 0;
	default: /* minus .. xor, eq .. ne: no operand */
		return (op >= OP_minus && op <= OP_xor &&
			op != OP_plus_uconst) ||
				       (op >= OP_eq && op <= OP_ne) ?
			       0 :
			       -1;
	}
}

int ehframe_check_expr(const uint8_t *p, size_t len)
{
	uint8_t start[EHFRAME_EXPR_MAX / 8 + 1] = { 0 };
	size_t pos = 0, target;

	if (len > EHFRAME_EXPR_MAX)
		goto bad;
	/* First pass: decode linearly, marking where operations start. */
	while (pos < len) {
		start[pos / 8] |= (uint8_t)(1u << pos % 8);
		if (expr_op(p, len, &pos, &target))
			goto bad;
	}
	start[len / 8] |= (uint8_t)(1u << len % 8); /* the end */
	/* Second pass: a jump must land where an operation starts, so that
	 * what libunwind runs is a forward walk over these operations. */
	for (pos = 0; pos < len;) {
		expr_op(p, len, &pos, &target);
		if (target != SIZE_MAX &&
		    !(start[target / 8] & 1u << target % 8))
			goto bad;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Size of a DW_CFA_set_loc operand in encoding enc; 0 for a LEB128, -1
 * for an encoding libunwind would not read the same way. */
static int enc_operand_size(uint8_t enc)
{
	if (enc == DW_EH_PE_omit || (enc & 0x70) == 0x50) /* aligned */
		return -1;
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case 0x01: /* uleb128 */
	case 0x09: /* sleb128 */
		return 0;
	case 0x02: /* udata2 */
	case 0x0a: /* sdata2 */
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	default:
		return -1;
	}
}

/* Call frame instructions (DWARF 4 section 7.23, GNU extensions). */
enum {
	CFA_set_loc = 0x01,
	CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03,
	CFA_advance_loc4 = 0x04,
	CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10,
	CFA_val_expression = 0x16,
	CFA_MIPS_advance_loc8 = 0x1d,
	CFA_GNU_window_save = 0x2d,
	CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
};

int ehframe_check_cfi(const uint8_t *p, size_t len, uint8_t ptr_enc)
{
	size_t pos = 0;

	while (pos < len) {
		uint8_t op = p[pos++];
		uint64_t n;
		int size, rc = 0;

		switch (op & 0xc0 ? op & 0xc0 : op) {
		case 0x40: /* advance_loc */
		case 0xc0: /* restore */
		case 0x00: /* nop */
		case 0x0a: /* remember_state */
		case 0x0b: /* restore_state */
		case CFA_GNU_window_save:
			break;
		case 0x80: /* offset: ULEB */
		case 0x06: /* restore_extended */
		case 0x07: /* undefined */
		case 0x08: /* same_value */
		case 0x0d: /* def_cfa_register */
		case 0x0e: /* def_cfa_offset */
		case 0x13: /* def_cfa_offset_sf */
		case CFA_GNU_args_size:
			rc = skip_leb(p, len, &pos);
			break;
		case 0x05: /* offset_extended: ULEB, ULEB */
		case 0x09: /* register */
		case 0x0c: /* def_cfa */
		case 0x11: /* offset_extended_sf: ULEB, SLEB */
		case 0x12: /* def_cfa_sf */
		case 0x14: /* val_offset */
		case 0x15: /* val_offset_sf */
		case CFA_GNU_negative_offset_extended:
			rc = skip_leb(p, len, &pos) || skip_leb(p, len, &pos);
			break;
		case CFA_advance_loc1:
			rc = skip_bytes(len, &pos, 1);
			break;
		case CFA_advance_loc2:
			rc = skip_bytes(len, &pos, 2);
			break;
		case CFA_advance_loc4:
			rc = skip_bytes(len, &pos, 4);
			break;
		case CFA_MIPS_advance_loc8:
			rc = skip_bytes(len, &pos, 8);
			break;
		case CFA_set_loc:
			size = enc_operand_size(ptr_enc);
			rc = size < 0 ? -1 :
			     size     ? skip_bytes(len, &pos, (size_t)size) :
					skip_leb(p, len, &pos);
			break;
		case CFA_expression: /* register, then as below */
		case CFA_val_expression:
			if (skip_leb(p, len, &pos))
				goto bad;
			/* fall through */
		case CFA_def_cfa_expression:
			rc = read_uleb(p, len, &pos, &n) || n > len - pos ||
			     ehframe_check_expr(p + pos, (size_t)n);
			if (!rc)
				pos += (size_t)n;
			break;
		default: /* libunwind fails on it anyway */
			goto bad;
		}
		if (rc)
			goto bad;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int ehframe_frame_addr(const uint8_t *hdr, size_t len, uint64_t hdr_addr,
		       uint64_t *out)
{
	uint8_t enc;
	uint64_t v;

	if (len < 4 || hdr[0] != 1 || hdr[1] == DW_EH_PE_omit)
		goto bad;
	enc = hdr[1];
	if (!enc_size(enc) || len < 4 + enc_size(enc))
		goto bad;
	v = read_value(hdr + 4, enc);
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel: /* from the field itself, 4 bytes in */
		v += hdr_addr + 4;
		break;
	case DW_EH_PE_datarel: /* from the start of .eh_frame_hdr */
		v += hdr_addr;
		break;
	default:
		goto bad;
	}
	*out = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* The entry (CIE or FDE) at *pos: its body [*pos, *stop) after the 4-byte
 * length; -1 for the terminator, a 64-bit length or one past len. */
static int entry_body(const uint8_t *p, size_t len, size_t *pos, size_t *stop)
{
	uint32_t l;

	if (*pos > len || len - *pos < 4)
		return -1;
	memcpy(&l, p + *pos, 4);
	*pos += 4;
	if (l == 0 || l == 0xffffffff || l > len - *pos)
		return -1;
	*stop = *pos + l;
	return 0;
}

/*
 * What a CIE may hold for ehframe_fde_range() to read it: an augmentation
 * string of at most CIE_AUG_MAX letters (compilers write at most "zPLR"
 * and an 'S' or 'B') and LEB128 fields of at most CIE_LEB_MAX bytes (10
 * hold 64 bits).  One CIE serves every FDE of a module, so a CIE whose
 * augmentation runs over megabytes made each FDE's lookup scan them all:
 * 4 ms an FDE for 1 MB, hours for a hostile module's table.
 */
#define CIE_AUG_MAX 16
#define CIE_LEB_MAX 10

/* Skip a LEB128 of a CIE, at most CIE_LEB_MAX bytes of [*pos, stop). */
static int skip_cie_leb(const uint8_t *p, size_t stop, size_t *pos)
{
	return skip_leb(p,
			stop - *pos > CIE_LEB_MAX ? *pos + CIE_LEB_MAX : stop,
			pos);
}

/* Step over a pointer of encoding enc (a personality routine's). */
static int skip_pointer(const uint8_t *p, size_t len, size_t *pos, uint8_t enc)
{
	int n = enc_operand_size(enc);

	if (n < 0)
		return -1;
	return n ? skip_bytes(len, pos, (size_t)n) : skip_cie_leb(p, len, pos);
}

/*
 * The FDE pointer encoding of the CIE at cie (DWARF 4 section 6.4.1, LSB
 * 4.1 for .eh_frame's augmentations): after the version, augmentation
 * string, alignment factors and return register, the 'z' data holds
 * one field per letter, 'R' the encoding.  0, or -1.
 */
static int cie_encoding(const uint8_t *p, size_t len, size_t cie, uint8_t *enc)
{
	size_t pos = cie, stop, n, i;
	const char *aug;
	uint32_t id;
	uint8_t ver, e;

	if (entry_body(p, len, &pos, &stop) || stop - pos < 6)
		return -1;
	memcpy(&id, p + pos, 4);
	ver = p[pos + 4];
	pos += 5;
	if (id != 0 || (ver != 1 && ver != 3 && ver != 4))
		return -1;
	aug = (const char *)p + pos;
	n = strnlen(aug,
		    stop - pos > CIE_AUG_MAX ? CIE_AUG_MAX + 1 : stop - pos);
	if (n == stop - pos || n > CIE_AUG_MAX || (n && aug[0] != 'z'))
		return -1; /* unterminated, too long, or "eh" (not x86-64's) */
	pos += n + 1;
	if (ver == 4 && skip_bytes(stop, &pos, 2)) /* address, segment size */
		return -1;
	if (skip_cie_leb(p, stop, &pos) || skip_cie_leb(p, stop, &pos) ||
	    (ver == 1 ? skip_bytes(stop, &pos, 1) :
			skip_cie_leb(p, stop, &pos)))
		return -1;
	*enc = DW_EH_PE_absptr;
	if (n && skip_cie_leb(p, stop, &pos)) /* the 'z' data's length */
		return -1;
	for (i = 1; i < n; i++) {
		if (aug[i] == 'S' || aug[i] == 'B' || aug[i] == 'G')
			continue; /* no data */
		if ((aug[i] != 'R' && aug[i] != 'L' && aug[i] != 'P') ||
		    pos >= stop)
			return -1; /* unknown: its data cannot be skipped */
		e = p[pos++];
		if (aug[i] == 'R') {
			*enc = e;
			return 0;
		}
		if (aug[i] == 'P' && skip_pointer(p, stop, &pos, e))
			return -1;
	}
	return 0;
}

/* A value of encoding enc at *pos, whose address is field_addr: absolute
 * or pc-relative, 4 or 8 bytes.  0, or -1 for another encoding or past
 * stop. */
static int read_pointer(const uint8_t *p, size_t stop, size_t *pos,
			uint64_t field_addr, uint8_t enc, uint64_t *v)
{
	size_t n = enc_size(enc);

	if (!n || enc & 0x80 ||
	    ((enc & 0x70) != 0 && (enc & 0x70) != DW_EH_PE_pcrel))
		return -1; /* indirect, data-, text- or function-relative */
	if (n > stop - *pos)
		return -1;
	*v = read_value(p + *pos, enc);
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		*v += field_addr;
	*pos += n;
	return 0;
}

int ehframe_fde_range(const uint8_t *frame, size_t len, uint64_t frame_addr,
		      size_t off, uint64_t *start, uint64_t *end)
{
	size_t pos = off, stop;
	uint64_t begin, range;
	uint32_t cie_ptr;
	uint8_t enc;

	if (entry_body(frame, len, &pos, &stop) || stop - pos < 4)
		goto bad;
	memcpy(&cie_ptr, frame + pos, 4);
	/* 0 is a CIE; else the distance back from this field to the CIE */
	if (cie_ptr == 0 || cie_ptr > pos ||
	    cie_encoding(frame, len, pos - cie_ptr, &enc))
		goto bad;
	pos += 4;
	/* the range has the format of the encoding, never its relativity */
	if (read_pointer(frame, stop, &pos, frame_addr + pos, enc, &begin) ||
	    read_pointer(frame, stop, &pos, 0, enc & 0x0f, &range) ||
	    range > UINT64_MAX - begin)
		goto bad;
	*start = begin;
	*end = begin + range;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
