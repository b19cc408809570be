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

struct unwinder *unwinder_new(pid_t pid, const struct maps *maps)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->maps = maps;
	u->mods = modcache_new(pid);
	u->as = unw_create_addr_space(&unwind_access_accessors, 0);
	if (!u->as || !u->mods) {
		unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	/*
	 * libunwind 1.6 sizes the cache lazily: the first call records the
	 * size, and it is applied when the cache is (re)initialised; a second
	 * call returns 0 once it really took.  Builds with per-thread caches
	 * refuse (-1); the default (2^7 entries) then stays.
	 */
	unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	u->count.cache_size_set = unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->as)
		unw_destroy_addr_space(u->as);
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
	unw_flush_cache(u->as, 0, 0);
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
