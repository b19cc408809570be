/*
 * options.c - parse ptprof's command line (see options.h): the driver
 * each subcommand's parser runs (options_int.h), and options_parse().
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
#include "profile/stacktab.h"
#include "util/errbuf.h"

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->action = ACTION_RECORD_PID;
	o->hz = PTPROF_DEFAULT_HZ;
	o->output = PTPROF_DEFAULT_OUTPUT;
	o->max_depth = STACKTAB_DEFAULT_DEPTH;
	o->usage = options_usage;
	o->children = -1; /* not given: by action (options_record.c) */
}

static const struct option *long_option_named(const struct option *table,
					      const char *name, size_t len)
{
	for (const struct option *lo = table; lo->name; lo++)
		if (strlen(lo->name) == len && !strncmp(lo->name, name, len))
			return lo;
	return NULL;
}

/* getopt's own complaint is silenced (opterr = 0); say it our way, naming
 * the option as the user wrote it. */
static int bad_option(const struct option *table, int c, int argc, char **argv,
		      char *err, size_t len)
{
	const char *word = optind - 1 < argc ? argv[optind - 1] : "";
	const char *eq = strchr(word, '=');

	if (c == ':')
		return errbuf_fail(err, len, EINVAL,
				   "option '%s' requires an argument", word);
	if (!strncmp(word, "--", 2)) {
		size_t n = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
		const struct option *lo = long_option_named(table, word + 2, n);

		if (lo && eq && lo->has_arg == no_argument)
			return errbuf_fail(err, len, EINVAL,
					   "option '--%s' does not take an argument",
					   lo->name);
		return errbuf_fail(err, len, EINVAL, "unknown option '%.*s'",
				   (int)n + 2, word);
	}
	if (optopt)
		return errbuf_fail(err, len, EINVAL, "unknown option '-%c'",
				   optopt);
	return errbuf_fail(err, len, EINVAL, "unknown option '%s'", word);
}

int options_parse_with(int argc, char **argv, const char *shorts,
		       const struct option *table, options_parse_fn one,
		       struct options *o, char *err, size_t errlen)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, table, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(table, c, argc, argv, err, errlen);
		if (one(c, optarg, o, err, errlen))
			return -1;
		if (c == 'p')
			o->pid_given = 1;
	}
	return 0;
}

/* Options every subcommand shares: -h and --top. */
int options_parse_common(int c, const char *arg, struct options *o, char *err,
			 size_t len)
{
	switch (c) {
	case 'h':
		o->action = ACTION_HELP;
		return 0;
	case OPT_TOP:
		return options_value_top(arg, o, err, len);
	case OPT_NO_DEBUGINFOD:
		o->no_debuginfod = 1;
		return 0;
	default:
		return errbuf_fail(err, len, EINVAL,
				   "internal error: option %d", c);
	}
}

void options_free(struct options *o)
{
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
	free(o->diff_bases);
	o->diff_bases = NULL;
	o->ndiff_bases = o->diff_cap_ = 0;
}

int options_parse(int argc, char **argv, struct options *o, char *err,
		  size_t errlen)
{
	int rc;

	set_defaults(o);
	if (argc > 1 && !strcmp(argv[1], "report"))
		rc = options_subcmd_report(argc - 1, argv + 1, o, err, errlen);
	else if (argc > 1 && !strcmp(argv[1], "dump"))
		rc = options_subcmd_dump(argc - 1, argv + 1, o, err, errlen);
	else if (argc > 1 && !strcmp(argv[1], "top"))
		rc = options_subcmd_top(argc - 1, argv + 1, o, err, errlen);
	else
		rc = options_record_parse(argc, argv, o, err, errlen);
	if (o->children < 0) /* report, --help, --version */
		o->children = 0;
	return rc;
}
