/*
 * ptprof.c - the command-line layer: the only place that prints and exits.
 *
 * main() is a dispatcher: parse options, check everything that can be
 * checked before the target is touched, sample, write, summarise.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "launch.h"
#include "maps.h"
#include "options.h"
#include "pprof_out.h"
#include "procfs.h"
#include "profile_out.h"
#include "sampler.h"
#include "stacktab.h"
#include "timeutil.h"
#include "tselect.h"

/* profile_out_write's EINVAL: the path exists and is not a regular file;
 * EPERM on a link: somebody else's symbolic link, not followed. */
static const char *output_error(const char *path, int err)
{
	struct stat st;

	if (err == EINVAL)
		return "not a regular file";
	if (err == EPERM && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return "a symbolic link owned by another user (not followed)";
	return strerror(err);
}

static void check_output(const char *path)
{
	if (path && profile_out_check_writable(path))
		cli_die(EXIT_FAILURE, "cannot write output file '%s': %s", path,
		    output_error(path, errno));
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
		cli_die(126, "%s: cannot execute: %s", argv[0], strerror(errno));
	}
	pid = launch_start(path, argv);
	if (pid < 0)
		cli_die(errno == ENOENT ? 127 : 126, "%s: cannot execute: %s",
		    argv[0], strerror(errno));
	return pid;
}

static void block_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigprocmask(SIG_BLOCK, set, NULL);
}

static double per_tick(uint64_t n, uint64_t ticks)
{
	return ticks ? (double)n / (double)ticks : 0;
}

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)(ns / NSEC_PER_USEC);
}

/* Why the run ended, for the summary line. */
static const char *end_reason(const struct sampler_stats *st, char *buf,
			      size_t size)
{
	switch (st->end) {
	case SAMPLER_END_DURATION:
		return "the duration (-d) was reached";
	case SAMPLER_END_TARGET_EXITED:
		return "the target exited";
	case SAMPLER_END_SIGNAL: {
		const char *name = sigabbrev_np(st->end_signal);

		if (name)
			snprintf(buf, size, "ptprof got SIG%s", name);
		else
			snprintf(buf, size, "ptprof got signal %d",
				 st->end_signal);
		return buf;
	}
	case SAMPLER_END_ERROR:
		break;
	}
	return "an error";
}

static void print_summary(const struct options *o,
			  const struct sampler_stats *st, size_t records)
{
	uint64_t mean = st->ticks ? st->pause_total_ns / st->ticks : 0;
	char why[64];

	if (o->quiet)
		return;
	fprintf(stderr,
		"ptprof: %llu ticks (%llu missed), %llu samples, %llu threads, "
		"%zu distinct stacks, %.1f threads stopped/tick, pause mean "
		"%llu us max %llu us p50 %llu us p99 %llu us, %.2f%% of %.1f s; "
		"ended: %s; wrote %s%s%s\n",
		(unsigned long long)st->ticks,
		(unsigned long long)st->missed_ticks,
		(unsigned long long)st->samples,
		(unsigned long long)st->threads_seen, records,
		per_tick(st->threads_stopped, st->ticks), us(mean),
		us(st->pause_max_ns), us(sampler_pause_quantile(st, 0.5)),
		us(sampler_pause_quantile(st, 0.99)),
		st->elapsed_ns ? 100.0 * (double)st->pause_total_ns /
					 (double)st->elapsed_ns :
				 0.0,
		(double)st->elapsed_ns / NSEC_PER_SEC,
		end_reason(st, why, sizeof(why)), o->output,
		o->noutputs_ > 1 ? " and " : "",
		o->noutputs_ > 1 ? o->outputs_[1] : "");
}

/* Threads another tracer held were not sampled: say so, even with -q. */
static void warn_foreign(const struct sampler_stats *st)
{
	const char *comm = st->foreign_comm;

	if (!st->foreign_traced)
		return;
	if (st->foreign_traced == 1)
		cli_msg("warning: thread %d was not sampled: it is traced by PID "
		    "%d (%s)", (int)st->foreign_tid, (int)st->foreign_tracer,
		    comm);
	else
		cli_msg("warning: %llu threads were not sampled: they are traced "
		    "by another process (thread %d by PID %d (%s), ...)",
		    (unsigned long long)st->foreign_traced,
		    (int)st->foreign_tid, (int)st->foreign_tracer, comm);
}

/* --stats: what the summary leaves out, one "ptprof: stats:" line each. */
static void print_stats(const struct options *o,
			const struct sampler_stats *st)
{
	const struct unwinder_counters *u = &st->unwind;
	struct rusage ru;
	double cpu_us = 0;

	if (!o->stats)
		return;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu_us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
			 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	fprintf(stderr,
		"ptprof: stats: threads stopped %llu, spared %llu (not due), "
		"not selected %llu, late %llu (%llu sampled when they "
		"stopped), stacks %llu, samples reusing a last stack %llu, "
		"sweeps of quiet threads %llu\n",
		(unsigned long long)st->threads_stopped,
		(unsigned long long)st->threads_spared,
		(unsigned long long)st->threads_unselected,
		(unsigned long long)st->late_threads,
		(unsigned long long)st->late_captured,
		(unsigned long long)st->stacks,
		(unsigned long long)st->reused_samples,
		(unsigned long long)st->sweeps);
	fprintf(stderr,
		"ptprof: stats: ptprof cpu %.0f us, %.1f us per stack; one "
		"unwind (from the copy) p50 %u us, p99 %u us\n",
		cpu_us, st->stacks ? cpu_us / (double)st->stacks : 0,
		sampler_unwind_quantile(st, 0.5),
		sampler_unwind_quantile(st, 0.99));
	fprintf(stderr,
		"ptprof: stats: unwinder reads: stack copy %llu, module "
		"images %llu, target %llu; tables built %llu, missing %llu; "
		"libunwind cache size %s\n",
		(unsigned long long)u->mem_from_stack,
		(unsigned long long)u->mem_from_module,
		(unsigned long long)u->mem_from_target,
		(unsigned long long)u->tables_built,
		(unsigned long long)u->tables_missing,
		u->cache_size_set == 0 ? "set" : "refused (default kept)");
}

/*
 * Sampling stopped on an error.  With -p and a refused first seize nothing
 * was touched: say why and exit.  Otherwise say what failed; the caller
 * still writes what was collected and, with -- COMMAND, waits for it.
 */
static void sampling_failed(const struct sampler_config *cfg)
{
	char why[256];
	int err = errno;

	if (err == EPERM)
		cli_explain_refusal(cfg->pid, why, sizeof(why));
	if (err == EPERM && !cfg->child)
		cli_die(EXIT_FAILURE, "cannot trace process %d: %s", (int)cfg->pid,
		    why);
	if (err == EPERM)
		cli_msg("cannot trace process %d: %s", (int)cfg->pid, why);
	else
		cli_msg("sampling process %d failed: %s", (int)cfg->pid,
		    strerror(err));
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

/*
 * The output file, written in pieces: a long run with many distinct
 * stacks spills them to the (temporary) file as gperftools does, instead
 * of holding them all in memory.
 */
struct output {
	const struct options *o;
	struct stacktab *tab;
	struct profile_out *out; /* NULL until the first spill */
	size_t records;		 /* records written so far */
	struct pprof_builder *pprof; /* with a pprof output */
	struct timespec start;	 /* wall clock at the start, for pprof */
};

/* Distinct stacks kept in memory before they go to the file. */
#define SPILL_AT 50000

static int open_output(struct output *w)
{
	if (!w->out)
		w->out = profile_out_open(w->o->legacy_output,
					  NSEC_PER_SEC / NSEC_PER_USEC / w->o->hz);
	return w->out ? 0 : -1;
}

/* Without a legacy output the table only counts distinct stacks. */
static int spill(void *arg)
{
	struct output *w = arg;

	if (w->o->legacy_output &&
	    (open_output(w) || profile_out_add(w->out, w->tab)))
		return -1;
	w->records += stacktab_distinct(w->tab);
	stacktab_clear(w->tab);
	return 0;
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

static int write_legacy(struct output *w, const struct maps *maps)
{
	int rc = spill(w);

	if (!w->o->legacy_output)
		return rc;
	if (rc == 0)
		rc = profile_out_close(w->out, maps);
	else if (w->out)
		profile_out_abort(w->out);
	w->out = NULL;
	if (rc == 0)
		return 0;
	cli_msg("cannot write output file '%s': %s", w->o->legacy_output,
	    output_error(w->o->legacy_output, errno));
	return -1;
}

/* The pprof protobuf, symbolized now through the target's root. */
static int write_pprof(struct output *w, const struct maps *maps, pid_t pid,
		       const struct sampler_stats *st)
{
	const char *path = w->o->pprof_output;
	char root[64];
	struct pprof_meta meta = {
		.period_ns = NSEC_PER_SEC / w->o->hz,
		.wall = w->o->wall,
		.time_nanos = (int64_t)w->start.tv_sec * NSEC_PER_SEC +
			      w->start.tv_nsec,
		.duration_nanos = (int64_t)st->elapsed_ns,
		.root = target_root(pid, root, sizeof(root)),
	};

	if (!path || pprof_write_file(path, w->pprof, maps, &meta) == 0)
		return 0;
	cli_msg("cannot write output file '%s': %s", path,
	    output_error(path, errno));
	return -1;
}

static int write_profile(struct output *w, const struct maps *maps, pid_t pid,
			 const struct sampler_stats *st)
{
	int rc = write_legacy(w, maps);

	return write_pprof(w, maps, pid, st) || rc ? -1 : 0;
}

/* A pprof output collects samples by thread as the sampler hands them. */
static void want_pprof(struct output *w, struct sampler_config *cfg)
{
	clock_gettime(CLOCK_REALTIME, &w->start);
	if (!w->o->pprof_output)
		return;
	w->pprof = pprof_builder_new(w->o->max_depth);
	if (!w->pprof)
		cli_die(EXIT_FAILURE, "out of memory");
	cfg->on_stack = pprof_builder_add;
	cfg->on_stack_arg = w->pprof;
	cfg->want_names = true;
}

/* --top N: the table of the profile just written, with the binaries
 * opened through the target's root while it is still there. */
static void top_table(const struct options *o, pid_t pid)
{
	char buf[64];
	const char *root = target_root(pid, buf, sizeof(buf));

	fflush(stderr);
	cmd_report_top(o->output, o->top, root);
}

/* -t, --thread-name: the selection handed to the sampler.  Every -t TID
 * must be a thread of PID now; a name matches whenever it is read. */
static void select_threads(const struct options *o, struct tselect *sel,
			   struct sampler_config *cfg)
{
	if (tselect_init(sel, o->tids, o->ntids, o->thread_name))
		cli_die(EXIT_FAILURE, "cannot use --thread-name '%s': %s",
		    o->thread_name, strerror(errno));
	for (size_t i = 0; i < o->ntids; i++)
		if (procfs_tgid(o->tids[i]) != o->pid)
			cli_die(EXIT_FAILURE, "thread %d is not a thread of process %d",
			    (int)o->tids[i], (int)o->pid);
	if (tselect_active(sel)) {
		cfg->select = tselect_match;
		cfg->select_arg = sel;
	}
}

/* A selection that never picked a thread: say so, even with -q. */
static void warn_unselected(const struct tselect *sel,
			    const struct sampler_stats *st)
{
	if (tselect_active(sel) && !st->stacks)
		cli_msg("warning: no thread selected by %s%s%s was sampled",
		    sel->ntids ? "-t" : "", sel->ntids && sel->have_re ?
						    " or " : "",
		    sel->have_re ? "--thread-name" : "");
}

static int record(const struct options *o)
{
	struct sampler_config cfg = { .hz = o->hz, .pid = o->pid,
				      .wall = o->wall, .spill = spill,
				      .spill_at = SPILL_AT };
	struct sampler_stats st;
	struct stacktab *tab = stacktab_new(o->max_depth);
	struct maps *maps = maps_new();
	struct output w = { .o = o, .tab = tab };
	struct tselect sel;
	sigset_t stop;
	int rc = 0, failed, unwritten = 0;

	if (!tab || !maps)
		cli_die(EXIT_FAILURE, "out of memory");
	if (o->action == ACTION_RECORD_PID)
		cli_check_target(o->pid);
	else
		check_launch();
	check_output(o->legacy_output);
	check_output(o->pprof_output);
	select_threads(o, &sel, &cfg);
	want_pprof(&w, &cfg);
	block_stop_signals(&stop);
	cfg.stop_signals = &stop;
	cfg.spill_arg = &w;
	cfg.duration_ns = (uint64_t)(o->duration_s * NSEC_PER_SEC);
	if (o->action == ACTION_RECORD_COMMAND)
		cfg.pid = cfg.child = start_command(o->command);
	failed = sampler_run(&cfg, tab, maps, &st);
	if (failed)
		sampling_failed(&cfg);
	if (!failed || st.ticks)
		unwritten = write_profile(&w, maps, cfg.pid, &st);
	else if (w.out)
		profile_out_abort(w.out);
	if (!failed && !unwritten) {
		print_summary(o, &st, w.records);
		warn_foreign(&st);
		warn_unselected(&sel, &st);
		print_stats(o, &st);
		if (o->top)
			top_table(o, cfg.pid);
	}
	if (cfg.child)
		rc = finish_command(cfg.child, &st, &stop);
	if ((failed || unwritten) && cfg.child)
		cli_msg("%s exited with status %d", o->command[0], rc);
	tselect_free(&sel);
	stacktab_free(tab);
	pprof_builder_free(w.pprof);
	maps_free(maps);
	return failed || unwritten ? EXIT_FAILURE : rc;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];

	/* An inherited SIG_IGN would let the kernel reap COMMAND behind our
	 * back and lose its exit status (strace resets it too). */
	signal(SIGCHLD, SIG_DFL);
	if (options_parse(argc, argv, &o, err, sizeof(err)))
		cli_die(EXIT_USAGE, "%s", err);
	switch (o.action) {
	case ACTION_HELP:
		fputs(o.usage, stdout);
		return 0;
	case ACTION_VERSION:
		printf("ptprof %s\n", PACKAGE_VERSION);
		return 0;
	case ACTION_REPORT:
		return cmd_report(&o);
	case ACTION_DUMP:
		return cmd_dump(&o);
	default:
		return record(&o);
	}
}
