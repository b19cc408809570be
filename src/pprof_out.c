/*
 * pprof_out.c - collect samples by thread and stack, then write them as a
 * gzipped pprof protobuf (see pprof_out.h).
 *
 * The builder keeps its samples in a stacktab: each chain is the PCs with
 * one more slot in front, the thread's key (name index and TID), so that
 * equal stacks of different threads stay apart.  Writing makes the
 * protobuf-c messages in an arena (struct pb, freed at once at the end),
 * packs them straight into a zlib deflate stream with a gzip header, and
 * that into the file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "demangle.h"
#include "grow.h"
#include "outfile.h"
#include "pprof_out.h"
#include "profile.pb-c.h"
#include "stacktab.h"
#include "strpool.h"
#include "symbolize.h"

struct pprof_out {
	struct stacktab *tab;  /* [key, pc0, pc1, ...] -> samples */
	struct strpool *names; /* thread names */
	unsigned max_depth;
	bool failed; /* an add ran out of memory */
	uint64_t chain[STACKTAB_MAX_DEPTH + 1];
};

struct pprof_out *pprof_out_new(unsigned max_depth)
{
	struct pprof_out *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (max_depth == 0 || max_depth > STACKTAB_MAX_DEPTH)
		max_depth = STACKTAB_DEFAULT_DEPTH;
	b->max_depth = max_depth;
	b->tab = stacktab_new(max_depth + 1);
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

/* The key slot: never 0 (stacktab would cut the chain there). */
static uint64_t thread_key(int64_t name, pid_t tid)
{
	return ((uint64_t)(name + 1) << 32) | (uint32_t)tid;
}

static pid_t key_tid(uint64_t key)
{
	return (pid_t)(uint32_t)key;
}

static size_t key_name(uint64_t key)
{
	return (size_t)(key >> 32) - 1;
}

void pprof_out_add(void *arg, pid_t tid, const char *name,
		       const uint64_t *pcs, size_t n, uint64_t count)
{
	struct pprof_out *b = arg;
	int64_t ni = strpool_intern(b->names, name ? name : "");
	size_t k;

	if (ni < 0) {
		b->failed = true;
		return;
	}
	for (k = 0; k < n && k < b->max_depth && pcs[k]; k++)
		b->chain[k + 1] = pcs[k];
	if (!k)
		return;
	b->chain[0] = thread_key(ni, tid);
	if (stacktab_add(b->tab, b->chain, k + 1, count))
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

struct pb {
	const struct pprof_out *b;
	const struct maps *maps;
	const struct pprof_meta *meta;
	PbProfile prof;
	struct strpool *strs;  /* the string table */
	struct strpool *funcs; /* "module\nfunction" -> function id */
	void **blocks;	       /* the arena: every allocation below */
	size_t nblocks, capblocks;
	bool oom;
	/* the mappings, and their map entries, in the same order */
	const struct map_entry **ents;
	/* distinct location addresses, sorted: location i has id i+1 */
	uint64_t *addrs;
	size_t naddrs;
	size_t capfuncs;
	PbValueType types[2], period_type;
	PbValueType *type_ptrs[2];
	int64_t comment;
	int64_t k_thread_id, k_thread_name;
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
	free(pb->addrs);
	strpool_free(pb->strs);
	strpool_free(pb->funcs);
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

static size_t collect_exec(const struct maps *m, const struct map_entry **out)
{
	const struct map_entry *e;
	size_t n = 0;

	/* gone ones too: a library dlclose'd during the run still names
	 * its samples */
	for (size_t i = 0; (e = maps_entry(m, i)); i++)
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

static int add_mappings(struct pb *pb)
{
	size_t n = collect_exec(pb->maps, NULL), i;
	PbMapping *m = pb_alloc(pb, n, sizeof(*m));
	PbMapping **mp = pb_alloc(pb, n, sizeof(*mp));

	pb->ents = pb_alloc(pb, n, sizeof(*pb->ents));
	if (!m || !mp || !pb->ents)
		return -1;
	collect_exec(pb->maps, pb->ents);
	main_first(pb->ents, n);
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

/* The mapping holding addr (index into prof.mapping), or -1. */
static ssize_t mapping_of(const struct pb *pb, uint64_t addr)
{
	for (size_t i = 0; i < pb->prof.n_mapping; i++)
		if (addr >= pb->ents[i]->start && addr < pb->ents[i]->end)
			return (ssize_t)i;
	return -1;
}

/* ---- locations and functions ---- */

/* Location addresses: the leaf as sampled, callers at their return
 * address minus 1 (inside the call instruction). */
static uint64_t loc_addr(const uint64_t *chain, size_t i)
{
	return i == 1 ? chain[i] : chain[i] - 1;
}

static int count_addrs(const uint64_t *chain, size_t n, uint64_t count,
		       void *arg)
{
	(void)chain;
	(void)count;
	*(size_t *)arg += n - 1;
	return 0;
}

static int push_addrs(const uint64_t *chain, size_t n, uint64_t count,
		      void *arg)
{
	struct pb *pb = arg;

	(void)count;
	for (size_t i = 1; i < n; i++)
		pb->addrs[pb->naddrs++] = loc_addr(chain, i);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int collect_addrs(struct pb *pb)
{
	size_t i, k = 0, n = 0;

	stacktab_foreach(pb->b->tab, count_addrs, &n);
	pb->addrs = malloc((n ? n : 1) * sizeof(*pb->addrs));
	if (!pb->addrs)
		return -1;
	stacktab_foreach(pb->b->tab, push_addrs, pb);
	qsort(pb->addrs, pb->naddrs, sizeof(*pb->addrs), cmp_u64);
	for (i = 0; i < pb->naddrs; i++)
		if (!k || pb->addrs[i] != pb->addrs[k - 1])
			pb->addrs[k++] = pb->addrs[i];
	pb->naddrs = k;
	return 0;
}

static uint64_t location_id(const struct pb *pb, uint64_t addr)
{
	const uint64_t *p = bsearch(&addr, pb->addrs, pb->naddrs,
				    sizeof(*pb->addrs), cmp_u64);

	return p ? (uint64_t)(p - pb->addrs) + 1 : 0;
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

static int64_t intern_function(struct pb *pb, const struct symbol_info *si)
{
	char *key;
	int64_t id;

	if (asprintf(&key, "%s\n%s", si->module ? si->module : "", si->func) <
	    0) {
		pb->oom = true;
		return -1;
	}
	id = strpool_intern(pb->funcs, key);
	free(key);
	if (id < 0)
		pb->oom = true;
	return id;
}

/* The function id of (module, name): a new Function the first time. */
static uint64_t function_id(struct pb *pb, const struct symbol_info *si,
			    const char *file)
{
	size_t before = strpool_count(pb->funcs);
	int64_t id = intern_function(pb, si);
	PbFunction *f;
	char *readable;

	if (id < 0 || strpool_count(pb->funcs) == before)
		return id < 0 ? 0 : (uint64_t)id;
	if (pb->prof.n_function == pb->capfuncs && grow_functions(pb))
		return 0;
	f = pb_alloc(pb, 1, sizeof(*f));
	if (!f)
		return 0;
	perftools__profiles__function__init(f);
	f->id = (uint64_t)id;
	readable = demangle(si->func);
	f->name = pb_str(pb, readable ? readable : si->func);
	free(readable);
	f->system_name = pb_str(pb, si->func);
	f->filename = pb_str(pb, file ? file : "");
	pb->prof.function[pb->prof.n_function++] = f;
	return (uint64_t)id;
}

/* Name the location at addr, if the symbolizer can; mark its mapping. */
static void symbolize_location(struct pb *pb, struct symbolizer *sym,
			       PbLocation *loc, ssize_t mi)
{
	struct symbol_info si;
	const char *file = NULL;
	unsigned line = 0;
	PbLine *ln, **lp;

	if (symbolizer_lookup(sym, loc->address, &si) || !si.func)
		return;
	if (symbolizer_lookup_line(sym, loc->address, &file, &line))
		file = NULL;
	ln = pb_alloc(pb, 1, sizeof(*ln));
	lp = pb_alloc(pb, 1, sizeof(*lp));
	if (!ln || !lp)
		return;
	perftools__profiles__line__init(ln);
	ln->function_id = function_id(pb, &si, file);
	ln->line = file ? line : 0;
	lp[0] = ln;
	loc->n_line = 1;
	loc->line = lp;
	if (mi < 0)
		return;
	pb->prof.mapping[mi]->has_functions = true;
	if (file) {
		pb->prof.mapping[mi]->has_filenames = true;
		pb->prof.mapping[mi]->has_line_numbers = true;
	}
}

static int add_locations(struct pb *pb)
{
	PbLocation *loc, **lp;
	struct symbolizer *sym;

	pb->funcs = strpool_new();
	if (!pb->funcs || collect_addrs(pb))
		return -1;
	loc = pb_alloc(pb, pb->naddrs, sizeof(*loc));
	lp = pb_alloc(pb, pb->naddrs, sizeof(*lp));
	/* No root: the target is gone, and its PID may be another process's
	 * by now, whose map_files must not be read. */
	sym = symbolizer_new_maps(pb->maps, pb->meta->root,
				  pb->meta->root ? pb->meta->pid : 0);
	if (!loc || !lp || !sym) {
		symbolizer_free(sym);
		return -1;
	}
	for (size_t i = 0; i < pb->naddrs; i++) {
		ssize_t mi = mapping_of(pb, pb->addrs[i]);

		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].address = pb->addrs[i];
		loc[i].mapping_id = mi < 0 ? 0 : (uint64_t)mi + 1;
		symbolize_location(pb, sym, &loc[i], mi);
		lp[i] = &loc[i];
	}
	symbolizer_free(sym);
	pb->prof.n_location = pb->naddrs;
	pb->prof.location = lp;
	return pb->oom ? -1 : 0;
}

/* ---- samples ---- */

static int add_sample(const uint64_t *chain, size_t n, uint64_t count,
		      void *arg)
{
	struct pb *pb = arg;
	PbSample *s = pb_alloc(pb, 1, sizeof(*s));
	uint64_t *ids = pb_alloc(pb, n - 1, sizeof(*ids));
	int64_t *v = pb_alloc(pb, 2, sizeof(*v));
	PbLabel *l = pb_alloc(pb, 2, sizeof(*l));
	PbLabel **lp = pb_alloc(pb, 2, sizeof(*lp));
	const char *name = strpool_get(pb->b->names, key_name(chain[0]));

	if (!s || !ids || !v || !l || !lp)
		return -1;
	perftools__profiles__sample__init(s);
	for (size_t i = 1; i < n; i++)
		ids[i - 1] = location_id(pb, loc_addr(chain, i));
	s->n_location_id = n - 1;
	s->location_id = ids;
	v[0] = (int64_t)count;
	v[1] = (int64_t)(count * pb->meta->period_ns);
	s->n_value = 2;
	s->value = v;
	perftools__profiles__label__init(&l[0]);
	l[0].key = pb->k_thread_id;
	l[0].num = key_tid(chain[0]);
	lp[s->n_label++] = &l[0];
	if (name && name[0]) {
		perftools__profiles__label__init(&l[1]);
		l[1].key = pb->k_thread_name;
		l[1].str = pb_str(pb, name);
		lp[s->n_label++] = &l[1];
	}
	s->label = lp;
	pb->prof.sample[pb->prof.n_sample++] = s;
	return pb->oom ? -1 : 0;
}

static int add_samples(struct pb *pb)
{
	pb->prof.sample = pb_alloc(pb, stacktab_distinct(pb->b->tab),
				   sizeof(*pb->prof.sample));
	pb->k_thread_id = pb_str(pb, "thread_id");
	pb->k_thread_name = pb_str(pb, "thread_name");
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

int pprof_out_write(FILE *f, const struct pprof_out *b, const struct maps *maps,
		const struct pprof_meta *meta)
{
	struct pb pb = { .b = b, .maps = maps, .meta = meta };
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
		     const struct maps *maps, const struct pprof_meta *meta)
{
	struct outfile o;
	int saved;

	if (outfile_open(&o, path))
		return -1;
	if (pprof_out_write(o.f, b, maps, meta)) {
		saved = errno;
		outfile_abort(&o);
		errno = saved;
		return -1;
	}
	return outfile_commit(&o);
}
