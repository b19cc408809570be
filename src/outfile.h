/*
 * outfile.h - an output file that is never seen half-written.
 *
 * outfile_open() creates a temporary file beside FILE (DIR/.NAME.XXXXXX,
 * mode 0644 minus the umask) and gives a stream on it; outfile_commit()
 * flushes, fsyncs and renames it to FILE, after renaming a regular file
 * already there to FILE.old (replacing whatever FILE.old was, a symbolic
 * link itself rather than its target); outfile_abort() removes it.
 * Both profile writers (profile_out.h, pprof_out.h) write through it.
 *
 * Which FILE is acceptable: a FILE that is a symbolic link owned by the
 * effective user is followed (its target is replaced, the link stays);
 * anybody else's link fails with EPERM, so a link planted in /tmp cannot
 * aim root's write elsewhere.  FILE must be a regular file or not exist: a
 * directory fails with EISDIR, any other existing file (device, FIFO,
 * socket) with EINVAL, so that /dev/null is never replaced by a regular
 * file.
 *
 * Contract: never prints or exits; -1 with errno on failure.  Commit and
 * abort end the outfile whatever happens (the temporary file is removed
 * on any failure; FILE is then untouched, unless it could be kept as
 * FILE.old and then not be replaced: FILE is missing, FILE.old holds it).
 */
#ifndef PTPROF_OUTFILE_H
#define PTPROF_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct outfile {
	FILE *f;	     /* write here, between open and commit/abort */
	char tmp[PATH_MAX];  /* the temporary file */
	char path[PATH_MAX]; /* FILE, with its links followed */
};

int outfile_open(struct outfile *o, const char *path);
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);

/*
 * Check, without touching path itself, that outfile_open() could create
 * it: path is acceptable, and a file can be created (and is at once
 * removed again) in its directory.
 */
int outfile_check_writable(const char *path);

#endif /* PTPROF_OUTFILE_H */
