/*
 * fuzz_gopclntab.c - libFuzzer target for Go's .gopclntab reader
 * (gopclntab.h), which reads a section of a file the target's user owns.
 *
 * The input is the table's bytes, with the text at FUZZ_TEXT (as the
 * seeds have it).  gopclntab_new() must accept it or refuse it with
 * EINVAL or EFBIG and one non-empty sentence; an accepted table is
 * looked up at every PC from FUZZ_TEXT - 1 to FUZZ_TEXT + 0x200 and at
 * every 32-bit word of the input, taken as an offset from FUZZ_TEXT:
 * each answer is a function whose entry is at or below the PC and a
 * non-empty name, a non-empty file and a line of 1 or more, or ENOENT.
 * The sanitizers check that no read leaves the copy.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "symbols/gopclntab.h"

#define FUZZ_TEXT 0x401000u
#define MAX_WORDS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void lookup(const struct gopclntab *t, uint64_t pc)
{
	const char *name, *file;
	uint64_t entry;
	unsigned line;

	if (gopclntab_func(t, pc, &name, &entry) == 0) {
		if (entry > pc || !name[0])
			fuzz_violation("gopclntab_func: entry above the PC or "
				       "an empty name");
	} else if (errno != ENOENT) {
		fuzz_violation("gopclntab_func failed without ENOENT");
	}
	if (gopclntab_line(t, pc, &file, &line) == 0) {
		if (line == 0 || !file[0])
			fuzz_violation("gopclntab_line: line 0 or no file");
	} else if (errno != ENOENT) {
		fuzz_violation("gopclntab_line failed without ENOENT");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char err[128] = "";
	struct gopclntab *t = gopclntab_new(data, len, FUZZ_TEXT, err,
					    sizeof(err));
	uint32_t w;

	if (!t) {
		if ((errno != EINVAL && errno != EFBIG) || !err[0] ||
		    strchr(err, '\n') || !memchr(err, '\0', sizeof(err)))
			fuzz_violation("gopclntab_new: a refusal without "
				       "EINVAL and one sentence");
		return 0;
	}
	for (uint64_t pc = FUZZ_TEXT - 1; pc <= FUZZ_TEXT + 0x200; pc++)
		lookup(t, pc);
	for (size_t i = 0; i + 4 <= len && i / 4 < MAX_WORDS; i += 4) {
		memcpy(&w, data + i, 4);
		lookup(t, FUZZ_TEXT + (uint64_t)w);
	}
	gopclntab_free(t);
	return 0;
}
