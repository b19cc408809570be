/*
 * pyrt.h - CPython's runtime state and a thread's Python frames, read
 * from a target's memory.
 *
 * A CPython process keeps one _PyRuntimeState (the symbol _PyRuntime, in
 * .dynsym of a statically linked python3.X or of libpython3.X.so), which
 * heads a list of interpreters, each heading a list of thread states
 * (PyThreadState); a thread state knows its OS thread (native_thread_id,
 * 3.11+) and, through its _PyCFrame (3.11, 3.12) or directly (3.13), the
 * innermost _PyInterpreterFrame of the Python code it runs.  Frames
 * chain outwards by `previous`; each names its code object and the
 * instruction it is executing.  One C call of the eval loop
 * (_PyEval_EvalFrameDefault) runs several Python frames (calls from
 * Python to Python do not recurse in C); the first frame it ran is its
 * "entry" frame (3.11: the is_entry byte; 3.12+: the frame just inside
 * a shim frame owned by the C stack, which pyrt_frames() drops), so the
 * frames from one entry frame (inclusive) inwards to the next belong to
 * one native eval frame: that is where a merge of the two stacks cuts.
 *
 * Versions: CPython 3.11 and 3.12 with offsets hard-coded from their
 * headers (3.11.2 and 3.12.1, offsetof() with Py_BUILD_CORE; the layouts
 * are part of a minor version's ABI); 3.13 with the offsets it
 * publishes in _Py_DebugOffsets at the start of _PyRuntime, each checked
 * against the structure size it gives and our read sizes (the free-
 * threaded build is refused).  Any other version is refused by
 * pyrt_open() with one sentence naming it (_Py_DebugOffsets' own layout
 * holds within one minor version only: 3.14's is not 3.13's).
 *
 * Memory: every read goes through the caller's callback, which must
 * fill all len bytes and return 0, or return -1 (any errno): in
 * production process_vm_readv() on the stopped target, in tests the
 * same on a live process or a memcpy from a fake image.  Everything
 * read is hostile: every pointer is checked non-NULL and 8-aligned
 * before it is followed, every walk is bounded (PYRT_MAX_INTERPS,
 * PYRT_MAX_THREADS, the caller's frame array) and checked for loops,
 * every length is capped (PYRT_MAX_NAME, PYRT_MAX_LINETABLE); there is
 * no recursion.
 *
 * Which call when:
 *  - pyrt_open() once per target (per exec): checks the version and
 *    that the runtime's interpreter list is readable.
 *  - pyrt_threads() and pyrt_check() at attach (and again when threads
 *    come and go): which thread state runs on which OS thread; the check
 *    that the hard-coded offsets fit this process.
 *  - pyrt_frames() in the stop window: one read per frame (38 bytes in
 *    3.11, 71 in 3.12 and 3.13; one more per shim frame in 3.12+), plus
 *    two reads (3.11, 3.12) or one (3.13) to reach the first frame;
 *    nothing else.  Through pyrt_pages_read() (below) those become a
 *    few page reads: 3 or 4 for a 5-frame chain instead of 7 to 9.
 *  - pyrt_code() and pyrt_line() after the threads are released: a code
 *    object's names and line table (several reads, up to ~67 KiB).  The
 *    CALLER caches struct pycode by code object address: code objects
 *    live as long as their function, so an address is reused only after
 *    one is freed (the same bet py-spy makes).
 *
 * Contract: never prints or exits; a struct pyrt is not thread-safe.
 * Failures return -1 (NULL for pyrt_open()) with errno: ENOTSUP (a
 * version not supported), EFAULT (a read failed), EINVAL (a value read
 * is implausible), ELOOP (a list loops), ENOMEM; and, where the function
 * takes err, one sentence in it.
 */
#ifndef PTPROF_PYRT_H
#define PTPROF_PYRT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PYRT_MAX_INTERPS 64	       /* interpreters walked, at most */
#define PYRT_MAX_THREADS 65536	       /* thread states walked, at most */
#define PYRT_MAX_FRAMES 4096	       /* pyrt_frames()'s max is capped to */
#define PYRT_MAX_NAME 1024	       /* bytes of a name kept (UTF-8) */
#define PYRT_MAX_LINETABLE (64u << 10) /* a longer line table is refused */

/* Fills all len bytes at addr and returns 0, or returns -1. */
typedef int (*pyrt_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct pyrt;

/*
 * The runtime of a target whose Py_Version word (0xMMmmppLS, e.g.
 * 0x030b02f0 for 3.11.2 final) is version and whose _PyRuntime is at
 * runtime (the symbol's address plus the load bias).  read/arg are kept
 * for every later call.  NULL with errno ENOTSUP (version, or 3.13's
 * free-threaded build), EFAULT or EINVAL (the runtime is not readable,
 * 3.13's _Py_DebugOffsets is missing or implausible, the interpreter
 * list is empty: before Py_Initialize() or after Py_Finalize()),
 * ENOMEM; err names why.
 */
struct pyrt *pyrt_open(uint32_t version, uint64_t runtime, pyrt_read_fn read,
		       void *arg, char *err, size_t errlen);
void pyrt_close(struct pyrt *rt);

/* "3.11" -> 0x030b: the major and minor of the version opened. */
unsigned pyrt_version(const struct pyrt *rt);

struct pyrt_thread {
	uint64_t tstate;    /* PyThreadState address: pyrt_frames()'s key */
	uint64_t interp;    /* its PyInterpreterState */
	uint64_t native_id; /* the OS thread id; 0: not yet bound to one */
	int main_interp;    /* 1 if interp is the main interpreter (the
			       last of the list: the first one made) */
};

/*
 * The thread states of every interpreter, at most max into out (the
 * walk goes on counting past max, to PYRT_MAX_THREADS).  Returns how many
 * there are, or -1 with errno EFAULT (a list pointer unreadable), EINVAL
 * (a thread state's interp or prev does not point back: not a list of
 * thread states), ELOOP (more than the PYRT_MAX_* bounds: a loop).
 */
int pyrt_threads(struct pyrt *rt, struct pyrt_thread *out, size_t max,
		 char *err, size_t errlen);

/*
 * The check that the hard-coded offsets fit this process: the thread
 * states walk (as pyrt_threads()), at least one is bound to an OS thread,
 * and every native_id that is not 0 is one of tids[0..n) (the process's
 * threads, from /proc/PID/task).  0, or -1 with errno (EINVAL: a
 * native_id that is no thread of the process, or none bound) and err.
 */
int pyrt_check(struct pyrt *rt, const pid_t *tids, size_t n, char *err,
	       size_t errlen);

/* Why pyrt_frames() stopped. */
enum pyrt_status {
	PYRT_END,	 /* the outermost frame reached (or no frame at all) */
	PYRT_TRUNCATED,	 /* max frames read, more follow */
	PYRT_UNREADABLE, /* a read failed: out[] holds the frames before it */
	PYRT_BADPTR,	 /* a pointer is misaligned or implausible */
	PYRT_LOOP,	 /* the chain comes back to a frame already read */
};

struct pyrt_frame {
	uint64_t frame;	  /* the _PyInterpreterFrame's address */
	uint64_t code;	  /* its code object: pyrt_code()'s key */
	int32_t lasti;	  /* the instruction, in code units (-1: none yet);
			     from 3.13 the next one, as CPython counts */
	uint8_t is_entry; /* the first Python frame of one C eval frame */
	uint8_t owner;	  /* 0 thread, 1 generator, 2 frame object */
};

/*
 * The Python frames of the thread state tstate, innermost first, at
 * most max (capped to PYRT_MAX_FRAMES) into out; *status says why the
 * walk stopped.  Returns the number of frames in out (0..max); never
 * fails otherwise: an unreadable tstate gives 0 and PYRT_UNREADABLE.
 * The only reads: the tstate's cframe pointer and the cframe's current
 * frame (3.13: the tstate's current frame), then one span of each
 * frame.  Loops are found (Brent's method on frame addresses) in O(1)
 * per frame, without reading anything again; at most 2 max + 1 frames
 * (shims included) are read.
 * A frame with lasti below its code's firsttraceable is one being set up
 * ("incomplete" in CPython's words): traceback hides it; pyrt_line()
 * gives it -1.
 */
int pyrt_frames(struct pyrt *rt, uint64_t tstate, struct pyrt_frame *out,
		int max, int *status);

/* A code object's constant part, as pyrt_code() read it. */
struct pycode {
	char *name;	/* co_name, UTF-8, NUL-terminated, <= PYRT_MAX_NAME */
	char *qualname; /* co_qualname */
	char *filename; /* co_filename */
	int firstlineno;
	uint32_t ncodeunits;	 /* the bytecode's length, in code units */
	uint32_t firsttraceable; /* code units before the first traceable one */
	uint8_t *linetable;	 /* co_linetable (the location table) */
	size_t linetable_len;
	uint64_t ident; /* pyrt_code_ident() of the object when read */
};

/*
 * The code object at code into *out (owned by the caller: free it with
 * pycode_free()).  Names longer than PYRT_MAX_NAME bytes are cut there
 * (at a character boundary); a string that is not a compact str object
 * gives "?".  0, or -1 with errno EFAULT (unreadable), EINVAL (a value
 * implausible: a line table longer than PYRT_MAX_LINETABLE, a negative
 * size), ENOMEM; *out is then empty (pycode_free() on it is harmless).
 */
int pyrt_code(struct pyrt *rt, uint64_t code, struct pycode *out);
void pycode_free(struct pycode *c);

/*
 * What tells the code object at code from another one at the same
 * address: a hash of its name, qualified name, filename and line table
 * pointers, first line and size (one read of its header).  A code object
 * freed and its address reused by another function's (the <string> code
 * of namedtuple's exec at start-up, then a function of the script) has
 * another identity; pyrt_code()'s result is stale then.  0, or -1 with
 * errno EFAULT (unreadable).
 */
int pyrt_code_ident(struct pyrt *rt, uint64_t code, uint64_t *ident);

/*
 * The line of instruction lasti (pyrt_frame.lasti) of code c, decoded
 * from the location table (the same format in 3.11, 3.12 and 3.13) as
 * CPython's PyCode_Addr2Line does; -1
 * if the instruction has no line, lasti is outside the code, or the
 * frame is incomplete (lasti < firsttraceable).  Pure: no reads.
 */
int pyrt_line(const struct pycode *c, int32_t lasti);

/*
 * The same on a bare location table (len bytes, hostile) for the
 * byte offset addrq (lasti * 2); -1 as above.  Exposed for the tests.
 */
int pyrt_line_table(const uint8_t *table, size_t len, int firstlineno,
		    int64_t addrq);

/*
 * A read callback that reads whole 4 KiB pages through another one and
 * keeps the last PYRT_PAGES of them: a frame chain lives mostly in one
 * or two pages of the thread's data stack, so pyrt_frames() through it
 * makes a few reads instead of one per frame.  Give pyrt_open()
 * pyrt_pages_read with a struct pyrt_pages as its arg, and call
 * pyrt_pages_reset() whenever the target may have run since the last
 * read (before each stop window's walk): the pages are a snapshot.
 * A read that fails for its whole page is retried for its bytes alone.
 */
#define PYRT_PAGES 8

struct pyrt_pages {
	pyrt_read_fn read; /* the reader underneath, and its arg */
	void *arg;
	unsigned n, next;		/* pages held, the next to replace */
	uint64_t addr[PYRT_PAGES];	/* their addresses */
	uint8_t data[PYRT_PAGES][4096]; /* their bytes */
	unsigned long reads;		/* reads made underneath */
};

void pyrt_pages_init(struct pyrt_pages *pc, pyrt_read_fn read, void *arg);
void pyrt_pages_reset(struct pyrt_pages *pc);
int pyrt_pages_read(void *pc, uint64_t addr, void *buf, size_t len);

#endif /* PTPROF_PYRT_H */
