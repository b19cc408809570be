/*
 * recwrite.h - a recording's output files: the legacy profile written in
 * pieces as the sampler spills (recwrite_spill()), then a period's files
 * (recwrite_period()): the legacy FILE, the pprof protobuf, and the
 * BASE.pb.gz of all processes beside a legacy FILE that holds one; the
 * perf maps of JIT code read for the pprof writer, kept by image.
 *
 * The legacy format holds one address space: FILE has one process's
 * samples only, those of the process with the most samples in the period
 * (ties: the first found; all its images when it exec'd).  The table
 * (tab) gets the root's stacks as they come (the first -p PID, or
 * COMMAND: sampler_config.tab_pid), which a run of one process writes as
 * they are; when another process has more, FILE is made at the period's
 * end from the pprof builder's stacks of that one.  When processes other
 * than FILE's have samples and no pprof output was asked for, all of
 * them go to BASE.pb.gz too; so do stacks with Python frames, which FILE
 * holds unnamed.
 *
 * The caller owns the struct and fills the fields marked "caller"; tab,
 * pprof and py are borrowed.  The module never prints: each sentence for
 * the user (a file that cannot be written, a perf map refused) goes to
 * say(say_arg, sentence), also from a writer child (rotate.h).  A write
 * that fails is -1 with errno, or a RECWRITE_FAILED bit.
 */
#ifndef PTPROF_RECWRITE_H
#define PTPROF_RECWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "profile/rotate.h"

struct perfmap;
struct pprof_out;
struct procset;
struct profile_out;
struct pyframes;
struct stacktab;

/* What a recording was asked to write (options.h names the same). */
struct recwrite_opts {
	unsigned hz;
	int wall;
	/* the -o names (templates: outname.h), each NULL when not wanted */
	const char *legacy_output, *pprof_output;
	unsigned rotate_s, keep; /* --rotate, --keep (0: none) */
	int stats;		 /* --stats: note the heap (rotate.h) */
	bool no_inline;		 /* --no-inline: pprof_meta.no_inline */
};

typedef void (*recwrite_say_fn)(void *arg, const char *sentence);

struct recwrite {
	struct recwrite_opts o;	 /* caller */
	struct stacktab *tab;	 /* caller */
	recwrite_say_fn say;	 /* caller */
	void *say_arg;		 /* caller */
	bool launched;		 /* caller: COMMAND's processes, of our uid */
	struct pprof_out *pprof; /* caller: with a pprof output */
	struct pyframes *py;	 /* caller: Python frames' names (NULL: none) */
	struct timespec start;	 /* caller: wall clock at the start */
	struct profile_out *out; /* NULL until the first spill */
	size_t records;		 /* records written so far */
	char *all_path; /* BASE.pb.gz, when written (write_all_processes()) */
	/* the perf maps read for the pprof writer (image_jit()), by image */
	const struct procset *ps; /* the run's, while the pprof is written */
	struct perfmap **jit;
	size_t njit;
	/* The process the last legacy FILE holds: its PID (the root's
	 * unless another had more samples in the period); when other
	 * processes had samples in it, that PID's samples and all of the
	 * period's (else 0 and 0).  Set by recwrite_period(). */
	pid_t legacy_pid;
	uint64_t legacy_samples, period_samples;
	struct rotate rot;
};

/* Distinct stacks kept in memory before they go to the file. */
#define RECWRITE_SPILL_AT 50000

/* What recwrite_period() wrote (bits) and whether something failed. */
#define RECWRITE_LEGACY 1
#define RECWRITE_PPROF 2
#define RECWRITE_ALL 4
#define RECWRITE_FAILED 8

/* The sampler's spill hook (arg: the recwrite); without a legacy output
 * the table only counts distinct stacks.  0, or -1 with errno. */
int recwrite_spill(void *arg);

/* The period's files, named as w->rot says, over ps: RECWRITE_* bits.
 * With a legacy output and other processes than the root sampled in the
 * period (per->others), the table may be emptied and refilled (see
 * above): w->pprof must hold the period's samples. */
int recwrite_period(struct recwrite *w, const struct procset *ps,
		    const struct recwrite_period *per);

/* BASE.pb.gz beside the legacy FILE (BASE: FILE without ".prof"), to be
 * freed; NULL when out of memory. */
char *recwrite_all_path(const char *legacy);

/* Samples of processes other than the root (image 0's PID), whole run. */
uint64_t recwrite_other_samples(const struct procset *ps);

/* The perf maps read so far (image_jit()) forgotten: the images they
 * are kept by were renumbered (procset_retire()). */
void recwrite_forget_jit(struct recwrite *w);

/* Why the output file at path cannot be written, errno err being what
 * profile_out_write or its check said (outfile.h): a clause, in a static
 * buffer. */
const char *recwrite_why(const char *path, int err);

/* Say a sentence (printf format) through w->say. */
void recwrite_say(const struct recwrite *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The perf maps read, freed (not the caller's fields). */
void recwrite_free(struct recwrite *w);

#endif /* PTPROF_RECWRITE_H */
