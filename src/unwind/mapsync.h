/*
 * mapsync.h - keep the sampler's struct maps, and the unwinder's caches,
 * in step with /proc/PID/maps while the target loads and unloads code.
 *
 * The maps are read at the start and at the end of a run, and between
 * the two only when an unwound stack holds a PC outside every known
 * executable mapping: a library was loaded since the last read (right
 * after exec, libc is not there yet), and the unwind may have stopped for
 * want of its table.  A stray PC (a broken unwind) must not cost a read
 * per stack, so each page is tried once between reads, and the reads are
 * limited per second: separately for a stack whose leaf, the PC the
 * thread was at, is unmapped, and for one whose caller frames are.  A
 * leaf is a real PC, outside the known mappings only after they changed
 * (exec, dlopen); callers come from unwinding and may be garbage (a
 * thread made by a raw clone(), hand-written assembly), and where many
 * threads unwind to garbage, as many as 50 new pages a second, they must
 * not use up the reads that the first stacks of a new image need.  The
 * unwinder's caches are flushed, and the build IDs of new files read,
 * only when the text really changed.
 *
 * Contract: one struct mapsync per run, set up by mapsync_init() with the
 * maps and unwinder it updates (which it does not own), released by
 * mapsync_free().  Never called inside the stop window: it reads /proc
 * and files.  Never prints; a failed read leaves the maps as they were
 * (they are kept up to date on a best-effort basis).
 */
#ifndef PTPROF_MAPSYNC_H
#define PTPROF_MAPSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"
#include "unwind/unwind.h"

#define MAPSYNC_PAGES 64

struct mapsync {
	pid_t pid;
	struct maps *maps;
	struct unwinder *unw;
	uint64_t tried[MAPSYNC_PAGES]; /* unmapped pages since the last read */
	unsigned ntried;
	uint64_t second_ns; /* start of the current second */
	unsigned reads[2];  /* reads in it: [0] for callers, [1] for leaves */
	char *text;	    /* the last text read */
	size_t len;
	size_t generation; /* bumped whenever the maps changed */
};

void mapsync_init(struct mapsync *m, pid_t pid, struct maps *maps,
		  struct unwinder *unw);
void mapsync_free(struct mapsync *m);

/* Read /proc/PID/maps, through thread live_tid's view if it is not 0
 * (the leader's is empty once it has exited), else the process's. */
void mapsync_refresh(struct mapsync *m, pid_t live_tid);

/*
 * After an unwind of n PCs: when one lies outside every known executable
 * mapping and a read is worth it (see above), read the maps.  true when
 * they changed: the stack is worth unwinding again.
 */
bool mapsync_catch_up(struct mapsync *m, const uint64_t *pcs, int n,
		      pid_t live_tid);

#endif /* PTPROF_MAPSYNC_H */
