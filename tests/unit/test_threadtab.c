/*
 * test_threadtab - the sampler's table of threads (sampler/threadtab.h):
 * a new entry is IDLE, zeroed but for its TID, its cpuacct and
 * syscall_fd -1; threadtab_get() finds it again (the same pointer) and
 * without create finds nothing absent; TIDs that share a bucket stay
 * apart; foreach visits each entry once; the sweep drops what drop()
 * says and keeps the rest, closing and freeing what the entries own
 * (checked by the descriptors it closes); free of NULL is harmless.
 */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sampler/threadtab.h"
#include "unit.h"

static void count(struct thread *th, void *arg)
{
	size_t *n = arg;

	(void)th;
	n[0]++;
	n[1] += (size_t)th->tid;
}

static bool drop_odd(const struct thread *th, void *arg)
{
	(void)arg;
	return th->tid % 2;
}

static bool drop_gone(const struct thread *th, void *arg)
{
	(void)arg;
	return th->state == TS_GONE;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

int main(void)
{
	struct threadtab *t = threadtab_new();
	struct thread *a, *b, *c;
	size_t n[2];
	int fd;

	CHECK(t != NULL);
	if (!t)
		return unit_result("test_threadtab");
	CHECK(threadtab_get(t, 42, false) == NULL);
	a = threadtab_get(t, 42, true);
	CHECK(a && a->tid == 42 && a->state == TS_IDLE);
	CHECK(a && a->syscall_fd == -1 && !a->sampled && !a->last_pcs &&
	      !a->tracer && !a->name[0] && !a->proc);
	CHECK(threadtab_get(t, 42, false) == a);
	CHECK(threadtab_get(t, 42, true) == a); /* not a second entry */
	/* 42, 42 + 1024 and 42 + 2048 share a bucket of the 1024 */
	b = threadtab_get(t, 42 + 1024, true);
	c = threadtab_get(t, 42 + 2048, true);
	CHECK(b && c && b != a && c != a && b != c);
	CHECK(threadtab_get(t, 42 + 1024, false) == b);
	CHECK(threadtab_get(t, 42, false) == a);
	CHECK(threadtab_get(t, 42 + 2048, false) == c);
	CHECK(threadtab_get(t, 42 + 3072, false) == NULL);
	for (pid_t tid = 1; tid <= 3000; tid++)
		if (!threadtab_get(t, tid, true))
			break;
	memset(n, 0, sizeof(n));
	threadtab_foreach(t, count, n);
	/* 1..3000 (42 among them) and 1066, 2090 among them too */
	CHECKF(n[0] == 3000 && n[1] == 3000u * 3001 / 2, "%zu entries", n[0]);

	/* what an entry owns goes with it */
	a = threadtab_get(t, 7, false);
	fd = open("/dev/null", O_RDONLY);
	CHECK(a && fd >= 0);
	if (a && fd >= 0) {
		a->syscall_fd = fd;
		a->last_pcs = calloc(4, sizeof(*a->last_pcs));
		a->last_n = 4;
		a->user_stacks.pcs[1] = calloc(2, sizeof(uint64_t));
	}
	threadtab_sweep(t, drop_odd, NULL);
	CHECK(fd < 0 || !fd_open(fd));
	CHECK(threadtab_get(t, 7, false) == NULL);
	CHECK(threadtab_get(t, 8, false) != NULL);
	memset(n, 0, sizeof(n));
	threadtab_foreach(t, count, n);
	CHECKF(n[0] == 1500 && n[1] == 1500u * 1501, "%zu entries", n[0]);

	/* a kept entry keeps its fields; a GONE one is dropped */
	a = threadtab_get(t, 8, false);
	b = threadtab_get(t, 10, false);
	if (a && b) {
		a->state = TS_LATE;
		a->pending_sig = 19;
		b->state = TS_GONE;
	}
	threadtab_sweep(t, drop_gone, NULL);
	CHECK(threadtab_get(t, 8, false) == a && a && a->pending_sig == 19);
	CHECK(threadtab_get(t, 10, false) == NULL);
	/* a TID dropped comes back new */
	b = threadtab_get(t, 10, true);
	CHECK(b && b->state == TS_IDLE && b->syscall_fd == -1);

	fd = open("/dev/null", O_RDONLY);
	if (b && fd >= 0)
		b->syscall_fd = fd;
	threadtab_free(t);
	CHECK(fd < 0 || !fd_open(fd)); /* the table closes it at free */
	threadtab_free(NULL);
	return unit_result("test_threadtab");
}
