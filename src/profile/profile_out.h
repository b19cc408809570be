/*
 * profile_out.h - the gperftools CPU profile writer (legacy pprof format).
 *
 * Layout (docs/FORMAT.md, and gperftools' cpuprofile-fileformat): 64-bit
 * little-endian slots.  Header 0, 3, 0, period_us, 0; one record per
 * distinct stack: count, npcs, PCs leaf first, written as sampled (the
 * interrupted PC, then return addresses; consumers subtract 1 from callers,
 * the writer does not); trailer 0, 1, 0; then the maps text.
 *
 * Contract: never prints or exits; -1 with errno on failure.
 * profile_out_write_file() never leaves a truncated FILE behind: it writes a
 * temporary file in FILE's directory, fsyncs it and renames it over FILE;
 * on failure the temporary file is removed and FILE is untouched.  A FILE
 * that is a symbolic link owned by the effective user is followed (its
 * target is replaced, the link stays); anybody else's link fails with
 * EPERM.  FILE must be a regular file or not exist: a directory fails
 * with EISDIR, any other existing file (device, FIFO, socket) with EINVAL,
 * so that /dev/null is never replaced by a regular file.
 */
#ifndef PTPROF_PROFILE_OUT_H
#define PTPROF_PROFILE_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "proc/maps.h"
#include "profile/stacktab.h"

/* Write the whole profile to an open stream (no flush, no close). */
int profile_out_write(FILE *f, uint64_t period_us, const struct stacktab *tab,
		      const struct maps *maps);

/* Atomically (temporary name + rename) write the profile to path. */
int profile_out_write_file(const char *path, uint64_t period_us,
			   const struct stacktab *tab, const struct maps *maps);

/*
 * The same, written in pieces, for a run that spills its stacks to the
 * file rather than keep them all in memory: open (temporary file, header),
 * add records any number of times (a chain may recur: consumers add up
 * the counts of identical chains), then close (trailer, maps, fsync,
 * rename) or abort (remove the temporary file).  Close and abort free o.
 */
struct profile_out;
struct profile_out *profile_out_open(const char *path, uint64_t period_us);
int profile_out_add(struct profile_out *o, const struct stacktab *tab);
int profile_out_close(struct profile_out *o, const struct maps *maps);

/*
 * The same, with the line "ptprof-pid: PID" after the maps text when pid
 * is not 0: the process the samples are of, so that `ptprof report` can
 * find its perf map (/tmp/perf-PID.map, perfmap.h) later.  Only after a
 * mapping line: alone, it would make a maps text with no mapping line,
 * which ptprof's readers, old and new, refuse.  The format
 * has no field for it; go tool pprof and google-pprof skip a maps line
 * they do not recognise (one without "=", which go tool pprof would take
 * for a variable), and so does ptprof's maps parser (maps.h).
 */
int profile_out_close_pid(struct profile_out *o, const struct maps *maps,
			  pid_t pid);
void profile_out_abort(struct profile_out *o);

/* For a writer child (outfile.h): flush before the fork; in the parent,
 * release after it (frees o, leaves the temporary to the child); in the
 * child, retarget to the name the commit is to give the file. */
int profile_out_flush(struct profile_out *o);
void profile_out_release(struct profile_out *o);
int profile_out_retarget(struct profile_out *o, const char *path);

/*
 * Check, without touching path itself, that profile_out_write_file() could
 * create it: path is not a directory, and a file can be created (and is at
 * once removed again) in its directory.
 */
int profile_out_check_writable(const char *path);

#endif /* PTPROF_PROFILE_OUT_H */
