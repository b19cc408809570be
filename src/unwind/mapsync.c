/*
 * mapsync.c - keep struct maps in step with /proc/PID/maps (see mapsync.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/debugfile.h"
#include "proc/procfs.h"
#include "unwind/mapsync.h"
#include "util/timeutil.h"

/* At most this many reads a second for PCs on ever new unmapped pages. */
#define MAPSYNC_READS_PER_SEC 50

void mapsync_init(struct mapsync *m, pid_t pid, struct maps *maps,
		  struct unwinder *unw)
{
	*m = (struct mapsync){ .pid = pid, .maps = maps, .unw = unw };
}

void mapsync_free(struct mapsync *m)
{
	free(m->text);
	m->text = NULL;
}

/* Build IDs of newly mapped files, while they can be read as mapped:
 * through the root of the thread the maps were read through. */
static void mapsync_build_ids(struct mapsync *m, pid_t live_tid)
{
	char root[64];

	snprintf(root, sizeof(root), "/proc/%d/task/%d/root", (int)m->pid,
		 (int)(live_tid ? live_tid : m->pid));
	debugfile_maps_build_ids(m->maps, root, m->pid);
}

void mapsync_refresh(struct mapsync *m, pid_t live_tid)
{
	char *text;
	size_t len;

	if (procfs_read_maps(m->pid, live_tid, &text, &len) == 0 ||
	    procfs_read_maps(m->pid, 0, &text, &len) == 0) {
		bool changed = len != m->len ||
			       (m->text && memcmp(text, m->text, len));

		/* Unwind caches go only when the text really changed: a
		 * stray PC must not cost an ELF reload. */
		if (changed && maps_update(m->maps, text, len) == 0) {
			m->generation++;
			unwinder_flush(m->unw);
			mapsync_build_ids(m, live_tid);
		}
		free(m->text);
		m->text = text;
		m->len = len;
	}
	m->ntried = 0;
}

/* The first PC of the chain outside every known executable mapping, or 0. */
static uint64_t mapsync_first_unmapped(const struct mapsync *m,
				       const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++)
		if (!maps_covers_exec(m->maps, pcs[i]))
			return pcs[i];
	return 0;
}

/* May an unmapped PC trigger a read?  Not for a page already tried since
 * the last read, nor past the budget of reads per second of its kind
 * (leaf: the stack's first PC, else a caller's); if so, it is counted. */
static bool mapsync_worth_reading(struct mapsync *m, uint64_t pc, bool leaf,
				  uint64_t now)
{
	uint64_t page = pc >> 12;

	for (unsigned i = 0; i < m->ntried; i++)
		if (m->tried[i] == page)
			return false;
	if (m->ntried < MAPSYNC_PAGES)
		m->tried[m->ntried++] = page;
	if (now - m->second_ns >= NSEC_PER_SEC) {
		m->second_ns = now;
		m->reads[0] = m->reads[1] = 0;
	}
	if (m->reads[leaf] >= MAPSYNC_READS_PER_SEC)
		return false;
	m->reads[leaf]++;
	return true;
}

bool mapsync_catch_up(struct mapsync *m, const uint64_t *pcs, int n,
		      pid_t live_tid)
{
	uint64_t pc = n > 0 ? mapsync_first_unmapped(m, pcs, n) : 0;
	size_t before = m->generation;

	if (!pc || !mapsync_worth_reading(m, pc, pc == pcs[0], mono_now_ns()))
		return false;
	mapsync_refresh(m, live_tid);
	return m->generation != before;
}
