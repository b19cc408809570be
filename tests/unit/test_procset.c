/*
 * test_procset - the set of images: indexes in the order added, an exec
 * (a second image of a PID) ends the first and numbers itself after it,
 * images stay at their address while the set grows, the newest image of
 * a PID is found, and the sampled counts count images and distinct PIDs
 * (many of them, out of order, too); the busiest PID adds up its images
 * (own samples or the counts given), a tie going to the one found first;
 * procset_retire() frees the ended images but image 0, the skipped and
 * the ten busiest, renumbers the rest, and the sampled counts keep the
 * freed ones; skipped images go too once their process is gone (counted
 * in the totals; the first and the first never sampled kept for the
 * warning, the one of a live process kept), and a skip decision holds
 * for its process only: a PID since reused (another start time) or
 * ended is not skipped.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "profile/procset.h"
#include "unit.h"

static void check_exec(void)
{
	struct procset *ps = procset_new();
	struct proc_image *a, *b, *c;

	CHECK(ps != NULL);
	a = procset_add(ps, 100, 0, "sh");
	b = procset_add(ps, 101, 100, "make");
	c = procset_add(ps, 100, 0, "gcc");
	CHECK(a && b && c);
	CHECK(a->index == 0 && b->index == 1 && c->index == 2);
	CHECK(a->ended && !b->ended && !c->ended);
	CHECK(a->exec_no == 0 && c->exec_no == 1);
	CHECK(b->ppid == 100 && c->ppid == 0);
	CHECK(strcmp(c->comm, "gcc") == 0 && a->maps && c->maps != a->maps);
	CHECK(procset_find(ps, 100) == c && procset_find(ps, 101) == b);
	CHECK(procset_find(ps, 7) == NULL);
	CHECK(procset_count(ps) == 3 && procset_at(ps, 1) == b);
	CHECK(procset_at(ps, 3) == NULL);
	CHECK(procset_sampled(ps) == 0 && procset_sampled_pids(ps) == 0);
	a->samples = 3;
	c->samples = 1;
	CHECK(procset_sampled(ps) == 2 && procset_sampled_pids(ps) == 1);
	b->samples = 1;
	CHECK(procset_sampled(ps) == 3 && procset_sampled_pids(ps) == 2);
	procset_free(ps);
}

static void check_stable(void)
{
	struct procset *ps = procset_new();
	struct proc_image *first = procset_add(ps, 1, 0,
					       "a-very-long-command-name");

	CHECK(first && strlen(first->comm) == 15);
	for (pid_t p = 2; p < 5000; p++)
		CHECK(procset_add(ps, p, 1, "w") != NULL);
	CHECK(procset_at(ps, 0) == first && first->pid == 1);
	CHECK(procset_at(ps, 4998)->pid == 4999);
	procset_free(ps);
	procset_free(NULL);
}

/* Many images, PIDs exec'ing and reused out of order, some unsampled:
 * each sampled PID counted once. */
static void check_many_pids(void)
{
	struct procset *ps = procset_new();
	size_t want = 0;

	CHECK(ps != NULL);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 3000; i++) {
			/* PID 5000 - i: descending, so not sorted by index */
			struct proc_image *im = procset_add(ps, 5000 - i, 1,
							    "cc1");

			CHECK(im != NULL);
			/* sampled: every PID not a multiple of 3, in some
			 * round; multiples of 7 only in the last */
			if (i % 3 && (i % 7 || round == 2))
				im->samples = 1;
			want += round == 2 && i % 3;
		}
	CHECKF(procset_sampled_pids(ps) == want, "%zu PIDs, want %zu",
	       procset_sampled_pids(ps), want);
	procset_free(ps);
}

static void check_busiest(void)
{
	struct procset *ps = procset_new();
	struct proc_image *sh, *a, *b, *sh2;
	uint64_t most = 7, count[4] = { 0 };

	CHECK(ps != NULL);
	CHECK(procset_busiest(ps, NULL, &most) == 0 && most == 0);
	sh = procset_add(ps, 300, 0, "sh");
	a = procset_add(ps, 310, 300, "cc1");
	b = procset_add(ps, 305, 300, "as");
	CHECK(sh && a && b);
	/* nothing counted: the first */
	CHECK(procset_busiest(ps, NULL, &most) == 300 && most == 0);
	a->samples = 5;
	b->samples = 5;
	/* a tie: the one found first, whatever the PIDs' order */
	CHECK(procset_busiest(ps, NULL, &most) == 310 && most == 5);
	b->samples = 6;
	CHECK(procset_busiest(ps, NULL, NULL) == 305);
	/* the root's images add up (it exec'd) */
	sh->samples = 4;
	sh2 = procset_add(ps, 300, 0, "make");
	CHECK(sh2 != NULL);
	sh2->samples = 3;
	CHECK(procset_busiest(ps, NULL, &most) == 300 && most == 7);
	/* the counts given, not the images' own */
	count[1] = 2;
	count[2] = 1;
	CHECK(procset_busiest(ps, count, &most) == 310 && most == 2);
	count[3] = 2;
	CHECK(procset_busiest(ps, count, &most) == 300 && most == 2);
	procset_free(ps);
}

/* 100 short children of a shell (PIDs 1001..1100, each exec'd: two
 * images), one still running; image 0 the shell. */
static void check_retire(void)
{
	struct procset *ps = procset_new();
	struct proc_image *sh, *live = NULL, *skip, *im;
	size_t freed;

	CHECK(ps != NULL);
	sh = procset_add(ps, 1000, 0, "sh");
	CHECK(sh != NULL);
	sh->samples = 1;
	for (pid_t pid = 1001; pid <= 1100; pid++) {
		CHECK(procset_add(ps, pid, 1000, "sh") != NULL);
		im = procset_add(ps, pid, 1000, "true");
		CHECK(im != NULL);
		im->samples = pid % 2 ? 1 : 0; /* 50 sampled */
		if (pid == 1050)
			im->samples = 1000 + pid; /* among the busiest */
		im->ended = pid != 1100;
		live = im;
	}
	skip = procset_add(ps, 1200, 1000, "suid");
	CHECK(skip != NULL);
	skip->skipped = EPERM;
	skip->ended = true;
	CHECK(procset_count(ps) == 202 && procset_sampled(ps) == 52);
	CHECK(procset_sampled_pids(ps) == 52);
	freed = procset_retire(ps);
	/* kept: the ten busiest (1050, then the 1-sample ones found
	 * first: sh, 1001, 1003, ..., 1015), 1100's live image, the
	 * skipped */
	CHECKF(freed == 202 - 12, "%zu freed", freed);
	CHECK(procset_retired(ps)->images == freed);
	CHECK(procset_count(ps) == 202 - freed);
	CHECK(procset_at(ps, 0) == sh && sh->index == 0);
	for (size_t i = 0; i < procset_count(ps); i++)
		CHECK(procset_at(ps, i)->index == i);
	CHECK(procset_find(ps, 1100) == live && procset_find(ps, 1200) == skip);
	CHECK(procset_find(ps, 1050) != NULL && procset_find(ps, 1015));
	CHECK(procset_find(ps, 1049) == NULL && !procset_find(ps, 1017));
	/* the counts over the run are the same */
	CHECK(procset_sampled(ps) == 52 && procset_sampled_pids(ps) == 52);
	CHECK(procset_retired(ps)->samples_other == 42);
	CHECK(procset_retired(ps)->sampled == 42);
	/* a freed one's PID reused: counted once */
	im = procset_add(ps, 1021, 1000, "true");
	CHECK(im != NULL);
	im->samples = 1;
	CHECK(procset_sampled(ps) == 53 && procset_sampled_pids(ps) == 52);
	/* again: nothing more ended */
	CHECK(procset_retire(ps) == 0);
	procset_free(ps);
}

/* PIDs from 2^22 on are above any pid_max: no such process. */
#define NO_PID 4194304

/* A skipped image of pid, ended (it never was sampled after the skip). */
static struct proc_image *add_skip(struct procset *ps, pid_t pid,
				   uint64_t samples)
{
	struct proc_image *im = procset_add(ps, pid, 1000, "sandboxed");

	CHECK(im != NULL);
	im->skipped = EPERM;
	im->ended = true;
	im->samples = samples;
	snprintf(im->skip_why, sizeof(im->skip_why), "why %d", (int)pid);
	return im;
}

static void check_retire_skipped(void)
{
	struct procset *ps = procset_new();
	struct proc_image *first, *unsampled, *self, *im;
	size_t freed, skipped = 0, partly = 0;

	CHECK(ps != NULL);
	CHECK(procset_add(ps, 1000, 0, "sh") != NULL);
	for (pid_t pid = 1001; pid <= 1010; pid++) { /* the ten busiest */
		im = procset_add(ps, pid, 1000, "busy");
		CHECK(im != NULL);
		im->samples = 100;
		im->ended = true;
	}
	first = add_skip(ps, NO_PID, 5); /* skipped after 5 samples */
	unsampled = add_skip(ps, NO_PID + 1, 0);
	add_skip(ps, NO_PID + 2, 3);
	for (pid_t i = 0; i < 200; i++)
		add_skip(ps, NO_PID + 10 + i, 0);
	/* this process, skipped and alive: kept for a NEW of it */
	self = add_skip(ps, getpid(), 0);
	CHECK(procset_note_start(self) == 0 && self->have_start);
	CHECK(self->start != PROCSET_START_ENDED);
	/* one known ended */
	im = add_skip(ps, NO_PID + 5, 0);
	im->have_start = true;
	im->start = PROCSET_START_ENDED;
	CHECK(procset_count(ps) == 11 + 3 + 200 + 2);
	freed = procset_retire(ps);
	CHECKF(freed == 2 + 200, "%zu freed", freed);
	CHECK(procset_count(ps) == 11 + 2 + 1);
	CHECK(procset_find(ps, NO_PID) == first);
	CHECK(procset_find(ps, NO_PID + 1) == unsampled);
	CHECK(procset_find(ps, getpid()) == self);
	CHECK(!procset_find(ps, NO_PID + 2) && !procset_find(ps, NO_PID + 5));
	CHECK(procset_retired(ps)->skipped == 202);
	CHECK(procset_retired(ps)->skipped_partly == 1);
	CHECK(procset_retired(ps)->sampled == 1);
	/* the whole run's counts, as warn_skipped() adds them */
	for (size_t i = 0; i < procset_count(ps); i++) {
		skipped += procset_at(ps, i)->skipped != 0;
		partly += procset_at(ps, i)->skipped &&
			  procset_at(ps, i)->samples;
	}
	CHECK(skipped + procset_retired(ps)->skipped == 205);
	CHECK(partly + procset_retired(ps)->skipped_partly == 2);
	/* nothing more is gone */
	CHECK(procset_retire(ps) == 0);

	/* the skip decision: this process, as it started, is skipped... */
	CHECK(procset_skip_applies(ps, getpid()));
	/* ...not a process that started otherwise under its PID (reused) */
	self->start++;
	CHECK(!procset_skip_applies(ps, getpid()));
	/* nor one that ended, nor a PID never skipped */
	self->start = PROCSET_START_ENDED;
	CHECK(!procset_skip_applies(ps, getpid()));
	CHECK(!procset_skip_applies(ps, 1001));
	/* unread start (no descriptor then): the decision holds, as before */
	self->have_start = false;
	CHECK(procset_skip_applies(ps, getpid()));
	/* now another start: freed at the next rotation, once gone */
	self->have_start = true;
	self->start = 1;
	CHECK(procset_retire(ps) == 1 && procset_retired(ps)->skipped == 203);
	CHECK(!procset_find(ps, getpid()));
	procset_free(ps);
}

int main(void)
{
	check_retire_skipped();
	check_retire();
	check_busiest();
	check_exec();
	check_stable();
	check_many_pids();
	return unit_result("test_procset");
}
