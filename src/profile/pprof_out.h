/*
 * pprof_out.h - the pprof protobuf profile (profile.proto, gzipped), the
 * format go tool pprof reads natively.  docs/FORMAT.md says what goes in
 * each field.
 *
 * A builder collects samples during the run, keyed by image (procset.h),
 * thread (ID and name), time slot (below) and stack: pprof_out_add()
 * has the signature of sampler_config.on_stack, so it can be handed to
 * the sampler as is.
 * Stacks are cut as a stacktab cuts them (at the first zero PC, then to
 * max_depth frames keeping the innermost).
 *
 * pprof_out_write_file() then builds the profile: sample types samples/count
 * and cpu/nanoseconds (wall/nanoseconds for a --wall run), the period,
 * and for each image of the set that has samples, in the set's order,
 * one mapping per executable mapping of its maps (its main executable
 * first, with the GNU build ID debugfile_maps_build_ids() found for it).  Two
 * images never share a mapping or a location, even at equal addresses
 * (two non-PIE programs both at 0x400000): a location is one address of
 * one image (the leaf PC as sampled, callers' return addresses minus 1,
 * since pprof does not adjust addresses read from a protobuf), its
 * mapping one of that image's, and its function and source line found
 * by a symbolizer over that image's files, opened under the directory
 * meta->root_of gives for the image (and through the live process's
 * map_files), or under "/" when it gives NULL or there is none.  Labels
 * on every sample: thread_id (a number), thread_name (a string, when the
 * thread had one), process_id (a number) and process_name (a string: the
 * image's comm, when known) and time (a number, num_unit "nanoseconds":
 * the start of the sample's time slot, ns since the epoch, a multiple of
 * PPROF_OUT_SLOT_NS; no such label when the stack came without a time),
 * and for a --wall sample of a thread blocked in a call, wait (a string:
 * wait_kind_name() of sample_origin.wait, wait.h) and wait_holder (a
 * number: the TID it waits on, when known); samples of the same stack
 * with another wait or holder are other samples.
 * A stack added without an image has no
 * mapping, no name and no process labels.  An address in no file of its
 * image (JIT code) is named from the image's perf map when meta->jit_of
 * gives one: its function is keyed by the module "[jit]" (no source
 * file), and the anonymous mapping holding it is given the filename
 * "[jit]".  The profile is gzipped (zlib)
 * and written atomically as outfile.h says.
 *
 * Contract: not thread-safe; never prints or exits.  An allocation that
 * fails in pprof_out_add() (which cannot return an error to the
 * sampler) is remembered: pprof_out_write_file() then fails with ENOMEM
 * rather than write a profile missing samples.  pprof_out_write_file()
 * returns 0, or -1 with errno, the file untouched.  The images the
 * stacks came with must still be in the set given to the writer (a
 * procset keeps them until it is freed).
 */
#ifndef PTPROF_PPROF_OUT_H
#define PTPROF_PPROF_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "profile/procset.h"
#include "python/pyframes.h"
#include "symbols/framename.h"
#include "symbols/perfmap.h"

struct pprof_out;

/* The time slots samples are merged in (sample_origin.time_ns rounded
 * down to a multiple): 10 ms, one tick at the default 100 Hz, so a
 * profile tells when to a tick, and at 1 kHz bounds the samples of a
 * thread that runs one stack to 100 a second (docs/FORMAT.md). */
#define PPROF_OUT_SLOT_NS 10000000ULL

struct pprof_out *pprof_out_new(unsigned max_depth);
void pprof_out_free(struct pprof_out *b);

/* Count count samples of the stack pcs[0..n) (leaf first) of from's
 * image and thread (from->name NULL or "": no name label).  arg is the
 * builder. */
void pprof_out_add(void *arg, const struct sample_origin *from,
		   const uint64_t *pcs, size_t n, uint64_t count);

/* Forget every sample and thread name (after a rotation: a writer child
 * has them): the builder is as new.  Cannot fail: without memory for a
 * new pool of names the old one is kept (the names of threads gone since
 * stay), the builder as usable as before. */
void pprof_out_reset(struct pprof_out *b);

/* Distinct (image, thread, name, time slot, wait, stack) samples held. */
size_t pprof_out_samples(const struct pprof_out *b);

/* Did an add run out of memory since the builder was new (or reset):
 * does it miss samples?  Then pprof_out_write() fails with ENOMEM, and
 * a walk (pprof_out_foreach()) sees only some of the samples. */
bool pprof_out_failed(const struct pprof_out *b);

/* Call fn once per distinct sample held, in the order first added, with
 * its image's index in the set (PPROF_OUT_NO_IMAGE: added without one),
 * its stack (leaf first, cut as added) and its count: for a writer that
 * wants the stacks of one process (recwrite.h).  A non-zero return from
 * fn stops the walk and is returned. */
#define PPROF_OUT_NO_IMAGE UINT32_MAX
typedef int (*pprof_out_visit_fn)(unsigned image, const uint64_t *pcs, size_t n,
				  uint64_t count, void *arg);
int pprof_out_foreach(const struct pprof_out *b, pprof_out_visit_fn fn,
		      void *arg);

struct pprof_meta {
	uint64_t period_ns;	/* sampling period */
	bool wall;		/* wall/nanoseconds instead of cpu/... */
	int64_t time_nanos;	/* start of the run, ns since the epoch */
	int64_t duration_nanos; /* length of the run */
	/* The directory to open image im's files under (e.g.
	 * "/proc/PID/root" while that process lives and is that image: its
	 * map_files are then read too), written into buf (len bytes) or
	 * static; NULL: "/".  root_of NULL: "/" for every image. */
	const char *(*root_of)(void *arg, const struct proc_image *im,
			       char *buf, size_t len);
	void *root_arg; /* root_of's arg */
	/* Names for JIT code: the perf map (perfmap.h) of image im, or NULL
	 * for none; asked for only when an address of im lies in no file
	 * (anonymous executable memory, or no mapping), at most twice per
	 * image: reread true the second time, after the first map left an
	 * address unnamed.  The map stays valid until the write returns.
	 * jit_of NULL: no JIT names. */
	const struct perfmap *(*jit_of)(void *arg, const struct proc_image *im,
					bool reread);
	void *jit_arg; /* jit_of's arg */
	/* Names for Python frames: the registry whose synthetic PCs the
	 * stacks hold (pyframes.h), shared by every image, or NULL.  A
	 * location in no mapping that it names gets a Function of the
	 * frame's qualified name (name and system_name), its filename and
	 * start_line, one per (filename, start_line, name), and a Line of
	 * the frame's line (0: unknown); it stays in no mapping. */
	const struct pyframes *py;
	/* No inlined frames (record --no-inline): a Location has one Line,
	 * the function that holds its address.  Else each function
	 * inlined there (symbolizer_lookup_inline()) has a Line of its own
	 * and a Function keyed by the module and its name, as the
	 * symbolizer's: Lines innermost first, the holding function last,
	 * with the line of the outermost inlined call. */
	bool no_inline;
};

/* The module of JIT code: the filename of an anonymous mapping whose
 * addresses a perf map named. */
#define PPROF_JIT_MODULE FRAMENAME_JIT_MODULE

/* Build, gzip and write the profile to f (no flush, no close). */
int pprof_out_write(FILE *f, const struct pprof_out *b,
		    const struct procset *ps, const struct pprof_meta *meta);

/* The same, atomically (temporary file, fsync, rename) to path. */
int pprof_out_write_file(const char *path, const struct pprof_out *b,
			 const struct procset *ps,
			 const struct pprof_meta *meta);

#endif /* PTPROF_PPROF_OUT_H */
