/*
 * pprof_out.c - collect samples by thread and stack, then write them as a
 * gzipped pprof protobuf (see pprof_out.h).
 *
 * The builder keeps its samples in a stacktab: each chain is the PCs with
 * three more slots in front, the image's key (its index), the thread's
 * (name index and TID) and the time slot's (pprof_out.h), so that equal
 * stacks of different images, threads or slots stay apart.  Writing makes the
 * protobuf-c messages in an arena (struct pb, freed at once at the end),
 * packs them straight into a zlib deflate stream with a gzip header, and
 * that into the file.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "profile/outfile.h"
#include "profile/pprof_out.h"
#include "profile/profile.pb-c.h"
#include "profile/stacktab.h"
#include "python/pyframes.h"
#include "symbols/framename.h"
#include "symbols/perfmap.h"
#include "symbols/symbolize.h"
#include "util/grow.h"
#include "util/strpool.h"

/* A chain's head: the image's key, the thread's and the time slot's,
 * before the PCs. */
#define CHAIN_HEAD 3
_Static_assert(STACKTAB_MAX_DEPTH + CHAIN_HEAD <= STACKTAB_MAX_CHAIN,
	       "a stacktab keeps the deepest stack and its head");
/* The image index of a stack handed without one. */
#define NO_IMAGE UINT32_MAX

struct pprof_out {
	struct stacktab *tab;  /* [image, thread, pc0, pc1, ...] -> samples */
	struct strpool *names; /* thread names */
	unsigned max_depth;
	bool failed; /* an add ran out of memory */
	uint64_t chain[STACKTAB_MAX_DEPTH + CHAIN_HEAD];
};

struct pprof_out *pprof_out_new(unsigned max_depth)
{
	struct pprof_out *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (max_depth == 0 || max_depth > STACKTAB_MAX_DEPTH)
		max_depth = STACKTAB_DEFAULT_DEPTH;
	b->max_depth = max_depth;
	b->tab = stacktab_new(max_depth + CHAIN_HEAD);
	b->names = strpool_new();
	if (b->tab && b->names)
		return b;
	pprof_out_free(b);
	errno = ENOMEM;
	return NULL;
}

void pprof_out_free(struct pprof_out *b)
{
	if (!b)
		return;
	stacktab_free(b->tab);
	strpool_free(b->names);
	free(b);
}

void pprof_out_reset(struct pprof_out *b)
{
	/* A new pool: the names of threads gone since would pile up. */
	struct strpool *names = strpool_new();

	stacktab_clear(b->tab);
	b->failed = false;
	if (!names)
		return;
	strpool_free(b->names);
	b->names = names;
}

/* The key slots: never 0 (stacktab would cut the chain there). */
static uint64_t image_key(const struct sample_origin *from)
{
	return (uint64_t)(from->image ? from->image->index : NO_IMAGE) + 1;
}

static uint32_t key_image(const uint64_t *chain)
{
	return (uint32_t)(chain[0] - 1);
}

static uint64_t thread_key(int64_t name, pid_t tid)
{
	return ((uint64_t)(name + 1) << 32) | (uint32_t)tid;
}

static pid_t key_tid(const uint64_t *chain)
{
	return (pid_t)(uint32_t)chain[1];
}

static size_t key_name(const uint64_t *chain)
{
	return (size_t)(chain[1] >> 32) - 1;
}

/* The slot of a time: its number plus 1 (0 would cut the chain); 1 for
 * an unknown time (0) or one before the epoch. */
static uint64_t time_key(int64_t time_ns)
{
	return time_ns > 0 ? (uint64_t)time_ns / PPROF_OUT_SLOT_NS + 1 : 1;
}

/* The "time" label of a chain: its slot's start, 0 for none. */
static int64_t key_time(const uint64_t *chain)
{
	return (int64_t)((chain[2] - 1) * PPROF_OUT_SLOT_NS);
}

void pprof_out_add(void *arg, const struct sample_origin *from,
		   const uint64_t *pcs, size_t n, uint64_t count)
{
	struct pprof_out *b = arg;
	int64_t ni = strpool_intern(b->names, from->name ? from->name : "");
	size_t k;

	if (ni < 0) {
		b->failed = true;
		return;
	}
	for (k = 0; k < n && k < b->max_depth && pcs[k]; k++)
		b->chain[k + CHAIN_HEAD] = pcs[k];
	if (!k)
		return;
	b->chain[0] = image_key(from);
	b->chain[1] = thread_key(ni, from->tid);
	b->chain[2] = time_key(from->time_ns);
	if (stacktab_add(b->tab, b->chain, k + CHAIN_HEAD, count))
		b->failed = true;
}

size_t pprof_out_samples(const struct pprof_out *b)
{
	return stacktab_distinct(b->tab);
}

/* ---- the messages, in an arena ---- */

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/* An image's mappings: pb->ents[first .. first + n). */
struct img_maps {
	size_t first, n;
	bool used; /* it has samples */
};

/* A location: an address in one image. */
struct loc_key {
	uint32_t image;
	uint64_t addr;
};

struct pb {
	const struct pprof_out *b;
	const struct procset *ps;
	const struct pprof_meta *meta;
	PbProfile prof;
	struct strpool *strs;	   /* the string table */
	struct strpool *funcs;	   /* "module\nfunction" -> function id */
	struct symcache *symcache; /* the images' files, loaded once */
	void **blocks;		   /* the arena: every allocation below */
	size_t nblocks, capblocks;
	bool oom;
	/* the mappings, and their map entries, in the same order */
	const struct map_entry **ents;
	struct img_maps *imgs; /* per image of ps */
	size_t nimgs;
	/* distinct locations, sorted: location i has id i+1 */
	struct loc_key *locs;
	size_t nlocs;
	size_t capfuncs;
	/* the perf map of the image being named (framename.h) */
	struct framename_jit jit;
	uint32_t jit_img;
	PbValueType types[2], period_type;
	PbValueType *type_ptrs[2];
	int64_t comment;
	int64_t k_thread_id, k_thread_name, k_process_id, k_process_name;
	int64_t k_time, k_nanoseconds;
};

static void *pb_alloc(struct pb *pb, size_t n, size_t size)
{
	void *p, **nb;

	if (pb->oom)
		return NULL;
	nb = grow_array(pb->blocks, &pb->capblocks, pb->nblocks + 1,
			sizeof(*nb));
	if (!nb)
		goto oom;
	pb->blocks = nb;
	p = calloc(n ? n : 1, size);
	if (!p)
		goto oom;
	pb->blocks[pb->nblocks++] = p;
	return p;
oom:
	pb->oom = true;
	return NULL;
}

static int64_t pb_str(struct pb *pb, const char *s)
{
	int64_t i = pb->oom ? -1 : strpool_intern(pb->strs, s);

	if (i < 0) {
		pb->oom = true;
		return 0;
	}
	return i;
}

static void pb_free(struct pb *pb)
{
	for (size_t i = 0; i < pb->nblocks; i++)
		free(pb->blocks[i]);
	free(pb->blocks);
	free(pb->locs);
	free(pb->imgs);
	strpool_free(pb->strs);
	strpool_free(pb->funcs);
	symcache_free(pb->symcache);
}

/* ---- mappings ---- */

/* pprof takes mapping[0] for the main executable: go tool pprof guesses
 * it so in a legacy profile (the first file that is not a shared
 * library), and so does this. */
static bool is_library(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return (n >= 3 && !strcmp(base + n - 3, ".so")) || strstr(base, ".so.");
}

/* The executable mappings of m into out (when not NULL); how many. */
static size_t collect_exec(const struct maps *m, const struct map_entry **out)
{
	const struct map_entry *e;
	size_t n = 0;

	/* gone ones too: a library dlclose'd during the run still names
	 * its samples */
	for (size_t i = 0; m && (e = maps_entry(m, i)); i++)
		if (e->exec) {
			if (out)
				out[n] = e;
			n++;
		}
	return n;
}

static void main_first(const struct map_entry **ents, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct map_entry *e = ents[i];

		if (!maps_entry_is_file(e) || e->path[0] != '/' ||
		    is_library(e->path))
			continue;
		memmove(ents + 1, ents, i * sizeof(*ents));
		ents[0] = e;
		return;
	}
}

/* The image of a stack, or NULL (none given, or not in the set). */
static const struct proc_image *image_of(const struct pb *pb, uint32_t i)
{
	return i < pb->nimgs ? procset_at(pb->ps, i) : NULL;
}

static int mark_used(const uint64_t *chain, size_t n, uint64_t count, void *arg)
{
	struct pb *pb = arg;
	uint32_t i = key_image(chain);

	(void)n;
	(void)count;
	if (i < pb->nimgs)
		pb->imgs[i].used = true;
	return 0;
}

/* Each image with samples: its executable mappings, main one first. */
static size_t collect_images(struct pb *pb, bool fill)
{
	size_t n = 0;

	for (size_t i = 0; i < pb->nimgs; i++) {
		const struct maps *m = procset_at(pb->ps, i)->maps;

		if (!pb->imgs[i].used)
			continue;
		pb->imgs[i].first = n;
		pb->imgs[i].n = collect_exec(m, fill ? pb->ents + n : NULL);
		if (fill)
			main_first(pb->ents + n, pb->imgs[i].n);
		n += pb->imgs[i].n;
	}
	return n;
}

/* pprof takes mapping[0] for the main executable; with several images,
 * each image's own mappings come together, its main executable first. */
static int add_mappings(struct pb *pb)
{
	size_t n, i;
	PbMapping *m, **mp;

	pb->nimgs = procset_count(pb->ps);
	pb->imgs = calloc(pb->nimgs ? pb->nimgs : 1, sizeof(*pb->imgs));
	if (!pb->imgs)
		return -1;
	stacktab_foreach(pb->b->tab, mark_used, pb);
	n = collect_images(pb, false);
	m = pb_alloc(pb, n, sizeof(*m));
	mp = pb_alloc(pb, n, sizeof(*mp));
	pb->ents = pb_alloc(pb, n, sizeof(*pb->ents));
	if (!m || !mp || !pb->ents)
		return -1;
	collect_images(pb, true);
	for (i = 0; i < n; i++) {
		const struct map_entry *e = pb->ents[i];

		perftools__profiles__mapping__init(&m[i]);
		m[i].id = i + 1;
		m[i].memory_start = e->start;
		m[i].memory_limit = e->end;
		m[i].file_offset = e->offset;
		m[i].filename = pb_str(pb, e->path);
		/* read from the very file mapped (maps_read_build_ids()) */
		m[i].build_id = pb_str(pb, e->build_id ? e->build_id : "");
		mp[i] = &m[i];
	}
	pb->prof.n_mapping = n;
	pb->prof.mapping = mp;
	return pb->oom ? -1 : 0;
}

/* The mapping of image img holding addr (index into prof.mapping), or
 * -1: only that image's, since another may map other files there. */
static ssize_t mapping_of(const struct pb *pb, uint32_t img, uint64_t addr)
{
	const struct img_maps *im;

	if (img >= pb->nimgs)
		return -1;
	im = &pb->imgs[img];
	for (size_t i = im->first; i < im->first + im->n; i++)
		if (addr >= pb->ents[i]->start && addr < pb->ents[i]->end)
			return (ssize_t)i;
	return -1;
}

/* ---- locations and functions ---- */

/* Location addresses: the leaf as sampled, callers at their return
 * address minus 1 (inside the call instruction). */
static uint64_t loc_addr(const uint64_t *chain, size_t i)
{
	return framename_addr(chain[i], i > CHAIN_HEAD);
}

static int count_addrs(const uint64_t *chain, size_t n, uint64_t count,
		       void *arg)
{
	(void)chain;
	(void)count;
	*(size_t *)arg += n - CHAIN_HEAD;
	return 0;
}

static int push_addrs(const uint64_t *chain, size_t n, uint64_t count,
		      void *arg)
{
	struct pb *pb = arg;

	(void)count;
	for (size_t i = CHAIN_HEAD; i < n; i++)
		pb->locs[pb->nlocs++] = (struct loc_key){ key_image(chain),
							  loc_addr(chain, i) };
	return 0;
}

static int cmp_loc(const void *a, const void *b)
{
	const struct loc_key *x = a, *y = b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The distinct (image, address) pairs of the stacks, sorted. */
static int collect_locs(struct pb *pb)
{
	size_t i, k = 0, n = 0;

	stacktab_foreach(pb->b->tab, count_addrs, &n);
	pb->locs = malloc((n ? n : 1) * sizeof(*pb->locs));
	if (!pb->locs)
		return -1;
	stacktab_foreach(pb->b->tab, push_addrs, pb);
	qsort(pb->locs, pb->nlocs, sizeof(*pb->locs), cmp_loc);
	for (i = 0; i < pb->nlocs; i++)
		if (!k || cmp_loc(&pb->locs[i], &pb->locs[k - 1]))
			pb->locs[k++] = pb->locs[i];
	pb->nlocs = k;
	return 0;
}

static uint64_t location_id(const struct pb *pb, uint32_t img, uint64_t addr)
{
	struct loc_key key = { img, addr };
	const struct loc_key *p = bsearch(&key, pb->locs, pb->nlocs,
					  sizeof(*pb->locs), cmp_loc);

	return p ? (uint64_t)(p - pb->locs) + 1 : 0;
}

/* Room for one more Function pointer (the array lives in the arena). */
static int grow_functions(struct pb *pb)
{
	size_t cap = pb->capfuncs ? pb->capfuncs * 2 : 256;
	PbFunction **fp = pb_alloc(pb, cap, sizeof(*fp));

	if (!fp)
		return -1;
	if (pb->prof.n_function)
		memcpy(fp, pb->prof.function,
		       pb->prof.n_function * sizeof(*fp));
	pb->prof.function = fp;
	pb->capfuncs = cap;
	return 0;
}

/* The function id of key, as asprintf() made it (n < 0: it failed, key
 * is not set), interned into pb->funcs and freed; *fresh when it is new.
 * -1 with pb->oom set on ENOMEM. */
static int64_t intern_function(struct pb *pb, int n, char *key, bool *fresh)
{
	size_t before = strpool_count(pb->funcs);
	int64_t id = n < 0 ? -1 : strpool_intern(pb->funcs, key);

	if (n >= 0)
		free(key);
	if (id < 0)
		pb->oom = true;
	*fresh = id >= 0 && strpool_count(pb->funcs) != before;
	return id;
}

/* A new Function of that id in the table, for the caller to fill; NULL
 * on ENOMEM. */
static PbFunction *add_function(struct pb *pb, int64_t id)
{
	PbFunction *f;

	if (pb->prof.n_function == pb->capfuncs && grow_functions(pb))
		return NULL;
	f = pb_alloc(pb, 1, sizeof(*f));
	if (!f)
		return NULL;
	perftools__profiles__function__init(f);
	f->id = (uint64_t)id;
	pb->prof.function[pb->prof.n_function++] = f;
	return f;
}

/* The function id of (module, name): a new Function the first time,
 * named as people read it (JIT code's too) and as the file has it. */
static uint64_t function_id(struct pb *pb, struct framename *fn,
			    const char *file)
{
	const struct symbol_info *si = &fn->si;
	char *key;
	int n = asprintf(&key, "%s\n%s", si->module ? si->module : "",
			 si->func);
	bool fresh;
	int64_t id = intern_function(pb, n, key, &fresh);
	PbFunction *f;

	if (!fresh)
		return id < 0 ? 0 : (uint64_t)id;
	f = add_function(pb, id);
	if (!f)
		return 0;
	f->name = pb_str(pb, framename_func(fn));
	f->system_name = pb_str(pb, si->func);
	f->filename = pb_str(pb, file ? file : "");
	return (uint64_t)id;
}

/* JIT code: the image's perf map (framename_jit's load), asked for at
 * its first address in no file and asked once more (reread) at the first
 * it does not name, since the runtime appends to it as it compiles. */
static const struct perfmap *jit_load(void *arg, bool reread)
{
	struct pb *pb = arg;

	return pb->meta->jit_of(pb->meta->jit_arg, image_of(pb, pb->jit_img),
				reread);
}

/* The function id of Python frame f: one Function per (file, first
 * line, qualified name), keyed apart from every native "module\nname". */
static uint64_t py_function_id(struct pb *pb, const struct pyframe *f)
{
	char *key;
	int n = asprintf(&key, PYFRAMES_MODULE "\n%s\n%u\n%s", f->filename,
			 f->firstline, f->qualname);
	bool fresh;
	int64_t id = intern_function(pb, n, key, &fresh);
	PbFunction *fn;

	if (!fresh)
		return id < 0 ? 0 : (uint64_t)id;
	fn = add_function(pb, id);
	if (!fn)
		return 0;
	fn->name = pb_str(pb, f->qualname);
	fn->system_name = fn->name;
	fn->filename = pb_str(pb, f->filename);
	fn->start_line = f->firstline;
	return (uint64_t)id;
}

/* A Python frame's location (pyframes.h): its Function and its line; no
 * mapping, since no mapping holds it. */
static bool py_location(struct pb *pb, PbLocation *loc)
{
	struct pyframe f;
	PbLine *ln, **lp;

	if (!pb->meta->py || pyframes_lookup(pb->meta->py, loc->address, &f))
		return false;
	ln = pb_alloc(pb, 1, sizeof(*ln));
	lp = pb_alloc(pb, 1, sizeof(*lp));
	if (!ln || !lp)
		return true;
	perftools__profiles__line__init(ln);
	ln->function_id = py_function_id(pb, &f);
	ln->line = f.line;
	lp[0] = ln;
	loc->n_line = 1;
	loc->line = lp;
	return true;
}

/* Name the location at addr, if the symbolizer (or the perf map) can;
 * mark its mapping. */
static void symbolize_location(struct pb *pb, struct symbolizer *sym,
			       PbLocation *loc, ssize_t mi)
{
	struct framename f;
	const char *file = NULL;
	unsigned line = 0;
	bool jit;
	PbLine *ln, **lp;

	if (mi < 0 && py_location(pb, loc))
		return;
	framename_lookup(&f, sym, loc->address);
	jit = framename_jit(&f, &pb->jit, loc->address);
	if (!f.si.func)
		return;
	if (jit || symbolizer_lookup_line(sym, loc->address, &file, &line))
		file = NULL;
	ln = pb_alloc(pb, 1, sizeof(*ln));
	lp = pb_alloc(pb, 1, sizeof(*lp));
	if (!ln || !lp)
		return;
	perftools__profiles__line__init(ln);
	ln->function_id = function_id(pb, &f, file);
	framename_done(&f);
	ln->line = file ? line : 0;
	lp[0] = ln;
	loc->n_line = 1;
	loc->line = lp;
	if (mi < 0)
		return;
	pb->prof.mapping[mi]->has_functions = true;
	if (jit && !maps_entry_is_file(pb->ents[mi]))
		pb->prof.mapping[mi]->filename = pb_str(pb, PPROF_JIT_MODULE);
	if (file) {
		pb->prof.mapping[mi]->has_filenames = true;
		pb->prof.mapping[mi]->has_line_numbers = true;
	}
}

/* A symbolizer over image img's files: opened under the root
 * meta->root_of gives (through the live process's map_files too), else
 * under "/".  An image not in the set has no maps: nothing is named. */
static struct symbolizer *image_symbolizer(const struct pb *pb, uint32_t img,
					   struct symcache *cache)
{
	const struct proc_image *im = image_of(pb, img);
	const char *root = NULL;
	char buf[PATH_MAX];

	if (im && pb->meta->root_of)
		root = pb->meta->root_of(pb->meta->root_arg, im, buf,
					 sizeof(buf));
	/* No root: the process is gone (or is another image now), and its
	 * PID may be another process's by now, whose map_files must not be
	 * read. */
	if (!im || !im->maps)
		return symbolizer_new(NULL, 0, NULL, 0);
	return symbolizer_new_cached(im->maps, root, root ? im->pid : 0, cache);
}

/* The images' files are loaded once for all of them (symcache). */
static int add_locations(struct pb *pb)
{
	PbLocation *loc, **lp;
	struct symbolizer *sym = NULL;

	pb->funcs = strpool_new();
	pb->symcache = symcache_new();
	if (!pb->funcs || !pb->symcache || collect_locs(pb))
		return -1;
	loc = pb_alloc(pb, pb->nlocs, sizeof(*loc));
	lp = pb_alloc(pb, pb->nlocs, sizeof(*lp));
	if (!loc || !lp)
		return -1;
	for (size_t i = 0; i < pb->nlocs; i++) {
		uint32_t img = pb->locs[i].image;
		ssize_t mi = mapping_of(pb, img, pb->locs[i].addr);

		if (!i || img != pb->locs[i - 1].image) {
			symbolizer_free(sym);
			sym = image_symbolizer(pb, img, pb->symcache);
			if (!sym)
				return -1;
			pb->jit = (struct framename_jit){
				.load = pb->meta->jit_of && image_of(pb, img) ?
						jit_load :
						NULL,
				.arg = pb
			};
			pb->jit_img = img;
		}
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].address = pb->locs[i].addr;
		loc[i].mapping_id = mi < 0 ? 0 : (uint64_t)mi + 1;
		symbolize_location(pb, sym, &loc[i], mi);
		lp[i] = &loc[i];
	}
	symbolizer_free(sym);
	pb->prof.n_location = pb->nlocs;
	pb->prof.location = lp;
	return pb->oom ? -1 : 0;
}

/* ---- samples ---- */

/* Room for the labels of one sample. */
#define SAMPLE_LABELS 5

static void add_label(struct pb *pb, PbSample *s, PbLabel *l, int64_t key,
		      int64_t num, const char *str)
{
	perftools__profiles__label__init(l);
	l->key = key;
	if (str)
		l->str = pb_str(pb, str);
	else
		l->num = num;
	s->label[s->n_label++] = l;
}

/* thread_id, thread_name (when it has one), and the process's
 * process_id and process_name (when the stack came with its image). */
static void add_labels(struct pb *pb, PbSample *s, PbLabel *l,
		       const uint64_t *chain)
{
	const char *name = strpool_get(pb->b->names, key_name(chain));
	const struct proc_image *im = image_of(pb, key_image(chain));

	add_label(pb, s, &l[0], pb->k_thread_id, key_tid(chain), NULL);
	if (key_time(chain)) {
		add_label(pb, s, &l[4], pb->k_time, key_time(chain), NULL);
		l[4].num_unit = pb->k_nanoseconds;
	}
	if (name && name[0])
		add_label(pb, s, &l[1], pb->k_thread_name, 0, name);
	if (!im)
		return;
	add_label(pb, s, &l[2], pb->k_process_id, im->pid, NULL);
	if (im->comm[0])
		add_label(pb, s, &l[3], pb->k_process_name, 0, im->comm);
}

static int add_sample(const uint64_t *chain, size_t n, uint64_t count,
		      void *arg)
{
	struct pb *pb = arg;
	size_t nloc = n - CHAIN_HEAD;
	PbSample *s = pb_alloc(pb, 1, sizeof(*s));
	uint64_t *ids = pb_alloc(pb, nloc, sizeof(*ids));
	int64_t *v = pb_alloc(pb, 2, sizeof(*v));
	PbLabel *l = pb_alloc(pb, SAMPLE_LABELS, sizeof(*l));
	PbLabel **lp = pb_alloc(pb, SAMPLE_LABELS, sizeof(*lp));

	if (!s || !ids || !v || !l || !lp)
		return -1;
	perftools__profiles__sample__init(s);
	for (size_t i = 0; i < nloc; i++)
		ids[i] = location_id(pb, key_image(chain),
				     loc_addr(chain, i + CHAIN_HEAD));
	s->n_location_id = nloc;
	s->location_id = ids;
	v[0] = (int64_t)count;
	v[1] = (int64_t)(count * pb->meta->period_ns);
	s->n_value = 2;
	s->value = v;
	s->label = lp;
	add_labels(pb, s, l, chain);
	pb->prof.sample[pb->prof.n_sample++] = s;
	return pb->oom ? -1 : 0;
}

static int add_samples(struct pb *pb)
{
	pb->prof.sample = pb_alloc(pb, stacktab_distinct(pb->b->tab),
				   sizeof(*pb->prof.sample));
	pb->k_thread_id = pb_str(pb, "thread_id");
	pb->k_thread_name = pb_str(pb, "thread_name");
	pb->k_process_id = pb_str(pb, "process_id");
	pb->k_process_name = pb_str(pb, "process_name");
	pb->k_time = pb_str(pb, "time");
	pb->k_nanoseconds = pb_str(pb, "nanoseconds");
	if (!pb->prof.sample || pb->oom)
		return -1;
	return stacktab_foreach(pb->b->tab, add_sample, pb) ? -1 : 0;
}

static void add_header(struct pb *pb)
{
	const char *kind = pb->meta->wall ? "wall" : "cpu";

	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&pb->types[i]);
		pb->type_ptrs[i] = &pb->types[i];
	}
	pb->types[0].type = pb_str(pb, "samples");
	pb->types[0].unit = pb_str(pb, "count");
	pb->types[1].type = pb_str(pb, kind);
	pb->types[1].unit = pb_str(pb, "nanoseconds");
	perftools__profiles__value_type__init(&pb->period_type);
	pb->period_type.type = pb->types[1].type;
	pb->period_type.unit = pb->types[1].unit;
	pb->prof.n_sample_type = 2;
	pb->prof.sample_type = pb->type_ptrs;
	pb->prof.period_type = &pb->period_type;
	pb->prof.period = (int64_t)pb->meta->period_ns;
	pb->prof.time_nanos = pb->meta->time_nanos;
	pb->prof.duration_nanos = pb->meta->duration_nanos;
	pb->comment = pb_str(pb, "ptprof " PACKAGE_VERSION);
	pb->prof.n_comment = 1;
	pb->prof.comment = &pb->comment;
}

/* ---- gzip ---- */

/* A ProtobufCBuffer that deflates what is appended into a stream. */
struct gz_sink {
	ProtobufCBuffer base;
	z_stream z;
	FILE *f;
	int err; /* errno of the first failure, or 0 */
};

static void gz_push(struct gz_sink *g, const uint8_t *data, size_t len,
		    int flush)
{
	unsigned char out[65536];
	int rc;

	g->z.next_in = (unsigned char *)(uintptr_t)data;
	g->z.avail_in = (uInt)len;
	do {
		g->z.next_out = out;
		g->z.avail_out = sizeof(out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			g->err = EIO;
			return;
		}
		len = sizeof(out) - g->z.avail_out;
		if (len && fwrite(out, 1, len, g->f) != len) {
			g->err = errno ? errno : EIO;
			return;
		}
	} while (g->z.avail_out == 0 ||
		 (flush == Z_FINISH && rc != Z_STREAM_END));
}

static void gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct gz_sink *g = (struct gz_sink *)buf;

	/* avail_in is 32 bits: feed a huge append in pieces. */
	while (!g->err && len) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;

		gz_push(g, data, n, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

static int write_gzipped(FILE *f, const PbProfile *prof)
{
	struct gz_sink g = { .base = { .append = gz_append }, .f = f };

	/* windowBits 15 + 16: a gzip header and trailer, as pprof expects. */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	errno = 0;
	perftools__profiles__profile__pack_to_buffer(prof, &g.base);
	if (!g.err)
		gz_push(&g, NULL, 0, Z_FINISH);
	deflateEnd(&g.z);
	if (g.err) {
		errno = g.err;
		return -1;
	}
	return 0;
}

int pprof_out_write(FILE *f, const struct pprof_out *b,
		    const struct procset *ps, const struct pprof_meta *meta)
{
	struct pb pb = { .b = b, .ps = ps, .meta = meta };
	int rc = -1, saved;

	if (b->failed) {
		errno = ENOMEM;
		return -1;
	}
	perftools__profiles__profile__init(&pb.prof);
	pb.strs = strpool_new();
	if (pb.strs) {
		add_header(&pb);
		if (!pb.oom && !add_mappings(&pb) && !add_locations(&pb) &&
		    !add_samples(&pb)) {
			pb.prof.n_string_table = strpool_count(pb.strs);
			pb.prof.string_table = strpool_strings(pb.strs);
			rc = write_gzipped(f, &pb.prof);
		}
	}
	saved = rc ? (errno ? errno : ENOMEM) : 0;
	if (rc && pb.oom)
		saved = ENOMEM;
	pb_free(&pb);
	errno = saved;
	return rc;
}

int pprof_out_write_file(const char *path, const struct pprof_out *b,
			 const struct procset *ps,
			 const struct pprof_meta *meta)
{
	struct outfile o;
	int saved;

	if (outfile_open(&o, path))
		return -1;
	if (pprof_out_write(o.f, b, ps, meta)) {
		saved = errno;
		outfile_abort(&o);
		errno = saved;
		return -1;
	}
	return outfile_commit(&o);
}
