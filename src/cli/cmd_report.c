/*
 * cmd_report.c - ptprof report, and the table after a recording (cmds.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "profile/profile_load.h"
#include "profile/profile_merge.h"
#include "report/flame.h"
#include "report/report.h"
#include "report/report_diff.h"
#include "report/thread_report.h"
#include "report/timeslice.h"
#include "report/wait_report.h"
#include "symbols/perfmap.h"
#include "symbols/symbolize.h"
#include "util/strpool.h"

/* Read path; one line on stderr and -1 on error. */
static int read_profile(const char *path, struct profile *p)
{
	char err[512];

	if (profile_load_file(path, p, err, sizeof(err)) == 0)
		return 0;
	cli_msg("%s: %s", path, err);
	return -1;
}

/* The files of one report: FILE... (or the BASE side of --diff), and
 * what messages call them: the file, or "the first and N more". */
struct inputs {
	const char *const *paths;
	size_t n;
	char label[512];
};

static void inputs_set(struct inputs *in, const char *const *paths, size_t n)
{
	in->paths = paths;
	in->n = n;
	if (n == 1)
		snprintf(in->label, sizeof(in->label), "%s", paths[0]);
	else
		snprintf(in->label, sizeof(in->label), "%s and %zu more",
			 paths[0], n - 1);
}

/* A regular file of the operands, by device and inode. */
struct file_id {
	dev_t dev;
	ino_t ino;
	size_t i; /* its index in inputs.paths */
};

static int file_id_cmp(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A file named twice among in (a glob and a name, a link): its samples
 * would count twice, so it is refused, as one line and -1.  Each file is
 * stat()ed once and the list sorted: a thousand rotated files cost a
 * thousand calls, not a million.  What cannot be stat()ed is left to the
 * reader to say. */
static int check_distinct(const struct inputs *in)
{
	struct file_id *ids = calloc(in->n, sizeof(*ids));
	struct stat st;
	size_t n = 0;
	int rc = 0;

	if (!ids) {
		cli_msg("out of memory reading %s", in->label);
		return -1;
	}
	for (size_t i = 0; i < in->n; i++)
		if (stat(in->paths[i], &st) == 0 && S_ISREG(st.st_mode))
			ids[n++] = (struct file_id){ st.st_dev, st.st_ino, i };
	qsort(ids, n, sizeof(*ids), file_id_cmp);
	for (size_t k = 1; k < n && !rc; k++)
		if (ids[k].dev == ids[k - 1].dev &&
		    ids[k].ino == ids[k - 1].ino) {
			cli_msg("%s and %s are the same file: its samples would count twice",
				in->paths[ids[k - 1].i], in->paths[ids[k].i]);
			rc = -1;
		}
	free(ids);
	return rc;
}

/* --from, --to on several files: each must have times, else its
 * samples would all be left out of the merge's window without a word. */
static int check_windowed(const struct options *o, const struct inputs *in,
			  const struct profile *parts)
{
	char err[512];

	for (size_t i = 0; o->windowed && i < in->n; i++)
		if (timeslice_usable(&parts[i], in->paths[i], err,
				     sizeof(err))) {
			cli_msg("%s", err);
			return -1;
		}
	return 0;
}

/* Read every file of in and merge them (profile_merge.h); one line on
 * stderr and -1 on error. */
static int read_profiles(const struct options *o, const struct inputs *in,
			 struct profile *p)
{
	struct profile *parts;
	char err[512];
	size_t i;
	int rc = -1;

	if (in->n == 1)
		return read_profile(in->paths[0], p);
	if (check_distinct(in))
		return -1;
	parts = calloc(in->n, sizeof(*parts));
	if (!parts) {
		cli_msg("out of memory reading %s", in->label);
		return -1;
	}
	for (i = 0; i < in->n && read_profile(in->paths[i], &parts[i]) == 0;
	     i++)
		;
	if (i == in->n && !check_windowed(o, in, parts)) {
		rc = profile_merge(parts, in->paths, in->n, p, err,
				   sizeof(err));
		if (rc)
			cli_msg("%s", err);
	}
	for (i = 0; i < in->n; i++)
		profile_free(&parts[i]);
	free(parts);
	return rc;
}

/* --threads and --thread need thread labels, which legacy files lack. */
static void need_threads(const char *path, struct profile *p)
{
	if (p->threads)
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE,
		"%s has no thread information: record with --format=pprof (or -o NAME.pb.gz)",
		path);
}

/* --thread: only that thread's samples (dies when it has none). */
static void keep_thread(const char *path, const char *sel, struct profile *p)
{
	need_threads(path, p);
	if (thread_report_keep(p, sel))
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE, "%s: no samples of thread '%s'", path, sel);
}

/*
 * The PID of a root of the form "/proc/PID/root" (or ".../root/"), else 0:
 * with such a --root the man page promises the files of that live process
 * through its map_files too (deleted or replaced since they were mapped).
 */
static pid_t root_pid(const char *root)
{
	int pid = 0, n = 0;

	if (!root || sscanf(root, "/proc/%d/root%n", &pid, &n) != 1 || !n ||
	    (root[n] && strcmp(root + n, "/")))
		return 0;
	return pid > 0 ? pid : 0;
}

/* --pid and --by-process need process labels, which legacy files and
 * older protobufs lack. */
static void need_processes(const char *path, struct profile *p, const char *opt)
{
	if (p->processes)
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE,
		"%s has no process information (a legacy profile, or a pprof one without process_id labels): %s needs it",
		path, opt);
}

/* --pid: only that process's samples (dies when it has none). */
static void keep_process(const char *path, const char *sel, struct profile *p)
{
	need_processes(path, p, "--pid");
	if (thread_report_keep_process(p, sel))
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE, "%s: no samples of process '%s'", path, sel);
}

/* --from, --to: only the samples of that window (dies when the profile
 * has no times). */
static void keep_window(const struct options *o, const char *label,
			struct profile *p)
{
	char err[512];
	ssize_t kept;

	if (!o->windowed)
		return;
	kept = timeslice_keep(p, &o->window, label, err, sizeof(err));
	if (kept == 0 && o->window.to_ns == INT64_MAX)
		cli_msg("%s: no samples %.3f s or more after its start", label,
			(double)o->window.from_ns / 1e9);
	else if (kept == 0)
		cli_msg("%s: no samples from %.3f s to %.3f s after its start",
			label, (double)o->window.from_ns / 1e9,
			(double)o->window.to_ns / 1e9);
	if (kept >= 0)
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE, "%s", err);
}

/* Read in and apply the filters (--from/--to, --pid, --thread) and
 * checks of o. */
static int load_profile(const struct options *o, const struct inputs *in,
			struct profile *p)
{
	if (read_profiles(o, in, p))
		return -1;
	keep_window(o, in->label, p);
	if (o->process)
		keep_process(in->label, o->process, p);
	if (o->by_process)
		need_processes(in->label, p, "--by-process");
	if (o->thread)
		keep_thread(in->label, o->thread, p);
	return 0;
}

/*
 * Address spaces named from their files, at most: a file's processes
 * share a few spaces (pprof_read.h), so only a hostile one has more, and
 * a symbolizer each would cost it memory without bound.  The spaces past
 * them share syms[n], which names nothing.
 */
#define REPORT_MAX_SPACES 4096

/* The symbolizers of space_symbolizers(), and the files they share. */
struct spaces {
	struct symbolizer **syms;
	struct symcache *cache;
};

static void free_symbolizers(struct spaces *sp, size_t n)
{
	struct symbolizer **syms = sp->syms;

	for (size_t i = 0; syms && i < n; i++)
		if (syms[i] != syms[n])
			symbolizer_free(syms[i]);
	if (syms)
		symbolizer_free(syms[n]);
	free(syms);
	symcache_free(sp->cache); /* after every symbolizer built with it */
	sp->syms = NULL;
	sp->cache = NULL;
}

/* A symbolizer for each address space of p that has records (profile.h:
 * the same address may mean other code in each), and one more at the
 * end for the spaces past REPORT_MAX_SPACES, into sp->syms (NULL on
 * ENOMEM).  They share one cache of files: the runs of a merged profile
 * and the processes of a tree map the same files (libc, the program),
 * whose symbols and DWARF are then read once, not once a space (nine
 * runs of an 11 MB C++ program: 343 MB and 5.6 s before). */
static struct symbolizer **space_symbolizers(const struct profile *p,
					     const char *root, size_t *past,
					     struct spaces *sp)
{
	size_t n = profile_nspaces(p), len, made = 0;
	struct symbolizer **syms = calloc(n + 1, sizeof(*syms));
	const char *text;

	*past = 0;
	sp->syms = syms;
	sp->cache = symcache_new();
	if (!syms || !sp->cache ||
	    !(syms[n] = symbolizer_new(NULL, 0, NULL, 0))) {
		free_symbolizers(sp, n);
		return NULL;
	}
	for (size_t i = 0; i < p->nrecords; i++) {
		size_t s = p->records[i].space;

		if (s >= n || syms[s])
			continue;
		if (made == REPORT_MAX_SPACES) {
			syms[s] = syms[n];
			++*past;
			continue;
		}
		text = profile_space_maps(p, s, &len);
		syms[s] = symbolizer_new_text_cached(text, len, root,
						     root_pid(root), sp->cache);
		made++;
		if (!syms[s]) {
			free_symbolizers(sp, n);
			return NULL;
		}
	}
	return syms;
}

/* The files the symbolizers would not trust, each once. */
static void warn_refused(const struct profile *p, struct symbolizer **syms)
{
	struct strpool *seen = strpool_new();
	const char *bad, *why;

	for (size_t i = 0; seen && i < profile_nspaces(p); i++)
		for (size_t next = 0;
		     syms[i] &&
		     (bad = symbolizer_refused(syms[i], &next, &why));) {
			size_t before = strpool_count(seen);

			if (strpool_intern(seen, bad) < 0 ||
			    strpool_count(seen) == before)
				continue;
			cli_msg("%s %s: %s", bad, why,
				p->nnames ? "its addresses are named as the "
					    "profile names them" :
					    "its addresses are not named");
		}
	strpool_free(seen);
}

/*
 * Names for JIT code (perfmap.h): --perf-map FILE; else, for a legacy
 * profile that names its process (profile.h), that process's perf map:
 * through its root when --root is /proc/PID/root of that very PID (it
 * lives: `ptprof -p PID --top`), else /tmp/perf-PID.map if it is still
 * there and ours or root's.  A map refused is one warning line; no map
 * (the runtime was not asked for one) is none.  NULL: no names.
 */
static struct perfmap *report_jit(const struct options *o,
				  const struct inputs *in,
				  const struct profile *p)
{
	struct perfmap *m;
	char err[512];
	pid_t pid = (pid_t)p->pid;

	if (o->perf_map)
		m = perfmap_load_file(o->perf_map, PERFMAP_ANY_OWNER, err,
				      sizeof(err));
	else if (pid > 0 && root_pid(o->root) == pid)
		m = perfmap_load_pid(pid, err, sizeof(err));
	else if (pid > 0)
		m = perfmap_load_gone(pid, geteuid(), err, sizeof(err));
	else
		return NULL;
	if (!m && (o->perf_map || errno != ENOENT))
		cli_msg("%s", err);
	if (m && perfmap_malformed(m))
		cli_msg("perf map of %s: %zu malformed lines skipped",
			in->label, perfmap_malformed(m));
	return m;
}

/* Read in and build its report; one line on stderr and NULL on error.
 * kind: the profile's (profile.h), when not NULL. */
static struct report *load(const struct options *o, const struct inputs *in,
			   char *kind)
{
	struct report_options ro = { .lines = o->lines,
				     .by_process = o->by_process,
				     .waits = o->format != REPORT_TEXT,
				     .no_inline = o->no_inline };
	struct symbolizer **syms;
	struct spaces sp = { 0 };
	struct perfmap *jit;
	struct profile p;
	struct report *r;
	size_t past;

	if (load_profile(o, in, &p))
		return NULL;
	if (kind)
		memcpy(kind, p.kind, sizeof(p.kind));
	ro.jit = jit = report_jit(o, in, &p);
	syms = space_symbolizers(&p, o->root, &past, &sp);
	if (past)
		cli_msg("%s: %zu address spaces have samples: the addresses of the %zu past the first %d are not named",
			in->label, past + REPORT_MAX_SPACES, past,
			REPORT_MAX_SPACES);
	r = syms ? report_build(&p, syms, &ro) : NULL;
	if (!r && errno == ENOMEM)
		cli_msg("%s: out of memory building the report", in->label);
	else if (!r)
		cli_msg("%s: %s", in->label, strerror(errno));
	if (r)
		warn_refused(&p, syms);
	free_symbolizers(&sp, profile_nspaces(&p));
	perfmap_free(jit);
	profile_free(&p);
	return r;
}

/* ptprof report --threads: no symbols needed. */
static int threads_table(const struct options *o, const struct inputs *in)
{
	struct profile p;
	int rc;

	if (load_profile(o, in, &p))
		return EXIT_FAILURE;
	need_threads(in->label, &p);
	rc = thread_report_write(&p, stdout);
	profile_free(&p);
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

/* ptprof report --processes: a legacy file, or a protobuf without
 * process labels, is one process whose PID is not known. */
static int processes_table(const struct options *o, const struct inputs *in)
{
	struct profile p;
	int rc;

	if (read_profiles(o, in, &p))
		return EXIT_FAILURE;
	keep_window(o, in->label, &p);
	if (!p.processes)
		cli_msg("%s has no process information (a legacy profile, or a pprof one without process_id labels): its samples are one process, PID unknown",
			in->label);
	rc = thread_report_write_processes(&p, stdout);
	profile_free(&p);
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

/* ptprof report --waits: wall time by what it waited for (wait labels
 * of a --wall pprof profile), its frames named as the table's. */
static int waits_table(const struct options *o, const struct inputs *in)
{
	struct symbolizer **syms;
	struct spaces sp = { 0 };
	struct profile p;
	size_t past;
	int rc;

	if (load_profile(o, in, &p))
		return EXIT_FAILURE;
	if (!wait_report_has_waits(&p)) {
		profile_free(&p);
		cli_die(EXIT_FAILURE,
			"%s has no wait labels: record a pprof profile with --wall (-o NAME.pb.gz)",
			in->label);
	}
	syms = space_symbolizers(&p, o->root, &past, &sp);
	rc = syms ? wait_report_write(&p, syms, stdout, o->top) : -1;
	if (syms)
		free_symbolizers(&sp, profile_nspaces(&p));
	profile_free(&p);
	if (rc && errno == ENOMEM)
		cli_die(EXIT_FAILURE, "%s: out of memory building the report",
			in->label);
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

/* A writer's failure: one line and exit 1. */
/* The flame graph reached its bound (flame.h): say what it left out. */
static void say_cut(const struct flame_drawn *drawn)
{
	if (drawn->depth_cut)
		cli_msg("the flame graph is bounded to about 32 MB: frames "
			"from depth %zu on not drawn (%" PRIu64
			" at that depth; %" PRIu64
			" frames narrower than 0.1 px not drawn either)",
			drawn->depth_cut, drawn->cut, drawn->narrow);
}

static void write_failed(const struct options *o)
{
	/* The writers only allocate before they write (the flame graph's
	 * frames; the table's rows are built already), and a write to a
	 * stream fails with the errno of write(2), which is never ENOMEM. */
	if (errno == ENOMEM)
		cli_die(EXIT_FAILURE, "out of memory building the %s",
			o->format == REPORT_SVG ? "flame graph" : "report");
	cli_die(EXIT_FAILURE, "cannot write the report: %s", strerror(errno));
}

/* The name of in in a title: the file's base name, "and N more". */
static void title_name(const struct inputs *in, char *buf, size_t len)
{
	if (in->n == 1)
		snprintf(buf, len, "%s", report_base_name(in->paths[0]));
	else
		snprintf(buf, len, "%s and %zu more",
			 report_base_name(in->paths[0]), in->n - 1);
}

/* ptprof report --diff BASE... NEW...: both sides built alike. */
static int diff_report(const struct options *o, const struct inputs *nw)
{
	struct flame_drawn drawn = { 0 };
	struct inputs base;
	struct report *r[2] = { NULL, NULL };
	struct report_diff *d = NULL;
	char kind[2][16], title[1200], bn[512], nn[512];
	int rc = -1;

	inputs_set(&base, o->diff_bases, o->ndiff_bases);
	if (!(r[0] = load(o, &base, kind[0])) || !(r[1] = load(o, nw, kind[1])))
		goto out;
	if (kind[0][0] && kind[1][0] && strcmp(kind[0], kind[1])) {
		cli_msg("%s holds %s samples and %s %s samples: they measure different things and do not compare",
			nw->label, kind[1], base.label, kind[0]);
		goto out;
	}
	d = report_diff_build(r[0], r[1], base.label, nw->label);
	if (!d) {
		cli_msg("out of memory comparing %s with %s", nw->label,
			base.label);
		goto out;
	}
	title_name(&base, bn, sizeof(bn));
	title_name(nw, nn, sizeof(nn));
	snprintf(title, sizeof(title), "ptprof diff: %s -> %s", bn, nn);
	if (o->format == REPORT_FOLDED)
		rc = report_diff_write_folded(d, stdout);
	else if (o->format == REPORT_SVG)
		rc = report_diff_write_svg(d, stdout, title, &drawn),
		say_cut(&drawn);
	else
		rc = report_diff_write_text(d, stdout, o->top);
	if (rc)
		write_failed(o);
out:
	report_diff_free(d);
	report_free(r[0]);
	report_free(r[1]);
	return rc ? EXIT_FAILURE : 0;
}

int cmd_report(const struct options *o)
{
	struct flame_drawn drawn = { 0 };
	struct inputs in;
	struct report *r;
	char title[1024], name[512];
	int rc;

	if (o->ninputs)
		inputs_set(&in, (const char *const *)o->inputs, o->ninputs);
	else
		inputs_set(&in, &o->input, 1);
	if (o->ndiff_bases)
		return diff_report(o, &in);
	if (o->threads)
		return threads_table(o, &in);
	if (o->processes)
		return processes_table(o, &in);
	if (o->waits)
		return waits_table(o, &in);
	r = load(o, &in, NULL);
	if (!r)
		return EXIT_FAILURE;
	switch (o->format) {
	case REPORT_FOLDED:
		rc = report_write_folded(r, stdout);
		break;
	case REPORT_SVG:
		title_name(&in, name, sizeof(name));
		snprintf(title, sizeof(title),
			 "ptprof: %s, %" PRIu64 " samples", name,
			 report_total(r));
		rc = report_write_svg(r, stdout, title, &drawn);
		say_cut(&drawn);
		break;
	default:
		rc = report_write_text(r, stdout, o->top);
		break;
	}
	report_free(r);
	if (rc)
		write_failed(o);
	return 0;
}

int cmd_report_top(const char *path, unsigned top, const char *root,
		   bool no_inline, FILE *out)
{
	struct options o = { .input = path,
			     .root = root,
			     .no_inline = no_inline };
	struct inputs in;
	struct report *r;

	inputs_set(&in, &o.input, 1);
	r = load(&o, &in, NULL);
	int rc;

	if (!r)
		return 1;
	rc = report_write_text(r, out, top);
	if (fflush(out))
		rc = -1;
	report_free(r);
	if (rc)
		cli_msg("cannot write the report: %s", strerror(errno));
	return rc ? 1 : 0;
}
