/*
 * report.h - what a profile says, by function: the flat and cumulative
 * table (as pprof --text prints it), folded stacks, and the input of a
 * flame graph.
 *
 * A report is built once from a parsed profile and a symbolizer for each
 * of its address spaces (profile.h): every PC is symbolized once (a cache
 * by space and address) by its record's space's symbolizer, the leaf at
 * its own address and callers at PC-1, since they are return addresses.  A frame is named by
 * its function, or module+0xOFFSET when the module has no symbol there, or
 * 0xADDRESS outside every mapping; JIT code as REPORT_JIT_MODULE below
 * says, Python frames as REPORT_PY_MODULE says; with `lines`,
 * "function file:line" when DWARF line information is found, or, for a
 * name the profile gives, when the profile gives its line too
 * (profile.h), the function alone otherwise.
 *
 * Inlined functions (issue 29): an address in code the compiler inlined
 * names several frames, as google-pprof, perf and `eu-stack -i` show
 * them: the function that holds it (the symbol table's name), then each
 * function inlined there (symbolize.h: symbolizer_lookup_inline()), the
 * innermost last, each named "NAME (inline)" (framename.h:
 * framename_format_inline()) with the module of the function that
 * holds it.  So a sample's flat count goes to the innermost inlined
 * function of its leaf, and each inlined function has a row, folded
 * stacks and flame graphs a frame.  With `lines`, each frame has its own
 * line: an inlined one the line in its own function, the one that holds
 * it the line of the call it inlined (so `lines` never gives one
 * function's line under another's name).  Not with no_inline: then each
 * address names the function that holds it only, as before issue 29.
 *
 * Counting, as pprof does it: a sample's flat count goes to its leaf
 * frame; its cum count goes once to every distinct frame of its stack (a
 * recursive function is not counted twice).  Rows are sorted by flat
 * count, then cum count, then name.  Folded stacks merge the records that
 * name the same frames, root first.
 *
 * Contract: the report borrows nothing from the profile or symbolizer
 * after report_build() returns (names are copied).  Writers write to the
 * stream given and return 0, or -1 with errno (a write error, ENOMEM);
 * nothing here prints elsewhere or exits.
 */
#ifndef PTPROF_REPORT_H
#define PTPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile_read.h"
#include "python/pyframes.h"
#include "symbols/framename.h"
#include "symbols/perfmap.h"
#include "symbols/symbolize.h"

struct report;

struct report_row {
	const char *name;   /* frame name, as above */
	const char *module; /* basename of its module, or NULL */
	uint64_t flat, cum;
};

struct report_options {
	bool lines;	 /* "function file:line" frames */
	bool by_process; /* a "name (pid)" root frame on every stack, from
			    the record's process labels ("?" no name) */
	/* a "[wait: KIND]" leaf frame on the stack of every record with a
	 * wait label (profile.h: a --wall sample of a blocked thread; KIND
	 * as wait_report.h prints it), so a flame graph of a --wall
	 * profile shows what its off-CPU stacks waited for */
	bool waits;
	bool no_inline; /* no frames for inlined functions (above) */
	/* names for addresses in no file that the profile does not name
	 * (JIT code: perfmap.h), or NULL */
	const struct perfmap *jit;
};

/* JIT code's mark: a frame named from the profile or a perf map at an
 * address no file maps is "NAME [jit]" (the table, folded stacks and the
 * flame graph alike), never demangled, with no module and no line. */
#define REPORT_JIT_MODULE FRAMENAME_JIT_MODULE

/* Python frames' mark (pyframes.h): an address in the range of Python
 * frames' PCs that the profile names (a pprof written with
 * pprof_meta.py) is "QUALNAME (FILE:START) [py]", FILE the basename of
 * the Python file and START its function's first line ("(FILE) [py]"
 * without a first line, "QUALNAME [py]" without a file: the profile
 * gives a file only with a line); with `lines` "QUALNAME FILE:LINE [py]",
 * FILE as the profile gives it and LINE the sample's.  No module, never
 * demangled, as JIT code.  Such an address the profile does not name (a
 * legacy profile, which holds no names) is 0xADDRESS. */
#define REPORT_PY_MODULE PYFRAMES_MODULE

/* Kernel frames' mark (pyframes.h, issue 28: --wall --kernel): an
 * address in the same range whose function's file is "[kernel]" is
 * "FUNCTION [kernel]", with or without `lines`. */
#define REPORT_KERNEL_MODULE PYFRAMES_KERNEL_MODULE

/* Build a report; syms[i] names the addresses of space i (one for each
 * of profile_nspaces(p); only those of spaces with records are used, the
 * others may be NULL).  NULL with errno (ENOMEM) on failure. */
struct report *report_build(const struct profile *p,
			    struct symbolizer *const *syms,
			    const struct report_options *opt);
void report_free(struct report *r);

uint64_t report_total(const struct report *r);

/* The rows, sorted; valid until report_free(). */
const struct report_row *report_rows(const struct report *r, size_t *n);

/* The frame names by id, and the distinct stacks (stack i: its frame
 * ids, root first, *nframes of them, and its count), as folded stacks
 * and flame graphs have them: what report_diff.h compares.  Valid until
 * report_free(). */
const char *const *report_names(const struct report *r, size_t *n);
size_t report_nstacks(const struct report *r);
const uint32_t *report_stack(const struct report *r, size_t i, size_t *nframes,
			     uint64_t *count);

/*
 * The table: a "Total: N samples" line, a header, then up to `top` rows
 * (0: all) of flat, flat%, sum%, cum, cum%, name and [module].
 */
int report_write_text(const struct report *r, FILE *out, size_t top);

/* The end of a table's row: "name [module]" ("name [vdso]" for a
 * module in brackets, "name" for none), escaped (textsafe.h), and a
 * newline. */
void report_put_name(FILE *out, const char *name, const char *module);

/* A folded stack's frames, "root;...;leaf" (ids into names, root
 * first), each name escaped, a ';' in one too; no count, no newline. */
void report_put_stack(FILE *out, const char *const *names, const uint32_t *ids,
		      size_t n);

/* One line per distinct stack: "root;...;leaf COUNT". */
int report_write_folded(const struct report *r, FILE *out);

/* A flame graph (flame.h), titled with `title`; what it left out into
 * *drawn when not NULL (struct flame_drawn). */
struct flame_drawn;
int report_write_svg(const struct report *r, FILE *out, const char *title,
		     struct flame_drawn *drawn);

/* A Python frame's name as REPORT_PY_MODULE says, without `lines`:
 * "NAME (FILE:START) [py]", FILE the basename of file; "NAME (FILE)
 * [py]" when start_line is 0, "NAME [py]" when file is NULL. */
void report_name_py(char *buf, size_t len, const char *name, const char *file,
		    unsigned start_line);

/* A kernel frame's name as REPORT_KERNEL_MODULE says: "NAME [kernel]". */
void report_name_kernel(char *buf, size_t len, const char *name);

/* The last component of path (path itself when it ends in '/'), as the
 * report names modules and titles a flame graph. */
const char *report_base_name(const char *path);

#endif /* PTPROF_REPORT_H */
