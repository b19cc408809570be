/*
 * progress.c - the progress line on a terminal while a recording samples
 * (see progress.h).
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli/progress.h"
#include "sampler/sampler.h"
#include "util/timeutil.h"

/*
 * The progress line must never hold the sampler, nor with it a thread
 * whose stop came late:
 *  - the terminal is opened again, non-blocking, for the line alone (fd 2
 *    itself stays as it is: COMMAND shares its open file), so a terminal
 *    held by ^S or a slow link drops the line instead of blocking;
 *  - a background job's write to a terminal with `stty tostop` gets
 *    SIGTTOU, whose default action would stop ptprof between ticks
 *    without the release of late threads that SIGTSTP gets.  SIGTTOU is
 *    blocked while sampling (the kernel then lets the write through
 *    rather than stop the writer; COMMAND was started with an empty
 *    mask), and the line is not drawn from the background of a terminal
 *    with tostop set, whose user asked background jobs to keep quiet.
 *    (Without tostop a background ptprof draws, as under `timeout`,
 *    which puts its command in a process group of its own.)
 */
static void progress_write(const struct progress *w, const char *buf,
			   size_t len)
{
	struct termios t;

	if (w->tty < 0)
		return;
	if (tcgetpgrp(w->tty) != getpgrp() &&
	    (tcgetattr(w->tty, &t) || (t.c_lflag & TOSTOP)))
		return;
	(void)!write(w->tty, buf, len);
}

/* "\r" and "\033[K" (clear to the end of the line): redrawn in place. */
void progress_draw(struct progress *w, const struct sampler_stats *st)
{
	char line[160];
	int n;

	if (w->tty < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "\rptprof: %.1f s, %llu samples, %llu threads, %llu "
		     "missed ticks\033[K",
		     (double)st->elapsed_ns / NSEC_PER_SEC,
		     (unsigned long long)st->samples,
		     (unsigned long long)st->threads_seen,
		     (unsigned long long)st->missed_ticks);

	if (n > 0 && (size_t)n < sizeof(line)) {
		progress_write(w, line, (size_t)n);
		w->drawn = true;
	}
}

void progress_start(struct progress *w, bool quiet)
{
	sigset_t ttou;

	memset(w, 0, sizeof(*w));
	w->tty = -1;
	if (!quiet && isatty(STDERR_FILENO)) {
		w->tty = open("/proc/self/fd/2",
			      O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		w->ttou_blocked = sigprocmask(SIG_BLOCK, &ttou, &w->old_mask) ==
				  0;
	}
}

void progress_end(struct progress *w)
{
	if (w->drawn)
		progress_write(w, "\r\033[K", 4);
	w->drawn = false;
	if (w->ttou_blocked)
		sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
	w->ttou_blocked = false;
	if (w->tty >= 0)
		close(w->tty);
	w->tty = -1;
}
