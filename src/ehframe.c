/*
 * ehframe.c - .eh_frame_hdr -> unw_dyn_info_t (see ehframe.h).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ehframe.h"

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
