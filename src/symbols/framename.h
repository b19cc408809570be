/*
 * framename.h - the name of one frame: symbolizer, perf map, demangler,
 * module and offset, bare address.
 *
 * Every output that names a native frame (report's tables and folded
 * stacks, ptprof top's live names, the pprof writer's functions, ptprof
 * dump's frames) names it here, in three steps:
 *
 *  1. framename_lookup(): the symbolizer (symbolize.h) gives the
 *     function, or the module and the offset in it, or nothing (an
 *     address in no file).  The caller may then put a name of its own
 *     into si.func (report: the name a profile gives).
 *  2. framename_jit(): an address in no file that has no name yet (JIT
 *     code: anonymous memory, no mapping, or the "[jit]" mapping a pprof
 *     writer names so) is looked up in a perf map (perfmap.h), which a
 *     struct framename_jit reads at the first such address and reads
 *     again when it does not name one, since the runtime appends to it
 *     as it compiles: once more (every_ns 0), or at most once every
 *     every_ns (a live run that goes on).  Named so, si.module is
 *     FRAMENAME_JIT_MODULE and jit is set.
 *  3. One line, framename_format(): "NAME [jit]" for a named address in
 *     no file (never demangled: a perf map's names are a runtime's own),
 *     else the function demangled (demangle.h), "FUNCTION FILE:LINE"
 *     with a source line, else "MODULE+0xOFFSET" (MODULE the basename of
 *     the path, the offset in the file), else "0xADDRESS".  The module
 *     shown beside it is framename_module()'s.  A caller that needs the
 *     fields instead (pprof: the raw and the readable name, the module's
 *     path; dump: the offsets) reads struct framename and
 *     framename_func().
 *
 * Python frames are not named here: their names come from the registry
 * of synthetic PCs (pyframes.h) or from a profile, both above this
 * layer, and every output writes them its own way; each caller asks for
 * them before step 1.
 *
 * Which address: a leaf at its PC, a caller at PC-1 (a return address
 * is past the call): framename_addr().
 *
 * Contract: never prints or exits; not thread-safe (a symbolizer loads
 * files as it looks up).  The strings a struct framename holds stay
 * valid while the symbolizer and the perf map do, and framename_func()'s
 * until framename_done(), which frees it (a framename whose
 * framename_func() or framename_format() was called needs it).  Only
 * allocation fails, and then quietly: framename_func() gives the name
 * as it is (demangle.h), framename_format() cuts at len bytes.
 */
#ifndef PTPROF_FRAMENAME_H
#define PTPROF_FRAMENAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/perfmap.h"
#include "symbols/symbolize.h"

/* The module of JIT code named from a perf map, and its mark. */
#define FRAMENAME_JIT_MODULE "[jit]"

/*
 * ptprof's own rows: CPU time a CPU profile counts but can give no stack
 * of the target's, shown as a one-frame stack of its own so that the
 * profile still adds up to the CPU time used and nothing is hidden.
 * Their PCs are FRAMENAME_OWN_BASE + kind * 16 + 8: non-canonical on
 * x86-64 (no process has code there, as pyframes.h's PYFRAMES_BASE), in
 * the middle of a 16-byte slot so that a lookup at PC-1 (a caller's)
 * finds the same row.  framename_lookup() names them, with the module
 * FRAMENAME_OWN_MODULE, so every output (report, top, dump, the pprof
 * writer) shows them the same way.
 */
#define FRAMENAME_OWN_BASE 0x6000000000000000ULL
#define FRAMENAME_OWN_MODULE "[ptprof]"
enum framename_own {
	/* A thread's CPU time that never met a stack taken while it ran:
	 * bursts shorter than a stop takes (sampler_cpu.c). */
	FRAMENAME_OWN_NOT_CAUGHT,
	/* The CPU time of a process, or of its threads, gone before any
	 * stack of theirs was taken. */
	FRAMENAME_OWN_NO_STACK,
	FRAMENAME_OWN_KINDS
};

/* The PC of one of ptprof's own rows. */
static inline uint64_t framename_own_pc(enum framename_own kind)
{
	return FRAMENAME_OWN_BASE + (uint64_t)kind * 16 + 8;
}

/* The name of ptprof's own row at addr, or NULL when addr is none. */
const char *framename_own_name(uint64_t addr);

struct framename {
	struct symbol_info si; /* steps 1 and 2 (above) */
	bool jit;	       /* named by the perf map (step 2) */
	char *cxx;	       /* framename_func()'s demangled name */
	bool demangled;	       /* cxx was asked for */
};

/*
 * A perf map and when to read it.  The caller sets load (NULL: map is
 * all there is: never read), arg and every_ns, or map alone; the rest
 * starts zero.  load gives the map to use from now on (it may give the
 * one read before when a read fails, or NULL); reread is false the first
 * time.  What it gives must stay valid until the next load or the
 * caller's end.
 */
struct framename_jit {
	const struct perfmap *map;
	const struct perfmap *(*load)(void *arg, bool reread);
	void *arg;
	uint64_t every_ns; /* 0: read again once at most */
	unsigned reads;	   /* loads so far */
	uint64_t read_at;  /* when last loaded (monotonic ns) */
};

/* The address to look a frame up at: pc, or pc-1 for a caller. */
static inline uint64_t framename_addr(uint64_t pc, bool caller)
{
	return caller && pc ? pc - 1 : pc;
}

/* Step 1: sym's answer for addr into f (fields zero when sym is NULL). */
void framename_lookup(struct framename *f, struct symbolizer *sym,
		      uint64_t addr);

/* Whether f is in no file: no module, or FRAMENAME_JIT_MODULE. */
bool framename_in_no_file(const struct framename *f);

/* Step 2: name f (at addr, in no file, without a name) from j's perf
 * map, reading it as above; whether it did.  j NULL: no perf map. */
bool framename_jit(struct framename *f, struct framename_jit *j, uint64_t addr);

/* The perf map's name of addr (its offset into *off when not NULL),
 * reading the map at a miss as struct framename_jit says; NULL: none. */
const char *framename_jit_lookup(struct framename_jit *j, uint64_t addr,
				 uint64_t *off);

/* The function as people read it: si.func demangled when it can be,
 * else as it is; NULL when there is none. */
const char *framename_func(struct framename *f);

/* The module to show beside the name: the basename of si.module; NULL
 * for none and for a named address in no file (its mark is in the
 * name). */
const char *framename_module(const struct framename *f);

/* Step 3: the name of f (looked up at addr) into buf, with file:line
 * when file is not NULL (and the name is a function's, not JIT code's).
 * 1 when nothing names addr ("0xADDRESS"), else 0. */
int framename_format(struct framename *f, uint64_t addr, const char *file,
		     unsigned line, char *buf, size_t len);

/* The mark after an inlined frame's name (symbolize.h:
 * symbolizer_lookup_inline()), as google-pprof and go tool pprof write
 * it: "mix (inline)". */
#define FRAMENAME_INLINE_MARK " (inline)"

/* An inlined frame as one line into buf: its function demangled
 * ("0x" and the address when it has no name), " FILE:LINE" when lines
 * is set and the frame has a file, then FRAMENAME_INLINE_MARK. */
void framename_format_inline(const struct symbol_frame *fr, uint64_t addr,
			     bool lines, char *buf, size_t len);

void framename_done(struct framename *f);

/* The last component of path (path itself when it ends in '/'). */
const char *framename_base(const char *path);

#endif /* PTPROF_FRAMENAME_H */
