/*
 * outfile.h - an output file that is never seen half-written.
 *
 * outfile_open() creates a temporary file beside FILE (DIR/.NAME.XXXXXX,
 * mode 0600, whatever the umask) and gives a stream on it; outfile_commit()
 * flushes, fsyncs and renames it to FILE, after keeping a regular file
 * already there as FILE.old (a hard link renamed onto FILE.old, so FILE is
 * never missing; a symbolic link at FILE.old is replaced itself, never
 * followed); outfile_abort() removes it.  FILE.old is replaced only when
 * it is a regular file or a symbolic link of the effective user's: a
 * directory, or another user's file in /tmp, is left alone, and then
 * nothing is kept (outfile_check_writable() says so beforehand).
 * Both profile writers (profile_out.h, pprof_out.h) write through it.
 *
 * Which FILE is acceptable: a FILE that is a symbolic link owned by the
 * effective user is followed (its target is replaced, the link stays);
 * anybody else's link fails with EPERM, so a link planted in /tmp cannot
 * aim root's write elsewhere.  The directories on the way are walked link
 * by link first (and again for the target of a link at FILE): a link
 * among them that sits in a sticky directory others may write (/tmp) and
 * belongs neither to the effective user nor to that directory's owner
 * fails with EPERM too, whatever fs.protected_symlinks says (the kernel's
 * rule when it is 1, applied here when it is 0).  The check is made when
 * the file is opened (and by outfile_check_writable()); from then on the
 * temporary, the rename and FILE.old are made relative to the directory
 * opened then (openat(), renameat(), linkat()), so a directory swapped
 * for a link meanwhile is never written through.  A run that writes for
 * long (--rotate) pins each output's directory once at its start
 * (outfile_pin_dir()): every later file in that directory is made
 * relative to that descriptor, whatever the directory's name comes to
 * mean.  FILE must be a regular file or not exist: a
 * directory fails with EISDIR, any other existing file (device, FIFO,
 * socket) with EINVAL, so that /dev/null is never replaced by a regular
 * file.
 *
 * What a kill leaves: a run killed while it writes leaves its temporary
 * (DIR/.NAME.XXXXXX, perhaps empty) and FILE as it was; one killed in
 * keep_old() may leave DIR/.NAME.old.XXXXXX, a hard link to FILE.
 * outfile_open() removes such stale temporaries of FILE's name first:
 * regular files of the effective user's, unchanged for 2 s, that no live
 * writer holds (a writer keeps an flock() on its temporary).
 *
 * Contract: never prints or exits; -1 with errno on failure.  Commit and
 * abort end the outfile whatever happens (the temporary file is removed
 * on any failure, and FILE is then untouched).  Failing to keep FILE.old
 * never fails the commit: the new profile is written all the same.
 */
#ifndef PTPROF_OUTFILE_H
#define PTPROF_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

struct outfile {
	FILE *f;	     /* write here, between open and commit/abort */
	int err;	     /* errno of a failed outfile_flush(), or 0 */
	char tmp[PATH_MAX];  /* the temporary file */
	char path[PATH_MAX]; /* FILE, with its links followed */
	/* FILE's directory, pinned (outfile_pin_dir()) or opened for this
	 * file (own_dfd); FILE's base name is path + base, the temporary's
	 * is tmpname: every operation is relative to dfd */
	int dfd;
	bool own_dfd;
	size_t base;
	char tmpname[NAME_MAX + 1];
};

int outfile_open(struct outfile *o, const char *path);
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);

/*
 * A writer child (bgwrite.h) forked with the outfile: before the fork,
 * outfile_flush() empties the stream's buffer (else both processes would
 * write it); after, the parent's outfile_release() closes its stream and
 * leaves the temporary to the child, which commits or aborts it (its
 * flock() stays: the open file is the child's too).
 * A write that failed on the stream (outfile_flush()'s, whose bytes
 * are then gone from it) fails the commit, with that errno.
 * outfile_retarget() makes path, not the name given to outfile_open(),
 * the name the commit renames the temporary to (checked as outfile_open()
 * checks it; a path on another file system then fails the commit with
 * EXDEV).
 */
int outfile_flush(struct outfile *o);
void outfile_release(struct outfile *o);
int outfile_retarget(struct outfile *o, const char *path);

/*
 * Check, without touching path itself, that outfile_open() could create
 * it: path is acceptable, a file can be created (and is at once removed
 * again) in its directory, and a FILE already there can be kept as
 * FILE.old (EEXIST: FILE.old is a directory or not the effective user's).
 */
int outfile_check_writable(const char *path);

/*
 * Pin the directory of path (a FILE): after the walk above (a planted
 * link is EPERM), open it once (O_DIRECTORY|O_NOFOLLOW, the user's own
 * links on the way resolved first); every outfile whose FILE is in a
 * directory of that same name is then made in the directory opened here,
 * and outfile_lstat() and outfile_unlink() (--keep's removal) look there.
 * A few directories at most (EMFILE beyond).  The descriptor is
 * close-on-exec (COMMAND never gets it), inherited by writer children;
 * outfile_unpin_all() closes them.
 */
int outfile_pin_dir(const char *path);
void outfile_unpin_all(void);
int outfile_lstat(const char *path, struct stat *st);
int outfile_unlink(const char *path);

/*
 * The first planted link (as above) among the directories of path, into
 * link (len bytes): 1 if there is one, 0 if not, -1 with errno (ELOOP,
 * ENAMETOOLONG).  For the message after an EPERM.
 */
int outfile_planted_link(const char *path, char *link, size_t len);

#endif /* PTPROF_OUTFILE_H */
