/*
 * options_record.c - the options of a recording, ptprof -p PID and ptprof
 * -- COMMAND (options_int.h); top takes its sampling options from here.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/options_int.h"
#include "profile/outname.h"
#include "profile/stacktab.h"
#include "util/errbuf.h"

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "frequency", required_argument, NULL, 'f' },
	{ "max-overhead", required_argument, NULL, OPT_MAX_OVERHEAD },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "tid", required_argument, NULL, 't' },
	{ "thread-name", required_argument, NULL, OPT_THREAD_NAME },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "unsafe-seccomp", no_argument, NULL, OPT_UNSAFE_SECCOMP },
	{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "no-peek", no_argument, NULL, OPT_NO_PEEK },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_hz(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, PTPROF_MIN_HZ, PTPROF_MAX_HZ, &v))
		return errbuf_fail(
			err, len, EINVAL,
			"invalid frequency '%s': expected %d..%d samples per second",
			s, PTPROF_MIN_HZ, PTPROF_MAX_HZ);
	o->hz = (unsigned)v;
	return 0;
}

static int parse_duration(const char *s, struct options *o, char *err,
			  size_t len)
{
	double v;

	/* at least 1 ms: a shorter one would round to "no limit" */
	if (options_value_decimal(s, &v) || v < 0.001 || v > 31536000.0)
		return errbuf_fail(
			err, len, EINVAL,
			"invalid duration '%s': expected seconds, 0.001 or more",
			s);
	o->duration_s = v;
	return 0;
}

/* --max-overhead=PCT: a percentage, more than 0 and at most 100; a
 * fraction is allowed (0.5), a '%' sign is not (it says nothing more). */
static int parse_max_overhead(const char *s, struct options *o, char *err,
			      size_t len)
{
	double v;

	if (options_value_decimal(s, &v) || v <= 0 || v > 100)
		return errbuf_fail(
			err, len, EINVAL,
			"invalid --max-overhead '%s': expected a percentage above 0 and at most 100 (e.g. 1 or 0.5)",
			s);
	o->max_overhead_pct = v;
	return 0;
}

/* --rotate=SECONDS: whole seconds, so that %t (one-second resolution)
 * names each period apart; at most a year, as -d. */
static int parse_rotate(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, 1, OPTIONS_MAX_ROTATE, &v))
		return errbuf_fail(
			err, len, EINVAL,
			"invalid --rotate '%s': expected whole seconds, 1..%d",
			s, OPTIONS_MAX_ROTATE);
	o->rotate_s = (unsigned)v;
	return 0;
}

static int parse_keep(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, 1, OPTIONS_MAX_KEEP, &v))
		return errbuf_fail(
			err, len, EINVAL,
			"invalid --keep '%s': expected a number of files, 1..%d",
			s, OPTIONS_MAX_KEEP);
	o->keep = (unsigned)v;
	return 0;
}

static int parse_depth(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (options_value_ulong(s, 1, STACKTAB_MAX_DEPTH, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --max-depth '%s': expected 1..%d",
				   s, STACKTAB_MAX_DEPTH);
	o->max_depth = (unsigned)v;
	return 0;
}

/* -o, at most twice (one legacy and one pprof file from one run). */
static int add_output(const char *s, struct options *o, char *err, size_t len)
{
	if (!*s)
		return errbuf_fail(err, len, EINVAL, "empty output file name");
	if (o->noutputs_ == 2)
		return errbuf_fail(
			err, len, EINVAL,
			"too many -o: at most two, one legacy and one pprof (NAME.pb.gz)");
	o->outputs_[o->noutputs_++] = s;
	return 0;
}

static int parse_format(const char *s, struct options *o, char *err, size_t len)
{
	if (!strcmp(s, "legacy"))
		o->output_format = OUTPUT_LEGACY;
	else if (!strcmp(s, "pprof"))
		o->output_format = OUTPUT_PPROF;
	else
		return errbuf_fail(err, len, EINVAL,
				   "invalid --format '%s': expected legacy or pprof",
				   s);
	return 0;
}

static bool is_pprof_name(const char *s)
{
	size_t n = strlen(s);

	return n >= 6 && !strcmp(s + n - 6, ".pb.gz");
}

/* Which -o is which format: a .pb.gz name is pprof, any other name is
 * what --format says (legacy by default); no -o: the default name of the
 * format.  Two names of one format are refused. */
/* Without -o: ptprof.prof for one process, ptprof.pb.gz for --format=pprof
 * or a run that may cover several (several -p, or children followed),
 * which the legacy format, one address space, cannot hold. */
static int resolve_outputs(struct options *o, char *err, size_t len)
{
	bool pprof_fmt = o->output_format == OUTPUT_PPROF;
	bool several = o->children > 0 || o->npids > 1;

	if (!o->noutputs_)
		o->outputs_[o->noutputs_++] =
			pprof_fmt || (several &&
				      o->output_format == OUTPUT_DEFAULT) ?
				PTPROF_DEFAULT_PPROF_OUTPUT :
				PTPROF_DEFAULT_OUTPUT;
	for (unsigned i = 0; i < o->noutputs_; i++) {
		const char *s = o->outputs_[i];
		const char **slot = is_pprof_name(s) || pprof_fmt ?
					    &o->pprof_output :
					    &o->legacy_output;

		if (*slot)
			return errbuf_fail(
				err, len, EINVAL,
				"-o '%s' and -o '%s' are both %s profiles: give one legacy and one pprof (NAME.pb.gz)",
				*slot, s,
				slot == &o->pprof_output ? "pprof" : "legacy");
		*slot = s;
	}
	o->output = o->outputs_[0];
	return 0;
}

int options_record_one(int c, const char *arg, struct options *o, char *err,
		       size_t len)
{
	switch (c) {
	case 'p':
		return options_value_list(arg, options_value_pid, o, err, len);
	case 'f':
		return parse_hz(arg, o, err, len);
	case 'o':
		return add_output(arg, o, err, len);
	case OPT_FORMAT:
		return parse_format(arg, o, err, len);
	case 'd':
		return parse_duration(arg, o, err, len);
	case OPT_MAX_OVERHEAD:
		return parse_max_overhead(arg, o, err, len);
	case OPT_MAX_DEPTH:
		return parse_depth(arg, o, err, len);
	case OPT_ROTATE:
		return parse_rotate(arg, o, err, len);
	case OPT_KEEP:
		return parse_keep(arg, o, err, len);
	case 'q':
		o->quiet = 1;
		return 0;
	case OPT_UNSAFE_SECCOMP:
		o->unsafe_seccomp = 1;
		return 0;
	case OPT_NO_PYTHON:
		o->no_python = 1;
		return 0;
	case OPT_NO_INLINE:
		o->no_inline = 1;
		return 0;
	case OPT_NO_PEEK:
		o->no_peek = 1;
		return 0;
	case OPT_WALL:
		o->wall = 1;
		return 0;
	case OPT_KERNEL:
	case OPT_NO_KERNEL:
		/* the last one given counts */
		o->kernel = c == OPT_KERNEL ? OPTIONS_KERNEL_ON :
					      OPTIONS_KERNEL_OFF;
		return 0;
	case OPT_CHILDREN:
	case OPT_NO_CHILDREN:
		/* the last one given counts */
		o->children = c == OPT_CHILDREN;
		return 0;
	case OPT_STATS:
		o->stats = 1;
		return 0;
	case 't':
		return options_value_list(arg, options_value_tid, o, err, len);
	case OPT_THREAD_NAME:
		return options_value_thread_name(arg, o, err, len);
	case 'V':
		o->action = ACTION_VERSION;
		return 0;
	default:
		return options_parse_common(c, arg, o, err, len);
	}
}

/* --children, --no-children or the action's default: COMMAND's
 * descendants are followed unless --no-children (as perf record does),
 * those of -p processes only with --children.  --no-children says
 * nothing with -p: refused rather than ignored. */
static int check_children(struct options *o, char *err, size_t len)
{
	bool command = o->action == ACTION_RECORD_COMMAND;

	if (o->children == 0 && !command)
		return errbuf_fail(
			err, len, EINVAL,
			"--no-children goes with -- COMMAND only (the descendants of -p PID are followed only with --children)");
	if (o->children < 0)
		o->children = command;
	return 0;
}

static int check_action(int argc, char **argv, struct options *o, bool have_pid,
			char *err, size_t len)
{
	if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
		return 0;
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--"))
			return errbuf_fail(
				err, len, EINVAL,
				"unexpected argument '%s' (a COMMAND goes after --)",
				argv[optind]);
		if (have_pid)
			return errbuf_fail(
				err, len, EINVAL,
				"-p PID and a COMMAND are mutually exclusive");
		if (o->ntids)
			return errbuf_fail(
				err, len, EINVAL,
				"-t TID needs -p PID (a COMMAND's threads have no TIDs yet)");
		if (!argv[optind][0])
			return errbuf_fail(err, len, EINVAL,
					   "empty COMMAND name");
		o->action = ACTION_RECORD_COMMAND;
		o->command = argv + optind;
		return check_children(o, err, len);
	}
	if (!have_pid)
		return errbuf_fail(
			err, len, EINVAL,
			"nothing to profile: give -p PID or -- COMMAND (see --help)");
	return check_children(o, err, len);
}

/* --keep, --top and the -o templates (outname.h), after the outputs are
 * known. */
static int check_rotate(struct options *o, char *err, size_t len)
{
	if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
		return 0;
	if (o->keep && !o->rotate_s)
		return errbuf_fail(
			err, len, EINVAL,
			"--keep goes with --rotate (it prunes rotated files)");
	if (o->top && o->rotate_s)
		return errbuf_fail(
			err, len, EINVAL,
			"--top goes without --rotate (each file holds one period: use ptprof report --top on one)");
	for (unsigned i = 0; i < o->noutputs_; i++)
		if (outname_check(o->outputs_[i], err, len))
			return -1;
	return 0;
}

/* --kernel / --no-kernel: kernel frames are a blocked thread's, and
 * only --wall samples blocked threads: said of CPU mode, either would be
 * ignored, so it is refused.  Not given: off. */
static int check_kernel(struct options *o, char *err, size_t len)
{
	if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
		return 0;
	if (o->kernel != OPTIONS_KERNEL_AUTO && !o->wall)
		return errbuf_fail(
			err, len, EINVAL,
			"%s goes with --wall (kernel frames are those of blocked threads, which only --wall samples)",
			o->kernel == OPTIONS_KERNEL_ON ? "--kernel" :
							 "--no-kernel");
	if (o->kernel == OPTIONS_KERNEL_AUTO)
		o->kernel = OPTIONS_KERNEL_OFF;
	return 0;
}

int options_record_parse(int argc, char **argv, struct options *o, char *err,
			 size_t errlen)
{
	/* '+': stop at the first non-option, so COMMAND's own flags are its. */
	if (options_parse_with(argc, argv, "+:p:f:o:d:t:qhV", long_options,
			       options_record_one, o, err, errlen))
		return -1;
	if (check_action(argc, argv, o, o->pid_given, err, errlen))
		return -1;
	/* Said of CPU mode, it would be ignored: refused instead. */
	if (o->no_peek && !o->wall && o->action != ACTION_HELP &&
	    o->action != ACTION_VERSION)
		return errbuf_fail(
			err, errlen, EINVAL,
			"--no-peek goes with --wall (CPU mode stops only threads that run)");
	if (check_kernel(o, err, errlen) || resolve_outputs(o, err, errlen))
		return -1;
	return check_rotate(o, err, errlen);
}
