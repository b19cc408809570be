/*
 * fuzz_util.h - checks shared by the libFuzzer targets.
 *
 * A broken promise of a module's header is reported with
 * fuzz_violation(), which prints what was broken and traps, so that
 * libFuzzer records the input as a crash.  FUZZ_ROOT is a directory that
 * does not exist: prepended to every maps path, it keeps the symbolizer
 * from opening any real file, whatever the input names.
 */
#ifndef PTPROF_FUZZ_UTIL_H
#define PTPROF_FUZZ_UTIL_H

#include <stdint.h>

#include "symbols/symbolize.h"

#define FUZZ_ROOT "/nonexistent-ptprof-fuzz-root"

void fuzz_violation(const char *what) __attribute__((noreturn));

/*
 * Look addr up and check the symbolizer's contract: success, no function
 * (no file can be opened under FUZZ_ROOT), and a module, when there is
 * one, that is a non-empty string.
 */
void fuzz_lookup(struct symbolizer *s, uint64_t addr);

#endif /* PTPROF_FUZZ_UTIL_H */
