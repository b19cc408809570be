/*
 * cmds.h - ptprof's subcommands, in the command-line layer: each returns
 * the exit status (or dies with one line on stderr).
 *
 *   cmd_record()  ptprof -p PID and ptprof -- COMMAND: sample, write the
 *                 profile, summarise on stderr; with COMMAND, its exit
 *                 status.
 *   cmd_report()  ptprof report: read a profile, print a table, folded
 *                 stacks or an SVG flame graph on stdout.
 *   cmd_dump()    ptprof dump: every thread's stack once, now.
 *   cmd_top()     ptprof top: the hottest functions, live, in a terminal
 *                 (ncurses), or a plain table every second on stdout.
 *   cmd_report_top()  after a recording with --top N: the table of the file
 *                 just written, its first N rows, on out; root as for
 *                 report --root (NULL: none), no_inline as report
 *                 --no-inline (record's).  Returns 0, or 1 after
 *                 saying why on stderr.
 */
#ifndef PTPROF_CMDS_H
#define PTPROF_CMDS_H

#include <stdio.h>

#include "cli/options.h"

int cmd_record(const struct options *o);
int cmd_report(const struct options *o);
int cmd_dump(const struct options *o);
int cmd_top(const struct options *o);
int cmd_report_top(const char *path, unsigned top, const char *root,
		   bool no_inline, FILE *out);

#endif /* PTPROF_CMDS_H */
