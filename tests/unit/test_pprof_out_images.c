/*
 * test_pprof_out_images - part of test_pprof_out: a pprof profile of two
 * images (issue 14) whose executables are different non-PIE programs
 * both mapped at 0x400000 (tests/targets/twin_a and twin_b, the same code
 * with other names): the same address is twin_a_burn in one and
 * twin_b_burn in the other.  Written with pprof_out from a procset of
 * the two (their maps read while they run), then checked in the protobuf
 * itself (two mappings, two locations at the one address, each named
 * after its own program's function, process labels on every sample), and
 * read back through pprof_read and a report built as ptprof report
 * builds it: one address space per image, each address named from its
 * own file, --pid's filter and --by-process's root frame.
 *
 *   test_pprof_out -w FILE    only write the profile to FILE, for
 *                             tests/report-processes.test
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "elf/debugfile.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/profile.pb-c.h"
#include "profile/profile_load.h"
#include "report/report.h"
#include "report/thread_report.h"
#include "symbols/symbolize.h"
#include "unit.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;

#define NTWINS 2

struct twin {
	const char *name; /* "twin_a": its comm and file name */
	const char *func; /* "twin_a_burn" */
	uint64_t count;	  /* samples given to it */
	pid_t pid;
	uint64_t addr; /* of func, as it printed it */
	char *maps;    /* its /proc/PID/maps */
};

static struct twin twins[NTWINS] = {
	{ "twin_a", "twin_a_burn", 3, 0, 0, NULL },
	{ "twin_b", "twin_b_burn", 5, 0, 0, NULL },
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap + 1);

	while (f && buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	if (f)
		fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Start twin t idle; read the address it prints. */
static int start_twin(struct twin *t)
{
	const char *top = getenv("abs_top_builddir");
	char path[4096], line[64] = "";
	int fd[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/targets/%s", top ? top : ".",
		 t->name);
	if (pipe(fd))
		return -1;
	t->pid = fork();
	if (t->pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl(path, t->name, "idle", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (t->pid < 0 || !f || !fgets(line, sizeof(line), f)) {
		fprintf(stderr, "%s did not start\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	t->addr = strtoull(line, NULL, 16);
	return 0;
}

static void stop_twin(struct twin *t)
{
	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0); /* its PID is kept: the labels' */
}

/* The set of the two images, their maps and build IDs read while they
 * run (as the sampler reads them). */
static struct procset *make_set(void)
{
	struct procset *ps = procset_new();
	char path[64];

	for (int i = 0; i < NTWINS; i++) {
		struct twin *t = &twins[i];
		struct proc_image *im;

		if (start_twin(t)) {
			procset_free(ps);
			return NULL;
		}
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->pid);
		t->maps = slurp(path);
		im = procset_add(ps, t->pid, 0, t->name);
		CHECK(im && t->maps &&
		      maps_update(im->maps, t->maps, strlen(t->maps)) == 0);
		if (im)
			debugfile_maps_build_ids(im->maps, NULL, t->pid);
	}
	return ps;
}

/* Each twin: one thread, one stack, its leaf in its burn function: the
 * same address in both. */
static struct pprof_out *make_builder(const struct procset *ps)
{
	struct pprof_out *b = pprof_out_new(0);

	for (int i = 0; i < NTWINS; i++) {
		struct sample_origin from = { procset_at(ps, i), twins[i].pid,
					      twins[i].name };
		uint64_t pcs[] = { twins[i].addr + 4 };

		pprof_out_add(b, &from, pcs, 1, twins[i].count);
	}
	return b;
}

static int write_profile(const char *path)
{
	struct pprof_meta meta = { .period_ns = 10000000 };
	struct procset *ps = make_set();
	struct pprof_out *b = ps ? make_builder(ps) : NULL;
	int rc = b ? pprof_out_write_file(path, b, ps, &meta) : -1;

	CHECKF(rc == 0, "%s", b ? strerror(errno) : "the twins did not start");
	pprof_out_free(b);
	procset_free(ps);
	for (int i = 0; i < NTWINS; i++)
		stop_twin(&twins[i]);
	return rc;
}

/* ---- the protobuf itself ---- */

static PbProfile *unpack(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 20, len = 0;
	unsigned char *buf = malloc(cap);
	PbProfile *pp;
	int n;

	while (gz && (n = gzread(gz, buf + len, (unsigned)(cap - len))) > 0)
		len += (size_t)n;
	if (gz)
		gzclose(gz);
	pp = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	return pp;
}

static const char *str(const PbProfile *pp, int64_t i)
{
	return i >= 0 && (size_t)i < pp->n_string_table ? pp->string_table[i] :
							  "(bad)";
}

static const Perftools__Profiles__Label *
label(const PbProfile *pp, const PbSample *s, const char *key)
{
	for (size_t k = 0; k < s->n_label; k++)
		if (!strcmp(str(pp, s->label[k]->key), key))
			return s->label[k];
	return NULL;
}

static const Perftools__Profiles__Location *location(const PbProfile *pp,
						     uint64_t id)
{
	for (size_t i = 0; i < pp->n_location; i++)
		if (pp->location[i]->id == id)
			return pp->location[i];
	return NULL;
}

static const char *loc_func(const PbProfile *pp,
			    const Perftools__Profiles__Location *l)
{
	/* the last Line: the function holding the address, after any
	 * inlined into it (now() is, at twin_X_burn's entry) */
	if (!l || l->n_line < 1)
		return "(no line)";
	for (size_t i = 0; i < pp->n_function; i++)
		if (pp->function[i]->id == l->line[l->n_line - 1]->function_id)
			return str(pp, pp->function[i]->name);
	return "(no function)";
}

static const char *loc_file(const PbProfile *pp,
			    const Perftools__Profiles__Location *l)
{
	for (size_t i = 0; l && i < pp->n_mapping; i++)
		if (pp->mapping[i]->id == l->mapping_id)
			return str(pp, pp->mapping[i]->filename);
	return "(no mapping)";
}

/* The twin a sample's process_name names, or NULL. */
static const struct twin *twin_of(const char *name)
{
	for (int i = 0; i < NTWINS; i++)
		if (!strcmp(twins[i].name, name))
			return &twins[i];
	return NULL;
}

static void check_sample(const PbProfile *pp, const PbSample *s)
{
	const Perftools__Profiles__Label *pid = label(pp, s, "process_id");
	const Perftools__Profiles__Label *name = label(pp, s, "process_name");
	const struct twin *t = name ? twin_of(str(pp, name->str)) : NULL;
	const Perftools__Profiles__Location *l;

	CHECK(label(pp, s, "thread_id") && label(pp, s, "thread_name"));
	CHECKF(t && pid && pid->num == t->pid, "labels of a sample: %s %lld",
	       name ? str(pp, name->str) : "(no name)",
	       pid ? (long long)pid->num : -1LL);
	if (!t || s->n_location_id != 1)
		return;
	l = location(pp, s->location_id[0]);
	CHECK(l && l->address == t->addr + 4);
	CHECKF(!strcmp(loc_func(pp, l), t->func), "%s's sample named %s",
	       t->name, loc_func(pp, l));
	CHECKF(strstr(loc_file(pp, l), t->name), "%s's sample in %s", t->name,
	       loc_file(pp, l));
	CHECK(s->value[0] == (int64_t)t->count);
}

static void check_protobuf(const char *path)
{
	PbProfile *pp = unpack(path);

	CHECK(pp != NULL);
	if (!pp)
		return;
	CHECKF(pp->n_sample == NTWINS, "%zu samples", pp->n_sample);
	/* two locations at one address: one per image */
	CHECKF(pp->n_location == NTWINS, "%zu locations", pp->n_location);
	CHECK(pp->n_mapping >= NTWINS);
	if (pp->n_mapping)
		CHECKF(strstr(str(pp, pp->mapping[0]->filename), "twin_a"),
		       "mapping 1 is %s", str(pp, pp->mapping[0]->filename));
	for (size_t i = 0; i < pp->n_sample; i++)
		check_sample(pp, pp->sample[i]);
	perftools__profiles__profile__free_unpacked(pp, NULL);
}

/* ---- read back, and reported ---- */

static const struct profile_record *record_of(const struct profile *p,
					      const struct twin *t)
{
	for (size_t i = 0; i < p->nrecords; i++)
		if (p->records[i].pid == t->pid)
			return &p->records[i];
	return NULL;
}

/* A report of p as ptprof report makes it: a symbolizer per space. */
static struct report *report_of(const struct profile *p, bool by_process)
{
	size_t n = profile_nspaces(p), len;
	struct symbolizer **syms = calloc(n, sizeof(*syms));
	/* now() is inlined into twin_X_burn: the rows checked are the
	 * functions that hold the addresses, as --no-inline shows them. */
	struct report_options ro = { .by_process = by_process,
				     .no_inline = true };
	struct report *r;

	for (size_t i = 0; i < n; i++) {
		const char *text = profile_space_maps(p, i, &len);

		syms[i] = symbolizer_new(text, len, NULL, 0);
	}
	r = report_build(p, syms, &ro);
	for (size_t i = 0; i < n; i++)
		symbolizer_free(syms[i]);
	free(syms);
	return r;
}

static uint64_t flat_of(const struct report *r, const char *name)
{
	size_t n;
	const struct report_row *rows = report_rows(r, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return rows[i].flat;
	return 0;
}

static void check_report(const struct profile *p)
{
	struct report *r = report_of(p, false);
	char *text = NULL, want[128];
	size_t len;
	FILE *f;

	CHECK(r != NULL);
	for (int i = 0; r && i < NTWINS; i++)
		CHECKF(flat_of(r, twins[i].func) == twins[i].count,
		       "%s: %" PRIu64 " samples in the report", twins[i].func,
		       flat_of(r, twins[i].func));
	report_free(r);
	r = report_of(p, true);
	f = open_memstream(&text, &len);
	CHECK(r && f && report_write_folded(r, f) == 0);
	fclose(f);
	for (int i = 0; text && i < NTWINS; i++) {
		snprintf(want, sizeof(want), "%s (%d);%s %" PRIu64 "\n",
			 twins[i].name, (int)twins[i].pid, twins[i].func,
			 twins[i].count);
		CHECKF(strstr(text, want), "no '%s' in --by-process:\n%s", want,
		       text);
	}
	free(text);
	report_free(r);
}

static void check_read_back(const char *path)
{
	struct profile p;
	char err[256];

	CHECKF(profile_load_file(path, &p, err, sizeof(err)) == 0, "%s", err);
	CHECK(p.processes && p.nrecords == NTWINS);
	CHECKF(profile_nspaces(&p) == NTWINS, "%zu spaces",
	       profile_nspaces(&p));
	for (int i = 0; i < NTWINS; i++) {
		const struct profile_record *rec = record_of(&p, &twins[i]);
		const char *own;

		CHECK(rec && rec->process &&
		      !strcmp(rec->process, twins[i].name));
		if (!rec)
			continue;
		own = profile_name_of(&p, rec->space, twins[i].addr + 4);
		CHECKF(own && !strcmp(own, twins[i].func),
		       "the file names %s's address %s", twins[i].name,
		       own ? own : "nothing");
	}
	check_report(&p);
	/* --pid=twin_b: its one record */
	CHECK(thread_report_keep_process(&p, "twin_b") == 1 &&
	      p.total_samples == twins[1].count);
	profile_free(&p);
}

int test_pprof_out_images_write(const char *path);
void test_pprof_out_images(void);

/* test_pprof_out -w FILE: only the profile, for report-processes.test. */
int test_pprof_out_images_write(const char *path)
{
	return write_profile(path);
}

/* The checks above, as test_pprof_out's main() calls them. */
void test_pprof_out_images(void)
{
	char path[] = "/tmp/test_pprof_out_images.XXXXXX",
	     old[sizeof(path) + 4];
	int fd;

	fd = mkstemp(path);
	if (fd < 0) {
		CHECKF(fd >= 0, "mkstemp: %s", strerror(errno));
		return;
	}
	close(fd);
	if (write_profile(path) == 0) {
		/* the point of the test: one address, two programs */
		CHECKF(twins[0].addr == twins[1].addr && twins[0].addr &&
			       twins[0].addr < 0x1000000,
		       "the twins' functions are at %#" PRIx64 " and %#" PRIx64
		       ", not both at one non-PIE address",
		       twins[0].addr, twins[1].addr);
		check_protobuf(path);
		check_read_back(path);
	}
	unlink(path);
	/* outfile.h keeps the empty file mkstemp() made as PATH.old */
	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
}
