/*
 * gopclntab.h - Go function names and source lines from .gopclntab.
 *
 * Every Go binary carries its runtime's own table of functions, the one
 * runtime.Callers, panics and `go tool pprof` name frames from: the
 * .gopclntab section (golang.org/s/go12symtab; Go's
 * src/debug/gosym/pclntab.go and src/runtime/symtab.go read it).  It
 * stays when the binary is stripped (`-ldflags=-s -w`, or Debian's own
 * /usr/lib/go-1.19/bin/go), so it names what .symtab and DWARF no longer
 * do.  A header (magic, PC quantum, pointer size, then offsets) is
 * followed by the function table (entry PC -> _func), the function
 * names, the compilation units' file indexes, the file names and the
 * PC-value tables (varint, zigzag value deltas).  Four layouts, told
 * apart by the magic: 0xfffffffb (Go 1.2-1.15), 0xfffffffa (1.16-1.17),
 * 0xfffffff0 (1.18-1.19: function entries as 32-bit offsets from the
 * start of the text), 0xfffffff1 (1.20 and later: the 1.18 layout).
 * Either byte order, pointers of 4 or 8 bytes.
 *
 * A lookup gives the function that holds a PC (the outermost one: code
 * inlined into f is named f, with the file and line of the inlined code,
 * as `go tool addr2line` says), its entry, and the source file and line.
 * gopclntab_inline() gives the functions inlined at a PC, from the
 * function's inline tree (Go 1.18 and later: FUNCDATA_InlTree, which
 * lies outside the table, in go:func.* of .rodata, so the caller hands
 * those bytes over with gopclntab_set_funcdata(), having found their
 * address with gopclntab_gofunc()).  Addresses are link-time (the
 * ELF's virtual addresses); the caller removes the load bias.
 *
 * The table comes from a file the target's user owns: hostile input.
 * It is copied with pread() into memory the table owns (never mmap():
 * modcache.h says why), at most GOPCLNTAB_MAX_SIZE bytes; every offset
 * and count is checked against the copy, every PC-value table is read
 * only up to its end in the copy and for GOPCLNTAB_MAX_STEPS pairs at
 * most, so a malformed table gives no name or no line, never a crash or
 * a hang; an inline tree is walked for GOPCLNTAB_MAX_INLINE steps at
 * most, so parent links that form a cycle end the walk with no answer.
 * A table is checked once when made
 * (header, counts, the function table inside the copy); what a single
 * function's entry holds is checked at each lookup.
 *
 * Contract: never prints or exits.  gopclntab_new() and
 * gopclntab_read() return NULL with errno (EINVAL, with one sentence in
 * err, for a table they refuse; EFBIG when it is too large; ENOMEM; an
 * I/O errno).  Strings a lookup returns point into the table and stay
 * valid until gopclntab_free().  Lookups do not modify the table.
 */
#ifndef PTPROF_GOPCLNTAB_H
#define PTPROF_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

/* The largest table read: the go command's is 2.7 MB, the largest Go
 * binaries (kubelet, about 100 MB) hold about 40 MB. */
#define GOPCLNTAB_MAX_SIZE (256u << 20)

/* The most (value, PC) pairs one lookup walks in a PC-value table: Go
 * ends each pair at an instruction boundary past the last, so 2^20 pairs
 * describe at least 1 MiB of one function's code.  Without it a hostile
 * table of (+1, 0) pairs made every line lookup walk all of its bytes:
 * 0.28 s a walk at GOPCLNTAB_MAX_SIZE, two walks a line, once per
 * distinct PC of a profile. */
#define GOPCLNTAB_MAX_STEPS (1ul << 20)

/* The most inline-tree steps one gopclntab_inline() walks: Go's inliner
 * nests a few levels deep; a walk longer than this is a cycle. */
#define GOPCLNTAB_MAX_INLINE 64

struct gopclntab;
struct symbol_frame;

/*
 * A table from len bytes at data (copied), whose text section starts at
 * text_start (the .text section's address; 0 to take the table's own
 * field, Go 1.18 and later): Go reads it from the section header too,
 * as the field of a position-independent binary is relocated at run
 * time.
 */
struct gopclntab *gopclntab_new(const void *data, size_t len,
				uint64_t text_start, char *err, size_t errlen);

/* The same from size bytes at offset off of the open file fd. */
struct gopclntab *gopclntab_read(int fd, uint64_t off, uint64_t size,
				 uint64_t text_start, char *err, size_t errlen);

void gopclntab_free(struct gopclntab *t);

/* The table's Go layout: 12 (1.2), 116, 118 or 120. */
int gopclntab_version(const struct gopclntab *t);

/* The number of functions the table lists. */
size_t gopclntab_count(const struct gopclntab *t);

/*
 * The function holding pc: its name into *name and its entry into
 * *entry.  Returns 0, or -1 with errno ENOENT when no function holds pc
 * or its entry is malformed (EINVAL for NULL arguments).
 */
int gopclntab_func(const struct gopclntab *t, uint64_t pc, const char **name,
		   uint64_t *entry);

/*
 * The source file and line of pc.  Returns 0, or -1 with errno ENOENT
 * when no function holds pc or its tables do not say (EINVAL for NULL
 * arguments).
 */
int gopclntab_line(const struct gopclntab *t, uint64_t pc, const char **file,
		   unsigned *line);

/*
 * The address of go:func.* (the runtime's moduledata.gofunc, Go 1.18 and
 * later), from len bytes at data, a copy of the module's data (its
 * .noptrdata section, where the linker puts runtime.firstmoduledata)
 * that starts at link-time address data_addr, for a table that starts
 * at link-time address tab_addr: the moduledata is the pointer-aligned
 * word equal to tab_addr whose text word is the table's text start.
 * Returns 0, or -1 with errno ENOENT (none found; EINVAL for NULL
 * arguments or a table older than 1.18).
 */
int gopclntab_gofunc(const struct gopclntab *t, const void *data, size_t len,
		     uint64_t data_addr, uint64_t tab_addr, uint64_t *gofunc);

/*
 * The bytes of go:func.* that hold the functions' FUNCDATA (the inline
 * trees): len bytes at data (copied, at most GOPCLNTAB_MAX_SIZE), from
 * link-time address gofunc on.  The same from size bytes at offset off
 * of fd.  Replaces any given before.  Returns 0, or -1 with errno
 * (EFBIG, ENOMEM, EIO, EINVAL).
 */
int gopclntab_set_funcdata(struct gopclntab *t, const void *data, size_t len);
int gopclntab_read_funcdata(struct gopclntab *t, int fd, uint64_t off,
			    uint64_t size);

/*
 * The functions inlined at pc (symbolize.h's symbolizer_lookup_inline()
 * contract): frames[0] the innermost with pc's file and line, frames[i]
 * the one frames[i-1] was inlined into, with the line of that call; the
 * line of the outermost inlined call (in the function gopclntab_func()
 * names) into *outer_file and *outer_line (either may be NULL).  Returns
 * the number written, at most max, the innermost kept; 0 when pc is in
 * no inlined code or nothing says (a table before 1.18, no funcdata
 * given, a tree that is malformed or has a cycle).
 */
size_t gopclntab_inline(const struct gopclntab *t, uint64_t pc,
			struct symbol_frame *frames, size_t max,
			const char **outer_file, unsigned *outer_line);

#endif /* PTPROF_GOPCLNTAB_H */
