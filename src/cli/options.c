/*
 * options.c - parse ptprof's command line (see options.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "profile/outname.h"
#include "profile/procset.h"
#include "profile/stacktab.h"
#include "util/errbuf.h"
#include "util/grow.h"

const char options_usage[] =
	"Usage: ptprof -p PID[,PID...] [OPTION...]\n"
	"       ptprof [OPTION...] -- COMMAND [ARG...]\n"
	"Sample the call stacks of every thread of running processes (-p) or of\n"
	"COMMAND, and write a profile that pprof reads: a gperftools CPU profile,\n"
	"or a gzipped pprof protobuf with every sample's thread (--format=pprof).\n"
	"\n"
	"  -p, --pid=PID[,PID...]  attach to the running processes PID...\n"
	"                        (repeatable; at most 4096 processes)\n"
	"      --children        also every descendant of the -p processes, those\n"
	"                        there now and those they start, until each exits\n"
	"      --no-children     with -- COMMAND: COMMAND's process only (default:\n"
	"                        its descendants too, as perf record does)\n"
	"  -f, --frequency=HZ    samples per second, 1..10000 (default 100)\n"
	"  -o, --output=FILE     profile to write (default ptprof.prof, or\n"
	"                        ptprof.pb.gz with --format=pprof and for several\n"
	"                        processes: -p PID,PID, children); a FILE ending\n"
	"                        in .pb.gz is a pprof protobuf; give -o twice, one\n"
	"                        of each format, to write both from one run;\n"
	"                        an existing FILE is kept as FILE.old\n"
	"      --format=FORMAT   legacy (gperftools CPU profile, the default) or\n"
	"                        pprof (gzipped profile.proto, with thread labels)\n"
	"  -d, --duration=SECS   stop after SECS seconds (default: until the\n"
	"                        target exits or ptprof gets SIGINT/SIGTERM/SIGHUP)\n"
	"      --max-depth=N     frames kept per stack, 1..4096 (default 256)\n"
	"      --wall            wall-clock profile: every thread counts at every\n"
	"                        tick, blocked ones too (default: CPU profile:\n"
	"                        each thread's samples in proportion to the CPU\n"
	"                        time it used; threads that did not run are not\n"
	"                        even stopped); a thread asleep in the kernel is\n"
	"                        read without a stop when it can be\n"
	"      --no-peek         with --wall: stop every thread that ran, asleep\n"
	"                        or not (a stop makes a sleeping call return\n"
	"                        EINTR)\n"
	"  -t, --tid=TID[,TID...]  sample only these threads of the -p processes\n"
	"                        (repeatable)\n"
	"      --thread-name=REGEX  sample only the threads whose name (comm)\n"
	"                        matches the POSIX extended REGEX; with -t, the\n"
	"                        threads that either one selects\n"
	"      --no-python       native stacks only: do not read a CPython target's\n"
	"                        Python frames (default, when a pprof file is\n"
	"                        written: each eval-loop frame is replaced by the\n"
	"                        Python frames it ran)\n"
	"      --unsafe-seccomp  stop threads whatever their seccomp filters say of\n"
	"                        restart_syscall (default: refuse a target whose\n"
	"                        filters forbid it, or that ptprof cannot read\n"
	"                        without CAP_SYS_ADMIN: a stopped sleep may then\n"
	"                        kill it; see ptprof(1))\n"
	"      --stats           print more figures (threads stopped and spared,\n"
	"                        ptprof's CPU per stack, unwinder counters, stop\n"
	"                        latency, stops at system call exits)\n"
	"      --rotate=SECONDS  continuous profiling: every SECONDS (1..31536000),\n"
	"                        close the file(s) and start the next, named\n"
	"                        FILE.0001.prof, ... or by a template in -o:\n"
	"                        %p PID, %t period start (UTC), %n sequence\n"
	"                        number, %% a %; SIGUSR2 rotates at once, with or\n"
	"                        without --rotate (see ptprof(1))\n"
	"      --keep=N          with --rotate: delete this run's oldest files\n"
	"                        beyond the newest N of each output\n"
	"      --top=N           at the end, print the N functions with the most\n"
	"                        samples (as 'ptprof report --top=N' would), on\n"
	"                        stdout; with -- COMMAND on stderr\n"
	"  -q, --quiet           do not print the summary line, nor the progress\n"
	"                        line shown on a terminal\n"
	"  -h, --help            show this help and exit\n"
	"  -V, --version         show the version and exit\n"
	"\n"
	"At every tick ptprof stops the threads that are due a sample (CPU mode:\n"
	"those that used half a period of CPU time since their last one)\n"
	"(PTRACE_INTERRUPT), copies their registers and stack, detaches, and\n"
	"unwinds the copies with libunwind: the target is not traced between\n"
	"ticks.  With -- COMMAND, ptprof exits with COMMAND's exit status.\n"
	"\n"
	"Reading a profile, and one-shot stacks:\n"
	"  ptprof report [--top=N] [--lines] [--folded | --svg] FILE...\n"
	"  ptprof report --diff BASE [--folded | --svg] NEW\n"
	"  ptprof report --threads FILE...\n"
	"  ptprof report --processes FILE...\n"
	"  ptprof dump -p PID[,PID...] [--children] [--json]\n"
	"Watching it live:\n"
	"  ptprof top -p PID[,PID...] [-f HZ] [--window=SECS]\n"
	"See 'ptprof report --help', 'ptprof dump --help', 'ptprof top --help'\n"
	"and ptprof(1).\n";

const char options_report_usage[] =
	"Usage: ptprof report [OPTION...] FILE...\n"
	"       ptprof report --diff BASE [OPTION...] NEW\n"
	"Read the profile FILE (written by ptprof: a gperftools CPU profile or a\n"
	"pprof protobuf, .pb.gz; or such a profile from another tool) and print,\n"
	"by default, its functions as pprof --text does: samples in the function\n"
	"itself (flat), in it and its callees (cum), with percentages of all\n"
	"samples, most flat samples first.  Several FILEs (of one program, at one\n"
	"frequency, in either format) are reported as one.\n"
	"\n"
	"      --top=N       only the N first rows (default: all)\n"
	"      --lines       by source line (function file:line, from DWARF)\n"
	"      --folded      one line per distinct stack, root;...;leaf COUNT\n"
	"                    (for flamegraph.pl, inferno, speedscope)\n"
	"      --svg         an interactive flame graph, a self-contained SVG\n"
	"                    (redirect it to a file and open it in a browser)\n"
	"      --root=DIR    open the binaries under DIR (e.g. /proc/PID/root\n"
	"                    for a process in a container)\n"
	"      --perf-map=FILE\n"
	"                    name JIT code from FILE, a perf map (START SIZE\n"
	"                    name); a legacy profile's own /tmp/perf-PID.map\n"
	"                    is read without it, when it is still there\n"
	"      --threads     samples by thread instead: samples, %, TID, name\n"
	"                    (needs a pprof protobuf profile: record with\n"
	"                    --format=pprof or -o NAME.pb.gz)\n"
	"      --thread=T    only the samples of thread T, a TID or a name\n"
	"                    (pprof protobuf profiles)\n"
	"      --processes   samples by process instead: samples, %, PID, name\n"
	"      --pid=P       only the samples of process P (all its images): a\n"
	"                    PID, or a name, which keeps every process of that\n"
	"                    name (pprof protobuf profiles with process labels)\n"
	"      --by-process  with --folded or --svg: a \"name (pid)\" root frame\n"
	"                    on every stack, one tree per process\n"
	"      --from=SEC    only the samples taken SEC seconds or more after the\n"
	"                    profile's start (fractions allowed: 1.5)\n"
	"      --to=SEC      only the samples taken before SEC seconds after it\n"
	"                    (both need a pprof protobuf profile with sample\n"
	"                    times, as ptprof writes; its --svg flame graph has\n"
	"                    a time strip to drag a window on)\n"
	"      --diff=BASE   what changed from BASE to NEW, by function: flat\n"
	"                    and cum change in samples (BASE scaled to NEW's\n"
	"                    total) and in percentage points, largest first;\n"
	"                    --folded: 'stack BASE NEW' (difffolded.pl's);\n"
	"                    --svg: NEW's flame graph, red where a frame's own\n"
	"                    samples grew, blue where they shrank (repeat\n"
	"                    --diff, or give several NEW, to merge a side)\n"
	"  -h, --help        show this help and exit\n"
	"\n"
	"Functions come from the binaries and libraries named in the profile's\n"
	"maps section or mappings (.symtab, .dynsym, or debug files under\n"
	"/usr/lib/debug), so a report works after the process exited, as long\n"
	"as those files are unchanged.  An address with no symbol prints as\n"
	"module+0xOFFSET.\n";

const char options_dump_usage[] =
	"Usage: ptprof dump -p PID[,PID...] [--children] [--json] [--no-python]\n"
	"                   [--unsafe-seccomp] [--no-peek]\n"
	"Stop every thread of each process once (one asleep in the kernel is read\n"
	"without a stop), copy its registers and stack, let it go, then print\n"
	"each thread's stack: TID, name and state, then one line per frame\n"
	"(address, function+offset, module), under a header naming its\n"
	"process.  Like pstack or eu-stack, without gdb.\n"
	"\n"
	"  -p, --pid=PID[,PID...]  the processes (repeatable; at most 4096)\n"
	"      --children    also every descendant they have now\n"
	"      --json        one JSON document, for scripts\n"
	"      --no-python   native frames only (default: a CPython process's\n"
	"                    eval-loop frames replaced by its Python frames,\n"
	"                    'qualname (file:line) [py]')\n"
	"      --unsafe-seccomp  stop the threads whatever their seccomp\n"
	"                    filters say of restart_syscall (see ptprof(1))\n"
	"      --no-peek     stop every thread, asleep or not (default: a\n"
	"                    thread asleep in the kernel is read without a\n"
	"                    stop when it can be)\n"
	"  -h, --help        show this help and exit\n"
	"\n"
	"A process that cannot be dumped (it exited meanwhile, or ptrace was\n"
	"refused) gets one line on stderr and the others are printed; the exit\n"
	"status is 1 when a process named with -p could not be dumped.\n";

const char options_top_usage[] =
	"Usage: ptprof top -p PID[,PID...] [OPTION...]\n"
	"Sample the processes as ptprof -p does and show, refreshed once a\n"
	"second, their hottest functions: samples in the function itself (flat)\n"
	"and in it and its callees (cum) over the last seconds (the window) and\n"
	"since the start, with the samples, threads and processes sampled,\n"
	"missed ticks and ptprof's pause of the target.  Nothing is written.\n"
	"\n"
	"  -p, --pid=PID[,PID...]  the processes (repeatable; at most 4096)\n"
	"      --children        also every descendant of the -p processes\n"
	"  -f, --frequency=HZ    samples per second, 1..10000 (default 100)\n"
	"  -d, --duration=SECS   stop after SECS seconds (default: until q,\n"
	"                        SIGINT/SIGTERM/SIGHUP, or the target exits)\n"
	"      --window=SECS     the sliding window, 1..60 seconds (default 10)\n"
	"      --threads         start with the view by thread\n"
	"      --top=N           rows of the plain table, at most 512 (default\n"
	"                        and 0: 20; on a terminal, as many as fit)\n"
	"      --max-depth=N     frames kept per stack, 1..4096 (default 256)\n"
	"      --wall            count threads that did not run too (as ptprof\n"
	"                        --wall)\n"
	"      --no-peek         with --wall: stop every thread that ran\n"
	"  -t, --tid=TID[,TID...]  only these threads of the -p processes\n"
	"      --thread-name=REGEX  only the threads whose name matches REGEX\n"
	"      --no-python       native frames only (default: a CPython\n"
	"                        process's Python frames, 'name (file:line) [py]')\n"
	"      --unsafe-seccomp  stop threads whatever their seccomp filters say\n"
	"                        (see ptprof(1))\n"
	"  -h, --help            show this help and exit\n"
	"\n"
	"Keys: f sort by flat, c sort by cum, a sort by the window or since the\n"
	"start, w window 5/10/30/60 s, t threads or functions, space pause the\n"
	"display (sampling goes on), q or Ctrl-C quit.  The target is left\n"
	"untraced and running.  When stdout is not a terminal, a plain table\n"
	"(a header line, then the rows) is printed every second instead.\n";

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
	OPT_KEEP
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "frequency", required_argument, NULL, 'f' },
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
	{ "no-peek", no_argument, NULL, OPT_NO_PEEK },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

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
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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

/* The next item of a comma-separated list at *p, into num, *p moved past
 * it; whether another item follows.  An item too long for num is cut
 * and ends in "...", which no number check takes. */
static bool list_item(const char **p, char *num, size_t size)
{
	size_t n = strcspn(*p, ",");

	if (n < size)
		snprintf(num, size, "%.*s", (int)n, *p);
	else
		snprintf(num, size, "%.*s...", (int)size - 4, *p);
	*p += n;
	return *(*p)++ == ',';
}

_Static_assert(PROCSET_MAX_LIVE == 4096, "the --help texts say 4096");

/* The next PID of -p, s the whole argument: a positive number, not
 * given yet, within the cap (perf's convention: -p 1,2 -p 3). */
static int add_pid(const char *num, const char *s, struct options *o, char *err,
		   size_t len)
{
	unsigned long v;
	pid_t *np;

	if (parse_ulong(num, 1, INT_MAX, &v))
		return strchr(s, ',') ?
			       errbuf_fail(err, len, EINVAL,
					   "invalid PID '%s' in -p '%s': expected positive numbers separated by commas",
					   num, s) :
			       errbuf_fail(err, len, EINVAL,
					   "invalid PID '%s': expected a positive number",
					   s);
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == (pid_t)v)
			return errbuf_fail(
				err, len, EINVAL,
				"PID %lu is given twice with -p: name each process once",
				v);
	if (o->npids == PROCSET_MAX_LIVE)
		return errbuf_fail(err, len, EINVAL,
				   "too many PIDs: -p takes at most %d processes",
				   PROCSET_MAX_LIVE);
	np = grow_array(o->pids, &o->pids_cap_, o->npids + 1, sizeof(*np));
	if (!np)
		return errbuf_fail(err, len, EINVAL, "out of memory");
	o->pids = np;
	o->pids[o->npids++] = (pid_t)v;
	o->pid = o->pids[0];
	return 0;
}

/* One item of a list option (num), s the whole argument. */
typedef int (*add_fn)(const char *num, const char *s, struct options *o,
		      char *err, size_t len);

/* -p PID[,PID...], -t TID[,TID...]: each item to add(). */
static int parse_list(const char *s, add_fn add, struct options *o, char *err,
		      size_t len)
{
	const char *p = s;
	char num[24];
	bool more;

	do {
		more = list_item(&p, num, sizeof(num));
		if (add(num, s, o, err, len))
			return -1;
	} while (more);
	return 0;
}

static int parse_hz(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (parse_ulong(s, PTPROF_MIN_HZ, PTPROF_MAX_HZ, &v))
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
	size_t digits = strspn(s, "0123456789"), frac = 0;
	char *end;
	double v;

	/* One number grammar for every option: decimal digits, here with a
	 * fraction (no sign, blank, hex float, exponent, inf or nan, which
	 * strtod() would take). */
	if (s[digits] == '.')
		frac = strspn(s + digits + 1, "0123456789");
	if (digits + frac == 0 ||
	    s[digits + (s[digits] == '.' ? 1 + frac : 0)] != '\0')
		return errbuf_fail(
			err, len, EINVAL,
			"invalid duration '%s': expected seconds, 0.001 or more",
			s);
	errno = 0;
	v = strtod(s, &end);
	/* at least 1 ms: a shorter one would round to "no limit" */
	if (end == s || *end || errno || !isfinite(v) || v < 0.001 ||
	    v > 31536000.0)
		return errbuf_fail(
			err, len, EINVAL,
			"invalid duration '%s': expected seconds, 0.001 or more",
			s);
	o->duration_s = v;
	return 0;
}

/* --rotate=SECONDS: whole seconds, so that %t (one-second resolution)
 * names each period apart; at most a year, as -d. */
static int parse_rotate(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (parse_ulong(s, 1, OPTIONS_MAX_ROTATE, &v))
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

	if (parse_ulong(s, 1, OPTIONS_MAX_KEEP, &v))
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

	if (parse_ulong(s, 1, STACKTAB_MAX_DEPTH, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --max-depth '%s': expected 1..%d",
				   s, STACKTAB_MAX_DEPTH);
	o->max_depth = (unsigned)v;
	return 0;
}

/* The next TID of -t, s the whole argument. */
static int add_tid(const char *num, const char *s, struct options *o, char *err,
		   size_t len)
{
	unsigned long v;

	if (parse_ulong(num, 1, INT_MAX, &v))
		return errbuf_fail(
			err, len, EINVAL,
			"invalid TID '%s' in -t '%s': expected positive numbers separated by commas",
			num, s);
	if (o->ntids == OPTIONS_MAX_TIDS)
		return errbuf_fail(err, len, EINVAL,
				   "too many TIDs: -t takes at most %d",
				   OPTIONS_MAX_TIDS);
	o->tids[o->ntids++] = (pid_t)v;
	return 0;
}

/* Bounds on a --thread-name pattern: glibc's regcomp() expands every
 * counted repetition, so '(a{1,1000}){1,1000}' grows to about 1 GB and
 * does not answer for minutes.  A thread name is at most 15 bytes: no
 * useful pattern comes near these. */
#define RE_MAX_LEN 256	  /* bytes of pattern */
#define RE_MAX_COUNT 255  /* the largest count of a {m,n} */
#define RE_MAX_SIZE 10000 /* atoms once every {m,n} is expanded */

#define RE_MAX_DEPTH 32

/* The count a "{m}", "{m,}" or "{m,n}" at *p stands for (its largest
 * copy count; "{m,}" as m + 1), p moved past it; -1 when it is not a
 * count (then regcomp() judges it), RE_MAX_COUNT + 1 when too large. */
static long re_count(const char **p)
{
	const char *q = *p + 1;
	long m = 0, n;

	if (*q < '0' || *q > '9')
		return -1;
	while (*q >= '0' && *q <= '9' && m <= RE_MAX_COUNT)
		m = m * 10 + (*q++ - '0');
	n = m;
	if (*q == ',') {
		q++;
		n = m + 1;
		if (*q >= '0' && *q <= '9') {
			n = 0;
			while (*q >= '0' && *q <= '9' && n <= RE_MAX_COUNT)
				n = n * 10 + (*q++ - '0');
		}
	}
	if (*q != '}') {
		if (m > RE_MAX_COUNT || n > RE_MAX_COUNT)
			return RE_MAX_COUNT + 1;
		return -1;
	}
	*p = q;
	return n > m ? n : m;
}

/* A size bound for what regcomp() makes of ERE s: atoms, with groups and
 * counted repetitions multiplied out.  A sentence in why when it is too
 * large; 0 when it is not (malformed patterns are left to regcomp()). */
static int re_too_large(const char *s, char *why, size_t len)
{
	double total[RE_MAX_DEPTH + 1] = { 0 }, last[RE_MAX_DEPTH + 1] = { 0 };
	int d = 0;
	long c;

	if (strlen(s) > RE_MAX_LEN)
		return errbuf_fail(why, len, EINVAL, "longer than %d bytes",
				   RE_MAX_LEN);
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '(':
			if (d == RE_MAX_DEPTH)
				return errbuf_fail(why, len, EINVAL,
						   "groups nested deeper than %d",
						   RE_MAX_DEPTH);
			total[++d] = 0;
			last[d] = 0;
			continue;
		case ')':
			if (d == 0)
				break; /* regcomp() will say */
			last[d - 1] = total[d];
			total[d - 1] += total[d];
			d--;
			continue;
		case '{':
			c = re_count(&p);
			if (c > RE_MAX_COUNT)
				return errbuf_fail(why, len, EINVAL,
						   "a repetition count above %d",
						   RE_MAX_COUNT);
			if (c > 1) {
				total[d] += last[d] * (double)(c - 1);
				last[d] *= (double)c;
			}
			if (c >= 0)
				continue;
			break;
		case '\\':
			if (p[1])
				p++;
			break;
		case '[':
			/* A bracket expression is one atom: skip to its ']' (a
			 * ']' first, after an optional '^', is a member). */
			p += p[1] == '^' ? 2 : 1;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return 0;
			break;
		case '*':
		case '+':
		case '?':
		case '|':
			continue;
		}
		last[d] = 1;
		total[d] += 1;
		if (total[d] > RE_MAX_SIZE)
			break;
	}
	for (int i = 0; i <= d; i++)
		if (total[i] > RE_MAX_SIZE)
			return errbuf_fail(why, len, EINVAL,
					   "more than %d characters' worth once "
					   "its repetitions are expanded",
					   RE_MAX_SIZE);
	return 0;
}

static int parse_thread_name(const char *s, struct options *o, char *err,
			     size_t len)
{
	regex_t re;
	char why[128];
	int rc;

	if (re_too_large(s, why, sizeof(why)))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --thread-name '%s': %s", s, why);
	rc = regcomp(&re, s, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &re, why, sizeof(why));
		return errbuf_fail(err, len, EINVAL,
				   "invalid --thread-name '%s': %s", s, why);
	}
	regfree(&re);
	o->thread_name = s;
	return 0;
}

static int parse_top(const char *s, struct options *o, char *err, size_t len)
{
	unsigned long v;

	if (parse_ulong(s, 0, 1000000, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --top '%s': expected 0..1000000",
				   s);
	o->top = (unsigned)v;
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

/* Options every subcommand shares: -h and --top. */
static int parse_common(int c, const char *arg, struct options *o, char *err,
			size_t len)
{
	switch (c) {
	case 'h':
		o->action = ACTION_HELP;
		return 0;
	case OPT_TOP:
		return parse_top(arg, o, err, len);
	default:
		return errbuf_fail(err, len, EINVAL,
				   "internal error: option %d", c);
	}
}

static int parse_one(int c, const char *arg, struct options *o, char *err,
		     size_t len)
{
	switch (c) {
	case 'p':
		return parse_list(arg, add_pid, o, err, len);
	case 'f':
		return parse_hz(arg, o, err, len);
	case 'o':
		return add_output(arg, o, err, len);
	case OPT_FORMAT:
		return parse_format(arg, o, err, len);
	case 'd':
		return parse_duration(arg, o, err, len);
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
	case OPT_NO_PEEK:
		o->no_peek = 1;
		return 0;
	case OPT_WALL:
		o->wall = 1;
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
		return parse_list(arg, add_tid, o, err, len);
	case OPT_THREAD_NAME:
		return parse_thread_name(arg, o, err, len);
	case 'V':
		o->action = ACTION_VERSION;
		return 0;
	default:
		return parse_common(c, arg, o, err, len);
	}
}

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
		return errbuf_fail(err, len, EINVAL, "out of memory");
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
		return parse_common(c, arg, o, err, len);
	}
}

static int parse_dump_one(int c, const char *arg, struct options *o, char *err,
			  size_t len)
{
	switch (c) {
	case 'p':
		return parse_list(arg, add_pid, o, err, len);
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
	default:
		return parse_common(c, arg, o, err, len);
	}
}

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->action = ACTION_RECORD_PID;
	o->hz = PTPROF_DEFAULT_HZ;
	o->output = PTPROF_DEFAULT_OUTPUT;
	o->max_depth = STACKTAB_DEFAULT_DEPTH;
	o->usage = options_usage;
	o->children = -1; /* not given: by action, check_children() */
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

/* One subcommand's options: getopt_long over table, each option to one(). */
typedef int (*parse_fn)(int c, const char *arg, struct options *o, char *err,
			size_t len);

static int parse_with(int argc, char **argv, const char *shorts,
		      const struct option *table, parse_fn one,
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

static int parse_report(int argc, char **argv, struct options *o, char *err,
			size_t len)
{
	o->action = ACTION_REPORT;
	o->usage = options_report_usage;
	o->window = (struct timeslice){ 0, INT64_MAX };
	if (parse_with(argc, argv, ":h", report_options, parse_report_one, o,
		       err, len))
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
	if (o->windowed && timeslice_check(&o->window, err, len))
		return -1;
	return check_report_processes(o, argv[optind], err, len);
}

static int parse_dump(int argc, char **argv, struct options *o, char *err,
		      size_t len)
{
	o->action = ACTION_DUMP;
	o->usage = options_dump_usage;
	if (parse_with(argc, argv, ":p:h", dump_options, parse_dump_one, o, err,
		       len))
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

	if (parse_ulong(s, 1, 60, &v))
		return errbuf_fail(err, len, EINVAL,
				   "invalid --window '%s': expected 1..60 seconds",
				   s);
	o->top_window = (unsigned)v;
	return 0;
}

/* top: record's sampling options (parse_one()), and its own. */
static int parse_top_one(int c, const char *arg, struct options *o, char *err,
			 size_t len)
{
	switch (c) {
	case OPT_WINDOW:
		return parse_window(arg, o, err, len);
	case OPT_THREADS:
		o->thread_view = 1;
		return 0;
	default:
		return parse_one(c, arg, o, err, len);
	}
}

static int parse_topcmd(int argc, char **argv, struct options *o, char *err,
			size_t len)
{
	o->action = ACTION_TOP;
	o->usage = options_top_usage;
	o->top_window = 10;
	if (parse_with(argc, argv, ":p:f:d:t:h", top_options, parse_top_one, o,
		       err, len))
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

void options_free(struct options *o)
{
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
	free(o->diff_bases);
	o->diff_bases = NULL;
	o->ndiff_bases = o->diff_cap_ = 0;
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

static int parse_record(int argc, char **argv, struct options *o, char *err,
			size_t errlen)
{
	/* '+': stop at the first non-option, so COMMAND's own flags are its. */
	if (parse_with(argc, argv, "+:p:f:o:d:t:qhV", long_options, parse_one,
		       o, err, errlen))
		return -1;
	if (check_action(argc, argv, o, o->pid_given, err, errlen))
		return -1;
	/* Said of CPU mode, it would be ignored: refused instead. */
	if (o->no_peek && !o->wall && o->action != ACTION_HELP &&
	    o->action != ACTION_VERSION)
		return errbuf_fail(
			err, errlen, EINVAL,
			"--no-peek goes with --wall (CPU mode stops only threads that run)");
	if (resolve_outputs(o, err, errlen))
		return -1;
	return check_rotate(o, err, errlen);
}

int options_parse(int argc, char **argv, struct options *o, char *err,
		  size_t errlen)
{
	int rc;

	set_defaults(o);
	if (argc > 1 && !strcmp(argv[1], "report"))
		rc = parse_report(argc - 1, argv + 1, o, err, errlen);
	else if (argc > 1 && !strcmp(argv[1], "dump"))
		rc = parse_dump(argc - 1, argv + 1, o, err, errlen);
	else if (argc > 1 && !strcmp(argv[1], "top"))
		rc = parse_topcmd(argc - 1, argv + 1, o, err, errlen);
	else
		rc = parse_record(argc, argv, o, err, errlen);
	if (o->children < 0) /* report, --help, --version */
		o->children = 0;
	return rc;
}
