/*
 * progress.h - the progress line of a recording ("ptprof: 1.2 s, 340
 * samples, ..."), redrawn in place on the terminal of stderr between
 * ticks, and erased at the end.
 *
 * It never holds the sampler: the terminal is opened again, non-blocking,
 * for the line alone, and SIGTTOU is blocked while sampling (progress.c
 * says why).  Nothing is drawn with quiet, or when stderr is no terminal;
 * a line that cannot be written is dropped.  The caller owns the struct.
 */
#ifndef PTPROF_PROGRESS_H
#define PTPROF_PROGRESS_H

#include <signal.h>
#include <stdbool.h>

struct sampler_stats;

struct progress {
	int tty;    /* the progress line's terminal (O_NONBLOCK), or -1 */
	bool drawn; /* a progress line is on the terminal */
	bool ttou_blocked; /* SIGTTOU blocked while sampling; old_mask before */
	sigset_t old_mask;
};

/* Before sampling: the terminal opened, SIGTTOU blocked (not quiet). */
void progress_start(struct progress *p, bool quiet);

/* The line of st, drawn over the last (when there is a terminal). */
void progress_draw(struct progress *p, const struct sampler_stats *st);

/* After sampling: the line erased, the signal mask and terminal given
 * back. */
void progress_end(struct progress *p);

#endif /* PTPROF_PROGRESS_H */
