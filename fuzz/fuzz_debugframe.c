/*
 * fuzz_debugframe.c - libFuzzer target for the .debug_frame converter
 * (debugframe_build()).
 *
 * The input's first byte chooses how the rest is handed over: bit 0
 * clear, as an uncompressed .debug_frame; set, as SHF_COMPRESSED bytes,
 * either as they are (bit 1 clear: any garbage reaches the Elf64_Chdr and
 * zlib checks) or zlib-compressed here first (bit 1 set: the converter
 * sees the rest inflated).  The executable range is [0x400000, 0x500000)
 * or, bit 2 set, [0, UINT64_MAX).  The promises of debugframe.h are
 * checked: NULL with errno EINVAL, EFBIG or ENOMEM and, for the first
 * two, one non-empty line in err; or an image of at most max bytes,
 * padded to 8, whose table has nfde sorted entries inside [lo, hi), each
 * pointing at an FDE inside the image that points back to a converted
 * CIE (id 0, version 3, "zR", udata8) and whose instructions pass
 * ehframe_check_cfi().
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "elf/debugframe.h"
#include "elf/ehframe.h"
#include "fuzz_util.h"

#define MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The FDE at off of d->image and its CIE, as debugframe.h describes. */
static void check_fde(const struct debugframe *d, uint32_t off)
{
	const uint8_t *img = d->image, *cie;
	uint32_t len, back, cie_len;
	size_t instr;

	/* an FDE is at least 25 bytes (length, CIE pointer, two udata8,
	 * augmentation length), a CIE 17 */
	if (off < d->nfde * 8 || d->len < 25 || off > d->len - 25)
		fuzz_violation("table entry outside the FDEs");
	len = le32(img + off);
	back = le32(img + off + 4);
	if (len < 21 || len > d->len - off - 4 || back > off + 4 ||
	    back < 4 + 17)
		fuzz_violation("FDE length or CIE pointer out of the image");
	cie = img + off + 4 - back;
	cie_len = le32(cie);
	if (cie < img + d->nfde * 8 || le32(cie + 4) != 0 || cie[8] != 3 ||
	    memcmp(cie + 9, "zR", 3) ||
	    (size_t)cie_len + 4 > (size_t)(img + off - cie))
		fuzz_violation("FDE's CIE is not a converted CIE");
	instr = off + 4 + 4 + 8 + 8 + 1;
	if (img[instr - 1] != 0 ||
	    ehframe_check_cfi(img + instr, off + 4 + len - instr, 0x04))
		fuzz_violation("FDE's instructions do not pass the check");
}

static void check_image(const struct debugframe *d, uint64_t lo, uint64_t hi)
{
	uint32_t prev = 0;

	if (d->nfde == 0 || d->len % 8 || d->len > MAX ||
	    d->nfde * 8 > d->len || d->lo != lo || d->hi <= d->lo ||
	    d->hi > hi || d->hi - d->lo > INT32_MAX)
		fuzz_violation("image header");
	for (size_t i = 0; i < d->nfde; i++) {
		uint32_t pc = le32(d->image + i * 8);

		if (pc < prev || pc >= d->hi - d->lo)
			fuzz_violation("table not sorted or outside [lo, hi)");
		prev = pc;
		check_fde(d, le32(d->image + i * 8 + 4));
	}
}

static void build(const uint8_t *sec, size_t len, bool compressed, uint64_t lo,
		  uint64_t hi)
{
	char err[96];
	struct debugframe *d;

	err[0] = '\0';
	errno = 0;
	d = debugframe_build(sec, len, compressed, lo, hi, MAX, err,
			     sizeof(err));
	if (d) {
		check_image(d, lo, hi);
		debugframe_free(d);
		return;
	}
	if (errno != EINVAL && errno != EFBIG && errno != ENOMEM)
		fuzz_violation("failure without EINVAL, EFBIG or ENOMEM");
	if (errno != ENOMEM && (!err[0] || strchr(err, '\n')))
		fuzz_violation("failure without one line of message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint64_t lo = 0x400000, hi = 0x500000;
	uint8_t *z;
	uLongf zn;
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB };

	if (len < 1)
		return 0;
	if (data[0] & 4) {
		lo = 0;
		hi = UINT64_MAX;
	}
	if (!(data[0] & 1)) {
		build(data + 1, len - 1, false, lo, hi);
		return 0;
	}
	if (!(data[0] & 2)) {
		build(data + 1, len - 1, true, lo, hi);
		return 0;
	}
	zn = compressBound(len - 1);
	z = malloc(sizeof(ch) + zn);
	if (!z)
		return 0;
	ch.ch_size = len - 1;
	memcpy(z, &ch, sizeof(ch));
	if (compress2(z + sizeof(ch), &zn, data + 1, len - 1, 1) == Z_OK)
		build(z, sizeof(ch) + zn, true, lo, hi);
	free(z);
	return 0;
}
