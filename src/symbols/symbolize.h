/*
 * symbolize.h - addresses to function names, from a process's mappings.
 *
 * A symbolizer is built from the mappings alone, so it works after the
 * target has exited: from a struct maps (maps.h) while recording or
 * dumping, or from the maps text of a profile, parsed by
 * maps_parse_line().  For each file-backed executable mapping it loads, once per path and lazily at the
 * first lookup that needs it, with libelf, the first of: the file's
 * .symtab; the .symtab of its detached debug file (debugfile.h: by build
 * ID under ROOT/usr/lib/debug/.build-id, as Debian's -dbgsym packages
 * install them, or by .gnu_debuglink); its .dynsym.  Function symbols
 * (STT_FUNC, STT_GNU_IFUNC) are kept sorted for binary search; of several at one address the one with a
 * size, then with fewer leading underscores, then global over weak over
 * local binding wins; a version suffix ("@@GLIBC_2.2.5") is dropped.  A
 * symbol of size 0 covers up to the next symbol or the end of its section.
 * An address no symbol covers in a Go binary (stripped: Debian's go
 * command, -ldflags=-s -w) is named from the file's .gopclntab, Go's own
 * table (gopclntab.h), read once per file at the first lookup that
 * needs it.
 * "[vdso]" is symbolized from ptprof's own vDSO, which is right when the
 * report runs on the kernel that recorded the profile.
 * The load bias comes from the mapping's start, its file offset and the
 * executable PT_LOAD segment it maps (loadseg.h), so ET_EXEC, PIE
 * executables and shared libraries resolve alike, whatever the linker.
 *
 * A file is used only if it is the one that was mapped (issue 12, item 6:
 * after the target exits its paths are anybody's to replace, by a symlink
 * to a file the report's user may read and the target's may not): with
 * a build ID recorded for the mapping (struct map_entry's, or the brief
 * line the maps text of a profile holds before the mapping's line,
 * maps.h), the file mapfile.h finds must carry that build ID; without
 * one, only the very inode mapped is used (mapfile_open_exact(): the live
 * process's map_files, or the path if it still is that inode).  Any other
 * file is refused (symbolizer_refused() names it) and its addresses get
 * the module and offset only.
 *
 * Maps text lines that maps_parse_line() rejects, and mappings that are
 * not executable, are ignored.  Other pseudo paths ("[vsyscall]") and
 * paths ending in " (deleted)" are never opened, nor paths with a ".."
 * component (the kernel never writes one; with a root it would climb out
 * of it): their addresses get the module (the path as written) but no
 * function.  Names are not demangled (demangle.h does that).
 *
 * An address no symbol covers, in a file that is used, is named by the
 * unwind-table entry (.eh_frame FDE, fdetab.h) that covers it, if one
 * does: func is "BASENAME+0xSTART", the basename of the module and the
 * file offset where the entry's code starts, and fde is set; so every
 * address of one stripped function has one name, in the form an unnamed
 * address has.  The table is read at the first such address of a file.
 *
 * Contract: never prints or exits.  A lookup that finds no mapping, no file
 * or no symbol nor FDE still succeeds: it fills what it knows (module name and
 * offset) and leaves func NULL, so a caller can print module+0xoffset.  An
 * address outside every executable mapping, or in an anonymous one, gets
 * func and module NULL.  Callers look caller frames up at PC-1 themselves.
 * Not thread-safe (lookups load files and so modify the symbolizer).
 */
#ifndef PTPROF_SYMBOLIZE_H
#define PTPROF_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"

struct symbolizer;

struct symbol_info {
	const char *func;    /* function name, or NULL if unknown */
	uint64_t func_off;   /* addr - function start, when func != NULL */
	const char *module;  /* path of the mapped file, or NULL if unmapped */
	uint64_t module_off; /* file offset of addr within module */
	bool fde; /* func is no symbol but "module+0xSTART": the unwind-table
		     entry (FDE) holding addr, START its file offset */
};

/*
 * Build a symbolizer from the executable mappings of maps, gone ones
 * included (maps.h: a profile still names them); maps is not used after
 * the call.  root, when not NULL, is prepended to every path before
 * opening it (e.g. "/proc/PID/root"); module names stay the paths as
 * written in the maps.  pid, when not 0, is the live process whose
 * /proc/PID/map_files may be opened too (mapfile.h).  Returns NULL with
 * errno ENOMEM on allocation failure only.
 */
struct symbolizer *symbolizer_new_maps(const struct maps *maps,
				       const char *root, pid_t pid);

/*
 * The same from maps text (len bytes, need not be NUL-terminated; NULL
 * for none), as a profile holds it: hostile input, of which only the lines
 * maps_parse_line() accepts are used.
 */
struct symbolizer *symbolizer_new(const char *maps_text, size_t len,
				  const char *root, pid_t pid);
void symbolizer_free(struct symbolizer *s);

/*
 * Files loaded once for several symbolizers: the images of a process tree
 * (procset.h) map the same files (libc, cc1) at other addresses, and
 * loading their symbols and DWARF for each image again cost a make -j2
 * run 2 s of ptprof's CPU time.  A symbolizer built with a cache takes a
 * file from it when the root, the path and the build ID (or, without one,
 * the inode) are the same, which names the same file; the cache owns the
 * files, so the strings a lookup returns stay valid until
 * symcache_free(), which comes after every symbolizer built with it is
 * freed.  NULL with errno ENOMEM.
 */
struct symcache;
struct symcache *symcache_new(void);
void symcache_free(struct symcache *c);
struct symbolizer *symbolizer_new_cached(const struct maps *maps,
					 const char *root, pid_t pid,
					 struct symcache *cache);

/* symbolizer_new() with a cache: the address spaces of one profile (its
 * processes, the runs merged into it) share their files, each file's
 * symbols and DWARF loaded once.  A mapping's build ID comes from its
 * brief line (maps.h) before the cache is asked, so that files the
 * cache takes as one carry the same build ID.  cache NULL: none. */
struct symbolizer *symbolizer_new_text_cached(const char *maps_text,
					      size_t len, const char *root,
					      pid_t pid,
					      struct symcache *cache);

/*
 * Resolve addr into *out; the strings stay valid until symbolizer_free().
 * Returns 0, or -1 with errno EINVAL when s or out is NULL.
 */
int symbolizer_lookup(struct symbolizer *s, uint64_t addr,
		      struct symbol_info *out);

/*
 * The source file and line of addr, from the DWARF line table of its
 * module (or of the module's debug file, debugfile.h), else, in a Go
 * binary, from its .gopclntab (gopclntab.h).  Returns 0, or -1
 * with errno ENOENT when there is no line information (EINVAL for NULL
 * arguments).  *file stays valid until symbolizer_free().
 */
int symbolizer_lookup_line(struct symbolizer *s, uint64_t addr,
			   const char **file, unsigned *line);

/*
 * Inlined frames (issue 29).  Where the compiler inlined functions into
 * the one that holds addr, the source has more frames than the machine
 * stack: symbolizer_lookup_inline() gives the inlined ones, innermost
 * first, as google-pprof, perf and `eu-stack -i` show them.  frames[0]
 * is the innermost inlined function, with addr's own source line;
 * frames[i] (i > 0) is the inlined function that frames[i-1] was inlined
 * into, with the line of that call; the function they are all inlined
 * into is not among them: it is symbolizer_lookup()'s func (the symbol
 * table's name, so a profile's rows do not change name with inlining),
 * and its line, the line of the outermost inlined call, goes into
 * *outer_file and *outer_line.
 *
 * From the DWARF of the module or of its debug file (the
 * DW_TAG_inlined_subroutine scopes that hold the address, their
 * DW_AT_call_file and DW_AT_call_line, as libdw's dwarf_getscopes()
 * finds them, but also in functions inside namespaces: Rust's), else,
 * in a Go binary, from .gopclntab's inline tree (gopclntab.h).  A name is
 * the linkage name when DWARF has one (demangle it to show it), else
 * DW_AT_name; file may be NULL and line 0 when unknown.  Strings stay
 * valid until symbolizer_free().  Each distinct address is looked up
 * once (the answer is cached by file and address): callers need no cache
 * of their own.
 *
 * Returns the number of inlined frames written (at most max, the
 * innermost kept when there are more); 0 when addr is in no inlined
 * code, or nothing says (no DWARF, no table, s or frames NULL).  Callers
 * look caller frames up at PC-1, as for symbolizer_lookup().
 */
struct symbol_frame {
	const char *func; /* NULL when unknown */
	const char *file; /* NULL when unknown */
	unsigned line;	  /* 0 when unknown */
};

/* The most inlined frames any caller asks for at one address. */
#define SYMBOLIZE_MAX_INLINE 32

size_t symbolizer_lookup_inline(struct symbolizer *s, uint64_t addr,
				struct symbol_frame *frames, size_t max,
				const char **outer_file, unsigned *outer_line);

/*
 * The path of the next file whose addresses were not named because it
 * was found but is not the file that was mapped, or because nothing was
 * recorded to check it against (a pprof mapping with no build ID: there
 * is no inode in that format), among those looked up so far; the reason
 * into *why, a predicate ("is not the file that was mapped (...)").  From the cursor *next on (0 at first), which it
 * moves past that file; NULL past the last.  A cursor, not an index:
 * listing n refused files of a hostile profile is linear, not quadratic.
 */
const char *symbolizer_refused(const struct symbolizer *s, size_t *next,
			       const char **why);

#endif /* PTPROF_SYMBOLIZE_H */
