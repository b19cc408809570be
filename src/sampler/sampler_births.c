/*
 * sampler_births.c - the processes the tree reports (proctree.h), from
 * their NEW to their set-up in the process set (sampler_procs_add()):
 * queued oldest first, and set up between ticks within a share of the
 * period, so that a burst of new processes does not stall the loop.  The
 * set-up of one (its pidfd, its /proc files, its maps and the build IDs
 * of the files they map, its CPython runtime looked for, an unwinder) is
 * a few hundred microseconds; forty forked at once (tests/targets/
 * forktree) were all set up at the tick after their NEW, and again at
 * their EXEC, inside that tick: it ran for tens of milliseconds, and the
 * ticks it overran were missed for every process, the old busy ones too.
 *
 * A queued process costs nothing until it is set up.  Its EXEC needs
 * nothing (the set-up reads the image it has then: a fork and its exec
 * in one batch of events cost one maps read, not two).  Its EXIT ends
 * it: never set up, its CPU time at exit goes to its own row, "[CPU
 * time of no stack]", as that of a process born and gone before it
 * could be read (the unread ones, kept here too: sampler_births_unread()).
 * One born in the run and set up late counts its CPU time from its
 * birth all the same (cpuacct_proc_from_birth()): its first stack takes
 * what it ran while queued.  At the end of the run the queue is set up
 * whole, as the tree's last events were before.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sampler/sampler_int.h"
#include "util/grow.h"
#include "util/timeutil.h"

/* The share of the period (1/BIRTH_SHARE) the set-ups may take in one
 * tick, counted from the tick's start; at least one is set up a tick,
 * and only one when the tick is late (a deadline was missed since the
 * last): a process's set-up is the smaller part of its cost, its first
 * unwind at the next tick the larger (libunwind's register-state cache
 * made anew for it: milliseconds), so the loop's lateness, not the
 * set-ups' time, is what says the burst is too much for it. */
#define BIRTH_SHARE 4
/* The most queued at once: past it a NEW is set up at once, as before
 * (memory bounded under a fork storm that outruns the set-ups). */
#define BIRTHS_MAX 4096
/* Processes born and gone before they could be read, kept for their
 * EXIT (a tree without taskstats sends EXITs all the same). */
#define UNREAD_MAX 1024

static size_t births_find(const struct sampler_set *set, pid_t pid)
{
	size_t i = set->births_head;

	while (i < set->nbirths && set->births[i].pid != pid)
		i++;
	return i;
}

int sampler_births_queue(struct sampler *s, pid_t pid, pid_t ppid, bool born)
{
	struct sampler_set *set = &s->set;
	struct sampler_birth *b;

	/* A NEW pid once while it lives (proctree.h): a second one for a
	 * queued pid is that process still. */
	if (births_find(set, pid) < set->nbirths)
		return 0;
	if (set->nbirths - set->births_head >= BIRTHS_MAX)
		return sampler_procs_add(s, pid, ppid, false, born);
	if (set->births_head && set->nbirths == set->cap_births) {
		set->nbirths -= set->births_head;
		memmove(set->births, set->births + set->births_head,
			set->nbirths * sizeof(*set->births));
		set->births_head = 0;
	}
	b = grow_array(set->births, &set->cap_births, set->nbirths + 1,
		       sizeof(*b));
	if (!b)
		return -1;
	set->births = b;
	b[set->nbirths++] = (struct sampler_birth){ pid, ppid, born };
	return 0;
}

int sampler_births_setup(struct sampler *s, bool all)
{
	struct sampler_set *set = &s->set;
	uint64_t end = s->tick_ns + s->period_ns / BIRTH_SHARE;
	size_t done = 0;

	while (set->births_head < set->nbirths) {
		struct sampler_birth b = set->births[set->births_head];

		if (!all && done && (s->tick_late || mono_now_ns() >= end)) {
			s->set.births_deferred++;
			return 0;
		}
		set->births_head++;
		done++;
		if (sampler_procs_add(s, b.pid, b.ppid, false, b.born))
			return -1;
	}
	set->births_head = set->nbirths = 0;
	return 0;
}

int sampler_births_unread(struct sampler *s, pid_t pid, pid_t ppid)
{
	struct sampler_set *set = &s->set;
	struct sampler_unread *u;

	if (set->nunread >= UNREAD_MAX)
		return 0;
	u = grow_array(set->unread, &set->cap_unread, set->nunread + 1,
		       sizeof(*u));
	if (!u)
		return -1;
	set->unread = u;
	u[set->nunread++] = (struct sampler_unread){ pid, ppid };
	return 0;
}

/* pid queued: taken off the queue (its order kept).  born, ppid: its. */
static bool births_take(struct sampler_set *set, pid_t pid, bool *born,
			pid_t *ppid)
{
	size_t i = births_find(set, pid);

	if (i == set->nbirths)
		return false;
	*born = set->births[i].born;
	*ppid = set->births[i].ppid;
	memmove(&set->births[i], &set->births[i + 1],
		(set->nbirths - i - 1) * sizeof(*set->births));
	set->nbirths--;
	return true;
}

/* pid read never: taken off the unread ones. */
static bool unread_take(struct sampler_set *set, pid_t pid, pid_t *ppid)
{
	size_t i = 0;

	while (i < set->nunread && set->unread[i].pid != pid)
		i++;
	if (i == set->nunread)
		return false;
	*ppid = set->unread[i].ppid;
	set->unread[i] = set->unread[--set->nunread];
	return true;
}

int sampler_births_exit(struct sampler *s, const struct proctree_event *ev)
{
	bool born = true;
	pid_t ppid;

	if (!births_take(&s->set, ev->pid, &born, &ppid) &&
	    !unread_take(&s->set, ev->pid, &ppid))
		return 0;
	/* One there before the run (a scan found it) and never read: what
	 * it used is not the run's to count. */
	if (!born || s->cfg->wall || !ev->have_cpu)
		return 0;
	return sampler_procs_pool_exit(s, ev->pid, ppid, ev->comm, ev->cpu_ns);
}

void sampler_births_free(struct sampler *s)
{
	free(s->set.births);
	free(s->set.unread);
}
