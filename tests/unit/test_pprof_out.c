/*
 * test_pprof_out - the pprof protobuf writer, read back: a builder's
 * samples written and read back (records, threads, callers' addresses),
 * the protobuf itself decoded field by field (sample types, period,
 * labels, mappings with this program's build ID, locations, functions),
 * JIT code and Python frames named through the writer and read back into
 * a report.  Its other files: test_pprof_out_images.c (two images at one
 * address) and test_pprof_out_time.c (the "time" label).  The reader's
 * refusals of hostile input are test_pprof_read's.
 *
 *   test_pprof_out -w FILE    only write test_pprof_out_images.c's profile
 *                             to FILE, for tests/report-processes.test
 *
 * Covers: pprof_out_tab (the writer's tables, split out).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "elf/debugfile.h"
#include "proc/maps.h"
#include "profile/pprof_out.h"
#include "profile/pprof_read.h"
#include "profile/procset.h"
#include "profile/profile.pb-c.h"
#include "profile/profile_load.h"
#include "profile/profile_read.h"
#include "python/pyframes.h"
#include "report/report.h"
#include "symbols/perfmap.h"
#include "symbols/symbolize.h"
#include "unit.h"

typedef Perftools__Profiles__Profile PbProfile;

__attribute__((noinline, noclone)) int pprof_test_leaf(int x);
__attribute__((noinline, noclone)) int pprof_test_leaf(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static char tmpdir[] = "/tmp/test_pprof_out.XXXXXX";

static void read_file(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n;

	*buf = malloc(cap);
	*len = 0;
	if (!f || !*buf)
		return;
	while ((n = fread(*buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap)
			*buf = realloc(*buf, cap *= 2);
	}
	fclose(f);
}

/* gunzip a whole file into memory with zlib's gz* reader. */
static unsigned char *gunzip_file(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	int n;

	*len = 0;
	while (gz && buf &&
	       (n = gzread(gz, buf + *len, (unsigned)(cap - *len))) > 0) {
		*len += (size_t)n;
		if (*len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (gz)
		gzclose(gz);
	return buf;
}

static uint64_t leaf_pc, caller_pc;

/* Samples: thread 100 "alpha" twice the same stack (merged), thread 200
 * "beta" the same stack, thread 300 unnamed a stack cut at a zero PC, and
 * a stack deeper than max_depth (3). */
static void add(struct pprof_out *b, const struct proc_image *im, pid_t tid,
		const char *name, const uint64_t *pcs, size_t n, uint64_t count)
{
	struct sample_origin from = { im, tid, name };

	pprof_out_add(b, &from, pcs, n, count);
}

static struct pprof_out *make_builder(const struct proc_image *im)
{
	struct pprof_out *b = pprof_out_new(3);
	uint64_t s1[] = { leaf_pc, caller_pc };
	uint64_t s2[] = { leaf_pc + 1, 0, caller_pc };
	uint64_t s3[] = { leaf_pc, caller_pc, caller_pc + 8, caller_pc + 16,
			  caller_pc + 24 };

	add(b, im, 100, "alpha", s1, 2, 2);
	add(b, im, 100, "alpha", s1, 2, 3);
	add(b, im, 200, "beta", s1, 2, 1);
	add(b, im, 300, "", s2, 3, 4);
	add(b, im, 300, NULL, s3, 5, 1);
	add(b, im, 400, "none", s1, 0, 9); /* empty: ignored */
	return b;
}

/* A set of one image: this process, its maps as the sampler reads them. */
static struct procset *self_set(void)
{
	struct procset *ps = procset_new();
	struct proc_image *im = ps ? procset_add(ps, getpid(), 0,
						 "test_pprof_out") :
				     NULL;
	unsigned char *text;
	size_t len;

	CHECK(im != NULL);
	read_file("/proc/self/maps", &text, &len);
	CHECK(maps_update(im->maps, (char *)text, len) == 0);
	debugfile_maps_build_ids(im->maps, NULL,
				 getpid()); /* as the sampler does */
	free(text);
	return ps;
}

static const struct profile_record *find_rec(const struct profile *p,
					     int64_t tid, size_t npcs)
{
	for (size_t i = 0; i < p->nrecords; i++)
		if (p->records[i].tid == tid && p->records[i].npcs == npcs)
			return &p->records[i];
	return NULL;
}

static void check_read_back(const char *path)
{
	struct profile p;
	const struct profile_record *r;
	char err[256];

	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	CHECK(p.threads);
	CHECKF(p.nrecords == 4, "nrecords %zu", p.nrecords);
	CHECK(p.total_samples == 11);
	CHECKF(p.period_us == 10000, "period %llu",
	       (unsigned long long)p.period_us);
	r = find_rec(&p, 100, 2);
	CHECK(r && r->count == 5 && r->pcs[0] == leaf_pc &&
	      r->pcs[1] == caller_pc && r->thread &&
	      !strcmp(r->thread, "alpha"));
	r = find_rec(&p, 200, 2);
	CHECK(r && r->count == 1 && r->thread && !strcmp(r->thread, "beta"));
	r = find_rec(&p, 300, 1);
	CHECK(r && r->count == 4 && r->pcs[0] == leaf_pc + 1 && !r->thread);
	r = find_rec(&p, 300, 3);
	CHECK(r && r->pcs[2] == caller_pc + 8);
	CHECK(p.maps_text && strstr(p.maps_text, " r-xp "));
	/* The file's own names, for files report cannot check (Go). */
	CHECKF(p.nnames > 0 && profile_name_of(&p, 0, leaf_pc) &&
		       !strcmp(profile_name_of(&p, 0, leaf_pc),
			       "pprof_test_leaf"),
	       "%zu names, leaf named %s", p.nnames,
	       profile_name_of(&p, 0, leaf_pc) ?
		       profile_name_of(&p, 0, leaf_pc) :
		       "nothing");
	CHECK(!profile_name_of(&p, 0, 1));
	profile_free(&p);
}

static const char *str(const PbProfile *pp, int64_t i)
{
	return i >= 0 && (size_t)i < pp->n_string_table ? pp->string_table[i] :
							  "(bad index)";
}

static void check_header(const PbProfile *pp)
{
	CHECK(pp->n_string_table > 0 && !pp->string_table[0][0]);
	CHECK(pp->n_sample_type == 2);
	if (pp->n_sample_type == 2) {
		CHECK(!strcmp(str(pp, pp->sample_type[0]->type), "samples"));
		CHECK(!strcmp(str(pp, pp->sample_type[0]->unit), "count"));
		CHECK(!strcmp(str(pp, pp->sample_type[1]->type), "wall"));
		CHECK(!strcmp(str(pp, pp->sample_type[1]->unit),
			      "nanoseconds"));
	}
	CHECK(pp->period_type &&
	      !strcmp(str(pp, pp->period_type->type), "wall"));
	CHECK(pp->period == 10000000 && pp->duration_nanos == 2000000000 &&
	      pp->time_nanos == 1234);
	CHECK(pp->n_sample == 4);
}

/* mapping[0] is this program (not a library), with its build ID. */
static void check_mappings(const PbProfile *pp)
{
	char want[256] = "";
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	elf = debugfile_open_elf("/proc/self/exe", &fd);
	CHECK(elf && debugfile_build_id(elf, want, sizeof(want)));
	if (elf) {
		elf_end(elf);
		close(fd);
	}
	CHECK(pp->n_mapping > 1);
	if (!pp->n_mapping)
		return;
	CHECKF(strstr(str(pp, pp->mapping[0]->filename), "test_pprof_out"),
	       "mapping[0] is %s", str(pp, pp->mapping[0]->filename));
	CHECKF(!strcmp(str(pp, pp->mapping[0]->build_id), want),
	       "build id '%s', readelf says '%s'",
	       str(pp, pp->mapping[0]->build_id), want);
	CHECK(pp->mapping[0]->has_functions);
}

/* The leaf's location is its PC, a caller's its PC - 1; the leaf names
 * pprof_test_leaf. */
static void check_locations(const PbProfile *pp)
{
	bool leaf = false, caller = false, named = false;

	for (size_t i = 0; i < pp->n_location; i++) {
		const Perftools__Profiles__Location *l = pp->location[i];

		CHECK(l->id == i + 1);
		leaf |= l->address == leaf_pc;
		caller |= l->address == caller_pc - 1;
		CHECK(l->address != caller_pc || caller_pc == leaf_pc + 1);
		if (l->address == leaf_pc && l->n_line == 1 &&
		    l->line[0]->function_id >= 1 &&
		    l->line[0]->function_id <= pp->n_function) {
			const Perftools__Profiles__Function *f =
				pp->function[l->line[0]->function_id - 1];

			named = f->id == l->line[0]->function_id &&
				!strcmp(str(pp, f->name), "pprof_test_leaf") &&
				!strcmp(str(pp, f->system_name),
					"pprof_test_leaf");
		}
	}
	CHECK(leaf && caller && named);
}

/* The label key of sample s, or NULL. */
static const Perftools__Profiles__Label *
label(const PbProfile *pp, const Perftools__Profiles__Sample *s,
      const char *key)
{
	for (size_t k = 0; k < s->n_label; k++)
		if (!strcmp(str(pp, s->label[k]->key), key))
			return s->label[k];
	return NULL;
}

/* Labels: thread_id always, thread_name when the thread had a name,
 * process_id and process_name always (the stacks came with an image). */
static void check_labels(const PbProfile *pp)
{
	int named = 0, unnamed = 0;

	for (size_t i = 0; i < pp->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pp->sample[i];
		const Perftools__Profiles__Label *pid, *pname;

		CHECK(s->n_value == 2 && s->value[1] == s->value[0] * 10000000);
		CHECK(s->n_label >= 1 &&
		      !strcmp(str(pp, s->label[0]->key), "thread_id"));
		if (label(pp, s, "thread_name"))
			named++;
		else if (s->label[0]->num == 300)
			unnamed++;
		pid = label(pp, s, "process_id");
		pname = label(pp, s, "process_name");
		CHECK(pid && pid->num == getpid() && !pid->str);
		CHECK(pname && !strcmp(str(pp, pname->str), "test_pprof_out"));
	}
	CHECK(named == 2 && unnamed == 2);
}

static void test_round_trip(void)
{
	struct pprof_out *b;
	struct procset *ps;
	struct pprof_meta meta = { .period_ns = 10000000,
				   .wall = true,
				   .time_nanos = 1234,
				   .duration_nanos = 2000000000 };
	char path[256];
	unsigned char *raw;
	size_t len;
	PbProfile *pp;

	leaf_pc = (uint64_t)(uintptr_t)&pprof_test_leaf + 4;
	caller_pc = (uint64_t)(uintptr_t)&test_round_trip + 16;
	ps = self_set();
	b = make_builder(procset_at(ps, 0));
	CHECK(b && pprof_out_samples(b) == 4);
	snprintf(path, sizeof(path), "%s/p.pb.gz", tmpdir);
	CHECKF(pprof_out_write_file(path, b, ps, &meta) == 0, "%s",
	       strerror(errno));
	check_read_back(path);
	raw = gunzip_file(path, &len);
	pp = perftools__profiles__profile__unpack(NULL, len, raw);
	CHECK(pp != NULL);
	if (pp) {
		check_header(pp);
		check_mappings(pp);
		check_locations(pp);
		check_labels(pp);
		perftools__profiles__profile__free_unpacked(pp, NULL);
	}
	free(raw);
	pprof_out_free(b);
	procset_free(ps);
}

/* ---- JIT code (perf maps) ---- */

struct jit_arg {
	struct perfmap *first, *second;
	int calls, rereads;
};

/* pprof_meta.jit_of: the first map, then the second when re-read. */
static const struct perfmap *test_jit_of(void *arg, const struct proc_image *im,
					 bool reread)
{
	struct jit_arg *j = arg;

	(void)im;
	j->calls++;
	j->rereads += reread;
	return reread ? j->second : j->first;
}

/* The name of the report's first row (the most flat samples) of p. */
static char *report_top_name(const struct profile *p)
{
	struct symbolizer *sym = symbolizer_new(p->maps_text, p->maps_len, NULL,
						0);
	struct report_options ro = { 0 };
	struct report *r = sym ? report_build(p, &sym, &ro) : NULL;
	const struct report_row *rows = NULL;
	char *name = NULL;
	size_t n = 0;

	if (r)
		rows = report_rows(r, &n);
	if (n)
		name = strdup(rows[0].name);
	report_free(r);
	symbolizer_free(sym);
	return name;
}

/*
 * Addresses in an anonymous executable page are named by the image's
 * perf map: asked for once, and re-read once at the first address the
 * first map does not name; the page's mapping is "[jit]"; the report
 * shows "NAME [jit]".
 */
static void test_jit(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, (size_t)pg, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t base = (uint64_t)(uintptr_t)page;
	struct jit_arg j = { 0 };
	struct pprof_meta meta = { .period_ns = 10000000,
				   .jit_of = test_jit_of,
				   .jit_arg = &j };
	char text[256], path[256], err[256], *name;
	struct pprof_out *b = pprof_out_new(8);
	struct procset *ps;
	struct profile p;
	uint64_t s1[] = { base + 0x10 }, s2[] = { base + 0x80 };
	size_t len;

	CHECK(page != MAP_FAILED && b);
	snprintf(text, sizeof(text), "%" PRIx64 " 40 jitfn\n", base);
	j.first = perfmap_parse(text, strlen(text));
	len = (size_t)snprintf(text, sizeof(text),
			       "%" PRIx64 " 40 jitfn\n%" PRIx64 " 40 later\n",
			       base, base + 0x80);
	j.second = perfmap_parse(text, len);
	ps = self_set();
	add(b, procset_at(ps, 0), 1, "t", s1, 1, 3);
	add(b, procset_at(ps, 0), 1, "t", s2, 1, 1);
	snprintf(path, sizeof(path), "%s/jit.pb.gz", tmpdir);
	CHECKF(pprof_out_write_file(path, b, ps, &meta) == 0, "%s",
	       strerror(errno));
	CHECKF(j.calls == 2 && j.rereads == 1, "jit_of called %d times",
	       j.calls);
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	CHECK(profile_name_of(&p, 0, base + 0x10) &&
	      !strcmp(profile_name_of(&p, 0, base + 0x10), "jitfn"));
	CHECK(profile_name_of(&p, 0, base + 0x80) &&
	      !strcmp(profile_name_of(&p, 0, base + 0x80), "later"));
	snprintf(text, sizeof(text), "%" PRIx64 "-", base);
	CHECKF(p.maps_text && strstr(p.maps_text, text) &&
		       strstr(strstr(p.maps_text, text), " [jit]\n"),
	       "%s", p.maps_text ? p.maps_text : "no maps");
	name = report_top_name(&p);
	CHECKF(name && !strcmp(name, "jitfn [jit]"), "report: %s",
	       name ? name : "nothing");
	free(name);
	profile_free(&p);
	pprof_out_free(b);
	procset_free(ps);
	perfmap_free(j.first);
	perfmap_free(j.second);
	munmap(page, (size_t)pg);
}

/* ---- source lines a file gives (--lines where no file is trusted) ---- */

typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Location PbLocation;

/* The report's row named name, or NULL. */
static const struct report_row *row_named(const struct report_row *rows,
					  size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

enum { NLOC = 7, NFUNC = 4 };

/* The messages of test_lines()'s profile. */
struct lines_pb {
	PbProfile p;
	Perftools__Profiles__ValueType vt, *vtp;
	Perftools__Profiles__Mapping m, *mp;
	PbFunction fn[NFUNC], *fnp[NFUNC];
	PbLocation loc[NLOC], *locp[NLOC];
	PbLine ln[NLOC][2], *lnp[NLOC][2];
	Perftools__Profiles__Sample smp[NLOC], *smpp[NLOC];
	uint64_t loc_ids[NLOC];
	int64_t values[NLOC];
};

static char ls0[] = "", ls1[] = "samples", ls2[] = "count",
	    ls3[] = "/nonexistent/gobin", ls4[] = "main.spin",
	    ls5[] = "main.add", ls6[] = "/src/b.go", ls7[] = "/src/a.go",
	    ls8[] = "main.bad";
static char *lines_strs[] = { ls0, ls1, ls2, ls3, ls4, ls5, ls6, ls7, ls8 };

/* Function i + 1: its name and file (string indexes): main.spin in
 * b.go, main.add in a.go, main.bad with its file outside the table,
 * main.spin again with an empty file name. */
static const int64_t lines_funcs[NFUNC][2] = {
	{ 4, 6 }, { 5, 7 }, { 8, 99 }, { 4, 0 }
};

/* Location i + 1's first Line: its function and line. */
static const struct {
	uint64_t fn;
	int64_t line;
} lines_first[NLOC] = { { 2, 9 }, { 99, 5 }, { 1, (int64_t)1 << 40 }, { 1, -3 },
			{ 3, 4 }, { 4, 7 },  { 1, PROFILE_MAX_LINE } };

static void lines_functions(struct lines_pb *x)
{
	for (size_t i = 0; i < NFUNC; i++) {
		perftools__profiles__function__init(&x->fn[i]);
		x->fn[i].id = i + 1;
		x->fn[i].name = lines_funcs[i][0];
		x->fn[i].filename = lines_funcs[i][1];
		x->fnp[i] = &x->fn[i];
	}
	x->p.n_function = NFUNC, x->p.function = x->fnp;
}

/* Location i + 1 at 0x1100 + 0x100 * i: its first Line as lines_first
 * says, then (but location 5) main.spin's at line 16, the function it
 * was inlined into; one sample of 10 * (i + 1). */
static void lines_location(struct lines_pb *x, size_t i)
{
	perftools__profiles__location__init(&x->loc[i]);
	x->loc[i].id = i + 1, x->loc[i].mapping_id = 1;
	x->loc[i].address = 0x1100 + 0x100 * i;
	for (size_t k = 0; k < 2; k++) {
		perftools__profiles__line__init(&x->ln[i][k]);
		x->lnp[i][k] = &x->ln[i][k];
	}
	x->ln[i][0].function_id = lines_first[i].fn;
	x->ln[i][0].line = lines_first[i].line;
	x->ln[i][1].function_id = 1;
	x->ln[i][1].line = 16;
	x->loc[i].n_line = i == 4 ? 1 : 2;
	x->loc[i].line = x->lnp[i];
	x->locp[i] = &x->loc[i];
	perftools__profiles__sample__init(&x->smp[i]);
	x->loc_ids[i] = i + 1, x->values[i] = (int64_t)(10 * (i + 1));
	x->smp[i].n_location_id = 1, x->smp[i].location_id = &x->loc_ids[i];
	x->smp[i].n_value = 1, x->smp[i].value = &x->values[i];
	x->smpp[i] = &x->smp[i];
}

static void lines_init(struct lines_pb *x)
{
	memset(x, 0, sizeof(*x));
	perftools__profiles__profile__init(&x->p);
	perftools__profiles__value_type__init(&x->vt);
	x->vt.type = 1, x->vt.unit = 2, x->vtp = &x->vt;
	x->p.n_string_table = sizeof(lines_strs) / sizeof(*lines_strs);
	x->p.string_table = lines_strs;
	x->p.n_sample_type = 1, x->p.sample_type = &x->vtp;
	perftools__profiles__mapping__init(&x->m);
	x->m.id = 1, x->m.memory_start = 0x1000, x->m.memory_limit = 0x9000;
	x->m.filename = 3, x->mp = &x->m;
	x->p.n_mapping = 1, x->p.mapping = &x->mp;
	lines_functions(x);
	for (size_t i = 0; i < NLOC; i++)
		lines_location(x, i);
	x->p.n_location = NLOC, x->p.location = x->locp;
	x->p.n_sample = NLOC, x->p.sample = x->smpp;
}

/* The names and lines p keeps for the locations of lines_init(). */
static void lines_check_names(const struct profile *p)
{
	const struct profile_name *pn = profile_name_at(p, 0, 0x1100);

	CHECKF(p->nnames == NLOC, "%zu names", p->nnames);
	CHECKF(pn && !strcmp(pn->name, "main.spin") && pn->file &&
		       !strcmp(pn->file, "/src/a.go") && pn->line == 9,
	       "location 1: %s %s:%u", pn ? pn->name : "(none)",
	       pn && pn->file ? pn->file : "(none)", pn ? pn->line : 0);
	for (size_t i = 1; i < 6; i++) {
		pn = profile_name_at(p, 0, 0x1100 + 0x100 * i);
		CHECKF(pn &&
			       !strcmp(pn->name,
				       i == 4 ? "main.bad" : "main.spin") &&
			       !pn->file && !pn->line,
		       "location %zu: %s %s:%u", i + 1,
		       pn ? pn->name : "(none)",
		       pn && pn->file ? pn->file : "(none)", pn ? pn->line : 0);
	}
	pn = profile_name_at(p, 0, 0x1700);
	CHECK(pn && pn->file && !strcmp(pn->file, "/src/b.go") &&
	      pn->line == PROFILE_MAX_LINE);
}

/* report --lines on p: "function file:line" from the file's Lines, the
 * name alone where they give none. */
static void lines_check_report(const struct profile *p)
{
	struct symbolizer *sym = symbolizer_new(p->maps_text, p->maps_len, NULL,
						0);
	/* Each address as its outer function, as before inlined frames:
	 * several Lines of one location are checked by report-inline.test
	 * and test_pprof_read. */
	struct report_options ro = { .lines = true, .no_inline = true };
	struct report *r = sym ? report_build(p, &sym, &ro) : NULL;
	const struct report_row *rows = NULL, *row;
	size_t n = 0;

	CHECK(r != NULL);
	if (r)
		rows = report_rows(r, &n);
	row = row_named(rows, n, "main.spin /src/a.go:9");
	CHECKF(row && row->flat == 10, "no row 'main.spin /src/a.go:9' (%s)",
	       n ? rows[0].name : "no rows");
	row = row_named(rows, n, "main.spin");
	CHECK(row && row->flat == 20 + 30 + 40 + 60);
	row = row_named(rows, n, "main.bad");
	CHECK(row && row->flat == 50);
	CHECK(row_named(rows, n, "main.spin /src/b.go:2147483647") != NULL);
	CHECKF(n == 4, "%zu rows", n);
	report_free(r);
	symbolizer_free(sym);
}

/*
 * Another tool's profile of a program whose file report cannot use (a
 * Go binary: no build ID it could check; here not even on disk): its
 * Locations' Lines give names and source lines.  Location 1 is an
 * inlined chain (main.add at a.go:9 inlined into main.spin at b.go:16):
 * named main.spin, the outer function, as before, and given a.go:9, its
 * leaf-most Line, as a DWARF line table gives the address.  The others'
 * first Line is bad: a function that does not exist, a line past
 * PROFILE_MAX_LINE, a negative line, a function whose file name is
 * outside the string table, one whose file name is "": each keeps its
 * name, without a line, and the file is read.
 */
static void test_lines(void)
{
	struct lines_pb x;
	size_t len;
	unsigned char *buf;
	struct profile p;
	char err[256] = "";

	lines_init(&x);
	len = perftools__profiles__profile__get_packed_size(&x.p);
	buf = malloc(len);
	CHECK(buf != NULL);
	perftools__profiles__profile__pack(&x.p, buf);
	CHECKF(pprof_read_parse(buf, len, &p, err, sizeof(err)) == 0, "%s",
	       err);
	lines_check_names(&p);
	lines_check_report(&p);
	profile_free(&p);
	free(buf);
}

/* ---- Python frames (pyframes.h) ---- */

/* The report of p (its one space), its rows into *rows and *n. */
static struct report *report_of(const struct profile *p, bool lines,
				struct symbolizer **sym,
				const struct report_row **rows, size_t *n)
{
	struct report_options ro = { .lines = lines };
	struct report *r;

	*sym = symbolizer_new(p->maps_text, p->maps_len, NULL, 0);
	r = *sym ? report_build(p, sym, &ro) : NULL;
	*n = 0;
	*rows = r ? report_rows(r, n) : NULL;
	CHECK(r != NULL);
	return r;
}

/* The protobuf: one Function per Python (file, start line, name), with
 * its file and start line; Python locations in no mapping, at their
 * lines. */
static void python_check_pb(const char *path)
{
	size_t len, nfn = 0, nloc = 0;
	unsigned char *raw = gunzip_file(path, &len);
	PbProfile *pp = perftools__profiles__profile__unpack(NULL, len, raw);

	CHECK(pp != NULL);
	for (size_t i = 0; pp && i < pp->n_function; i++) {
		const Perftools__Profiles__Function *f = pp->function[i];

		if (strcmp(str(pp, f->name), "hot_a"))
			continue;
		nfn++;
		CHECK(!strcmp(str(pp, f->system_name), "hot_a"));
		CHECKF((!strcmp(str(pp, f->filename), "/srv/app.py") &&
			f->start_line == 10) ||
			       (!strcmp(str(pp, f->filename), "/srv/lib.py") &&
				f->start_line == 1),
		       "hot_a in %s:%" PRId64, str(pp, f->filename),
		       f->start_line);
	}
	CHECKF(nfn == 2, "%zu functions hot_a", nfn);
	for (size_t i = 0; pp && i < pp->n_location; i++) {
		const Perftools__Profiles__Location *l = pp->location[i];

		if (!pyframes_is_pc(l->address))
			continue;
		nloc++;
		CHECK(l->mapping_id == 0 && l->n_line == 1 &&
		      l->line[0]->line > 0);
	}
	CHECKF(nloc == 4, "%zu Python locations", nloc);
	if (pp)
		perftools__profiles__profile__free_unpacked(pp, NULL);
	free(raw);
}

/* What the reader keeps of a Python location: name, file, line, and
 * its function's start line. */
static void python_check_names(const struct profile *p, uint64_t a,
			       uint64_t one)
{
	const struct profile_name *n = profile_name_at(p, 0, a);

	CHECK(n && !strcmp(n->name, "hot_a") && n->file &&
	      !strcmp(n->file, "/srv/app.py") && n->line == 12 &&
	      n->start_line == 10);
	/* a caller: at PC-1, as every writer puts callers */
	n = profile_name_at(p, 0, one - 1);
	CHECK(n && !strcmp(n->name, "level1") && n->line == 7 &&
	      n->start_line == 5);
}

/* A row a report must have: its name, flat and cum counts (~0: any). */
struct want_row {
	const char *name;
	uint64_t flat, cum;
};

#define PY " " REPORT_PY_MODULE
#define ANY ~0ULL

/* The report of p (with or without lines) has the rows want[0..n) and,
 * when nrows is not 0, nrows rows in all; no row is JIT code, and none
 * marked as Python has a module. */
static void check_rows(const struct profile *p, bool lines,
		       const struct want_row *want, size_t n, size_t nrows)
{
	struct symbolizer *sym;
	const struct report_row *rows, *row;
	size_t nr;
	struct report *r = report_of(p, lines, &sym, &rows, &nr);

	for (size_t i = 0; i < n; i++) {
		row = row_named(rows, nr, want[i].name);
		CHECKF(row &&
			       (want[i].flat == ANY ||
				row->flat == want[i].flat) &&
			       (want[i].cum == ANY || row->cum == want[i].cum),
		       "row '%s': %s", want[i].name,
		       row ? "wrong counts" : "none");
	}
	CHECKF(!nrows || nr == nrows, "%zu rows", nr);
	for (size_t i = 0; i < nr; i++)
		CHECKF(!strstr(rows[i].name, REPORT_JIT_MODULE) &&
			       (!strstr(rows[i].name, PY) || !rows[i].module),
		       "row '%s'", rows[i].name);
	report_free(r);
	symbolizer_free(sym);
}

/* The report: "NAME (FILE:START) [py]" rows, the native frames around
 * them as ever; with lines "NAME FILE:LINE [py]". */
static void python_check_report(const struct profile *p)
{
	static const struct want_row rows[] = {
		{ "hot_a (app.py:10)" PY, 4, 4 },
		{ "hot_a (lib.py:1)" PY, 2, 2 },
		{ "level1 (app.py:5)" PY, 0, 7 },
		{ "pprof_test_leaf", 1, 1 },
		{ "test_python", 0, 7 },
	};
	static const struct want_row lines[] = {
		{ "hot_a /srv/app.py:12" PY, 3, ANY },
		{ "hot_a /srv/app.py:13" PY, 1, ANY },
		{ "hot_a /srv/lib.py:3" PY, 2, ANY },
		{ "level1 /srv/app.py:7" PY, 0, 7 },
	};

	check_rows(p, false, rows, sizeof(rows) / sizeof(rows[0]), 5);
	check_rows(p, true, lines, sizeof(lines) / sizeof(lines[0]), 0);
}

/*
 * Merged stacks, as the sampler will hand them over: Python frames
 * (synthetic PCs) between native ones.  Written with the registry, each
 * is a Function of the frame's name, file and start line and a Line of
 * its line, and the report shows "hot_a (app.py:10) [py]"; written
 * without it, the PCs stay unnamed ("0x5000..."), never "[jit]".
 */
static void test_python(void)
{
	struct pyframes *py = pyframes_new(0);
	struct pyframe fa = { "hot_a", "/srv/app.py", 10, 12 };
	struct pyframe fa2 = { "hot_a", "/srv/app.py", 10, 13 };
	struct pyframe fl = { "hot_a", "/srv/lib.py", 1, 3 };
	struct pyframe f1 = { "level1", "/srv/app.py", 5, 7 };
	uint64_t a = 0, a2 = 0, l = 0, one = 0, native;
	struct pprof_meta meta = { .period_ns = 10000000 };
	struct pprof_out *b = pprof_out_new(8);
	struct procset *ps = self_set();
	char path[256], err[256], name[64];
	struct profile p;

	CHECK(py && b && !pyframes_intern(py, &fa, &a) &&
	      !pyframes_intern(py, &fa2, &a2) &&
	      !pyframes_intern(py, &fl, &l) && !pyframes_intern(py, &f1, &one));
	leaf_pc = (uint64_t)(uintptr_t)&pprof_test_leaf + 4;
	native = (uint64_t)(uintptr_t)&test_python + 16;
	add(b, procset_at(ps, 0), 1, "t", (uint64_t[]){ a, one, native }, 3, 3);
	add(b, procset_at(ps, 0), 1, "t", (uint64_t[]){ a2, one, native }, 3,
	    1);
	add(b, procset_at(ps, 0), 1, "t", (uint64_t[]){ l, one, native }, 3, 2);
	/* a C function called from Python: the native leaf stays native */
	add(b, procset_at(ps, 0), 1, "t", (uint64_t[]){ leaf_pc, one, native },
	    3, 1);
	meta.py = py;
	snprintf(path, sizeof(path), "%s/py.pb.gz", tmpdir);
	CHECKF(pprof_out_write_file(path, b, ps, &meta) == 0, "%s",
	       strerror(errno));
	python_check_pb(path);
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	python_check_names(&p, a, one);
	python_check_report(&p);
	profile_free(&p);

	meta.py = NULL;
	CHECKF(pprof_out_write_file(path, b, ps, &meta) == 0, "%s",
	       strerror(errno));
	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	CHECK(!profile_name_at(&p, 0, a));
	snprintf(name, sizeof(name), "0x%" PRIx64, a);
	check_rows(&p, false, &(struct want_row){ name, 3, ANY }, 1, 0);
	profile_free(&p);
	pprof_out_free(b);
	procset_free(ps);
	pyframes_free(py);
}

/* The other files of this test (tests/unit.mk). */
int test_pprof_out_images_write(const char *path);
void test_pprof_out_images(void);
void test_pprof_out_time(void);

int main(int argc, char **argv)
{
	char cmd[300];

	if (argc == 3 && !strcmp(argv[1], "-w"))
		return test_pprof_out_images_write(argv[2]) ? 1 : 0;
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 99;
	}
	test_round_trip();
	test_jit();
	test_python();
	test_lines();
	test_pprof_out_images();
	test_pprof_out_time();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return unit_result("test_pprof_out");
}
