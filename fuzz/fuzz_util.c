/*
 * fuzz_util.c - checks shared by the libFuzzer targets.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"

void fuzz_violation(const char *what)
{
	fprintf(stderr, "contract violation: %s\n", what);
	__builtin_trap();
}

void fuzz_lookup(struct symbolizer *s, uint64_t addr)
{
	struct symbol_info si;

	memset(&si, 0xa5, sizeof(si));
	if (symbolizer_lookup(s, addr, &si) != 0)
		fuzz_violation("symbolizer_lookup failed");
	/* No file is opened (the root does not exist); only the vDSO,
	 * read from the fuzzer's own, can name functions. */
	if (si.func && !(si.module && !strcmp(si.module, "[vdso]")))
		fuzz_violation("a function was found without any file");
	if (si.module && !si.module[0])
		fuzz_violation("empty module name");
}
