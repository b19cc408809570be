/*
 * test_ehframe - .eh_frame_hdr descriptors: the usual encoding is
 * described exactly; encodings libunwind 1.6 cannot search are refused.
 * Call frame instructions: what compilers emit passes; DWARF expressions
 * libunwind 1.6 could loop on or trap on are refused.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "elf/ehframe.h"
#include "unit.h"

/* Expressions: 0 if accepted. */
#define EXPR_OK(...)                                          \
	(ehframe_check_expr((const uint8_t[]){ __VA_ARGS__ }, \
			    sizeof((const uint8_t[]){ __VA_ARGS__ })) == 0)
#define CFI_OK(...)                                                  \
	(ehframe_check_cfi((const uint8_t[]){ __VA_ARGS__ },         \
			   sizeof((const uint8_t[]){ __VA_ARGS__ }), \
			   0x1b) == 0)

static void test_expr(void)
{
	static uint8_t big[EHFRAME_EXPR_MAX + 1];

	/* GCC's PLT rule: breg7 8; breg16 0; lit15; and; lit11; ge; lit3;
	 * shl; plus */
	CHECK(EXPR_OK(0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33,
		      0x24, 0x22));
	/* glibc's stack realignment: breg6 -8; deref */
	CHECK(EXPR_OK(0x76, 0x78, 0x06));
	CHECK(EXPR_OK(0x96)); /* nop */
	/* skip 0, skip over a lit to the end, bra over one op */
	CHECK(EXPR_OK(0x2f, 0x00, 0x00, 0x30));
	CHECK(EXPR_OK(0x2f, 0x01, 0x00, 0x30));
	CHECK(EXPR_OK(0x31, 0x28, 0x01, 0x00, 0x30, 0x31));
	/* the case: skip -3, back to itself */
	CHECK(!EXPR_OK(0x2f, 0xfd, 0xff) && errno == EINVAL);
	CHECK(!EXPR_OK(0x30, 0x2f, 0xfc, 0xff)); /* back before itself */
	CHECK(!EXPR_OK(0x31, 0x28, 0xfd, 0xff)); /* bra back */
	CHECK(!EXPR_OK(0x2f, 0x02, 0x00, 0x30)); /* past the end */
	CHECK(!EXPR_OK(0x2f, 0x00, 0x80));	 /* far backward (-32768) */
	/* into const2u's operand, whose bytes read as skip -3 */
	CHECK(!EXPR_OK(0x2f, 0x01, 0x00, 0x0a, 0x2f, 0xfd, 0xff));
	CHECK(!EXPR_OK(0x31, 0x30, 0x1b)); /* div: INT64_MIN / -1 traps */
	CHECK(!EXPR_OK(0x03, 0x00, 0x00)); /* addr cut short */
	CHECK(!EXPR_OK(0x10, 0x80));	   /* constu: unterminated LEB128 */
	CHECK(!EXPR_OK(0x91, 0x00));	   /* fbreg: libunwind has none */
	CHECK(!EXPR_OK(0x2f));		   /* skip without its operand */
	memset(big, 0x96, sizeof(big));	   /* nops */
	CHECK(ehframe_check_expr(big, sizeof(big)) < 0); /* too long */
	CHECK(ehframe_check_expr(big, sizeof(big) - 1) == 0);
}

static void test_cfi(void)
{
	/* GCC's CIE: def_cfa rsp 8; offset r16 at cfa-8; nops */
	CHECK(CFI_OK(0x0c, 0x07, 0x08, 0x90, 0x01, 0x00, 0x00));
	/* an FDE: advance_loc 4; def_cfa_offset 16; advance_loc1 200;
	 * remember_state; def_cfa_offset 8; restore_state; args_size 0 */
	CHECK(CFI_OK(0x44, 0x0e, 0x10, 0x02, 0xc8, 0x0a, 0x0e, 0x08, 0x0b, 0x2e,
		     0x00));
	/* glibc's realignment: def_cfa_expression { breg6 -8; deref } */
	CHECK(CFI_OK(0x0f, 0x03, 0x76, 0x78, 0x06));
	/* expression r6 { breg6 0 }, val_expression r6 { breg7 8 } */
	CHECK(CFI_OK(0x10, 0x06, 0x02, 0x76, 0x00, 0x16, 0x06, 0x02, 0x77,
		     0x08));
	CHECK(CFI_OK(0x01, 1, 2, 3, 4)); /* set_loc, sdata4 */
	CHECK(ehframe_check_cfi((const uint8_t[]){ 0x01, 1, 2 }, 3, 0x1b) < 0);
	/* the case and its kin in each kind of rule */
	CHECK(!CFI_OK(0x0f, 0x03, 0x2f, 0xfd, 0xff) && errno == EINVAL);
	CHECK(!CFI_OK(0x44, 0x10, 0x06, 0x03, 0x2f, 0xfd, 0xff));
	CHECK(!CFI_OK(0x16, 0x06, 0x04, 0x31, 0x28, 0xfd, 0xff));
	CHECK(!CFI_OK(0x0f, 0x04, 0x76, 0x78, 0x06)); /* length past end */
	CHECK(!CFI_OK(0x0c, 0x07));		      /* def_cfa cut short */
	CHECK(!CFI_OK(0x3f)); /* unknown: libunwind fails on it */
	CHECK(CFI_OK(0x00));  /* nothing but a nop */
}

int main(void)
{
	/* version 1, eh_frame_ptr pcrel|sdata4, count udata4, table
	 * datarel|sdata4 (what GNU ld and the kernel's vDSO emit) */
	uint8_t hdr[12] = { 1,	  0x1b, 0x03, 0x3b, 0xf0, 0xff,
			    0xff, 0xff, 42,   0,    0,	  0 };
	unw_dyn_info_t di;
	uint64_t ef;

	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0x6000, 0x8000, &di) ==
	      0);
	CHECK(di.format == UNW_INFO_FORMAT_REMOTE_TABLE);
	CHECK(di.start_ip == 0x6000 && di.end_ip == 0x8000);
	CHECK(di.u.rti.segbase == 0x7000);
	CHECK(di.u.rti.table_data == 0x7000 + 12);
	CHECK(di.u.rti.table_len == 42);

	hdr[3] = 0x1b; /* pcrel table: libunwind 1.6 would misread it */
	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0, 1, &di) < 0 &&
	      errno == EINVAL);
	hdr[3] = 0x3b;
	hdr[0] = 2; /* unknown version */
	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0, 1, &di) < 0);
	hdr[0] = 1;
	hdr[2] = 0xff; /* no count */
	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0, 1, &di) < 0);
	hdr[2] = 0x03;
	memset(hdr + 8, 0, 4); /* empty table */
	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0, 1, &di) < 0);
	hdr[8] = 1;
	CHECK(ehframe_describe(hdr, 9, 0x7000, 0, 1, &di) < 0); /* truncated */
	CHECK(ehframe_describe(hdr, sizeof(hdr), 0x7000, 0, 1, &di) == 0);
	test_expr();
	test_cfi();

	/* eh_frame_ptr, which modcache follows to copy .eh_frame: pc-relative
	 * to the field (4 bytes in), data-relative to the header, absolute */
	CHECK(ehframe_frame_addr(hdr, sizeof(hdr), 0x7000, &ef) == 0 &&
	      ef == 0x7000 + 4 - 16);
	hdr[1] = 0x3b;
	CHECK(ehframe_frame_addr(hdr, sizeof(hdr), 0x7000, &ef) == 0 &&
	      ef == 0x7000 - 16);
	hdr[1] = 0x03;
	CHECK(ehframe_frame_addr(hdr, sizeof(hdr), 0x7000, &ef) == 0 &&
	      ef == 0xfffffff0);
	hdr[1] = 0x04; /* udata8: needs 12 bytes */
	CHECK(ehframe_frame_addr(hdr, 11, 0x7000, &ef) < 0 && errno == EINVAL);
	hdr[1] = 0x5b; /* aligned: not for a header */
	CHECK(ehframe_frame_addr(hdr, sizeof(hdr), 0x7000, &ef) < 0);
	hdr[1] = 0xff; /* omitted */
	CHECK(ehframe_frame_addr(hdr, sizeof(hdr), 0x7000, &ef) < 0);
	return unit_result("test_ehframe");
}
