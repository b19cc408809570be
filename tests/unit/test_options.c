/*
 * test_options - options_parse() on -p lists, --children and
 * --no-children, --kernel and --no-kernel, --max-overhead: what it fills in (pids in
 * order, pid = pids[0], the children default of each action, the kernel
 * frames' default of dump and of a recording) and what it refuses.  The messages
 * themselves are checked end to end by tests/options.test.
 *
 * Covers: options_record options_subcmd options_value (the rest of the module, split out).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "profile/procset.h"
#include "unit.h"

#define MAX_ARGS 16

/* Parse the words of line (split at blanks) after "ptprof". */
static int parse(const char *line, struct options *o, char *err, size_t len)
{
	static char buf[1 << 16], name[] = "ptprof";
	char *argv[MAX_ARGS + 2] = { name }, *save = NULL;
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok_r(buf, " ", &save); w && argc <= MAX_ARGS;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	err[0] = '\0';
	return options_parse(argc, argv, o, err, len);
}

/* line parses; the profiles it writes: legacy and pprof (NULL: none). */
static void writes(const char *line, const char *legacy, const char *pprof)
{
	struct options o;
	char err[512];

	CHECKF(parse(line, &o, err, sizeof(err)) == 0, "'%s': refused: %s",
	       line, err);
	CHECKF((!legacy && !o.legacy_output) ||
		       (legacy && o.legacy_output &&
			!strcmp(legacy, o.legacy_output)),
	       "'%s': legacy output %s, expected %s", line,
	       o.legacy_output ? o.legacy_output : "none",
	       legacy ? legacy : "none");
	CHECKF((!pprof && !o.pprof_output) || (pprof && o.pprof_output &&
					       !strcmp(pprof, o.pprof_output)),
	       "'%s': pprof output %s, expected %s", line,
	       o.pprof_output ? o.pprof_output : "none",
	       pprof ? pprof : "none");
	options_free(&o);
}

/* line parses, --no-debuginfod given (want 1) or not. */
static void debuginfod_off(const char *line, int want)
{
	struct options o;
	char err[512];

	CHECKF(parse(line, &o, err, sizeof(err)) == 0 &&
		       o.no_debuginfod == want,
	       "'%s': %s, no_debuginfod %d, expected %d", line, err,
	       o.no_debuginfod, want);
	options_free(&o);
}

/* line parses, with npids PIDs (those of want unless NULL), children. */
static void accepts(const char *line, enum ptprof_action action, size_t npids,
		    const pid_t *want, int children)
{
	struct options o;
	char err[512];
	int rc = parse(line, &o, err, sizeof(err));

	CHECKF(rc == 0, "'%.60s': refused: %s", line, err);
	CHECKF(o.action == action, "'%.60s': action %d, expected %d", line,
	       (int)o.action, (int)action);
	CHECKF(o.npids == npids, "'%.60s': %zu PIDs, expected %zu", line,
	       o.npids, npids);
	for (size_t i = 0; want && i < npids && i < o.npids; i++)
		CHECKF(o.pids[i] == want[i],
		       "'%.60s': pids[%zu] = %d, expected %d", line, i,
		       (int)o.pids[i], (int)want[i]);
	CHECKF(o.pid == (npids ? o.pids[0] : 0), "'%.60s': pid %d", line,
	       (int)o.pid);
	CHECKF(o.children == children, "'%.60s': children %d, expected %d",
	       line, o.children, children);
	options_free(&o);
	CHECK(o.pids == NULL && o.npids == 0);
}

/* line parses, its --max-overhead want (percent; 0: not given). */
static void overhead(const char *line, double want)
{
	struct options o;
	char err[512];
	int rc = parse(line, &o, err, sizeof(err));

	CHECKF(rc == 0, "'%.60s': %s", line, err);
	CHECKF(o.max_overhead_pct == want, "'%.60s': %g, expected %g", line,
	       o.max_overhead_pct, want);
	options_free(&o);
}

/* line is refused with a message that starts with want. */
static void refuses(const char *line, const char *want)
{
	struct options o;
	char err[512];
	int rc = parse(line, &o, err, sizeof(err));

	CHECKF(rc == -1, "'%.60s': accepted", line);
	CHECKF(!strncmp(err, want, strlen(want)),
	       "'%.60s': '%.60s', expected '%.60s'", line, err, want);
	options_free(&o);
}

/* line parses, its kernel frames' choice want. */
static void kernel(const char *line, enum options_kernel want)
{
	struct options o;
	char err[512];

	CHECKF(parse(line, &o, err, sizeof(err)) == 0, "'%s': refused: %s",
	       line, err);
	CHECKF(o.kernel == want, "'%s': kernel %d, expected %d", line,
	       (int)o.kernel, (int)want);
	options_free(&o);
}

/* "-p FIRST,FIRST+1,...": n PIDs in one argument. */
static const char *pid_list(int first, int n)
{
	static char buf[1 << 16];
	size_t len = snprintf(buf, sizeof(buf), "-p ");

	for (int i = 0; i < n && len < sizeof(buf) - 16; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d",
				i ? "," : "", first + i);
	return buf;
}

int main(void)
{
	static const pid_t one_two_three[] = { 1, 2, 3 };
	static const pid_t five_six[] = { 5, 6 };
	char line[1 << 16];

	/* -p lists, repeated, in order; no children unless asked. */
	accepts("-p 1,2 -p 3", ACTION_RECORD_PID, 3, one_two_three, 0);
	accepts("--pid=1 -p 2,3 -o x.prof", ACTION_RECORD_PID, 3, one_two_three,
		0);
	accepts("-p 1 --children", ACTION_RECORD_PID, 1, one_two_three, 1);
	accepts("--no-children --children -p 1", ACTION_RECORD_PID, 1,
		one_two_three, 1);
	/* COMMAND: children by default, --no-children for one process. */
	accepts("-- true", ACTION_RECORD_COMMAND, 0, NULL, 1);
	accepts("--children -- true", ACTION_RECORD_COMMAND, 0, NULL, 1);
	accepts("--no-children -- true", ACTION_RECORD_COMMAND, 0, NULL, 0);
	accepts("--children --no-children -- true --no-children",
		ACTION_RECORD_COMMAND, 0, NULL, 0);
	/* dump: no children unless --children; report, --help: none. */
	accepts("dump -p 5,6", ACTION_DUMP, 2, five_six, 0);
	accepts("dump -p 5 --children -p 6 --json", ACTION_DUMP, 2, five_six,
		1);
	accepts("report x.prof", ACTION_REPORT, 0, NULL, 0);
	accepts("--help", ACTION_HELP, 0, NULL, 0);

	/* The cap: 4096 taken, one more refused, repeated -p or not. */
	accepts(pid_list(1, PROCSET_MAX_LIVE), ACTION_RECORD_PID,
		PROCSET_MAX_LIVE, NULL, 0);
	refuses(pid_list(1, PROCSET_MAX_LIVE + 1), "too many PIDs");
	snprintf(line, sizeof(line), "%s -p 99999",
		 pid_list(1, PROCSET_MAX_LIVE));
	refuses(line, "too many PIDs");

	/* Without -o: legacy for one process, pprof when there may be more
	 * (the legacy format holds one address space). */
	writes("-p 1", "ptprof.prof", NULL);
	writes("-p 1,2", NULL, "ptprof.pb.gz");
	writes("-p 1 --children", NULL, "ptprof.pb.gz");
	writes("-- true", NULL, "ptprof.pb.gz");
	writes("--no-children -- true", "ptprof.prof", NULL);
	writes("--format=legacy -- true", "ptprof.prof", NULL);
	writes("-o x.prof -- true", "x.prof", NULL);
	writes("--format=pprof -p 1", NULL, "ptprof.pb.gz");

	refuses("-p 1,,2", "invalid PID '' in -p '1,,2'");
	refuses("-p 12,abc", "invalid PID 'abc' in -p '12,abc'");
	refuses("-p 1, -o x", "invalid PID '' in -p '1,'");
	refuses("-p abc", "invalid PID 'abc': expected a positive number");
	refuses("-p 7,8 -p 7", "PID 7 is given twice with -p");
	refuses("-p 3,000000000000000000000003", "invalid PID '0000");
	refuses("--no-children -p 1", "--no-children goes with -- COMMAND");
	refuses("-p 1 --children --no-children", "--no-children goes with");
	refuses("dump -p 1 --no-children", "unknown option '--no-children'");
	refuses("-p 1 -- true", "-p PID and a COMMAND are mutually exclusive");

	/* --max-overhead=PCT: above 0, at most 100, decimals allowed; with
	 * -p, -- COMMAND and --children; not a top option. */
	overhead("-p 1 --max-overhead=1", 1);
	overhead("-p 1 --max-overhead 0.5 --children", 0.5);
	overhead("--max-overhead=100 -- true", 100);
	overhead("--max-overhead=.25 -- true", 0.25);
	overhead("--max-overhead=0.001 -p 1", 0.001);
	overhead("-p 1", 0);
	refuses("-p 1 --max-overhead=0",
		"invalid --max-overhead '0': expected a percentage above 0");
	refuses("-p 1 --max-overhead=0.0", "invalid --max-overhead '0.0'");
	refuses("-p 1 --max-overhead=100.5", "invalid --max-overhead '100.5'");
	refuses("-p 1 --max-overhead=-1", "invalid --max-overhead '-1'");
	refuses("-p 1 --max-overhead=1%", "invalid --max-overhead '1%'");
	refuses("-p 1 --max-overhead=1e-1", "invalid --max-overhead '1e-1'");
	refuses("-p 1 --max-overhead=nan", "invalid --max-overhead 'nan'");
	refuses("-p 1 --max-overhead=.", "invalid --max-overhead '.'");
	refuses("-p 1 --max-overhead=", "invalid --max-overhead ''");
	refuses("top -p 1 --max-overhead=1", "unknown option '--max-overhead");

	/* dump: AUTO (when readable) unless asked; the last one counts. */
	kernel("dump -p 1", OPTIONS_KERNEL_AUTO);
	kernel("dump -p 1 --kernel", OPTIONS_KERNEL_ON);
	kernel("dump --no-kernel -p 1", OPTIONS_KERNEL_OFF);
	kernel("dump -p 1 --kernel --no-kernel", OPTIONS_KERNEL_OFF);
	kernel("dump -p 1 --no-kernel --kernel", OPTIONS_KERNEL_ON);
	/* a recording: off unless --wall --kernel, never AUTO */
	kernel("-p 1", OPTIONS_KERNEL_OFF);
	kernel("-p 1 --wall", OPTIONS_KERNEL_OFF);
	kernel("-p 1 --wall --kernel", OPTIONS_KERNEL_ON);
	kernel("--kernel --wall -- true --no-kernel", OPTIONS_KERNEL_ON);
	kernel("--wall --kernel --no-kernel -p 1", OPTIONS_KERNEL_OFF);
	refuses("-p 1 --kernel", "--kernel goes with --wall");
	refuses("--kernel -- true", "--kernel goes with --wall");
	refuses("-p 1 --no-kernel", "--no-kernel goes with --wall");
	refuses("-p 1 --no-kernel --kernel", "--kernel goes with --wall");
	refuses("dump -p 1 --kernel=yes",
		"option '--kernel' does not take an argument");
	refuses("top -p 1 --wall --kernel", "unknown option '--kernel'");
	refuses("report --kernel x.prof", "unknown option '--kernel'");
	/* --no-debuginfod: every subcommand that names frames */
	debuginfod_off("-p 1", 0);
	debuginfod_off("-p 1 --no-debuginfod", 1);
	debuginfod_off("--no-debuginfod -- true", 1);
	debuginfod_off("report --no-debuginfod x.prof", 1);
	debuginfod_off("dump -p 1 --no-debuginfod", 1);
	debuginfod_off("top -p 1 --no-debuginfod", 1);
	refuses("report --no-debuginfod=1 x.prof",
		"option '--no-debuginfod' does not take an argument");
	return unit_result("test_options");
}
