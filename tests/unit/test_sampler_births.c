/*
 * test_sampler_births - the tree's new processes before their set-up
 * (sampler_births.c), on a made-up sampler without a tree:
 *  - NEWs are queued, not set up; a second NEW of a queued PID is
 *    ignored;
 *  - a tick whose share of the period is spent already sets up one, the
 *    oldest, and so does a late one (a deadline missed); a tick with
 *    time left sets up all; the end of the run (all) sets up all
 *    whatever the time;
 *  - a queued process's EXIT takes it off the queue, and its CPU time at
 *    exit is on its own row "[CPU time of no stack]" (samples of no
 *    stack, an image of it ended); one there before the run (not born)
 *    adds nothing; one gone before its set-up (no such PID) waits for
 *    its EXIT among the unread;
 *  - a zombie (exited, its parent has not reaped it) is never set up:
 *    it is kept for its EXIT, as one gone.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/procset.h"
#include "profile/stacktab.h"
#include "sampler/sampler_int.h"
#include "sampler/threadtab.h"
#include "unit.h"
#include "util/timeutil.h"

/* PIDs no process has (above pid_max's largest value, 2^22). */
#define NOPID(i) ((pid_t)(5000000 + (i)))

static struct proctree_event exit_of(pid_t pid, uint64_t cpu_ns)
{
	struct proctree_event ev = { .kind = PROCTREE_EXIT, .pid = pid };

	ev.have_cpu = cpu_ns != 0;
	ev.cpu_ns = cpu_ns;
	snprintf(ev.comm, sizeof(ev.comm), "short");
	return ev;
}

int main(void)
{
	struct sampler_config cfg;
	struct sampler_stats st;
	struct sampler s;
	struct proctree_event ev;
	pid_t kid;

	memset(&cfg, 0, sizeof(cfg));
	memset(&st, 0, sizeof(st));
	memset(&s, 0, sizeof(s));
	s.cfg = &cfg;
	s.st = &st;
	s.period_ns = 10 * NSEC_PER_MSEC;
	s.ps = procset_new();
	s.tab = stacktab_new(64);
	s.threads = threadtab_new();
	CHECK(s.ps && s.tab && s.threads);

	/* Queued, in order; a second NEW of one ignored. */
	for (int i = 0; i < 4; i++)
		CHECK(sampler_births_queue(&s, NOPID(i), 1, true) == 0);
	CHECK(sampler_births_queue(&s, NOPID(1), 1, true) == 0);
	CHECKF(s.set.nbirths - s.set.births_head == 4, "%zu queued",
	       s.set.nbirths - s.set.births_head);
	CHECK(s.set.nprocs == 0 && s.set.nunread == 0);

	/* The tick's share spent: one set up, the oldest (gone: unread). */
	s.tick_ns = mono_now_ns() - s.period_ns;
	CHECK(sampler_births_setup(&s, false) == 0);
	CHECKF(s.set.nunread == 1 && s.set.unread[0].pid == NOPID(0),
	       "%zu unread", s.set.nunread);
	CHECK(s.set.births_deferred == 1);

	/* The EXIT of a queued one: off the queue, its CPU time (25 ms,
	 * 2.5 periods) on its own row. */
	ev = exit_of(NOPID(2), 25 * NSEC_PER_MSEC);
	CHECK(sampler_births_exit(&s, &ev) == 0);
	CHECKF(s.set.nbirths - s.set.births_head == 2, "%zu queued",
	       s.set.nbirths - s.set.births_head);
	CHECKF(st.nostack_unread_samples >= 2, "%llu samples of no stack",
	       (unsigned long long)st.nostack_unread_samples);
	CHECK(st.samples == st.nostack_unread_samples);
	CHECK(st.procs_found == 1);

	/* The EXIT of one unread: its time too; of one unknown: nothing. */
	ev = exit_of(NOPID(0), 10 * NSEC_PER_MSEC);
	CHECK(sampler_births_exit(&s, &ev) == 0);
	CHECK(s.set.nunread == 0 && st.procs_found == 2);
	ev = exit_of(NOPID(99), 10 * NSEC_PER_MSEC);
	CHECK(sampler_births_exit(&s, &ev) == 0 && st.procs_found == 2);

	/* Time left in the tick: every one set up (all gone: unread). */
	s.tick_ns = mono_now_ns();
	CHECK(sampler_births_setup(&s, false) == 0);
	CHECKF(s.set.nbirths == 0 && s.set.births_head == 0, "%zu, %zu",
	       s.set.nbirths, s.set.births_head);
	CHECK(s.set.nunread == 2 && s.set.unread[0].pid == NOPID(1) &&
	      s.set.unread[1].pid == NOPID(3));

	/* A late tick (a deadline missed): one only, time left or not. */
	for (int i = 20; i < 23; i++)
		CHECK(sampler_births_queue(&s, NOPID(i), 1, true) == 0);
	s.tick_ns = mono_now_ns();
	s.tick_late = true;
	CHECK(sampler_births_setup(&s, false) == 0);
	CHECK(s.set.nbirths - s.set.births_head == 2 && s.set.nunread == 3);
	s.tick_late = false;
	CHECK(sampler_births_setup(&s, false) == 0);
	CHECK(s.set.nbirths == 0 && s.set.nunread == 5);
	for (int i = 20; i < 23; i++) {
		ev = exit_of(NOPID(i), 0); /* no CPU time told: nothing */
		CHECK(sampler_births_exit(&s, &ev) == 0);
	}
	CHECK(s.set.nunread == 2 && st.procs_found == 2);

	/* Not born (found by a scan): its EXIT adds nothing. */
	CHECK(sampler_births_queue(&s, NOPID(7), 1, false) == 0);
	ev = exit_of(NOPID(7), 50 * NSEC_PER_MSEC);
	CHECK(sampler_births_exit(&s, &ev) == 0);
	CHECK(s.set.nbirths == 0 && st.procs_found == 2);

	/* The end of the run: all, however late. */
	for (int i = 10; i < 13; i++)
		CHECK(sampler_births_queue(&s, NOPID(i), 1, true) == 0);
	s.tick_ns = mono_now_ns() - s.period_ns;
	CHECK(sampler_births_setup(&s, true) == 0);
	CHECK(s.set.nbirths == 0 && s.set.nunread == 5);

	/* A zombie: never set up, kept for its EXIT. */
	kid = fork();
	if (kid == 0)
		_exit(0);
	CHECK(kid > 0);
	CHECK(waitid(P_PID, (id_t)kid, NULL, WEXITED | WNOWAIT) == 0);
	CHECK(sampler_births_queue(&s, kid, getpid(), true) == 0);
	s.tick_ns = mono_now_ns();
	CHECK(sampler_births_setup(&s, false) == 0);
	CHECKF(s.set.nprocs == 0, "%zu processes set up", s.set.nprocs);
	CHECK(s.set.nunread == 6 && s.set.unread[5].pid == kid);
	CHECK(waitpid(kid, NULL, 0) == kid);

	sampler_births_free(&s);
	threadtab_free(s.threads);
	stacktab_free(s.tab);
	procset_free(s.ps);
	return unit_result("test_sampler_births");
}
