/*
 * pprof_out.c - collect samples by thread and stack, then write them as a
 * gzipped pprof protobuf (see pprof_out.h).
 *
 * The builder keeps its samples in a stacktab: each chain is the PCs with
 * four more slots in front, the image's key (its index), the thread's
 * (name index and TID), the time slot's (pprof_out.h) and the wait's
 * (kind and holder), so that equal stacks of different images, threads,
 * slots or waits stay apart.  Writing makes the
 * protobuf-c messages in an arena (struct pb, freed at once at the end;
 * pprof_out_int.h), the mappings, locations and functions in
 * pprof_out_tab.c, the samples and the header here, packs them straight
 * into a zlib deflate stream with a gzip header, and that into the file.
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
#include "profile/pprof_out_int.h"
#include "util/grow.h"
#include "util/strpool.h"

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
	b->chain[3] = wait_key(from->wait, from->wait_holder);
	if (stacktab_add(b->tab, b->chain, k + CHAIN_HEAD, count))
		b->failed = true;
}

size_t pprof_out_samples(const struct pprof_out *b)
{
	return stacktab_distinct(b->tab);
}

bool pprof_out_failed(const struct pprof_out *b)
{
	return b->failed;
}

struct visit {
	pprof_out_visit_fn fn;
	void *arg;
};

/* stacktab_visit_fn: a chain handed on without its head. */
static int visit_chain(const uint64_t *chain, size_t n, uint64_t count,
		       void *arg)
{
	const struct visit *v = arg;

	return v->fn(key_image(chain), chain + CHAIN_HEAD, n - CHAIN_HEAD,
		     count, v->arg);
}

int pprof_out_foreach(const struct pprof_out *b, pprof_out_visit_fn fn,
		      void *arg)
{
	struct visit v = { .fn = fn, .arg = arg };

	return stacktab_foreach(b->tab, visit_chain, &v);
}

/* ---- the messages, in an arena ---- */

void *pprof_out_alloc(struct pb *pb, size_t n, size_t size)
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

int64_t pprof_out_str(struct pb *pb, const char *s)
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

/* ---- samples ---- */

/* Room for the labels of one sample. */
#define SAMPLE_LABELS 7

static void add_label(struct pb *pb, PbSample *s, PbLabel *l, int64_t key,
		      int64_t num, const char *str)
{
	perftools__profiles__label__init(l);
	l->key = key;
	if (str)
		l->str = pprof_out_str(pb, str);
	else
		l->num = num;
	s->label[s->n_label++] = l;
}

/* thread_id, thread_name (when it has one), time, wait and wait_holder
 * (when known), and the process's process_id and process_name (when the
 * stack came with its image). */
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
	/* --wall: what a blocked thread waited on (sample_origin.wait) */
	if (key_wait(chain) != WAIT_NONE)
		add_label(pb, s, &l[5], pb->k_wait, 0,
			  wait_kind_name(key_wait(chain)));
	if (key_holder(chain))
		add_label(pb, s, &l[6], pb->k_wait_holder, key_holder(chain),
			  NULL);
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
	PbSample *s = pprof_out_alloc(pb, 1, sizeof(*s));
	uint64_t *ids = pprof_out_alloc(pb, nloc, sizeof(*ids));
	int64_t *v = pprof_out_alloc(pb, 2, sizeof(*v));
	PbLabel *l = pprof_out_alloc(pb, SAMPLE_LABELS, sizeof(*l));
	PbLabel **lp = pprof_out_alloc(pb, SAMPLE_LABELS, sizeof(*lp));

	if (!s || !ids || !v || !l || !lp)
		return -1;
	perftools__profiles__sample__init(s);
	for (size_t i = 0; i < nloc; i++)
		ids[i] = pprof_out_tab_location_id(pb, key_image(chain),
						   loc_addr(chain,
							    i + CHAIN_HEAD));
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
	pb->prof.sample = pprof_out_alloc(pb, stacktab_distinct(pb->b->tab),
					  sizeof(*pb->prof.sample));
	pb->k_thread_id = pprof_out_str(pb, "thread_id");
	pb->k_thread_name = pprof_out_str(pb, "thread_name");
	pb->k_process_id = pprof_out_str(pb, "process_id");
	pb->k_process_name = pprof_out_str(pb, "process_name");
	pb->k_time = pprof_out_str(pb, "time");
	pb->k_nanoseconds = pprof_out_str(pb, "nanoseconds");
	pb->k_wait = pprof_out_str(pb, "wait");
	pb->k_wait_holder = pprof_out_str(pb, "wait_holder");
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
	pb->types[0].type = pprof_out_str(pb, "samples");
	pb->types[0].unit = pprof_out_str(pb, "count");
	pb->types[1].type = pprof_out_str(pb, kind);
	pb->types[1].unit = pprof_out_str(pb, "nanoseconds");
	perftools__profiles__value_type__init(&pb->period_type);
	pb->period_type.type = pb->types[1].type;
	pb->period_type.unit = pb->types[1].unit;
	pb->prof.n_sample_type = 2;
	pb->prof.sample_type = pb->type_ptrs;
	pb->prof.period_type = &pb->period_type;
	pb->prof.period = (int64_t)pb->meta->period_ns;
	pb->prof.time_nanos = pb->meta->time_nanos;
	pb->prof.duration_nanos = pb->meta->duration_nanos;
	pb->comment = pprof_out_str(pb, "ptprof " PACKAGE_VERSION);
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
		if (!pb.oom && !pprof_out_tab_mappings(&pb) &&
		    !pprof_out_tab_locations(&pb) && !add_samples(&pb)) {
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
