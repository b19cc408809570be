/*
 * cli.c - what every ptprof command shares: its messages, and the checks
 * of -p PID made before the target is touched (see cli.h).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "proc/procfs.h"
#include "proc/seccomp.h"
#include "sampler/sampler.h"
#include "sampler/tselect.h"
#include "util/textsafe.h"
#include "util/timeutil.h"

/*
 * Bounded output.  stdout and stderr are often a terminal or a pipe that
 * ptprof does not own: a pipe nobody reads, or a terminal a COMMAND
 * stopped with tcflow(TCOOFF), blocks write(2) for good (pipe_write(),
 * n_tty_write()), and ptprof with it, between ticks, its stop signals
 * blocked (they wait in the sampler's signalfd): -d, SIGINT, SIGTERM and
 * SIGHUP were all ignored (issue 27, case 47).  O_NONBLOCK cannot be set:
 * the open file is shared with the shell and COMMAND.  So each write runs
 * with SIGINT, SIGTERM, SIGHUP and a SIGALRM deadline unblocked, caught
 * by a handler that jumps out of the write (siglongjmp: no window in
 * which a signal that came just before write(2) is lost and the write
 * blocks all the same).  The output is then dropped; a stop signal is
 * raised again, blocked, for the sampler to take as it would have; a
 * deadline reached marks the descriptor stuck, and later writes to it are
 * dropped at once.  A stop signal already pending is left pending (it is
 * the sampler's) and only the deadline bounds the write.
 */
static sigjmp_buf write_jump;
static volatile sig_atomic_t write_armed, write_sig;
static bool stuck[3];

static void write_interrupted(int sig)
{
	write_sig = sig;
	if (write_armed) {
		write_armed = 0;
		siglongjmp(write_jump, 1);
	}
}

/* The handlers, the mask and the timer around one write. */
struct write_guard {
	struct sigaction old[4];
	sigset_t oldmask;
};

static const int guarded[4] = { SIGINT, SIGTERM, SIGHUP, SIGALRM };

static void guard_on(struct write_guard *g, unsigned timeout_ms)
{
	struct sigaction sa = { .sa_handler = write_interrupted };
	struct itimerval it = {
		{ 0, 0 }, { timeout_ms / 1000, (timeout_ms % 1000) * 1000 }
	};
	sigset_t all;

	sigemptyset(&all);
	for (int i = 0; i < 4; i++)
		sigaddset(&all, guarded[i]);
	sigprocmask(SIG_BLOCK, &all, &g->oldmask);
	sa.sa_mask = all; /* no SA_RESTART: a signal ends the write */
	for (int i = 0; i < 4; i++)
		sigaction(guarded[i], &sa, &g->old[i]);
	write_sig = 0;
	if (timeout_ms)
		setitimer(ITIMER_REAL, &it, NULL);
}

/* The four unblocked, but for a stop signal already pending. */
static void guard_open(void)
{
	sigset_t pending, open;

	sigpending(&pending);
	sigemptyset(&open);
	for (int i = 0; i < 4; i++)
		if (guarded[i] == SIGALRM || !sigismember(&pending, guarded[i]))
			sigaddset(&open, guarded[i]);
	sigprocmask(SIG_UNBLOCK, &open, NULL);
}

static void guard_off(struct write_guard *g)
{
	const struct itimerval off = { { 0, 0 }, { 0, 0 } };
	const struct timespec zero = { 0, 0 };
	sigset_t alrm, all;

	sigemptyset(&all);
	for (int i = 0; i < 4; i++)
		sigaddset(&all, guarded[i]);
	sigprocmask(SIG_BLOCK, &all, NULL);
	write_armed = 0;
	setitimer(ITIMER_REAL, &off, NULL);
	/* A SIGALRM that came after the write: not to be taken later by
	 * its default action, which ends the process. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	while (sigtimedwait(&alrm, NULL, &zero) == SIGALRM)
		;
	for (int i = 0; i < 4; i++)
		sigaction(guarded[i], &g->old[i], NULL);
	sigprocmask(SIG_SETMASK, &g->oldmask, NULL);
	/* The stop signal, pending again (blocked: for the sampler's
	 * signalfd; not blocked: its own action, as without this write). */
	if (write_sig && write_sig != SIGALRM)
		kill(getpid(), write_sig);
}

/* Is fd 0-2 a regular file (or a block device)?  Its writes do not wait
 * for a reader: written plainly, without the guard's dozen system calls
 * (a report naming 160000 files writes as many messages). */
static bool is_file(int fd)
{
	static int kind[3]; /* 0: not known yet, 1: a file, 2: not */
	struct stat st;

	if (fd < 0 || fd > 2)
		return false;
	if (!kind[fd])
		kind[fd] = fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) ||
						   S_ISBLK(st.st_mode)) ?
				   1 :
				   2;
	return kind[fd] == 1;
}

int cli_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int cli_write(int fd, const void *buf, size_t len, unsigned timeout_ms)
{
	const char *p = buf;
	struct write_guard g;
	volatile size_t left = len;
	volatile int err = 0;

	if (fd >= 0 && fd < 3 && stuck[fd]) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (is_file(fd))
		return cli_write_all(fd, buf, len);
	guard_on(&g, timeout_ms);
	if (sigsetjmp(write_jump, 1) == 0) {
		write_armed = 1;
		guard_open();
		while (left > 0) {
			ssize_t n = write(fd, p + (len - left), left);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				err = errno;
				break;
			}
			left -= (size_t)n;
		}
		write_armed = 0;
	}
	guard_off(&g);
	if (left && !err)
		err = write_sig == SIGALRM ? ETIMEDOUT : EINTR;
	if (err == ETIMEDOUT && fd >= 0 && fd < 3)
		stuck[fd] = true;
	errno = err;
	return err ? -1 : 0;
}

/* text (len bytes, or what is left of it), to stderr, bounded. */
static void put_err(const char *text, size_t len)
{
	fflush(stderr); /* unbuffered: only bytes of a caller's own use */
	cli_write(STDERR_FILENO, text, len, CLI_WRITE_BOUND_MS);
}

/*
 * Messages name paths, threads, tracers' comm: things another user may
 * have chosen.  The whole line is escaped (textsafe.h), so a newline in a
 * name cannot split it and an escape sequence cannot reach the terminal;
 * one place, whatever the caller formats.
 */
static void vmsg(const char *fmt, va_list ap)
{
	char *line = NULL, *text = NULL;
	size_t len = 0;
	/* The line is escaped into memory and written at once: stderr is
	 * unbuffered, and escaping straight into it was a write(2) a
	 * character (a report naming 80000 refused files spent 5 s in
	 * them); a line written whole is not cut by another process's
	 * either.  Without that memory, one short line all the same. */
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		put_err("ptprof: (out of memory)\n", 24);
		return;
	}
	fputs("ptprof: ", m);
	if (vasprintf(&line, fmt, ap) >= 0)
		textsafe_fputs(m, line, NULL);
	else
		fputs("(out of memory)", m);
	free(line);
	fputc('\n', m);
	if (!fclose(m))
		put_err(text, len);
	else
		put_err("ptprof: (out of memory)\n", 24);
	free(text);
}

void cli_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void cli_print(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n >= 0)
		put_err(text, (size_t)n);
	else
		put_err("ptprof: (out of memory)\n", 24);
	free(text);
}

void cli_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(status);
}

/* SIGINT, SIGTERM and SIGHUP end a recording or a dump: blocked here, and
 * taken by the sampler from a signalfd between ticks (sampler.h). */
void cli_block_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigprocmask(SIG_BLOCK, set, NULL);
}

/*
 * ptprof keeps two /proc files open per thread (schedstat and stat, see
 * procfs_read_schedstat()), so a target with thousands of threads needs
 * more descriptors than Debian's default soft limit of 1024: raise it to
 * the hard limit (at most 1 << 20, the kernel's default nr_open, which an
 * unlimited hard limit cannot be raised past).  Quietly: a limit that
 * cannot be raised only makes ticks dearer (the sampler counts the
 * threads whose files were read anew, and cmd_record says so).
 */
void cli_raise_fd_limit(void)
{
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	want = rl.rlim_max > (rlim_t)1 << 20 ? (rlim_t)1 << 20 : rl.rlim_max;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/*
 * The sampler's seccomp refusal (sampler.h, "Seccomp"), as one clause:
 * which thread, what its filter does, why that matters, and the way out.
 */
void cli_explain_seccomp(const struct sampler_stats *st, char *buf, size_t len)
{
	int mode = 0, nf;

	/* PTRACE_SECCOMP_GET_FILTER refuses a tracer under seccomp even
	 * with CAP_SYS_ADMIN (Docker's default profile, for one). */
	if (st->seccomp_verdict == SECCOMP_UNREADABLE &&
	    seccomp_thread_mode(getpid(), getpid(), &mode, &nf) == 0 &&
	    mode != 0)
		snprintf(buf, len,
			 "thread %d has a seccomp filter, and ptprof, under seccomp itself, cannot read it to see whether it allows restart_syscall, which the kernel calls to resume a sleep a stop interrupts (--unsafe-seccomp to trace it anyway)",
			 (int)st->seccomp_tid);
	else if (st->seccomp_verdict == SECCOMP_UNREADABLE)
		snprintf(buf, len,
			 "thread %d has a seccomp filter, and ptprof cannot read it without CAP_SYS_ADMIN to see whether it allows restart_syscall, which the kernel calls to resume a sleep a stop interrupts (--unsafe-seccomp to trace it anyway)",
			 (int)st->seccomp_tid);
	else
		snprintf(buf, len,
			 "the seccomp filter of thread %d %s, which the kernel calls to resume a sleep a stop interrupts (--unsafe-seccomp to trace it anyway)",
			 (int)st->seccomp_tid,
			 seccomp_verdict_text(
				 (enum seccomp_verdict)st->seccomp_verdict));
}

void cli_warn_seccomp(const struct sampler_stats *st)
{
	if (!st->seccomp_unsafe || st->seccomp_refused)
		return;
	cli_msg("warning: %llu thread%s no longer sampled once a seccomp filter was seen on %s: that of thread %d %s",
		(unsigned long long)st->seccomp_unsafe,
		st->seccomp_unsafe == 1 ? " was" : "s were",
		st->seccomp_unsafe == 1 ? "it" : "them", (int)st->seccomp_tid,
		seccomp_verdict_text(
			(enum seccomp_verdict)st->seccomp_verdict));
}

/* Why the kernel will not (or did not) let us trace pid, as one clause. */
void cli_explain_refusal(pid_t pid, char *buf, size_t len)
{
	int tracer = procfs_tracer_pid(pid);
	int scope = procfs_yama_scope();
	bool cap = procfs_self_has_cap_sys_ptrace();
	char comm[64] = "?";
	uid_t uid;

	if (tracer > 0) {
		procfs_comm(tracer, 0, comm, sizeof(comm));
		snprintf(buf, len, "it is already traced by PID %d (%s)",
			 tracer, comm);
	} else if (scope == 3) {
		snprintf(buf, len,
			 "ptrace is disabled (kernel.yama.ptrace_scope = 3)");
	} else if (scope == 2 && !cap) {
		snprintf(buf, len,
			 "kernel.yama.ptrace_scope = 2 requires CAP_SYS_PTRACE (run as root)");
	} else if (procfs_uid(pid, &uid) == 0 && uid != getuid() && !cap) {
		snprintf(buf, len,
			 "it belongs to uid %u and ptprof lacks CAP_SYS_PTRACE (run as that user or as root)",
			 (unsigned)uid);
	} else if (scope == 1 && !cap) {
		snprintf(buf, len,
			 "kernel.yama.ptrace_scope = 1 allows tracing only descendants without CAP_SYS_PTRACE (run as root, or set it to 0)");
	} else if (!cap) {
		snprintf(buf, len,
			 "ptrace was refused and ptprof lacks CAP_SYS_PTRACE (is the target set-uid or non-dumpable?)");
	} else {
		snprintf(buf, len, "ptrace was refused (%s)", strerror(EPERM));
	}
}

/* Whether the kernel would refuse to let us trace pid, as far as can be
 * told without touching it.  In CPU mode a target that never runs is
 * never seized, so a refusal must be found out before. */
static bool refused(pid_t pid)
{
	return procfs_tracer_pid(pid) > 0 || procfs_yama_scope() == 3 ||
	       (procfs_may_trace(pid) && (errno == EACCES || errno == EPERM));
}

/* Why pid cannot be a target, found without touching it: 0 when
 * nothing is known against it, else -1 and one sentence in why (the
 * process named first).  hint: give the -t way out for a thread ID. */
static int target_problem(pid_t pid, bool hint, char *why, size_t len)
{
	char comm[64] = "?", reason[256];
	int state = procfs_task_state(pid, 0), err = errno;
	int tgid = state < 0 ? -1 : procfs_tgid(pid);

	if (state >= 0 && procfs_comm(pid, 0, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");

	if (pid == getpid())
		snprintf(why, len,
			 "cannot profile PID %d: that is ptprof itself",
			 (int)pid);
	else if (state < 0 && (err == ENOENT || err == ESRCH))
		snprintf(why, len, "no such process: %d", (int)pid);
	else if (state < 0)
		snprintf(why, len, "cannot read /proc/%d: %s", (int)pid,
			 strerror(err));
	else if (tgid > 0 && tgid != pid && hint)
		snprintf(why, len,
			 "%d is a thread of process %d, not a process: give -p %d (and -t %d for that thread alone)",
			 (int)pid, tgid, tgid, (int)pid);
	else if (tgid > 0 && tgid != pid)
		snprintf(why, len,
			 "%d is a thread of process %d, not a process: give -p %d",
			 (int)pid, tgid, tgid);
	else if ((state == 'Z' || state == 'X') && !procfs_process_alive(pid))
		snprintf(why, len, "process %d has exited (zombie)", (int)pid);
	else if (procfs_is_kernel_thread(pid))
		snprintf(why, len,
			 "process %d (%s) is a kernel thread, which ptprof cannot profile: it has no user stack",
			 (int)pid, comm);
	else if (refused(pid)) {
		cli_explain_refusal(pid, reason, sizeof(reason));
		snprintf(why, len, "cannot trace process %d: %s", (int)pid,
			 reason);
	} else
		return 0;
	return -1;
}

void cli_check_target(pid_t pid)
{
	char why[512];

	if (target_problem(pid, false, why, sizeof(why)))
		cli_die(EXIT_FAILURE, "%s", why);
}

int cli_target_problem(pid_t pid, char *why, size_t len)
{
	return target_problem(pid, false, why, len);
}

static bool listed(pid_t pid, const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* -t: each TID a thread of a -p process, now.  With --children too: the
 * descendants found later have TIDs no one can name in advance. */
static void check_tids(const struct options *o)
{
	for (size_t i = 0; i < o->ntids; i++) {
		pid_t tid = o->tids[i];
		char who[64];

		if (listed(procfs_tgid(tid), o->pids, o->npids))
			continue;
		if (o->npids == 1)
			snprintf(who, sizeof(who), "process %d", (int)o->pid);
		else
			snprintf(who, sizeof(who),
				 "any of the %zu processes given with -p",
				 o->npids);
		cli_die(EXIT_FAILURE, "thread %d is not a thread of %s%s",
			(int)tid, who,
			o->children ?
				" (with --children too, -t names threads of the -p processes only)" :
				"");
	}
}

void cli_check_targets(const struct options *o)
{
	char why[512];

	for (size_t i = 0; i < o->npids; i++)
		if (target_problem(o->pids[i], o->action != ACTION_DUMP, why,
				   sizeof(why)))
			cli_die(EXIT_FAILURE, "%s", why);
	check_tids(o);
}

void cli_sampler_config(const struct options *o, struct sampler_config *cfg)
{
	cfg->hz = o->hz;
	cfg->max_overhead = o->max_overhead_pct / 100; /* 0 for top */
	cfg->pids = o->pids;
	cfg->npids = o->npids;
	cfg->children = o->children;
	cfg->wall = o->wall;
	cfg->no_peek = o->no_peek;
	cfg->unsafe_seccomp = o->unsafe_seccomp;
	cfg->duration_ns = (uint64_t)(o->duration_s * NSEC_PER_SEC);
}

/* -t, --thread-name: the selection handed to the sampler.  Every -t TID
 * is a thread of a -p process now (cli_check_targets()); a name matches
 * whenever it is read. */
void cli_select_threads(const struct options *o, struct tselect *sel,
			struct sampler_config *cfg)
{
	if (tselect_init(sel, o->tids, o->ntids, o->thread_name))
		cli_die(EXIT_FAILURE, "cannot use --thread-name '%s': %s",
			o->thread_name, strerror(errno));
	if (tselect_active(sel)) {
		cfg->select = tselect_match;
		cfg->select_arg = sel;
	}
}

/*
 * Sampling stopped on an error.  With -p and a refused first seize nothing
 * was touched: say why and exit.  Otherwise say what failed; the caller
 * still writes what was collected and, with -- COMMAND, waits for it.
 */
void cli_sampling_failed(const struct sampler_config *cfg,
			 const struct sampler_stats *st)
{
	char why[512];
	int err = errno;
	pid_t pid = cfg->pids[0];

	if (st->seccomp_refused) {
		/* The process whose filter it is, not always the first. */
		if (st->seccomp_pid)
			pid = st->seccomp_pid;
		cli_explain_seccomp(st, why, sizeof(why));
		if (!cfg->child)
			cli_die(EXIT_FAILURE, "cannot trace process %d: %s",
				(int)pid, why);
		cli_msg("cannot trace process %d: %s", (int)pid, why);
		return;
	}
	if (err == ENOTSUP) {
		cli_msg("CPU mode needs /proc/PID/task/TID/schedstat, which "
			"this kernel does not have (CONFIG_SCHED_INFO); use "
			"--wall");
		return;
	}
	if (err == EPERM)
		cli_explain_refusal(pid, why, sizeof(why));
	if (err == EPERM && !cfg->child)
		cli_die(EXIT_FAILURE, "cannot trace process %d: %s", (int)pid,
			why);
	if (err == EPERM)
		cli_msg("cannot trace process %d: %s", (int)pid, why);
	else
		cli_msg("sampling process %d failed: %s", (int)pid,
			strerror(err));
}
