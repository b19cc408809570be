/*
 * fetchnote.h - what the debuginfod client (elf/debuginfod.h) says on
 * stderr, for every subcommand that names frames (record's writers,
 * report, dump, top).
 *
 * On a terminal, one line per module downloaded, redrawn in place while
 * it comes ("ptprof: debuginfod: fetching debug info for BUILDID
 * (libfoo.so) 12 MB of 300 MB...") and left as "fetched ..." when done;
 * nothing for a file already in the cache, and nothing off a terminal.
 * Always, on any stderr: one line for a module's file refused (another
 * build ID, too big, truncated) and one line when fetching stops for
 * the run ("ptprof: debuginfod: gave up: WHY").  Nothing at all when
 * DEBUGINFOD_URLS is unset or --no-debuginfod was given.  Names and
 * reasons are escaped (textsafe.h) before they are printed.
 *
 * Contract: fetchnote_setup() once, before any frame is named; it calls
 * debuginfod_setup().  progress false: no line redrawn in place (top's
 * full-screen view owns the terminal).
 */
#ifndef PTPROF_FETCHNOTE_H
#define PTPROF_FETCHNOTE_H

#include <stdbool.h>

void fetchnote_setup(bool off, bool progress);

#endif /* PTPROF_FETCHNOTE_H */
