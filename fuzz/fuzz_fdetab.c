/*
 * fuzz_fdetab.c - libFuzzer target for the FDE table reader
 * (fdetab_parse(), ehframe_fde_range()).
 *
 * The input is a 2-byte little-endian length n, then n bytes of
 * .eh_frame_hdr (at FUZZ_HDR_ADDR), then .eh_frame (at FUZZ_FRAME_ADDR)
 * to the end; a shorter input is all header.  The promises of fdetab.h
 * are checked: on success at most as many ranges as the header's count
 * allows, and every lookup (at each address a header word points to, and
 * one byte before) either finds a range holding the address or fails
 * with ENOENT; on failure errno ENOENT, EINVAL or ENOMEM and one line of
 * message.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "symbols/fdetab.h"
#include "fuzz_util.h"

#define FUZZ_HDR_ADDR 0x10000u
#define FUZZ_FRAME_ADDR 0x20000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define EXPECT(cond)                                        \
	do {                                                \
		if (!(cond))                                \
			fuzz_violation("fdetab.h: " #cond); \
	} while (0)

static void check_lookup(const struct fdetab *t, uint64_t addr)
{
	uint64_t start = 0, end = 0;

	errno = 0;
	if (fdetab_lookup(t, addr, &start, &end) == 0)
		EXPECT(start <= addr && addr < end);
	else
		EXPECT(errno == ENOENT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t hlen = len, i;
	const uint8_t *frame = NULL;
	char err[128];
	struct fdetab *t;
	int32_t w;

	if (len >= 2) {
		hlen = (size_t)data[0] | (size_t)data[1] << 8;
		data += 2;
		len -= 2;
		if (hlen > len)
			hlen = len;
		frame = data + hlen;
	}
	err[0] = '\0';
	t = fdetab_parse(data, hlen, FUZZ_HDR_ADDR, frame,
			 frame ? len - hlen : 0, FUZZ_FRAME_ADDR, err,
			 sizeof(err));
	if (!t) {
		EXPECT(errno == ENOENT || errno == EINVAL || errno == ENOMEM);
		EXPECT(err[0] != '\0' && !strchr(err, '\n'));
		return 0;
	}
	EXPECT(fdetab_count(t) <= hlen / 8);
	for (i = 0; i + 4 <= hlen; i += 4) {
		memcpy(&w, data + i, 4);
		check_lookup(t, FUZZ_HDR_ADDR + (uint64_t)(int64_t)w);
		check_lookup(t, FUZZ_HDR_ADDR + (uint64_t)(int64_t)w - 1);
	}
	check_lookup(t, 0);
	check_lookup(t, UINT64_MAX);
	fdetab_free(t);
	return 0;
}
