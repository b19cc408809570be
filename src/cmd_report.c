/*
 * cmd_report.c - ptprof report, and the table after a recording (cmds.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "perfmap.h"
#include "profile_load.h"
#include "report.h"
#include "strpool.h"
#include "symbolize.h"
#include "thread_report.h"
#include "timeslice.h"

/* Read path; one line on stderr and -1 on error. */
static int read_profile(const char *path, struct profile *p)
{
	char err[512];

	if (profile_load_file(path, p, err, sizeof(err)) == 0)
		return 0;
	cli_msg("%s: %s", path, err);
	return -1;
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
static void keep_window(const struct options *o, struct profile *p)
{
	char err[512];
	ssize_t kept;

	if (!o->windowed)
		return;
	kept = timeslice_keep(p, &o->window, o->input, err, sizeof(err));
	if (kept == 0 && o->window.to_ns == INT64_MAX)
		cli_msg("%s: no samples %.3f s or more after its start",
			o->input, (double)o->window.from_ns / 1e9);
	else if (kept == 0)
		cli_msg("%s: no samples from %.3f s to %.3f s after its start",
			o->input, (double)o->window.from_ns / 1e9,
			(double)o->window.to_ns / 1e9);
	if (kept >= 0)
		return;
	profile_free(p);
	cli_die(EXIT_FAILURE, "%s", err);
}

/* Read path and apply the filters (--from/--to, --pid, --thread) and
 * checks of o. */
static int load_profile(const struct options *o, struct profile *p)
{
	if (read_profile(o->input, p))
		return -1;
	keep_window(o, p);
	if (o->process)
		keep_process(o->input, o->process, p);
	if (o->by_process)
		need_processes(o->input, p, "--by-process");
	if (o->thread)
		keep_thread(o->input, o->thread, p);
	return 0;
}

/*
 * Address spaces named from their files, at most: a file's processes
 * share a few spaces (pprof_read.h), so only a hostile one has more, and
 * a symbolizer each would cost it memory without bound.  The spaces past
 * them share syms[n], which names nothing.
 */
#define REPORT_MAX_SPACES 4096

static void free_symbolizers(struct symbolizer **syms, size_t n)
{
	for (size_t i = 0; syms && i < n; i++)
		if (syms[i] != syms[n])
			symbolizer_free(syms[i]);
	if (syms)
		symbolizer_free(syms[n]);
	free(syms);
}

/* A symbolizer for each address space of p that has records (profile.h:
 * the same address may mean other code in each), and one more at the
 * end for the spaces past REPORT_MAX_SPACES; NULL on ENOMEM. */
static struct symbolizer **space_symbolizers(const struct profile *p,
					     const char *root, size_t *past)
{
	size_t n = profile_nspaces(p), len, made = 0;
	struct symbolizer **syms = calloc(n + 1, sizeof(*syms));
	const char *text;

	*past = 0;
	if (!syms || !(syms[n] = symbolizer_new(NULL, 0, NULL, 0))) {
		free(syms);
		return NULL;
	}
	for (size_t i = 0; i < p->nrecords; i++) {
		size_t sp = p->records[i].space;

		if (sp >= n || syms[sp])
			continue;
		if (made == REPORT_MAX_SPACES) {
			syms[sp] = syms[n];
			++*past;
			continue;
		}
		text = profile_space_maps(p, sp, &len);
		syms[sp] = symbolizer_new(text, len, root, root_pid(root));
		made++;
		if (!syms[sp]) {
			free_symbolizers(syms, n);
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
		cli_msg("perf map of %s: %zu malformed lines skipped", o->input,
			perfmap_malformed(m));
	return m;
}

/* Read o->input and build its report; one line on stderr and NULL on
 * error. */
static struct report *load(const struct options *o)
{
	struct report_options ro = { .lines = o->lines,
				     .by_process = o->by_process };
	struct symbolizer **syms;
	struct perfmap *jit;
	struct profile p;
	struct report *r;
	size_t past;

	if (load_profile(o, &p))
		return NULL;
	ro.jit = jit = report_jit(o, &p);
	syms = space_symbolizers(&p, o->root, &past);
	if (past)
		cli_msg("%s: %zu address spaces have samples: the addresses of the %zu past the first %d are not named",
			o->input, past + REPORT_MAX_SPACES, past,
			REPORT_MAX_SPACES);
	r = syms ? report_build(&p, syms, &ro) : NULL;
	if (!r && errno == ENOMEM)
		cli_msg("%s: out of memory building the report", o->input);
	else if (!r)
		cli_msg("%s: %s", o->input, strerror(errno));
	if (r)
		warn_refused(&p, syms);
	free_symbolizers(syms, profile_nspaces(&p));
	perfmap_free(jit);
	profile_free(&p);
	return r;
}

/* ptprof report --threads: no symbols needed. */
static int threads_table(const struct options *o)
{
	struct profile p;
	int rc;

	if (load_profile(o, &p))
		return EXIT_FAILURE;
	need_threads(o->input, &p);
	rc = thread_report_write(&p, stdout);
	profile_free(&p);
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

/* ptprof report --processes: a legacy file, or a protobuf without
 * process labels, is one process whose PID is not known. */
static int processes_table(const struct options *o)
{
	struct profile p;
	int rc;

	if (read_profile(o->input, &p))
		return EXIT_FAILURE;
	keep_window(o, &p);
	if (!p.processes)
		cli_msg("%s has no process information (a legacy profile, or a pprof one without process_id labels): its samples are one process, PID unknown",
			o->input);
	rc = thread_report_write_processes(&p, stdout);
	profile_free(&p);
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

int cmd_report(const struct options *o)
{
	struct report *r;
	char title[512];
	int rc;

	if (o->threads)
		return threads_table(o);
	if (o->processes)
		return processes_table(o);
	r = load(o);
	if (!r)
		return EXIT_FAILURE;
	switch (o->format) {
	case REPORT_FOLDED:
		rc = report_write_folded(r, stdout);
		break;
	case REPORT_SVG:
		snprintf(title, sizeof(title),
			 "ptprof: %s, %" PRIu64 " samples",
			 report_base_name(o->input), report_total(r));
		rc = report_write_svg(r, stdout, title);
		break;
	default:
		rc = report_write_text(r, stdout, o->top);
		break;
	}
	report_free(r);
	/* The writers only allocate before they write (the flame graph's
	 * frames; the table's rows are built already), and a write to a
	 * stream fails with the errno of write(2), which is never ENOMEM. */
	if (rc && errno == ENOMEM)
		cli_die(EXIT_FAILURE, "out of memory building the %s",
			o->format == REPORT_SVG ? "flame graph" : "report");
	if (rc)
		cli_die(EXIT_FAILURE, "cannot write the report: %s",
			strerror(errno));
	return 0;
}

int cmd_report_top(const char *path, unsigned top, const char *root, FILE *out)
{
	struct options o = { .input = path, .root = root };
	struct report *r = load(&o);
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
