/*
 * cmd_record.c - ptprof -p PID and ptprof -- COMMAND: check, sample,
 * write the profile, summarise (cmds.h).
 *
 * Everything that can be refused is refused before the target is touched;
 * the profile is written in pieces (spill) while sampling, then committed
 * (recwrite.h), a period at a time when rotated (rotate.h); the summary
 * and the warnings come after, on stderr (record_summary.h,
 * record_warn.h).  With -- COMMAND the exit status is COMMAND's.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmds.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/record_summary.h"
#include "cli/record_warn.h"
#include "proc/cpuwatch.h"
#include "proc/kstack.h"
#include "proc/launch.h"
#include "proc/procfs.h"
#include "profile/bgwrite.h"
#include "profile/pprof_out.h"
#include "profile/procset.h"
#include "profile/profile_out.h"
#include "profile/recwrite.h"
#include "profile/rotate.h"
#include "profile/stacktab.h"
#include "python/pyframes.h"
#include "sampler/sampler.h"
#include "sampler/tselect.h"
#include "util/timeutil.h"

static void check_output(const char *path)
{
	if (path && profile_out_check_writable(path))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s", path,
			recwrite_why(path, errno));
}

/* -- COMMAND: what makes tracing impossible is said before it starts. */
static void check_launch(void)
{
	if (procfs_yama_scope() == 3)
		cli_die(EXIT_FAILURE,
			"cannot trace COMMAND: ptrace is disabled (kernel.yama.ptrace_scope = 3)");
}

static pid_t start_command(char **argv)
{
	char path[PATH_MAX];
	pid_t pid;

	if (launch_resolve(argv[0], path, sizeof(path))) {
		if (errno == ENOENT)
			cli_die(127, "%s: command not found", argv[0]);
		cli_die(126, "%s: cannot execute: %s", argv[0],
			strerror(errno));
	}
	pid = launch_start(path, argv);
	if (pid < 0)
		cli_die(errno == ENOENT ? 127 : 126, "%s: cannot execute: %s",
			argv[0], strerror(errno));
	return pid;
}

/* Shell convention: the command's status, or 128+N if signal N killed it. */
static int command_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAILURE;
}

/* -- COMMAND: after sampling, hand a signal meant for ptprof on to the
 * command (a terminal already sent it to both), then wait for it. */
static int finish_command(pid_t child, const struct sampler_stats *st,
			  const sigset_t *stop)
{
	int status;

	if (st->child_reaped)
		return command_status(st->child_status);
	if (st->end == SAMPLER_END_SIGNAL && st->end_signal_code != SI_KERNEL)
		kill(child, st->end_signal);
	if (launch_wait(child, stop, &status)) {
		cli_msg("lost track of COMMAND (PID %d): %s", (int)child,
			strerror(errno));
		return EXIT_FAILURE;
	}
	return command_status(status);
}

/* A pprof output collects samples by thread as the sampler hands them;
 * so does a run that may cover several processes, for BASE.pb.gz. */
static void want_pprof(const struct options *o, struct recwrite *w,
		       struct sampler_config *cfg)
{
	clock_gettime(CLOCK_REALTIME, &w->start);
	if (!o->pprof_output && !o->children && o->npids < 2)
		return;
	w->pprof = pprof_out_new(o->max_depth);
	if (!w->pprof)
		cli_die(EXIT_FAILURE, "out of memory");
	cfg->on_stack = pprof_out_add;
	cfg->on_stack_arg = w->pprof;
	cfg->want_names = true;
}

/* Before the target is touched: the first file's name as it will be (a
 * COMMAND's PID is not known yet: ptprof's own stands in for %p), and
 * room for a long run's sequence numbers. */
static void check_output_name(const struct options *o, const char *name)
{
	pid_t pid = o->action == ACTION_RECORD_PID ? o->pids[0] : getpid();
	char buf[PATH_MAX];

	if (!name)
		return;
	if (rotate_expand_name(name, pid, time(NULL), 1000000000UL, true, buf,
			       sizeof(buf)))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s", name,
			strerror(errno));
	rotate_expand_name(name, pid, time(NULL), 1, o->rotate_s > 0, buf,
			   sizeof(buf));
	check_output(buf);
}

/* The target's root directory while it is there ("/proc/PID/root"), to
 * open its files as it saw them; NULL once it is gone. */
static const char *target_root(pid_t pid, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/%d/root/", (int)pid);
	if (access(buf, X_OK))
		return NULL;
	buf[strlen(buf) - 1] = '\0';
	return buf;
}

/*
 * --top N: the table of the profile just written, with the binaries
 * opened through the target's root while it is still there.  It goes to
 * stdout unless stdout is COMMAND's: with -- COMMAND, to stderr after the
 * summary (as time(1) does), so that `ptprof --top=9 -- xz -c f > f.xz`
 * neither loses the table nor writes it into f.xz.
 */
static void top_table(const struct options *o, const char *path, pid_t pid,
		      bool launched)
{
	char buf[64];
	const char *root = target_root(pid, buf, sizeof(buf));

	fflush(stderr);
	cmd_report_top(path, o->top, root, launched ? stderr : stdout);
}

/* Everything that can be refused, before the target is touched. */
static void check_record(const struct options *o, struct tselect *sel,
			 struct sampler_config *cfg)
{
	if (o->action == ACTION_RECORD_PID)
		cli_check_targets(o);
	else
		check_launch();
	check_output_name(o, o->legacy_output);
	check_output_name(o, o->pprof_output);
	cli_select_threads(o, sel, cfg);
}

/*
 * Python frames (issue 16) are read only for a pprof output (-o
 * NAME.pb.gz, --format=pprof, or the BASE.pb.gz of a run over several
 * processes): the gperftools format has addresses and maps, no names,
 * so a legacy-only file would hold [py] PCs (pyframes.h) that nothing
 * can name.  Such a run keeps today's native stacks and only tells the
 * CPython processes it met, for a note; --no-python neither.
 */
static void want_python(const struct options *o, struct recwrite *w,
			struct sampler_config *cfg)
{
	if (o->no_python)
		return;
	if (!w->pprof) {
		cfg->py_detect = true;
		return;
	}
	w->py = cfg->pyframes = pyframes_new(0);
	if (!w->py)
		cli_die(EXIT_FAILURE, "out of memory");
}

/*
 * --wall --kernel (issue 28): a blocked thread's kernel frames, named
 * from the same registry as Python frames (made here when --no-python
 * did not), so only for a pprof output, as Python frames: a legacy-only
 * run is refused rather than given frames nothing can name.  Refused at
 * once, too, when the kernel stacks cannot be read (not root, or a
 * kernel without stack traces): asked of ptprof's own (kstack.h), as the
 * target may not be started yet and the right is CAP_SYS_ADMIN, not the
 * target's.
 */
static void want_kernel(const struct options *o, struct recwrite *w,
			struct sampler_config *cfg)
{
	if (o->kernel != OPTIONS_KERNEL_ON)
		return;
	if (!w->pprof)
		cli_die(EXIT_FAILURE,
			"--kernel needs a pprof output (-o NAME.pb.gz or --format=pprof): a legacy profile cannot name kernel frames");
	if (kstack_available(0))
		cli_die(EXIT_FAILURE,
			"--kernel: cannot read kernel stacks (/proc/PID/task/TID/stack): %s (it needs CAP_SYS_ADMIN)",
			strerror(errno));
	if (!w->py && !(w->py = pyframes_new(0)))
		cli_die(EXIT_FAILURE, "out of memory");
	cfg->kframes = w->py;
}

/*
 * What is watched while sampling, through the sampler's progress hook
 * (called between ticks, every WATCH_EVERY_NS): the progress line on a
 * terminal, the target's CPU time for the warnings (record_warn.h), and
 * the rotation (rotate_tick()).
 */
#define WATCH_EVERY_NS (250 * NSEC_PER_MSEC) /* 4 redraws a second */

struct watch {
	struct progress line;
	struct cpuwatch cpu;
	struct recwrite *out; /* rotated between ticks (rotate_tick()) */
};

/* The sampler's counts the rotation reads. */
static struct rotate_counts rotate_counts(const struct sampler_stats *st)
{
	return (struct rotate_counts){
		.missed_ticks = st->missed_ticks,
		.py_merged = st->py_merged,
		.elapsed_ns = st->elapsed_ns,
	};
}

static void watch_progress(void *arg, const struct sampler_stats *st)
{
	struct watch *w = arg;
	struct rotate_counts c = rotate_counts(st);
	char err[PATH_MAX + 256];

	cpuwatch_read(&w->cpu);
	progress_draw(&w->line, st);
	if (w->out && rotate_tick(w->out, &c, err, sizeof(err)))
		cli_die(EXIT_FAILURE, "%s", err);
}

/* Before sampling: the progress line, and the first reading of the
 * target's CPU time. */
static void watch_start(struct watch *w, const struct options *o,
			struct sampler_config *cfg)
{
	progress_start(&w->line, o->quiet);
	cpuwatch_start(&w->cpu, cfg->pids[0], cfg->child != 0);
	cfg->progress = watch_progress;
	cfg->progress_arg = w;
	cfg->progress_ns = WATCH_EVERY_NS;
}

/* After sampling: erase the progress line, read the target once more. */
static void watch_end(struct watch *w)
{
	progress_end(&w->line);
	cpuwatch_end(&w->cpu);
}

/* recwrite_say_fn: the writers' sentences, one line each. */
static void say(void *arg, const char *sentence)
{
	(void)arg;
	cli_msg("%s", sentence);
}

/* After a run written out: the summary, the warnings, --stats, --top. */
static void report_run(const struct options *o, const struct recwrite *w,
		       const struct watch *watch, const struct tselect *sel,
		       const struct sampler_stats *st, const struct procset *ps)
{
	const struct record_run run = {
		.o = o,
		.st = st,
		.ps = ps,
		.w = w,
		.cpu = &watch->cpu,
		.sel = sel,
	};
	/* The last files' names, the first -o's first. */
	const char *legacy = o->legacy_output ? w->rot.legacy : NULL;
	const char *pprof = o->pprof_output ? w->rot.pprof : NULL;
	const char *first = o->output != o->legacy_output ? pprof :
			    legacy			  ? legacy :
							    pprof;

	record_summary_line(&run);
	record_warn(&run);
	record_summary_stats(&run);
	/* Python frames merged: the legacy file holds them as bare
	 * addresses, BASE.pb.gz names them; the table comes from it. */
	if (o->top)
		top_table(o, w->all_path && st->py_merged ? w->all_path : first,
			  watch->cpu.pid, o->action == ACTION_RECORD_COMMAND);
}

int cmd_record(const struct options *o)
{
	struct sampler_config cfg = { .spill = recwrite_spill,
				      .spill_at = RECWRITE_SPILL_AT };
	struct sampler_stats st;
	struct stacktab *tab = stacktab_new(o->max_depth);
	struct procset *ps = procset_new();
	struct recwrite w = {
		.o = { .hz = o->hz,
		       .wall = o->wall,
		       .legacy_output = o->legacy_output,
		       .pprof_output = o->pprof_output,
		       .rotate_s = o->rotate_s,
		       .keep = o->keep,
		       .stats = o->stats,
		       .no_inline = o->no_inline },
		.tab = tab,
		.say = say,
	};
	struct rotate_counts counts;
	struct watch watch;
	struct tselect sel;
	char err[PATH_MAX + 256];
	sigset_t stop;
	pid_t child = 0;
	int rc = 0, failed, unwritten = 0;

	if (!tab || !ps)
		cli_die(EXIT_FAILURE, "out of memory");
	cli_sampler_config(o, &cfg);
	check_record(o, &sel, &cfg);
	want_pprof(o, &w, &cfg);
	want_python(o, &w, &cfg);
	want_kernel(o, &w, &cfg);
	cli_block_stop_signals(&stop);
	rotate_block_signal(&w);
	cfg.stop_signals = &stop;
	cfg.spill_arg = &w;
	if (o->action == ACTION_RECORD_COMMAND) {
		cfg.child = child = start_command(o->command);
		cfg.pids = &child;
		cfg.npids = 1;
		w.launched = true;
	}
	/* The table gets the first process's stacks; the legacy file holds
	 * the busiest process's, made anew when it is another (recwrite.h). */
	cfg.tab_pid = cfg.pids[0];
	if (rotate_start(&w, cfg.pids[0], ps, err, sizeof(err)))
		cli_die(EXIT_FAILURE, "%s", err);
	/* After COMMAND has started: it keeps the limit it was given (a
	 * program that select()s breaks on descriptors past 1023). */
	cli_raise_fd_limit();
	watch_start(&watch, o, &cfg);
	watch.out = &w;
	failed = sampler_run(&cfg, tab, ps, &st);
	watch_end(&watch);
	if (failed)
		cli_sampling_failed(&cfg, &st);
	counts = rotate_counts(&st);
	if ((!failed || st.ticks) && !st.seccomp_refused && procset_count(ps))
		unwritten = rotate_finish(&w, ps, &counts, watch.cpu.end_at) &
			    RECWRITE_FAILED;
	else if (w.out)
		profile_out_abort(w.out);
	rotate_wait(&w);
	watch.cpu.writers_ns = w.rot.bg.cpu_ns;
	if (!failed && !unwritten)
		report_run(o, &w, &watch, &sel, &st, ps);
	if (cfg.child)
		rc = finish_command(cfg.child, &st, &stop);
	if ((failed || unwritten) && cfg.child)
		cli_msg("%s exited with status %d", o->command[0], rc);
	tselect_free(&sel);
	stacktab_free(tab);
	pprof_out_free(w.pprof);
	pyframes_free(w.py);
	recwrite_free(&w);
	rotate_free(&w);
	procset_free(ps);
	/* A rotated period unwritten (its writer said why): a failure too. */
	return failed || unwritten || w.rot.rs.failed ? EXIT_FAILURE : rc;
}
