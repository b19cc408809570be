/*
 * toptab.h - the live table of ptprof top: samples by function and by
 * thread, since the start and over a sliding window of the last seconds.
 *
 * A stack comes as function ids, leaf first, each interned by name
 * (toptab_intern()), with the second of the run it was taken in and the
 * samples it stands for.  Counting is report.h's: the flat count goes to
 * the leaf, the cum count once to each distinct function of the stack (a
 * recursive function is not counted twice).  Every function and thread
 * keeps its counts since the start and one bucket per second for the
 * last TOPTAB_SECONDS seconds (a ring): the window of the last W seconds
 * sums W buckets, the current (partial) second's among them.
 *
 * Time is the caller's: whole seconds since the start.  toptab_advance()
 * moves the ring to a second (the buckets of the seconds it passes are
 * emptied); a stack of a later second moves it too; one of a second the
 * ring has left behind (named late) counts since the start only.
 *
 * Memory is bounded however long the run: at most max_funcs functions
 * and max_threads threads (toptab_new()).  A function named past that
 * counts under the one row TOPTAB_OTHER, a thread past that under
 * TOPTAB_OTHER_THREADS (pid and tid 0).  A bucket saturates at
 * UINT32_MAX rather than wrap.
 *
 * Contract: plain data, not thread-safe, never prints or exits.  NULL or
 * -1 with errno on failure (ENOMEM; EINVAL for a NULL argument or an
 * empty stack).  The names the rows point to stay valid until
 * toptab_free().
 */
#ifndef PTPROF_TOPTAB_H
#define PTPROF_TOPTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TOPTAB_SECONDS 60 /* the longest window */
#define TOPTAB_OTHER "(other functions)"
#define TOPTAB_OTHER_THREADS "(other threads)"

struct toptab;

enum toptab_sort {
	TOPTAB_BY_FLAT, /* flat, then cum, then name */
	TOPTAB_BY_CUM,	/* cum, then flat, then name */
};

/* One function: since the start (flat, cum) and over the window. */
struct toptab_row {
	const char *name;
	const char *module; /* basename of its module, or NULL */
	uint64_t flat, cum;
	uint64_t wflat, wcum;
};

/* One thread: its samples since the start and over the window, and the
 * leaf function of its last stack. */
struct toptab_thread {
	pid_t pid, tid;
	const char *name; /* its comm as last given ("" unknown) */
	const char *last_leaf;
	uint64_t samples, wsamples;
};

struct toptab *toptab_new(size_t max_funcs, size_t max_threads);
void toptab_free(struct toptab *t);

/* The id of the function name in module (NULL: none), the same for the
 * same pair; past max_funcs, TOPTAB_OTHER's.  An id, or -1 with errno. */
int64_t toptab_intern(struct toptab *t, const char *name, const char *module);

/* A stack of n function ids (leaf first) taken in second sec, standing
 * for count samples, of thread tid of process pid named tname (NULL or
 * "": keep the name known).  0, or -1 with errno (the table unchanged). */
int toptab_add(struct toptab *t, uint64_t sec, const uint32_t *fids, size_t n,
	       uint64_t count, pid_t pid, pid_t tid, const char *tname);

/* The ring to second sec (no effect for an earlier one). */
void toptab_advance(struct toptab *t, uint64_t sec);

/* Samples over the last window seconds (1..TOPTAB_SECONDS; 0: since the
 * start). */
uint64_t toptab_total(const struct toptab *t, unsigned window);

/* Functions and threads held (TOPTAB_OTHER's row included once used). */
size_t toptab_nfuncs(const struct toptab *t);
size_t toptab_nthreads(const struct toptab *t);

/*
 * The first max rows into rows, sorted by `by` over the window of
 * `window` seconds (1..TOPTAB_SECONDS), or since the start when
 * by_window is false; the w* fields are always the window's.  Rows with
 * no sample on the sort's basis are left out.  The count filled, or
 * (size_t)-1 with errno ENOMEM.
 */
size_t toptab_rows(struct toptab *t, unsigned window, enum toptab_sort by,
		   bool by_window, struct toptab_row *rows, size_t max);

/* The same for threads, most samples first (then by PID and TID). */
size_t toptab_threads(struct toptab *t, unsigned window, bool by_window,
		      struct toptab_thread *out, size_t max);

#endif /* PTPROF_TOPTAB_H */
