/*
 * options_subcmd.c - the options of ptprof report, dump and top
 * (options_int.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "cli/options_int.h"
#include "report/timeslice.h"
#include "util/errbuf.h"
#include "util/grow.h"

static const struct option report_options[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "svg", no_argument, NULL, OPT_SVG },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "perf-map", required_argument, NULL, OPT_PERF_MAP },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "processes", no_argument, NULL, OPT_PROCESSES },
	{ "pid", required_argument, NULL, OPT_REPORT_PID },
	{ "by-process", no_argument, NULL, OPT_BY_PROCESS },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "waits", no_argument, NULL, OPT_WAITS },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option top_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "frequency", required_argument, NULL, 'f' },
	{ "duration", required_argument, NULL, 'd' },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "no-peek", no_argument, NULL, OPT_NO_PEEK },
	{ "tid", required_argument, NULL, 't' },
	{ "thread-name", required_argument, NULL, OPT_THREAD_NAME },
	{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "unsafe-seccomp", no_argument, NULL, OPT_UNSAFE_SECCOMP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option dump_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "unsafe-seccomp", no_argument, NULL, OPT_UNSAFE_SECCOMP },
	{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
	{ "no-peek", no_argument, NULL, OPT_NO_PEEK },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --diff=BASE (repeatable: the BASE profiles, merged). */
static int add_diff_base(const char *arg, struct options *o, char *err,
			 size_t len)
{
	const char **b;

	if (!*arg)
		return errbuf_fail(err, len, EINVAL,
				   "empty --diff BASE file name");
	b = grow_array(o->diff_bases, &o->diff_cap_, o->ndiff_bases + 1,
		       sizeof(*b));
	if (!b)
		return errbuf_fail(err, len, ENOMEM, "out of memory");
	o->diff_bases = b;
	o->diff_bases[o->ndiff_bases++] = arg;
	return 0;
}

static int parse_report_one(int c, const char *arg, struct options *o,
			    char *err, size_t len)
{
	switch (c) {
	case OPT_LINES:
		o->lines = 1;
		return 0;
	case OPT_FOLDED:
	case OPT_SVG:
		if (o->format != REPORT_TEXT)
			return errbuf_fail(
				err, len, EINVAL,
				"--folded and --svg are mutually exclusive");
		o->format = c == OPT_SVG ? REPORT_SVG : REPORT_FOLDED;
		return 0;
	case OPT_ROOT:
		if (!*arg)
			return errbuf_fail(err, len, EINVAL,
					   "empty --root directory");
		o->root = arg;
		return 0;
	case OPT_PERF_MAP:
		if (!*arg)
			return errbuf_fail(err, len, EINVAL,
					   "empty --perf-map file");
		o->perf_map = arg;
		return 0;
	case OPT_THREADS:
		o->threads = 1;
		return 0;
	case OPT_THREAD:
		if (!*arg)
			return errbuf_fail(err, len, EINVAL, "empty --thread");
		o->thread = arg;
		return 0;
	case OPT_PROCESSES:
		o->processes = 1;
		return 0;
	case OPT_REPORT_PID:
		if (!*arg)
			return errbuf_fail(err, len, EINVAL, "empty --pid");
		o->process = arg;
		return 0;
	case OPT_BY_PROCESS:
		o->by_process = 1;
		return 0;
	case OPT_WAITS:
		o->waits = 1;
		return 0;
	case OPT_NO_INLINE:
		o->no_inline = 1;
		return 0;
	case OPT_FROM:
	case OPT_TO:
		o->windowed = 1;
		return timeslice_parse_sec(arg,
					   c == OPT_FROM ? "--from" : "--to",
					   c == OPT_FROM ? &o->window.from_ns :
							   &o->window.to_ns,
					   err, len);
	case OPT_DIFF:
		return add_diff_base(arg, o, err, len);
	default:
		return options_parse_common(c, arg, o, err, len);
	}
}

static int parse_dump_one(int c, const char *arg, struct options *o, char *err,
			  size_t len)
{
	switch (c) {
	case 'p':
		return options_value_list(arg, options_value_pid, o, err, len);
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_CHILDREN:
		o->children = 1;
		return 0;
	case OPT_UNSAFE_SECCOMP:
		o->unsafe_seccomp = 1;
		return 0;
	case OPT_NO_PYTHON:
		o->no_python = 1;
		return 0;
	case OPT_NO_PEEK:
		o->no_peek = 1;
		return 0;
	case OPT_NO_INLINE:
		o->no_inline = 1;
		return 0;
	case OPT_KERNEL:
	case OPT_NO_KERNEL:
		/* the last one given counts; neither: AUTO, when readable */
		o->kernel = c == OPT_KERNEL ? OPTIONS_KERNEL_ON :
					      OPTIONS_KERNEL_OFF;
		return 0;
	default:
		return options_parse_common(c, arg, o, err, len);
	}
}

/* --processes, --pid and --by-process with the other report options. */
static int check_report_processes(struct options *o, const char *input,
				  char *err, size_t len)
{
	if (o->processes &&
	    (o->lines || o->format != REPORT_TEXT || o->thread || o->threads ||
	     o->process || o->by_process))
		return errbuf_fail(
			err, len, EINVAL,
			"report: --processes goes with no --lines, --folded, --svg, --thread, --threads, --pid or --by-process");
	if (o->by_process && o->format == REPORT_TEXT)
		return errbuf_fail(
			err, len, EINVAL,
			"report: --by-process goes with --folded or --svg only");
	o->input = input;
	return 0;
}

int options_subcmd_report(int argc, char **argv, struct options *o, char *err,
			  size_t len)
{
	o->action = ACTION_REPORT;
	o->usage = options_report_usage;
	o->window = (struct timeslice){ 0, INT64_MAX };
	if (options_parse_with(argc, argv, ":h", report_options,
			       parse_report_one, o, err, len))
		return -1;
	if (o->action == ACTION_HELP)
		return 0;
	if (optind >= argc && o->ndiff_bases)
		return errbuf_fail(err, len, EINVAL,
				   "report: --diff BASE needs a NEW profile FILE");
	if (optind >= argc)
		return errbuf_fail(err, len, EINVAL,
				   "report: no profile FILE given");
	for (int i = optind; i < argc; i++)
		if (!argv[i][0])
			return errbuf_fail(err, len, EINVAL,
					   "report: empty FILE name");
	o->inputs = argv + optind;
	o->ninputs = (size_t)(argc - optind);
	if (o->ndiff_bases && (o->threads || o->processes))
		return errbuf_fail(
			err, len, EINVAL,
			"report: --diff goes with no --threads or --processes");
	if (o->lines && o->format != REPORT_TEXT)
		return errbuf_fail(err, len, EINVAL,
				   "report: --lines goes with the text table only");
	if (o->threads && (o->lines || o->format != REPORT_TEXT || o->thread))
		return errbuf_fail(
			err, len, EINVAL,
			"report: --threads goes with no --lines, --folded, --svg or --thread");
	if (o->waits && (o->lines || o->format != REPORT_TEXT || o->threads ||
			 o->processes || o->by_process || o->ndiff_bases))
		return errbuf_fail(
			err, len, EINVAL,
			"report: --waits goes with no --lines, --folded, --svg, --threads, --processes, --by-process or --diff");
	if (o->windowed && timeslice_check(&o->window, err, len))
		return -1;
	return check_report_processes(o, argv[optind], err, len);
}

int options_subcmd_dump(int argc, char **argv, struct options *o, char *err,
			size_t len)
{
	o->action = ACTION_DUMP;
	o->usage = options_dump_usage;
	if (options_parse_with(argc, argv, ":p:h", dump_options, parse_dump_one,
			       o, err, len))
		return -1;
	if (o->action == ACTION_HELP)
		return 0;
	if (optind < argc)
		return errbuf_fail(err, len, EINVAL,
				   "dump: unexpected argument '%s'",
				   argv[optind]);
	if (!o->pid_given)
		return errbuf_fail(err, len, EINVAL,
				   "dump: no process given: use -p PID");
	return 0;
}

static int parse_window(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, 1, 60, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --window '%s': expected 1..60 seconds",
				   s);
	o->top_window = (unsigned)v;
	return 0;
}

/* top: record's sampling options (options_record_one()), and its own. */
static int parse_top_one(int c, const char *arg, struct options *o, char *err,
			 size_t len)
{
	switch (c) {
	case OPT_WINDOW:
		return parse_window(arg, o, err, len);
	case OPT_THREADS:
		o->thread_view = 1;
		return 0;
	case OPT_NO_INLINE:
		o->no_inline = 1;
		return 0;
	default:
		return options_record_one(c, arg, o, err, len);
	}
}

int options_subcmd_top(int argc, char **argv, struct options *o, char *err,
		       size_t len)
{
	o->action = ACTION_TOP;
	o->usage = options_top_usage;
	o->top_window = 10;
	if (options_parse_with(argc, argv, ":p:f:d:t:h", top_options,
			       parse_top_one, o, err, len))
		return -1;
	if (o->action == ACTION_HELP)
		return 0;
	if (optind < argc)
		return errbuf_fail(err, len, EINVAL,
				   "top: unexpected argument '%s'",
				   argv[optind]);
	if (!o->pid_given)
		return errbuf_fail(err, len, EINVAL,
				   "top: no process given: use -p PID");
	if (o->no_peek && !o->wall)
		return errbuf_fail(err, len, EINVAL,
				   "top: --no-peek goes with --wall");
	if (o->children < 0)
		o->children = 0;
	return 0;
}
