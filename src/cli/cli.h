/*
 * cli.h - the command-line layer's shared parts.  Only the files of this
 * layer (ptprof.c, cli.c, cmd_*.c) print diagnostics or exit.
 *
 * cli_msg() prints "ptprof: " and one line on stderr, escaped as
 * textsafe.h says (a newline or an escape sequence in a name it quotes is
 * shown as \xHH); cli_die() does that and exits with status.
 * cli_check_target() checks everything about one PID that can be checked
 * without touching the process, and dies with one clear line (no such
 * process, a thread ID, a zombie, a kernel thread, ptprof itself, a
 * ptrace refusal and its reason) when it cannot be profiled;
 * cli_target_problem() gives that line instead (0: none), for a process
 * that may be skipped.  cli_check_targets() checks every -p PID so, in
 * the order given, then that each -t TID is a thread of one of them, and
 * dies at the first problem: nothing is touched before all are checked.
 * cli_block_stop_signals() blocks the signals that end a recording or a
 * dump (SIGINT, SIGTERM, SIGHUP) and gives their set, for the sampler's
 * config->stop_signals.  cli_raise_fd_limit() raises the soft
 * RLIMIT_NOFILE to the hard one (ptprof keeps files open per thread); a
 * COMMAND started after it would inherit it, so start that first.
 *
 * Output to a terminal or a pipe ptprof does not own is bounded:
 * cli_write() writes len bytes of buf to fd with SIGINT, SIGTERM and
 * SIGHUP able to interrupt it, and, when timeout_ms is not 0, a deadline
 * (SIGALRM; no other part of ptprof may use ITIMER_REAL).  0 when all was
 * written; else -1 and errno: EINTR (a stop signal came: it is made
 * pending again, blocked as it was, for the sampler's signalfd),
 * ETIMEDOUT (the deadline: fd 0-2 is then stuck, and every later write to
 * it fails so at once), or write(2)'s (EPIPE: SIGPIPE is the caller's).
 * The rest of buf is dropped.  cli_msg(), cli_die() and cli_print() (raw
 * text to stderr, for --stats) write through it with CLI_WRITE_BOUND_MS.
 * cli_write_all() writes all of buf however long the reader takes,
 * retrying after EINTR (0, or -1 and errno): for a regular file, or a
 * thread that holds nothing anyone waits for (top's writer).
 */
#ifndef PTPROF_CLI_H
#define PTPROF_CLI_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

enum { EXIT_USAGE = 2, CLI_WRITE_BOUND_MS = 5000 };

int cli_write(int fd, const void *buf, size_t len, unsigned timeout_ms);
int cli_write_all(int fd, const void *buf, size_t len);
void cli_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cli_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_die(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void cli_check_target(pid_t pid);
int cli_target_problem(pid_t pid, char *why, size_t len);
struct options;
void cli_check_targets(const struct options *o);
void cli_block_stop_signals(sigset_t *set);
void cli_raise_fd_limit(void);

/* Why the kernel will not (or did not) let us trace pid, as one clause. */
void cli_explain_refusal(pid_t pid, char *buf, size_t len);

/* The run was refused for a thread's seccomp filters
 * (stats->seccomp_refused): why, as one clause. */
struct sampler_stats;
void cli_explain_seccomp(const struct sampler_stats *st, char *buf, size_t len);
/* Threads left unsampled mid-run for their seccomp filters: one warning. */
void cli_warn_seccomp(const struct sampler_stats *st);

/* The sampling the options ask for (record and top alike): rate,
 * processes, children, --wall, --no-peek, --unsafe-seccomp, -d; the
 * rest of cfg is left as it is. */
struct sampler_config;
void cli_sampler_config(const struct options *o, struct sampler_config *cfg);

/* -t, --thread-name: the selection handed to the sampler (cfg->select),
 * or death with one line when the regex cannot be used. */
struct tselect;
void cli_select_threads(const struct options *o, struct tselect *sel,
			struct sampler_config *cfg);

/* Sampling stopped on an error (errno as sampler_run() left it).  With
 * -p and a refused first seize nothing was touched: says why and dies.
 * Otherwise says what failed and returns (the caller writes what was
 * collected and, with -- COMMAND, waits for it). */
void cli_sampling_failed(const struct sampler_config *cfg,
			 const struct sampler_stats *st);

#endif /* PTPROF_CLI_H */
