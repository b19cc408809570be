/*
 * options.c - parse ptprof's command line (see options.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "stacktab.h"

const char options_usage[] =
	"Usage: ptprof -p PID [OPTION...]\n"
	"       ptprof [OPTION...] -- COMMAND [ARG...]\n"
	"Sample the call stacks of every thread of a running process (-p) or of\n"
	"COMMAND, and write a gperftools CPU profile that pprof reads.\n"
	"\n"
	"  -p, --pid=PID         attach to the running process PID\n"
	"  -f, --frequency=HZ    samples per second, 1..10000 (default 100)\n"
	"  -o, --output=FILE     profile to write (default ptprof.prof)\n"
	"  -d, --duration=SECS   stop after SECS seconds (default: until the\n"
	"                        target exits or ptprof gets SIGINT/SIGTERM/SIGHUP)\n"
	"      --max-depth=N     frames kept per stack, 1..4096 (default 256)\n"
	"      --wall            wall-clock profile: count every thread at every\n"
	"                        tick, blocked ones too (default: CPU time only;\n"
	"                        threads that did not run are not even stopped)\n"
	"      --stats           print more figures (pause percentiles, threads\n"
	"                        stopped per tick, unwinder counters)\n"
	"  -q, --quiet           do not print the summary line\n"
	"  -h, --help            show this help and exit\n"
	"  -V, --version         show the version and exit\n"
	"\n"
	"At every tick ptprof stops the threads that ran since their last sample\n"
	"(PTRACE_INTERRUPT), copies their registers and stack, detaches, and\n"
	"unwinds the copies with libunwind: the target is not traced between\n"
	"ticks.  With -- COMMAND, ptprof exits with COMMAND's exit status.\n";

enum { OPT_MAX_DEPTH = 256, OPT_WALL, OPT_STATS };

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "frequency", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse a whole decimal number in [min, max]; -1 if anything else. */
static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_pid(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (parse_ulong(s, 1, INT_MAX, &v))
		return fail(err, len,
			    "invalid PID '%s': expected a positive number", s);
	o->pid = (pid_t)v;
	return 0;
}

static int parse_hz(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (parse_ulong(s, PTPROF_MIN_HZ, PTPROF_MAX_HZ, &v))
		return fail(err, len,
			    "invalid frequency '%s': expected %d..%d samples per second",
			    s, PTPROF_MIN_HZ, PTPROF_MAX_HZ);
	o->hz = (unsigned)v;
	return 0;
}

static int parse_duration(const char *s, struct options *o, char *err,
			  size_t len)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* at least 1 ms: a shorter one would round to "no limit" */
	if (end == s || *end || errno || !isfinite(v) || v < 0.001 ||
	    v > 31536000.0)
		return fail(err, len,
			    "invalid duration '%s': expected seconds, 0.001 or more",
			    s);
	o->duration_s = v;
	return 0;
}

static int parse_depth(const char *s, struct options *o, char *err,
		       size_t len)
{
	unsigned long v;

	if (parse_ulong(s, 1, STACKTAB_MAX_DEPTH, &v))
		return fail(err, len, "invalid --max-depth '%s': expected 1..%d",
			    s, STACKTAB_MAX_DEPTH);
	o->max_depth = (unsigned)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct options *o, char *err,
		     size_t len)
{
	switch (c) {
	case 'p':
		return parse_pid(arg, o, err, len);
	case 'f':
		return parse_hz(arg, o, err, len);
	case 'o':
		if (!*arg)
			return fail(err, len, "empty output file name");
		o->output = arg;
		return 0;
	case 'd':
		return parse_duration(arg, o, err, len);
	case OPT_MAX_DEPTH:
		return parse_depth(arg, o, err, len);
	case 'q':
		o->quiet = 1;
		return 0;
	case OPT_WALL:
		o->wall = 1;
		return 0;
	case OPT_STATS:
		o->stats = 1;
		return 0;
	case 'h':
		o->action = ACTION_HELP;
		return 0;
	case 'V':
		o->action = ACTION_VERSION;
		return 0;
	default:
		return -1;
	}
}

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->action = ACTION_RECORD_PID;
	o->hz = PTPROF_DEFAULT_HZ;
	o->output = PTPROF_DEFAULT_OUTPUT;
	o->max_depth = STACKTAB_DEFAULT_DEPTH;
}

static const struct option *long_option_named(const char *name, size_t len)
{
	for (const struct option *lo = long_options; lo->name; lo++)
		if (strlen(lo->name) == len && !strncmp(lo->name, name, len))
			return lo;
	return NULL;
}

/* getopt's own complaint is silenced (opterr = 0); say it our way, naming
 * the option as the user wrote it. */
static int bad_option(int c, int argc, char **argv, char *err, size_t len)
{
	const char *word = optind - 1 < argc ? argv[optind - 1] : "";
	const char *eq = strchr(word, '=');

	if (c == ':')
		return fail(err, len, "option '%s' requires an argument", word);
	if (!strncmp(word, "--", 2)) {
		size_t n = eq ? (size_t)(eq - word - 2) : strlen(word + 2);
		const struct option *lo = long_option_named(word + 2, n);

		if (lo && eq && lo->has_arg == no_argument)
			return fail(err, len,
				    "option '--%s' does not take an argument",
				    lo->name);
		return fail(err, len, "unknown option '%.*s'", (int)n + 2,
			    word);
	}
	if (optopt)
		return fail(err, len, "unknown option '-%c'", optopt);
	return fail(err, len, "unknown option '%s'", word);
}

static int check_action(int argc, char **argv, struct options *o,
			bool have_pid, char *err, size_t len)
{
	if (o->action == ACTION_HELP || o->action == ACTION_VERSION)
		return 0;
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--"))
			return fail(err, len,
				    "unexpected argument '%s' (a COMMAND goes after --)",
				    argv[optind]);
		if (have_pid)
			return fail(err, len,
				    "-p PID and a COMMAND are mutually exclusive");
		if (!argv[optind][0])
			return fail(err, len, "empty COMMAND name");
		o->action = ACTION_RECORD_COMMAND;
		o->command = argv + optind;
		return 0;
	}
	if (!have_pid)
		return fail(err, len,
			    "nothing to profile: give -p PID or -- COMMAND (see --help)");
	return 0;
}

int options_parse(int argc, char **argv, struct options *o, char *err,
		  size_t errlen)
{
	bool have_pid = false;
	int c;

	set_defaults(o);
	opterr = 0;
	optind = 1;
	/* '+': stop at the first non-option, so COMMAND's own flags are its. */
	while ((c = getopt_long(argc, argv, "+:p:f:o:d:qhV", long_options,
				NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argc, argv, err, errlen);
		if (parse_one(c, optarg, o, err, errlen))
			return -1;
		have_pid |= c == 'p';
	}
	return check_action(argc, argv, o, have_pid, err, errlen);
}
