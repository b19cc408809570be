/*
 * rotate.h - continuous profiling (--rotate, SIGUSR2, --keep): the run
 * cut into periods, one file (of each output) per period, and the oldest
 * files pruned.
 *
 * The run is cut into periods.  Between two ticks (the progress hook,
 * rotate_tick()), a period that is due is handed to a writer child
 * (bgwrite.h), which has a copy of the builders and the process set and
 * writes the files while the sampler goes on; the parent empties its
 * builders and the next period starts with the next tick, so every
 * sample is in exactly one file.  The images that ended are then of no
 * more use but to the summary: procset_retire() frees them (an endless
 * --children run keeps no more than the processes that live).  The
 * last period is written by ptprof itself at the end (rotate_finish()),
 * after the writers still under way have finished.
 *
 * The engine of a struct recwrite (recwrite.h), which holds its struct
 * rotate as rot; it reads the sampler's counts from a struct
 * rotate_counts the caller fills.  It never prints: what a user is told
 * (a writer that died, a file --keep cannot remove) goes to the
 * recwrite's say hook; a period's name that cannot be made is -1 and a
 * sentence in err (errbuf.h).
 */
#ifndef PTPROF_ROTATE_H
#define PTPROF_ROTATE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "profile/bgwrite.h"

struct recwrite;
struct procset;

/* What a period's file holds, for its writer (recwrite_period()). */
struct recwrite_period {
	uint64_t duration_ns;
	bool others; /* samples of processes other than the root */
	bool py;     /* stacks with Python frames */
};

/* A file this run wrote (--keep prunes the oldest). */
struct rotate_kept {
	unsigned long seq;
	char *path;
	bool ours; /* path was our regular file when written: dev, ino */
	dev_t dev;
	ino_t ino;
};

/* Rotation figures for --stats. */
struct rotate_stats {
	uint64_t rotations, forked;
	uint64_t hold_ns, hold_max_ns; /* the sampler held by rotate() */
	uint64_t missed_after;	       /* ticks missed in the 250 ms after */
	uint64_t missed_at;	       /* missed_ticks at the last rotation */
	bool counting;		       /* ... not yet added to missed_after */
	uint64_t failed;	       /* periods with a file unwritten */
	/* ptprof's heap in use (malloc's, not RSS: freed memory the heap
	 * keeps is not in it) after each rotation emptied the tables: the
	 * first, largest and last, to tell a leak (it climbs with every
	 * period) from caches filling up (it stops); 0: not known */
	size_t heap_first, heap_max, heap_last;
};

struct rotate {
	pid_t pid;	    /* %p: the first process */
	unsigned long seq;  /* the period's number, from 1 */
	bool numbered;	    /* --rotate, or a SIGUSR2 came */
	bool out_renamed;   /* names numbered after out was opened */
	bool asked;	    /* SIGUSR2 waits for its rotation */
	uint64_t start_ns;  /* the period's start (monotonic) */
	uint64_t next_due;  /* --rotate: the next rotation (monotonic) */
	uint64_t others_at; /* recwrite_other_samples() at the period's start */
	uint64_t py_at;	    /* stats->py_merged at the period's start */
	struct recwrite_period per;		/* the period being written */
	char legacy[PATH_MAX], pprof[PATH_MAX]; /* the period's names */
	struct procset *ps; /* the run's: its ended images retired at each
			       rotation (procset_retire()) */
	sigset_t usr2;
	struct bgwrite bg;
	/* the names each writer under way writes, by bgwrite slot tag */
	struct rotate_kept inflight[BGWRITE_MAX][3];
	struct rotate_kept *kept[3]; /* --keep: written, oldest first */
	size_t nkept[3];
	unsigned long files; /* periods written */
	struct rotate_stats rs;
};

/* The sampler's counts the rotation reads (sampler_stats, sampler.h). */
struct rotate_counts {
	uint64_t missed_ticks; /* ticks missed so far */
	uint64_t py_merged;    /* stacks given Python frames so far */
	uint64_t elapsed_ns;   /* the run's length, at the end */
};

/* The name (an -o, perhaps a template: outname.h) of period seq into
 * buf; outname_expand()'s result. */
int rotate_expand_name(const char *name, pid_t pid, time_t start,
		       unsigned long seq, bool numbered, char *buf, size_t len);

/* SIGUSR2 blocked (before COMMAND starts: it gets an empty mask). */
void rotate_block_signal(struct recwrite *w);

/* Before sampling: the first period of pid's run over ps, and its names;
 * -1 and a sentence in err when a name cannot be made.  The directories
 * of the outputs are pinned (outfile_pin_dir()): every period's files,
 * and --keep's removals, are made in them as they were at the start;
 * rotate_free() closes them. */
int rotate_start(struct recwrite *w, pid_t pid, struct procset *ps, char *err,
		 size_t len);

/* Between ticks: collect the writers that ended, rotate when due.  -1
 * and a sentence in err when the next period's names cannot be made. */
int rotate_tick(struct recwrite *w, const struct rotate_counts *st, char *err,
		size_t len);

/* After sampling: the writers still under way, then the last period,
 * written here, ending at end_ns (monotonic).  Returns
 * recwrite_period()'s RECWRITE_* bits. */
int rotate_finish(struct recwrite *w, const struct procset *ps,
		  const struct rotate_counts *st, uint64_t end_ns);

/* The writers still under way, waited for (they are then counted). */
void rotate_wait(struct recwrite *w);

void rotate_free(struct recwrite *w);

#endif /* PTPROF_ROTATE_H */
