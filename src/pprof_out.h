/*
 * pprof_out.h - the pprof protobuf profile (profile.proto, gzipped), the
 * format go tool pprof reads natively.  docs/FORMAT.md says what goes in
 * each field.
 *
 * A builder collects samples during the run, keyed by thread (ID and
 * name) and stack: pprof_out_add() has the signature of
 * sampler_config.on_stack, so it can be handed to the sampler as is.
 * Stacks are cut as a stacktab cuts them (at the first zero PC, then to
 * max_depth frames keeping the innermost).
 *
 * pprof_out_write_file() then builds the profile: sample types samples/count
 * and cpu/nanoseconds (wall/nanoseconds for a --wall run), the period,
 * one mapping per executable mapping of maps (main executable first, the
 * GNU build ID maps_read_build_ids() found for it), one location per
 * distinct address (the leaf PC as sampled, callers' return addresses
 * minus 1, since pprof does not adjust addresses read from a protobuf),
 * functions and source lines
 * found by the symbolizer (files opened under meta->root, or through
 * meta->pid's map_files), and labels
 * thread_id (a number) and thread_name (a string) on every sample.  It is
 * gzipped (zlib) and written atomically as outfile.h says.
 *
 * Contract: not thread-safe; never prints or exits.  An allocation that
 * fails in pprof_out_add() (which cannot return an error to the
 * sampler) is remembered: pprof_out_write_file() then fails with ENOMEM
 * rather than write a profile missing samples.  pprof_out_write_file()
 * returns 0, or -1 with errno, the file untouched.
 */
#ifndef PTPROF_PPROF_OUT_H
#define PTPROF_PPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "maps.h"

struct pprof_out;

struct pprof_out *pprof_out_new(unsigned max_depth);
void pprof_out_free(struct pprof_out *b);

/* Count count samples of the stack pcs[0..n) (leaf first) of thread tid
 * named name (NULL or "": no name label).  arg is the builder. */
void pprof_out_add(void *arg, pid_t tid, const char *name,
		       const uint64_t *pcs, size_t n, uint64_t count);

/* Distinct (thread, name, stack) samples held. */
size_t pprof_out_samples(const struct pprof_out *b);

struct pprof_meta {
	uint64_t period_ns;	/* sampling period */
	bool wall;		/* wall/nanoseconds instead of cpu/... */
	int64_t time_nanos;	/* start of the run, ns since the epoch */
	int64_t duration_nanos; /* length of the run */
	const char *root;	/* open the mapped files under root (NULL: /) */
	pid_t pid;		/* or its map_files (0: none) */
};

/* Build, gzip and write the profile to f (no flush, no close). */
int pprof_out_write(FILE *f, const struct pprof_out *b, const struct maps *maps,
		const struct pprof_meta *meta);

/* The same, atomically (temporary file, fsync, rename) to path. */
int pprof_out_write_file(const char *path, const struct pprof_out *b,
		     const struct maps *maps, const struct pprof_meta *meta);

#endif /* PTPROF_PPROF_OUT_H */
