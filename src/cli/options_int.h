/*
 * options_int.h - what the files of the option parser share (options.h
 * is the contract): the option codes, the driver every subcommand's
 * parser runs (options.c), the values several options take
 * (options_value.c), and each subcommand's parser (options_record.c,
 * options_subcmd.c).
 *
 * Each function parses only; on bad input it returns -1 and writes one
 * sentence into err (errbuf.h), as options_parse() does.  getopt's state
 * (optind, optarg) is global: one parse at a time.
 */
#ifndef PTPROF_OPTIONS_INT_H
#define PTPROF_OPTIONS_INT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/options.h"

/* The codes of the long options without a short form. */
enum {
	OPT_MAX_DEPTH = 256,
	OPT_WALL,
	OPT_STATS,
	OPT_TOP,
	OPT_LINES,
	OPT_FOLDED,
	OPT_SVG,
	OPT_ROOT,
	OPT_PERF_MAP,
	OPT_JSON,
	OPT_THREAD_NAME,
	OPT_FORMAT,
	OPT_THREADS,
	OPT_THREAD,
	OPT_UNSAFE_SECCOMP,
	OPT_NO_PYTHON,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_PROCESSES,
	OPT_REPORT_PID,
	OPT_BY_PROCESS,
	OPT_NO_PEEK,
	OPT_FROM,
	OPT_TO,
	OPT_DIFF,
	OPT_WINDOW,
	OPT_ROTATE,
	OPT_KEEP,
	OPT_KERNEL,
	OPT_NO_KERNEL,
	OPT_WAITS,
	OPT_NO_INLINE,
	OPT_NO_DEBUGINFOD,
	OPT_MAX_OVERHEAD,
};

/* options.c */
/* One subcommand's options: getopt_long over table, each option to one(). */
typedef int (*options_parse_fn)(int c, const char *arg, struct options *o,
				char *err, size_t len);
int options_parse_with(int argc, char **argv, const char *shorts,
		       const struct option *table, options_parse_fn one,
		       struct options *o, char *err, size_t errlen);
/* -h, --top and --no-debuginfod, which every subcommand takes. */
int options_parse_common(int c, const char *arg, struct options *o, char *err,
			 size_t len);

/* options_value.c */
/* One item of a list option (num), s the whole argument. */
typedef int (*options_add_fn)(const char *num, const char *s, struct options *o,
			      char *err, size_t len);
int options_value_ulong(const char *s, unsigned long min, unsigned long max,
			unsigned long *out);
/* Parse a decimal number, digits with an optional fraction (no sign,
 * blank, exponent, hex, inf or nan); -1 if anything else. */
int options_value_decimal(const char *s, double *out);
int options_value_list(const char *s, options_add_fn add, struct options *o,
		       char *err, size_t len);
int options_value_pid(const char *num, const char *s, struct options *o,
		      char *err, size_t len);
int options_value_tid(const char *num, const char *s, struct options *o,
		      char *err, size_t len);
int options_value_thread_name(const char *s, struct options *o, char *err,
			      size_t len);
int options_value_top(const char *s, struct options *o, char *err, size_t len);

/* options_record.c: one option of a recording (top's sampling options
 * too), and a recording's whole command line. */
int options_record_one(int c, const char *arg, struct options *o, char *err,
		       size_t len);
int options_record_parse(int argc, char **argv, struct options *o, char *err,
			 size_t errlen);

/* options_subcmd.c: argv[0] is the subcommand's name. */
int options_subcmd_report(int argc, char **argv, struct options *o, char *err,
			  size_t len);
int options_subcmd_dump(int argc, char **argv, struct options *o, char *err,
			size_t len);
int options_subcmd_top(int argc, char **argv, struct options *o, char *err,
		       size_t len);

#endif /* PTPROF_OPTIONS_INT_H */
