/*
 * pyframes.h - Python frames as PCs: each distinct (qualified name,
 * filename, first line, line) a run meets gets a synthetic PC, so that a
 * merged stack (pymerge.h) is still an array of uint64 PCs for the
 * stacktab, and the writers name those PCs from here.
 *
 * Identity: the strings and lines, not the code object's address.  A
 * code object can be freed and its address reused by another function's
 * (a lambda, an exec'd module, a reloaded one), so an address names
 * different functions over a run; the strings name one.  Two functions
 * equal in all four are one row, as two equally named C functions of one
 * file at one line would be.  The cache of code objects by address
 * (sampler_py.c's) is the reader's business: each hit is checked against
 * the object's identity (pyrt_code_ident()), and it is flushed on exec; the
 * registry only ever sees what it resolved to.
 *
 * The PCs: PYFRAMES_BASE + i * PYFRAMES_STEP + PYFRAMES_STEP / 2 for the
 * i-th frame interned.  PYFRAMES_BASE is non-canonical on x86-64 (bits
 * 63..47, or 63..56 with 5-level paging, not all equal), so no code of
 * any process is ever there: the symbolizer finds no mapping for it, and
 * no address of a mapping can be taken for one.  It stays clear of the
 * unwinder's synthetic memory at 0x4000000000000000 (unwind_int.h's
 * SYNTH_BASE: one 4 GB slot per converted .debug_frame table, 2^28 tables
 * before reaching PYFRAMES_BASE; those are addresses libunwind reads,
 * never PCs of a stack, but one range each keeps them apart in a dump
 * too).  The step is 16, the PC in its
 * middle, because the writers look callers up at PC-1 (return addresses):
 * pyframes_lookup() of pc and of pc-1 find the same frame.  The range is
 * [PYFRAMES_BASE, PYFRAMES_BASE + PYFRAMES_MAX_LIMIT * PYFRAMES_STEP).
 *
 * Bounds: at most `max` frames (pyframes_new()), at most PYFRAMES_MAX_LIMIT;
 * a qualified name or filename longer than PYFRAMES_NAME_MAX bytes, or
 * holding a byte below 0x20 (a newline would break the writers' keys and
 * the folded output), is refused.  Memory: at most max entries and their
 * strings (each string kept once).
 *
 * Kernel frames (issue 28, --wall --kernel) are held here too, so that
 * one machinery names every synthetic PC: an entry carries its module,
 * PYFRAMES_MODULE for a Python frame, PYFRAMES_KERNEL_MODULE for a
 * kernel function a blocked thread sleeps in (pyframes_intern_kernel():
 * the function's name as qualname, filename "", lines 0).  The module is
 * part of an entry's identity; the writers mark a frame with it.
 *
 * Contract: the registry owns copies of its strings; the pointers
 * pyframes_lookup() fills stay valid until pyframes_free().  Not
 * thread-safe; allocates, so it belongs after the sampler's stop window,
 * never in it.  Never prints or exits.  Failures return -1 with errno:
 * EINVAL (a NULL argument, a name too long or with a control byte),
 * ENOSPC (max frames held already: the caller keeps the eval frame's
 * native PC and counts it), ENOMEM (no frame added), ENOENT (a
 * lookup of a PC no frame has).
 */
#ifndef PTPROF_PYFRAMES_H
#define PTPROF_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PYFRAMES_BASE 0x5000000000000000ULL
#define PYFRAMES_STEP 16u
/* The most frames any registry holds (the range is 2^28 * 16 = 4 GB of
 * address space above PYFRAMES_BASE). */
#define PYFRAMES_MAX_LIMIT (1u << 28)
/* A default bound for a run: a million distinct (function, line). */
#define PYFRAMES_MAX_DEFAULT (1u << 20)
/* The longest qualified name or filename kept, in bytes. */
#define PYFRAMES_NAME_MAX 1024u

/* The module Python frames are marked with: a pprof Function's key and
 * the report's name mark, as "[jit]" is JIT code's. */
#define PYFRAMES_MODULE "[py]"
/* The module kernel frames are marked with (pyframes_intern_kernel()). */
#define PYFRAMES_KERNEL_MODULE "[kernel]"

struct pyframe {
	const char *qualname; /* co_qualname ("Class.method") */
	const char *filename; /* co_filename, as the code object has it */
	uint32_t firstline;   /* co_firstlineno; 0: unknown */
	uint32_t line;	      /* the line of the instruction; 0: unknown */
	/* PYFRAMES_MODULE or PYFRAMES_KERNEL_MODULE: pyframes_lookup()
	 * fills it; pyframes_intern() takes NULL for PYFRAMES_MODULE
	 * (any other value: EINVAL) */
	const char *module;
};

struct pyframes;

/* A registry of at most max frames (0: PYFRAMES_MAX_DEFAULT; more than
 * PYFRAMES_MAX_LIMIT: EINVAL).  NULL with errno. */
struct pyframes *pyframes_new(size_t max);
void pyframes_free(struct pyframes *t);

/* The PC of *f into *pc: the same PC as before for an equal frame, a new
 * one otherwise.  0, or -1 with errno (above). */
int pyframes_intern(struct pyframes *t, const struct pyframe *f, uint64_t *pc);

/* The PC of the kernel function named func (at most PYFRAMES_NAME_MAX
 * bytes, none below 0x20): pyframes_intern() of { func, "", 0, 0,
 * PYFRAMES_KERNEL_MODULE }.  0, or -1 with errno (above). */
int pyframes_intern_kernel(struct pyframes *t, const char *func, uint64_t *pc);

/* The frame of pc, or of pc + 1 (a caller's PC-1), into *f.  0, or -1
 * with errno ENOENT (not a PC of t) or EINVAL (NULL). */
int pyframes_lookup(const struct pyframes *t, uint64_t pc, struct pyframe *f);

/* Whether pc (or pc + 1) lies in the range of Python frames' PCs, held
 * by a registry or not: what a writer or report tells them apart by. */
bool pyframes_is_pc(uint64_t pc);

/* Frames held. */
size_t pyframes_count(const struct pyframes *t);

#endif /* PTPROF_PYFRAMES_H */
