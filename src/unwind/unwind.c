/*
 * unwind.c - libunwind over a captured stack (see unwind.h): the
 * unwinder's life cycle and the unwind loop.  Its files and what each
 * holds: unwind_int.h.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include <libunwind.h>

#include "proc/vmread.h"
#include "unwind/modcache.h"
#include "unwind/unwind.h"
#include "unwind/unwind_int.h"
#include "util/timeutil.h"

/*
 * libunwind 1.6 takes its cache lock with every signal blocked: two
 * rt_sigprocmask system calls per frame unwound, which measured as two
 * thirds of ptprof's unwinding CPU on deep stacks (tests/syscalls.test
 * prints the count).  The blocking protects a cache shared with signal
 * handlers that unwind; ptprof runs no signal handler at all (its signals
 * are read from a signalfd, its other thread blocks them all), so during
 * an unwind the calls are needless.  ptprof therefore provides
 * sigprocmask() itself: libunwind's calls bind to it (the executable's
 * definition comes first), and while `in_unwind` is set it does nothing;
 * otherwise it is pthread_sigmask(), which is what glibc's is.
 */
static bool in_unwind;

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int rc;

	if (in_unwind) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	rc = pthread_sigmask(how, set, old);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* libunwind's register-state cache: 2^14 entries (its maximum is 2^15). */
#define RS_CACHE_SIZE (1u << 14)

/* A partial capture's registers but rip and rsp. */
#define PARTIAL_UNKNOWN                         \
	(((REG_BIT(UNW_X86_64_RIP) << 1) - 1) & \
	 ~(REG_BIT(UNW_X86_64_RIP) | REG_BIT(UNW_X86_64_RSP)))

/*
 * libunwind's address spaces, lent to the unwinders from one pool.
 *
 * An address space holds libunwind's register-state cache: with
 * RS_CACHE_SIZE entries, 343 KB (1,000 of them measured 343 MB of RSS).
 * libunwind 1.6's unw_destroy_addr_space() frees the address space but
 * not that cache (320 of the 343 KB stay), so one address space per
 * process, made when the process was found and destroyed when it ended,
 * made ptprof's memory grow with every process the tree ever had: 4.0 GB
 * after 60,000 short children (issue 27).  So no address space is ever
 * destroyed, and there are at most AS_POOL_MAX: an unwinder takes one at
 * its first unwind (a process that never runs at a tick costs none),
 * keeps it while no other needs it (its cache stays warm), and when all
 * are lent the one used least recently is taken back.  An address space
 * is flushed before it is lent to another unwinder: libunwind's cache is
 * keyed by the PC alone, and holds the addresses of DWARF expressions
 * that its last owner's pins serve (unwind_int.h), neither of which may
 * outlive the lending.  Single-threaded, as the unwinders are.
 */
#define AS_POOL_MAX 64

static struct as_slot {
	unw_addr_space_t as;
	struct unwinder *owner; /* NULL: free */
	uint64_t used;		/* as_clock when last lent: least recent */
	int cache_size_set;	/* unw_set_cache_size()'s answer */
} as_pool[AS_POOL_MAX];
static int as_pool_n;
static uint64_t as_clock;

/* A new address space into slot i (as_pool_n more); -1 if none. */
static int as_make(int i)
{
	struct as_slot *a = &as_pool[i];

	a->as = unw_create_addr_space(&unwind_access_accessors, 0);
	if (!a->as)
		return -1;
	unw_set_caching_policy(a->as, UNW_CACHE_GLOBAL);
	/*
	 * libunwind 1.6 sizes the cache lazily: the first call records the
	 * size, and it is applied when the cache is (re)initialised; a second
	 * call returns 0 once it really took.  Builds with per-thread caches
	 * refuse (-1); the default (2^7 entries) then stays.
	 */
	unw_set_cache_size(a->as, RS_CACHE_SIZE, 0);
	a->cache_size_set = unw_set_cache_size(a->as, RS_CACHE_SIZE, 0);
	as_pool_n++;
	return 0;
}

/*
 * u's address space for an unwind, in u->as: the one lent to it still,
 * else a free one, a new one, or the least recently used (flushed).
 * -1 (ENOMEM) if there is none at all.
 */
static int as_take(struct unwinder *u)
{
	int i = u->as_slot, pick = -1;

	if (i >= 0 && as_pool[i].owner == u)
		goto lent;
	for (i = 0; i < as_pool_n; i++)
		if (!as_pool[i].owner &&
		    (pick < 0 || as_pool[i].used < as_pool[pick].used))
			pick = i;
	if (pick < 0 && as_pool_n < AS_POOL_MAX && as_make(as_pool_n) == 0)
		pick = as_pool_n - 1;
	for (i = 0; pick < 0 && i < as_pool_n; i++)
		if (pick < 0 || as_pool[i].used < as_pool[pick].used)
			pick = i;
	if (pick < 0) {
		errno = ENOMEM;
		return -1;
	}
	i = pick;
	unw_flush_cache(as_pool[i].as, 0, 0);
	as_pool[i].owner = u;
	u->as_slot = i;
	u->count.cache_size_set = as_pool[i].cache_size_set;
lent:
	as_pool[i].used = ++as_clock;
	u->as = as_pool[i].as;
	return 0;
}

/* u gives back its address space, if it still has one. */
static void as_give_back(struct unwinder *u)
{
	if (u->as_slot >= 0 && as_pool[u->as_slot].owner == u)
		as_pool[u->as_slot].owner = NULL;
	u->as_slot = -1;
	u->as = NULL;
}

struct unwinder *unwinder_new(pid_t pid, const struct maps *maps)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->maps = maps;
	u->as_slot = -1;
	u->mods = modcache_new(pid);
	if (!u->mods) {
		unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	as_give_back(u);
	modcache_free(u->mods);
	free(u->cfi);
	free(u->refused);
	unwind_cfi_free_pins(u);
	free(u->pins);
	free(u->tabs);
	free(u);
}

void unwinder_flush(struct unwinder *u)
{
	/* An address space lent to it no more was flushed when lent again. */
	if (u->as_slot >= 0 && as_pool[u->as_slot].owner == u)
		unw_flush_cache(as_pool[u->as_slot].as, 0, 0);
	u->ntabs = 0;
	u->nrefused = 0;
	unwind_cfi_free_pins(u);
	/* A new image at a known path (exec of a rebuilt binary) must not be
	 * read from the old copy. */
	modcache_flush(u->mods);
}

void unwinder_set_hook(struct unwinder *u, unwinder_hook hook, void *arg)
{
	u->hook = hook;
	u->hook_arg = arg;
}

void unwinder_counters(const struct unwinder *u, struct unwinder_counters *c)
{
	*c = u->count;
}

bool unwinder_after_syscall(struct unwinder *u, const struct capture *cap)
{
	uint64_t at = cap->regs.rip - 2;
	const struct map_entry *e;
	const struct module *mod = NULL;
	uint8_t b[2];
	int rc = -1;

	if (cap->regs.rip < 2)
		return false;
	e = maps_find(u->maps, at);
	if (e && !e->write && at + sizeof(b) <= e->end)
		mod = modcache_get(u->mods, e, cap->tid);
	if (mod)
		rc = modcache_read(mod, e, at, b, sizeof(b));
	if (rc)
		rc = vmread_all(cap->tid, at, b, sizeof(b));
	return rc == 0 && b[0] == 0x0f && b[1] == 0x05;
}

/* One step from the current frame to its caller, whose PC goes to *ip:
 * > 0 if stepped. */
static int step(struct unwind_ctx *ctx, unw_cursor_t *c, unw_word_t *ip)
{
	int rc;

	if (ctx->fp_lazy) {
		rc = unwind_fp_step_lazy(ctx, c);
	} else {
		ctx->no_info = false;
		rc = unw_step(c);
		if (rc < 0 && ctx->no_info)
			rc = unwind_fp_step(ctx, c);
	}
	if (rc <= 0)
		return rc;
	if (ctx->fp_lazy) {
		*ip = ctx->fp_regs.rip;
		return 1;
	}
	return unw_get_reg(c, UNW_REG_IP, ip) < 0 ? -1 : 1;
}

int unwinder_unwind(struct unwinder *u, const struct capture *cap,
		    uint64_t *pcs, int max)
{
	struct unwind_ctx ctx = { .u = u,
				  .cap = cap,
				  .regs = &cap->regs,
				  .unknown = cap->partial ? PARTIAL_UNKNOWN :
							    0 };
	unw_cursor_t cursor;
	uint64_t t0, t_hooks = 0, now;
	int n = 0;

	if (max <= 0 || cap->regs.rip == 0)
		return 0;
	pcs[n++] = cap->regs.rip;
	if (as_take(u))
		return n; /* the leaf alone is still a sample */
	t0 = mono_now_ns();
	in_unwind = true;
	if (unw_init_remote(&cursor, u->as, &ctx) == 0) {
		unw_word_t ip;

		while (n < max && step(&ctx, &cursor, &ip) > 0) {
			uint64_t t1;
			bool stop;

			if (ip == 0)
				break;
			pcs[n++] = ip;
			/* Between steps libunwind holds no lock: the hook may
			 * do what it likes, sigprocmask() included. */
			now = mono_now_ns();
			if (now - t0 > UNWIND_BUDGET_NS) {
				u->count.budget_cuts++;
				break;
			}
			if (!u->hook)
				continue;
			in_unwind = false;
			stop = u->hook(u->hook_arg, now);
			in_unwind = true;
			t1 = mono_now_ns();
			t_hooks += t1 - now;
			if (stop)
				break;
		}
	}
	in_unwind = false;
	/* the unwind's own time, without the hook's */
	now = mono_now_ns() - t0 - t_hooks;
	u->count.unwinds++;
	u->count.unwind_ns += now;
	if (ctx.fp_steps) {
		u->count.unwinds_fp++;
		u->count.unwind_fp_ns += now;
	}
	if (ctx.needed_unknown) {
		u->count.partial_refused++;
		errno = ENODATA;
		return -1;
	}
	return n; /* the leaf alone is still a sample */
}
