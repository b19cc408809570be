/*
 * symbolize.h - addresses to function names, from a profile's maps text.
 *
 * The maps section of a profile is the source of truth: a symbolizer is
 * built from it alone, so it works after the target has exited.  For each
 * file-backed executable mapping it loads the ELF file's .symtab (or
 * .dynsym when stripped) once, with libelf, sorted for binary search, and
 * computes the load bias from the mapping's start and file offset, so PIE
 * executables and shared libraries resolve alike.
 *
 * Contract: never prints or exits.  A lookup that finds no mapping, no file
 * or no symbol still succeeds: it fills what it knows (module name and
 * offset) and leaves func NULL, so a caller can print module+0xoffset.
 * Callers look caller frames up at PC-1 themselves.  Not thread-safe.
 */
#ifndef PTPROF_SYMBOLIZE_H
#define PTPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct symbol_info {
	const char *func;   /* function name, or NULL if unknown */
	uint64_t func_off;  /* addr - function start, when func != NULL */
	const char *module; /* path of the mapped file, or NULL if unmapped */
	uint64_t module_off;/* file offset of addr within module */
};

/*
 * Build a symbolizer from maps text.  root, when not NULL, is prepended to
 * every path before opening it (e.g. "/proc/PID/root").
 * Returns NULL with errno on allocation failure only.
 */
struct symbolizer *symbolizer_new(const char *maps_text, size_t len,
				  const char *root);
void symbolizer_free(struct symbolizer *s);

/* Resolve addr; the strings stay valid until symbolizer_free(). */
int symbolizer_lookup(struct symbolizer *s, uint64_t addr,
		      struct symbol_info *out);

#endif /* PTPROF_SYMBOLIZE_H */
