/*
 * threadtab.c - chained hash table of target threads (see threadtab.h).
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "sampler/threadtab.h"

#define NBUCKETS 1024 /* power of two; chains stay short below ~10k threads */

/* Chained, not util/hashtab: threads are removed one by one, hashtab has
 * no deletion, and the sampler holds pointers to the threads. */
struct threadtab {
	struct thread *bucket[NBUCKETS];
};

static void thread_free(struct thread *th)
{
	cpuacct_close(&th->cpu);
	if (th->syscall_fd >= 0)
		close(th->syscall_fd);
	free(th->last_pcs);
	for (int i = 0; i < STACK_RING; i++)
		free(th->user_stacks.pcs[i]);
	free(th);
}

struct threadtab *threadtab_new(void)
{
	return calloc(1, sizeof(struct threadtab));
}

void threadtab_free(struct threadtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < NBUCKETS; i++) {
		struct thread *th = t->bucket[i];

		while (th) {
			struct thread *next = th->next_;

			thread_free(th);
			th = next;
		}
	}
	free(t);
}

static struct thread **head(struct threadtab *t, pid_t tid)
{
	return &t->bucket[(unsigned)tid & (NBUCKETS - 1)];
}

struct thread *threadtab_get(struct threadtab *t, pid_t tid, bool create)
{
	struct thread **h = head(t, tid), *th;

	for (th = *h; th; th = th->next_)
		if (th->tid == tid)
			return th;
	if (!create)
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	th->state = TS_IDLE;
	cpuacct_init(&th->cpu);
	th->syscall_fd = -1;
	th->next_ = *h;
	*h = th;
	return th;
}

void threadtab_sweep(struct threadtab *t, threadtab_drop_fn drop, void *arg)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		struct thread **pp = &t->bucket[i];

		while (*pp) {
			struct thread *th = *pp;

			if (drop(th, arg)) {
				*pp = th->next_;
				thread_free(th);
			} else {
				pp = &th->next_;
			}
		}
	}
}

void threadtab_foreach(struct threadtab *t, threadtab_visit_fn fn, void *arg)
{
	for (size_t i = 0; i < NBUCKETS; i++)
		for (struct thread *th = t->bucket[i]; th; th = th->next_)
			fn(th, arg);
}
