/*
 * test_ehframe - .eh_frame_hdr descriptors: the usual encoding is
 * described exactly; encodings libunwind 1.6 cannot search are refused.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ehframe.h"
#include "unit.h"

int main(void)
{
	/* version 1, eh_frame_ptr pcrel|sdata4, count udata4, table
	 * datarel|sdata4 (what GNU ld and the kernel's vDSO emit) */
	uint8_t hdr[12] = { 1, 0x1b, 0x03, 0x3b, 0xf0, 0xff, 0xff, 0xff,
			    42, 0, 0, 0 };
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
