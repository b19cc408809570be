/*
 * cmd_report.c - ptprof report, and the table after a recording (cmds.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "profile_load.h"
#include "report.h"
#include "symbolize.h"
#include "thread_report.h"

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

/* Read path and build its report; one line on stderr and NULL on error. */
static struct report *load(const char *path, const char *root, bool lines,
			   const char *thread)
{
	struct profile p;
	struct symbolizer *sym;
	struct report *r;
	const char *bad, *why;

	if (read_profile(path, &p))
		return NULL;
	if (thread)
		keep_thread(path, thread, &p);
	sym = symbolizer_new(p.maps_text, p.maps_len, root, root_pid(root));
	r = sym ? report_build(&p, sym, lines) : NULL;
	if (!r && errno == ENOMEM)
		cli_msg("%s: out of memory building the report", path);
	else if (!r)
		cli_msg("%s: %s", path, strerror(errno));
	for (size_t next = 0;
	     r && (bad = symbolizer_refused(sym, &next, &why));)
		cli_msg("%s %s: %s", bad, why,
			p.nnames ? "its addresses are named as the profile "
				   "names them" :
				   "its addresses are not named");
	symbolizer_free(sym);
	profile_free(&p);
	return r;
}

/* ptprof report --threads: no symbols needed. */
static int threads_table(const char *path)
{
	struct profile p;
	int rc;

	if (read_profile(path, &p))
		return EXIT_FAILURE;
	need_threads(path, &p);
	rc = thread_report_write(&p, stdout);
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
		return threads_table(o->input);
	r = load(o->input, o->root, o->lines, o->thread);
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
	struct report *r = load(path, root, false, NULL);
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
