/*
 * livename.c - the names of a live run's PCs (see livename.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/livename.h"
#include "report/report.h"
#include "symbols/framename.h"
#include "symbols/perfmap.h"
#include "symbols/symbolize.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strpool.h"
#include "util/timeutil.h"

/* How often an image's symbolizer or perf map may be made again. */
#define REBUILD_NS NSEC_PER_SEC

struct entry {
	uint64_t addr;
	uint32_t image; /* the image's index */
	int32_t name;	/* in the pool */
	int32_t module; /* in the pool; -1: none */
	/* the functions inlined at addr, innermost first: their names'
	 * pool indexes at inl[inl_off..inl_off+ninl) */
	uint32_t inl_off, ninl;
};

struct img {
	struct symbolizer *sym;
	uint64_t sym_at;	  /* when built (monotonic ns) */
	struct perfmap *map;	  /* the perf map last read */
	struct framename_jit jit; /* when to read it (framename.h) */
};

struct livename {
	const struct procset *ps;
	const struct pyframes *py;
	struct symcache *cache;
	struct img *imgs;
	size_t nimgs;
	struct entry *ents; /* the addresses named, in the order named */
	size_t used, cap_ents;
	struct hashtab idx; /* (image, addr) hash -> index into ents */
	struct strpool *pool;
	int32_t *inl; /* struct entry's inlined names */
	size_t ninl, cap_inl;
	bool no_inline; /* livename_no_inline() */
	char bare[32];	/* the last address named by nothing yet */
};

struct livename *livename_new(const struct procset *ps,
			      const struct pyframes *py)
{
	struct livename *ln;

	if (!ps) {
		errno = EINVAL;
		return NULL;
	}
	ln = calloc(1, sizeof(*ln));
	if (!ln)
		return NULL;
	ln->ps = ps;
	ln->py = py;
	ln->cache = symcache_new();
	ln->pool = strpool_new();
	if (!ln->cache || !ln->pool) {
		livename_free(ln);
		errno = ENOMEM;
		return NULL;
	}
	return ln;
}

void livename_free(struct livename *ln)
{
	if (!ln)
		return;
	/* The symbolizers before the cache that owns their files. */
	for (size_t i = 0; i < ln->nimgs; i++) {
		symbolizer_free(ln->imgs[i].sym);
		perfmap_free(ln->imgs[i].map);
	}
	free(ln->imgs);
	symcache_free(ln->cache);
	free(ln->ents);
	free(ln->inl);
	hashtab_free(&ln->idx);
	strpool_free(ln->pool);
	free(ln);
}

void livename_no_inline(struct livename *ln)
{
	if (ln)
		ln->no_inline = true;
}

size_t livename_cached(const struct livename *ln)
{
	return ln ? ln->used : 0;
}

static uint64_t entry_hash(uint32_t image, uint64_t addr)
{
	return hash_mix64(addr ^ ((uint64_t)image * 0x9e3779b97f4a7c15ULL));
}

/* Room for one more entry: at the cap, emptied first (the names too: the
 * pool is made anew). */
static int reserve(struct livename *ln)
{
	struct entry *e;

	if (ln->used >= LIVENAME_MAX_ADDRS) {
		struct strpool *p = strpool_new();

		if (!p)
			return -1;
		strpool_free(ln->pool);
		ln->pool = p;
		hashtab_clear(&ln->idx);
		ln->used = 0;
		ln->ninl = 0;
	}
	if (hashtab_reserve(&ln->idx, ln->used + 1))
		return -1;
	e = grow_array(ln->ents, &ln->cap_ents, ln->used + 1, sizeof(*e));
	if (!e)
		return -1;
	ln->ents = e;
	return 0;
}

static struct img *img_of(struct livename *ln, const struct proc_image *im)
{
	size_t cap = ln->nimgs;
	struct img *nv;

	if (im->index < ln->nimgs)
		return &ln->imgs[im->index];
	nv = grow_array(ln->imgs, &cap, (size_t)im->index + 1, sizeof(*nv));
	if (!nv)
		return NULL;
	memset(nv + ln->nimgs, 0, (cap - ln->nimgs) * sizeof(*nv));
	ln->imgs = nv;
	ln->nimgs = cap;
	return &ln->imgs[im->index];
}

/* A symbolizer over the image's maps as they are now. */
static int build_sym(struct livename *ln, const struct proc_image *im,
		     struct img *g)
{
	char buf[64];
	const char *root = procset_image_root(ln->ps, im, buf, sizeof(buf));
	struct symbolizer *s;

	if (!im->maps)
		s = symbolizer_new(NULL, 0, NULL, 0);
	else
		s = symbolizer_new_cached(im->maps, root, root ? im->pid : 0,
					  ln->cache);
	if (!s)
		return -1;
	symbolizer_free(g->sym);
	g->sym = s;
	g->sym_at = mono_now_ns();
	return 0;
}

/* What jit_load() reads for. */
struct jit_ctx {
	const struct livename *ln;
	const struct proc_image *im;
	struct img *g;
};

/* JIT code: the process's perf map (framename_jit's load), read at the
 * first address in no file and again, once a second at most, when it
 * does not name one; while the process lives and is that image. */
static const struct perfmap *jit_load(void *arg, bool reread)
{
	struct jit_ctx *c = arg;
	char buf[64], err[256];
	struct perfmap *m;

	(void)reread;
	if (!procset_image_root(c->ln->ps, c->im, buf, sizeof(buf)))
		return c->g->map;
	m = perfmap_load_pid(c->im->pid, err, sizeof(err));
	if (!m)
		return c->g->map;
	perfmap_free(c->g->map);
	c->g->map = m;
	return m;
}

/* A Python (or kernel) frame's name, as report.h writes it. */
static int py_name(const struct livename *ln, uint64_t pc, char *buf,
		   size_t len)
{
	struct pyframe f;

	if (!ln->py || !pyframes_is_pc(pc) || pyframes_lookup(ln->py, pc, &f))
		return -1;
	if (strcmp(f.module, PYFRAMES_MODULE))
		report_name_kernel(buf, len, f.qualname);
	else
		report_name_py(buf, len, f.qualname, f.filename, f.firstline);
	return 0;
}

/* The functions inlined at addr (symbolize.h), innermost first, into
 * the pool and e's inl[] slice: 0, or -1 (ENOMEM). */
static int add_inline(struct livename *ln, struct symbolizer *sym,
		      uint64_t addr, struct entry *e)
{
	struct symbol_frame in[SYMBOLIZE_MAX_INLINE];
	size_t n = symbolizer_lookup_inline(sym, addr, in, SYMBOLIZE_MAX_INLINE,
					    NULL, NULL);
	int32_t *v;
	char buf[4096];

	e->inl_off = (uint32_t)ln->ninl;
	e->ninl = 0;
	if (!n)
		return 0;
	if (ln->ninl + n > UINT32_MAX)
		return -1;
	v = grow_array(ln->inl, &ln->cap_inl, ln->ninl + n, sizeof(*v));
	if (!v)
		return -1;
	ln->inl = v;
	for (size_t i = 0; i < n; i++) {
		int64_t k;

		framename_format_inline(&in[i], addr, false, buf, sizeof(buf));
		k = strpool_intern(ln->pool, buf);
		if (k < 0 || k > INT32_MAX)
			return -1;
		v[ln->ninl + i] = (int32_t)k;
	}
	ln->ninl += n;
	e->ninl = (uint32_t)n;
	return 0;
}

/* Name addr (adjusted already) of image im into buf, its module into
 * *module (NULL: none): 0, or 1 when nothing knows it yet (a bare
 * "0xADDRESS"), -1 on failure.  *module lives in the image's
 * symbolizer.  The functions inlined at addr into e's inl_off and ninl
 * (ninl 0 for a bare address). */
static int name_addr(struct livename *ln, const struct proc_image *im,
		     uint64_t addr, char *buf, size_t len, const char **module,
		     struct entry *e)
{
	struct img *g = img_of(ln, im);
	struct jit_ctx ctx = { ln, im, g };
	struct framename f;
	int bare;

	*module = NULL;
	if (!g || (!g->sym && build_sym(ln, im, g)))
		return -1;
	framename_lookup(&f, g->sym, addr);
	/* In no mapping the symbolizer knows: a library loaded since it was
	 * built, or JIT code. */
	if (!f.si.module && mono_now_ns() - g->sym_at >= REBUILD_NS &&
	    build_sym(ln, im, g) == 0)
		framename_lookup(&f, g->sym, addr);
	g->jit.load = jit_load;
	g->jit.arg = &ctx;
	g->jit.every_ns = REBUILD_NS;
	framename_jit(&f, &g->jit, addr);
	g->jit.arg = NULL;
	bare = framename_format(&f, addr, NULL, 0, buf, len);
	*module = framename_module(&f);
	if (!bare && !ln->no_inline && f.si.func && !framename_in_no_file(&f) &&
	    add_inline(ln, g->sym, addr, e)) {
		framename_done(&f);
		return -1;
	}
	framename_done(&f);
	return bare;
}

int livename_frames(struct livename *ln, const struct proc_image *im,
		    uint64_t pc, bool caller, const char **names,
		    const char **modules, size_t max)
{
	uint64_t addr = framename_addr(pc, caller);
	struct hashtab_probe p;
	struct entry *e = NULL, ne = { 0 };
	size_t i, nin, k = 0;
	char buf[4096];
	const char *mod = NULL, *m;
	int64_t n, mi = -1;

	if (!ln || !im || !names || !modules || !max) {
		errno = EINVAL;
		return -1;
	}
	if (reserve(ln))
		return -1;
	hashtab_probe_init(&ln->idx, entry_hash(im->index, addr), &p);
	while (hashtab_next(&ln->idx, &p, &i))
		if (ln->ents[i].image == im->index &&
		    ln->ents[i].addr == addr) {
			e = &ln->ents[i];
			break;
		}
	if (!e) {
		int r = py_name(ln, pc, buf, sizeof(buf)) ?
				name_addr(ln, im, addr, buf, sizeof(buf), &mod,
					  &ne) :
				0;

		if (r < 0)
			return -1;
		if (r > 0) { /* not cached: see livename.h */
			snprintf(ln->bare, sizeof(ln->bare), "%.*s",
				 (int)sizeof(ln->bare) - 1, buf);
			names[0] = ln->bare;
			modules[0] = NULL;
			return 1;
		}
		n = strpool_intern(ln->pool, buf);
		if (n >= 0 && mod)
			mi = strpool_intern(ln->pool, mod);
		if (n < 0 || (mod && mi < 0) || n > INT32_MAX || mi > INT32_MAX)
			return -1;
		e = &ln->ents[ln->used];
		*e = (struct entry){ .addr = addr,
				     .image = im->index,
				     .name = (int32_t)n,
				     .module = (int32_t)mi,
				     .inl_off = ne.inl_off,
				     .ninl = ne.ninl };
		hashtab_set(&ln->idx, &p, ln->used++); /* room reserved */
	}
	m = e->module < 0 ? NULL : strpool_get(ln->pool, (size_t)e->module);
	/* the innermost left out when max is short */
	nin = e->ninl < max - 1 ? e->ninl : max - 1;
	for (i = e->ninl - nin; i < e->ninl; i++, k++) {
		names[k] = strpool_get(ln->pool,
				       (size_t)ln->inl[e->inl_off + i]);
		modules[k] = m;
	}
	names[k] = strpool_get(ln->pool, (size_t)e->name);
	modules[k] = m;
	return (int)k + 1;
}

int livename_get(struct livename *ln, const struct proc_image *im, uint64_t pc,
		 bool caller, const char **name, const char **module)
{
	const char *names[LIVENAME_MAX_FRAMES], *modules[LIVENAME_MAX_FRAMES];
	int n;

	if (!name || !module) {
		errno = EINVAL;
		return -1;
	}
	n = livename_frames(ln, im, pc, caller, names, modules,
			    LIVENAME_MAX_FRAMES);
	if (n < 0)
		return -1;
	*name = names[n - 1];
	*module = modules[n - 1];
	return 0;
}
