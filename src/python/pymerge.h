/*
 * pymerge.h - one stack out of two: a thread's native stack (as the
 * unwinder gives it) with the Python frames its interpreter was running
 * (as pyrt reads them), merged where they belong.
 *
 * CPython runs Python code in one C function, the eval loop
 * (_PyEval_EvalFrameDefault).  Since 3.11 one C call of it runs several
 * Python frames: a Python-to-Python call pushes an interpreter frame and
 * stays in the same C frame; only a call through C (a C extension, a
 * generator resumed, the first call from Py_RunMain) enters the eval loop
 * again, and the interpreter frame that C call entered first is marked
 * is_entry.  So, reading the Python frames innermost first, each run of
 * frames up to and including an is_entry frame belongs to one C eval
 * frame, and the runs belong to the eval frames of the native stack in
 * the same order, innermost first.
 *
 * pymerge_stack() replaces each native eval-loop frame by its run of
 * Python frames, innermost first, and keeps every other native frame
 * where it was (clock_nanosleep above time.sleep's caller, a C extension
 * between two Python frames, Py_RunMain and main below).  Leaf first in,
 * leaf first out.
 *
 * When the two halves do not agree the native stack is kept as it is,
 * never a guess ("never garbage"), and the status says why, for the
 * caller to count (--stats):
 *  - PYMERGE_NO_ENTRY: the outermost Python frame is not an entry frame
 *    (a chain read while the thread was between two frames, or cut short
 *    by pyrt's own bound): the last run has no C frame to go to;
 *  - PYMERGE_MISMATCH: more eval-loop frames than runs, or fewer (a C
 *    eval call entered but its frame not yet linked, or already unlinked
 *    and not yet returned: the thread was between two frames).
 * One exception, native_cut: when the unwinder stopped at its depth limit
 * the outermost native frames, eval frames among them, are missing, and
 * fewer eval frames than runs is expected: the innermost runs are merged,
 * one per eval frame, and the outer runs dropped with the native frames
 * they belonged to (as a stacktab keeps the innermost frames of a cut
 * stack).  No Python frames at all and no eval frame at all is
 * PYMERGE_OK (a native thread); no Python frames but an eval frame is
 * PYMERGE_MISMATCH (a thread whose frames could not be read).
 *
 * The output names frames, it does not copy them: a struct pymerge_ref
 * is native PC i or Python frame i of the inputs, so the caller turns
 * Python frames into PCs (pyframes.h) after the merge, when the target
 * runs again.  The output holds at most max refs: a longer merged stack
 * keeps its innermost max refs, as a stacktab cuts it.  On every status
 * but PYMERGE_OK, out[] is the native stack, ref i being native PC i (up
 * to max), so a caller can always use what it gets.
 *
 * Contract: a pure function of its arguments (and of what in_eval
 * answers), no allocation, no state; safe anywhere, the sampler's stop
 * window included (though it belongs after it).  Never prints or exits.
 * Returns the status; *nout is set on every status.  Invalid arguments
 * (NULL pointers with a non-zero count, an entry_stride of 0 with
 * Python frames, NULL in_eval, NULL out or nout)
 * return PYMERGE_EINVAL with *nout 0 when nout is not NULL.
 */
#ifndef PTPROF_PYMERGE_H
#define PTPROF_PYMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pymerge_status {
	PYMERGE_OK = 0,	  /* merged, or nothing to merge */
	PYMERGE_NO_ENTRY, /* the outermost Python frame is no entry frame */
	PYMERGE_MISMATCH, /* eval frames and runs of Python frames differ */
	PYMERGE_EINVAL,	  /* bad arguments: nothing written */
};

/* One frame of a merged stack: native PC idx, or Python frame idx, then
 * run by the eval-loop frame that is native PC eval. */
struct pymerge_ref {
	uint32_t idx;
	uint32_t eval; /* a Python frame's eval frame; idx for a native one */
	bool py;
};

struct pymerge_in {
	const uint64_t *pcs; /* native stack, leaf first (return addresses
				for callers, as the unwinder gives them) */
	size_t npcs;
	bool native_cut; /* the unwinder stopped at its depth limit */
	/* Python frames, innermost first: frame i is an entry frame when
	 * the byte at entry + i * entry_stride is not 0.  The flags are
	 * read where they lie, so pyrt.h's frames need no copy (entry =
	 * &frames[0].is_entry, entry_stride = sizeof(frames[0])); a bool
	 * array is (const uint8_t *)array and 1. */
	const uint8_t *entry;
	size_t entry_stride;
	size_t npy;
	/* Whether pc (native frame i, leaf when i is 0, a return address
	 * otherwise) is in the eval loop.  arg is in_eval_arg. */
	bool (*in_eval)(void *arg, uint64_t pc, size_t i);
	void *in_eval_arg;
};

/* Merge in into out[0..max), as above; *nout refs written. */
enum pymerge_status pymerge_stack(const struct pymerge_in *in,
				  struct pymerge_ref *out, size_t max,
				  size_t *nout);

/*
 * The PCs of a merged stack refs[0..n) (of in, as pymerge_stack() wrote
 * it) into out[0..n): a native frame's PC; a Python frame's, the PC
 * py_pc gives it (pyframes_intern() of its code object's names and
 * line, pyframes.h), called once per Python frame with its index:
 *  - 0 and *pc: the frame's PC;
 *  - 1: a frame to leave out (CPython's "incomplete" frames, being set
 *    up, which its tracebacks hide too);
 *  - -1: no PC (the code object unreadable, the registry full): then the
 *    PC of the eval frame that ran it stands in, once for the frames of
 *    its run that got none in a row, so the stack stays true, if less
 *    precise, and *unnamed (when not NULL) counts it, for --stats.
 * out must not overlap in->pcs (a merged stack is longer than its
 * native one: it is read while out is written).
 * Returns the PCs written (at most n).  Never fails: refs that name no
 * frame of in (not from pymerge_stack()) are left out.  Pure, but for
 * py_pc.
 */
size_t pymerge_pcs(const struct pymerge_in *in, const struct pymerge_ref *refs,
		   size_t n, int (*py_pc)(void *arg, uint32_t i, uint64_t *pc),
		   void *arg, uint64_t *out, size_t *unnamed);

/* A short name of a status ("ok", "no-entry", "mismatch", "einval"), for
 * --stats; "?" for a value not in the enum. */
const char *pymerge_status_name(enum pymerge_status s);

#endif /* PTPROF_PYMERGE_H */
