/*
 * pprof_out_tab.c - the pprof writer's mapping, location and function
 * tables (see pprof_out.h, pprof_out_int.h): each image's executable
 * mappings, the distinct (image, address) locations of the stacks, and
 * their names (framename.h; Python frames from pyframes.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_out_int.h"
#include "python/pyframes.h"
#include "util/strpool.h"

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
int pprof_out_tab_mappings(struct pb *pb)
{
	size_t n, i;
	PbMapping *m, **mp;

	pb->nimgs = procset_count(pb->ps);
	pb->imgs = calloc(pb->nimgs ? pb->nimgs : 1, sizeof(*pb->imgs));
	if (!pb->imgs)
		return -1;
	stacktab_foreach(pb->b->tab, mark_used, pb);
	n = collect_images(pb, false);
	m = pprof_out_alloc(pb, n, sizeof(*m));
	mp = pprof_out_alloc(pb, n, sizeof(*mp));
	pb->ents = pprof_out_alloc(pb, n, sizeof(*pb->ents));
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
		m[i].filename = pprof_out_str(pb, e->path);
		/* read from the very file mapped (debugfile_maps_build_ids()) */
		m[i].build_id = pprof_out_str(pb,
					      e->build_id ? e->build_id : "");
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

uint64_t pprof_out_tab_location_id(const struct pb *pb, uint32_t img,
				   uint64_t addr)
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
	PbFunction **fp = pprof_out_alloc(pb, cap, sizeof(*fp));

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

/* The Function of key (as intern_function() takes it): its id into *id
 * (0 on ENOMEM), and the first time a new Function of that id in the
 * table, for the caller to fill; NULL when it is not new (or ENOMEM). */
static PbFunction *add_function(struct pb *pb, int n, char *key, uint64_t *id)
{
	bool fresh;
	int64_t i = intern_function(pb, n, key, &fresh);
	PbFunction *f;

	*id = i < 0 ? 0 : (uint64_t)i;
	if (!fresh)
		return NULL;
	if (pb->prof.n_function == pb->capfuncs && grow_functions(pb))
		goto oom;
	f = pprof_out_alloc(pb, 1, sizeof(*f));
	if (!f)
		goto oom;
	perftools__profiles__function__init(f);
	f->id = *id;
	pb->prof.function[pb->prof.n_function++] = f;
	return f;
oom:
	*id = 0;
	return NULL;
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
	uint64_t id;
	PbFunction *f = add_function(pb, n, key, &id);

	if (!f)
		return id;
	f->name = pprof_out_str(pb, framename_func(fn));
	f->system_name = pprof_out_str(pb, si->func);
	f->filename = pprof_out_str(pb, file ? file : "");
	return id;
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
 * line, qualified name), keyed apart from every native "module\nname".
 * A kernel frame (its module PYFRAMES_KERNEL_MODULE) has no file: its
 * Function's filename is the module, "[kernel]", which is how a reader
 * tells it from a Python one (FORMAT.md). */
static uint64_t py_function_id(struct pb *pb, const struct pyframe *f)
{
	char *key;
	int n = asprintf(&key, "%s\n%s\n%u\n%s", f->module, f->filename,
			 f->firstline, f->qualname);
	uint64_t id;
	PbFunction *fn = add_function(pb, n, key, &id);

	if (!fn)
		return id;
	fn->name = pprof_out_str(pb, f->qualname);
	fn->system_name = fn->name;
	fn->filename = pprof_out_str(pb, strcmp(f->module, PYFRAMES_MODULE) ?
						 f->module :
						 f->filename);
	fn->start_line = f->firstline;
	return id;
}

/* A Python frame's location (pyframes.h): its Function and its line; no
 * mapping, since no mapping holds it. */
static bool py_location(struct pb *pb, PbLocation *loc)
{
	struct pyframe f;
	PbLine *ln, **lp;

	if (!pb->meta->py || pyframes_lookup(pb->meta->py, loc->address, &f))
		return false;
	ln = pprof_out_alloc(pb, 1, sizeof(*ln));
	lp = pprof_out_alloc(pb, 1, sizeof(*lp));
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

/* The Lines of a location named f, with nin inlined frames fr (each
 * its own Function, keyed by f's module and its name): fr's innermost
 * first, as pprof orders them, then f's function at file:line; their
 * count into *nlines.  NULL when memory runs out. */
static PbLine **location_lines(struct pb *pb, struct framename *f,
			       const struct symbol_frame *fr, size_t nin,
			       const char *file, unsigned line, size_t *nlines)
{
	PbLine *ln = pprof_out_alloc(pb, nin + 1, sizeof(*ln));
	PbLine **lp = pprof_out_alloc(pb, nin + 1, sizeof(*lp));
	size_t n = 0;

	if (!ln || !lp)
		return NULL;
	for (size_t i = 0; i < nin; i++) {
		struct framename in = { .si = { .module = f->si.module } };

		if (!fr[i].func) /* DWARF without a name: no Function */
			continue;
		in.si.func = fr[i].func;
		perftools__profiles__line__init(&ln[n]);
		ln[n].function_id = function_id(pb, &in, fr[i].file);
		framename_done(&in);
		ln[n].line = fr[i].line;
		lp[n] = &ln[n];
		n++;
	}
	perftools__profiles__line__init(&ln[n]);
	ln[n].function_id = function_id(pb, f, file);
	ln[n].line = file ? line : 0;
	lp[n] = &ln[n];
	*nlines = n + 1;
	return lp;
}

/* Name the location at addr, if the symbolizer (or the perf map) can,
 * with its inlined frames unless meta->no_inline; mark its mapping. */
static void symbolize_location(struct pb *pb, struct symbolizer *sym,
			       PbLocation *loc, ssize_t mi)
{
	struct symbol_frame fr[SYMBOLIZE_MAX_INLINE];
	struct framename f;
	const char *file = NULL;
	unsigned line = 0;
	size_t nin = 0;
	bool jit;
	PbLine **lp;

	if (mi < 0 && py_location(pb, loc))
		return;
	framename_lookup(&f, sym, loc->address);
	jit = framename_jit(&f, &pb->jit, loc->address);
	if (!f.si.func)
		return;
	if (!jit && !pb->meta->no_inline)
		nin = symbolizer_lookup_inline(sym, loc->address, fr,
					       SYMBOLIZE_MAX_INLINE, &file,
					       &line);
	if (!nin &&
	    (jit || symbolizer_lookup_line(sym, loc->address, &file, &line)))
		file = NULL;
	lp = location_lines(pb, &f, fr, nin, file, line, &loc->n_line);
	framename_done(&f);
	if (!lp)
		return;
	loc->line = lp;
	if (mi < 0)
		return;
	pb->prof.mapping[mi]->has_functions = true;
	if (nin)
		pb->prof.mapping[mi]->has_inline_frames = true;
	if (jit && !maps_entry_is_file(pb->ents[mi]))
		pb->prof.mapping[mi]->filename =
			pprof_out_str(pb, PPROF_JIT_MODULE);
	if (file || nin) {
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
int pprof_out_tab_locations(struct pb *pb)
{
	PbLocation *loc, **lp;
	struct symbolizer *sym = NULL;

	pb->funcs = strpool_new();
	pb->symcache = symcache_new();
	if (!pb->funcs || !pb->symcache || collect_locs(pb))
		return -1;
	loc = pprof_out_alloc(pb, pb->nlocs, sizeof(*loc));
	lp = pprof_out_alloc(pb, pb->nlocs, sizeof(*lp));
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
