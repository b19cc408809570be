/*
 * options.h - ptprof's command line.
 *
 *   ptprof -p PID[,PID...] [--children] [-f HZ] [--max-overhead=PCT]
 *                 [-o FILE [-o FILE]]
 *                 [--format=legacy|pprof] [-d SECONDS] [--wall [--kernel]]
 *                 [-t TID,...] [--thread-name REGEX] [--stats]
 *                 [--rotate=SECONDS [--keep=N]] ...
 *   ptprof [OPTION...] [--no-children] -- COMMAND [ARG...]
 *   ptprof report [--top N] [--lines] [--folded | --svg] [--root DIR]
 *                 [--thread=TID|NAME] [--pid=PID|NAME] [--by-process]
 *                 [--from=SEC] [--to=SEC] [--diff BASE]... FILE...
 *   ptprof report --threads [--pid=PID|NAME] FILE
 *   ptprof report --processes FILE
 *   ptprof report --waits [--top N] [--thread=..] [--pid=..] FILE...
 *   ptprof dump -p PID[,PID...] [--children] [--json] [--no-peek]
 *                 [--kernel | --no-kernel]
 *   ptprof top -p PID[,PID...] [--children] [-f HZ] [-d SECONDS] [--wall]
 *                 [-t TID,...] [--thread-name REGEX] [--window=SECS] ...
 *   ptprof --help | --version     (also: ptprof report|dump|top --help)
 *
 * Contract: options_parse() only parses and range-checks; it touches no
 * process and no file, never prints and never exits.  On bad input it
 * returns -1 and writes one sentence (no "ptprof:" prefix, no newline)
 * into err.  argv is borrowed: opts->command points into it.
 *
 * -p PID[,PID...] may be repeated: pids holds every process named, in
 * the order given, each once, at most PROCSET_MAX_LIVE; pid is pids[0]
 * (0 without -p).  It is allocated, also when parsing fails:
 * options_free() releases it.  children: 1 with --children and by
 * default with a COMMAND, 0 with --no-children (COMMAND only), by
 * default with -p, and for dump without --children.
 */
#ifndef PTPROF_OPTIONS_H
#define PTPROF_OPTIONS_H

#include <stddef.h>
#include <sys/types.h>

#include "report/timeslice.h"

#define PTPROF_DEFAULT_HZ 100
#define PTPROF_MIN_HZ 1
#define PTPROF_MAX_HZ 10000
#define PTPROF_DEFAULT_OUTPUT "ptprof.prof"
#define OPTIONS_MAX_TIDS 256	    /* -t TID,... at most */
#define OPTIONS_MAX_ROTATE 31536000 /* --rotate: a year, in seconds */
#define OPTIONS_MAX_KEEP 1000000    /* --keep: files of each output */
#define PTPROF_DEFAULT_PPROF_OUTPUT "ptprof.pb.gz"

enum ptprof_action {
	ACTION_RECORD_PID,     /* -p PID[,PID...] */
	ACTION_RECORD_COMMAND, /* -- COMMAND ... */
	ACTION_REPORT,	       /* report FILE */
	ACTION_DUMP,	       /* dump -p PID[,PID...] */
	ACTION_TOP,	       /* top -p PID[,PID...] */
	ACTION_HELP,
	ACTION_VERSION,
};

/*
 * --kernel / --no-kernel (proc/kstack.h): a blocked thread's
 * kernel frames, from /proc/TID/stack, root only.  The last of the two
 * given counts (as --children / --no-children).  dump: AUTO when neither
 * is given (shown when readable: kstack_available()), ON (--kernel: not
 * readable is an error), OFF (--no-kernel).  A recording: ON with
 * --kernel, else OFF (never AUTO after options_parse()); either option
 * without --wall is refused, as --no-peek is.  report and top: AUTO,
 * unused.
 */
enum options_kernel {
	OPTIONS_KERNEL_AUTO,
	OPTIONS_KERNEL_ON,
	OPTIONS_KERNEL_OFF,
};

/* What a recording writes (--format; a -o name ending in .pb.gz: pprof). */
enum output_format {
	OUTPUT_DEFAULT, /* --format not given: legacy */
	OUTPUT_LEGACY,	/* gperftools CPU profile (profile_out.h) */
	OUTPUT_PPROF,	/* gzipped pprof protobuf (pprof_out.h) */
};

enum report_format {
	REPORT_TEXT,   /* flat and cumulative table, like pprof --text */
	REPORT_FOLDED, /* root;...;leaf COUNT, for flamegraph.pl */
	REPORT_SVG,    /* a self-contained flame graph */
};

struct options {
	enum ptprof_action action;
	pid_t pid;   /* = pids[0], for code not yet converted */
	pid_t *pids; /* -p: the processes to sample */
	size_t npids;
	int children; /* 1: follow their descendants too, 0: not */
	unsigned hz;
	/* --max-overhead=PCT (record): the share of the target's time its
	 * stops may take, in percent, 0 < PCT <= 100; 0: not given */
	double max_overhead_pct;
	double duration_s;  /* 0: until the target exits or a signal */
	const char *output; /* the first output (summary line, --top) */
	/* The files to write, each NULL when not wanted: -o may be given
	 * twice, one legacy and one pprof name, for both from one run. */
	const char *legacy_output, *pprof_output;
	enum output_format output_format; /* --format */
	const char *outputs_[2];	  /* -o as given */
	unsigned noutputs_;
	size_t pids_cap_; /* room in pids */
	unsigned max_depth;
	/* --rotate=SECONDS: a new file (of each output) every rotate_s
	 * seconds, 0: none (SIGUSR2 still rotates); --keep=N: the newest N
	 * files of each output kept, 0: all.  The -o names may hold
	 * templates (outname.h). */
	unsigned rotate_s, keep;
	int quiet;	    /* -q: no summary line */
	int wall;	    /* --wall: count threads that did not run too */
	int stats;	    /* --stats: more figures after the summary */
	int unsafe_seccomp; /* --unsafe-seccomp (record and dump) */
	int no_python;	    /* --no-python (record): native stacks only */
	int no_inline;	    /* --no-inline (record, report, dump, top): no
			       frames for inlined functions (record: a
			       pprof Location has one Line) */
	int no_peek;	    /* --no-peek (record --wall, dump): stop every
			       thread, asleep or not */
	enum options_kernel kernel;   /* --kernel, --no-kernel (dump, record
				       --wall): the kernel frames */
	pid_t tids[OPTIONS_MAX_TIDS]; /* -t: the threads to sample */
	size_t ntids;
	const char *thread_name; /* --thread-name: POSIX extended regex */
	char **command; /* NULL-terminated, for ACTION_RECORD_COMMAND */
	unsigned top;	/* report / record: rows of the table, 0: all
			      (record: 0 = no table) */
	/* report */
	const char *input; /* the profile to read (the first of inputs) */
	char **inputs;	   /* report FILE...: all of them (argv), merged */
	size_t ninputs;
	/* report --diff=BASE (repeatable): the BASE profiles, merged, and
	 * inputs the NEW ones; NULL, 0 without --diff */
	const char **diff_bases;
	size_t ndiff_bases, diff_cap_;
	enum report_format format;
	int lines;	     /* --lines: by source line, not by function */
	int threads;	     /* --threads: samples by thread */
	const char *thread;  /* --thread=TID|NAME: only that thread's samples */
	int processes;	     /* --processes: samples by process */
	const char *process; /* --pid=PID|NAME: only that process's samples */
	int by_process;	     /* --by-process: a "name (pid)" root frame */
	int waits;	     /* --waits: wall time by what it waited for */
	const char *root;    /* --root DIR: prefix of every path opened */
	const char *perf_map; /* --perf-map FILE: names for JIT code */
	/* --from=SEC, --to=SEC: only the samples of that window after the
	 * profile's start (timeslice.h); windowed: either was given */
	struct timeslice window;
	int windowed;
	/* dump */
	int json; /* --json */
	/* top (--top=N: rows of the plain table, 0: the default) */
	unsigned top_window; /* --window=SECS: the sliding window, 1..60 */
	int thread_view;     /* --threads: start with the view by thread */
	const char *usage;   /* the --help text of the (sub)command */
	int pid_given;	     /* -p was given */
	/* --no-debuginfod (record, report, dump, top): no file fetched
	 * from DEBUGINFOD_URLS (elf/debuginfod.h) */
	int no_debuginfod;
};

int options_parse(int argc, char **argv, struct options *opts, char *err,
		  size_t errlen);
void options_free(struct options *opts);

/* The --help texts. */
extern const char options_usage[];
extern const char options_report_usage[];
extern const char options_dump_usage[];
extern const char options_top_usage[];

#endif /* PTPROF_OPTIONS_H */
