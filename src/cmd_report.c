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
#include "profile_read.h"
#include "report.h"
#include "symbolize.h"

/* Read path and build its report; one line on stderr and NULL on error. */
static struct report *load(const char *path, const char *root, bool lines)
{
	struct profile p;
	struct symbolizer *sym;
	struct report *r;
	char err[512];

	if (profile_read_file(path, &p, err, sizeof(err))) {
		msg("%s: %s", path, err);
		return NULL;
	}
	sym = symbolizer_new(p.maps_text, p.maps_len, root);
	r = sym ? report_build(&p, sym, lines) : NULL;
	if (!r)
		msg("%s: %s", path, strerror(errno));
	symbolizer_free(sym);
	profile_free(&p);
	return r;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

int cmd_report(const struct options *o)
{
	struct report *r = load(o->input, o->root, o->lines);
	char title[512];
	int rc;

	if (!r)
		return EXIT_FAILURE;
	switch (o->format) {
	case REPORT_FOLDED:
		rc = report_write_folded(r, stdout);
		break;
	case REPORT_SVG:
		snprintf(title, sizeof(title), "ptprof: %s, %" PRIu64 " samples",
			 base_name(o->input), report_total(r));
		rc = report_write_svg(r, stdout, title);
		break;
	default:
		rc = report_write_text(r, stdout, o->top);
		break;
	}
	report_free(r);
	if (rc)
		die(EXIT_FAILURE, "cannot write the report: %s", strerror(errno));
	return 0;
}

int report_top(const char *path, unsigned top, const char *root)
{
	struct report *r = load(path, root, false);
	int rc;

	if (!r)
		return 1;
	rc = report_write_text(r, stdout, top);
	report_free(r);
	if (rc)
		msg("cannot write the report: %s", strerror(errno));
	return rc ? 1 : 0;
}
