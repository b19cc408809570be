/*
 * outfile.c - write a file atomically: temporary name, fsync, rename
 * (see outfile.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profile/outfile.h"

static int copy_name(const char *path, char *out, size_t len)
{
	if (snprintf(out, len, "%s", path) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* "dir/.name.XXXXXX" beside path, for mkstemp(). */
static int temp_name(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int n = snprintf(buf, len, "%.*s.%s.XXXXXX", dirlen, path,
			 slash ? slash + 1 : path);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* dir + "/" + name into out (no "//" after the root). */
static int join(char *out, size_t len, const char *dir, const char *name,
		size_t namelen)
{
	int n = snprintf(out, len, "%s%s%.*s", dir, strcmp(dir, "/") ? "/" : "",
			 (int)namelen, name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Would the kernel's fs.protected_symlinks rule refuse to follow the link
 * at link (lstat'ed as *lst) in the directory dir?  In a sticky directory
 * that others may write (/tmp), a link is followed only by its owner or
 * when it belongs to the directory's owner (fs/namei.c,
 * may_follow_link()).
 */
static bool planted(const char *dir, const struct stat *lst)
{
	struct stat dst;

	if (stat(dir, &dst))
		return false;
	return (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH) &&
	       lst->st_uid != geteuid() && lst->st_uid != dst.st_uid;
}

/* done, a path without links, one directory up ("/" stays "/"). */
static void go_up(char *done)
{
	char *up = strrchr(done, '/');

	if (up)
		up[up == done] = '\0';
}

/*
 * Follow the link at link: todo becomes its target then rest, and done
 * "/" when the target is absolute (else it stays the link's directory).
 * 0 done, 1 when the link cannot be read (the walk ends there), -1 with
 * errno (ENAMETOOLONG).
 */
static int follow(const char *link, const char *rest, char *todo, char *done)
{
	char target[PATH_MAX], next[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n < 0)
		return 1;
	target[n] = '\0';
	if (snprintf(next, sizeof(next), "%s/%s", target, rest) >=
	    (int)sizeof(next)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(todo, next);
	if (target[0] == '/')
		strcpy(done, "/");
	return 0;
}

/*
 * Walk the directories of path as the kernel would, link by link, from
 * the current directory or "/": 1 with the first planted link in *link,
 * 0 if there is none (or the walk ends at a missing or unreadable
 * component: creating the file then fails on its own), -1 on ELOOP or
 * ENAMETOOLONG.
 */
static int find_planted(const char *path, char *link, size_t len)
{
	char done[PATH_MAX], todo[PATH_MAX], next[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int links = 0, rc;
	struct stat st;

	if (!slash)
		return 0; /* in the current directory: no directory named */
	if (snprintf(todo, sizeof(todo), "%.*s", (int)(slash - path), path) >=
	    (int)sizeof(todo)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (path[0] == '/')
		strcpy(done, "/");
	else if (!getcwd(done, sizeof(done)))
		return 0;
	for (char *p = todo; *p;) {
		size_t n = strcspn(p, "/");
		char *rest = p + n + (p[n] == '/');

		if (n == 2 && !strncmp(p, "..", 2))
			go_up(done); /* done has no link in it: lexical */
		if (n == 0 || (n <= 2 && !strncmp(p, "..", n))) {
			p = rest;
			continue;
		}
		if (join(next, sizeof(next), done, p, n))
			return -1;
		if (lstat(next, &st))
			return 0;
		if (!S_ISLNK(st.st_mode)) {
			strcpy(done, next);
			p = rest;
			continue;
		}
		if (planted(done, &st))
			return copy_name(next, link, len) ? -1 : 1;
		if (++links > 40) {
			errno = ELOOP;
			return -1;
		}
		rc = follow(next, rest, todo, done);
		if (rc)
			return rc < 0 ? -1 : 0;
		p = todo;
	}
	return 0;
}

int outfile_planted_link(const char *path, char *link, size_t len)
{
	return find_planted(path, link, len);
}

/*
 * The file the profile really goes to.  rename() replaces the last path
 * component itself, so a symbolic link is followed here first (the link
 * stays, its target gets the profile).  A directory is EISDIR; anything
 * else that exists and is not a regular file (a device such as /dev/null,
 * a FIFO, a socket) is EINVAL: renaming over it would replace it.
 */
static int resolve_output(const char *path, char *out, size_t len, int depth)
{
	char link[PATH_MAX], next[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	ssize_t n;

	/* The directories first: a link planted in /tmp as a directory
	 * (/tmp/evil -> /root/x, -o /tmp/evil/p.prof) would aim root's
	 * write elsewhere as well as one at the file itself.  With
	 * fs.protected_symlinks = 1 the kernel refuses to follow it too, but
	 * that is a sysctl (0 here and in many containers); this check
	 * applies the same rule whatever it says. */
	switch (find_planted(path, link, sizeof(link))) {
	case 1:
		errno = EPERM;
		return -1;
	case -1:
		return -1;
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? copy_name(path, out, len) : -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return copy_name(path, out, len);
	if (!S_ISLNK(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (depth >= 16) {
		errno = ELOOP;
		return -1;
	}
	/* ptprof usually runs as root: a link planted by someone else in a
	 * shared directory (/tmp) must not aim root's write at /etc/shadow.
	 * The kernel's protected_symlinks rule cannot help, as the link is
	 * followed here by hand; follow only our own links. */
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	/* Follow one link by hand: its target may not exist yet. */
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	if (link[0] == '/' || !slash)
		return resolve_output(link, out, len, depth + 1);
	if (snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - path), path,
		     link) >= (int)sizeof(next)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return resolve_output(next, out, len, depth + 1);
}

/*
 * Stale temporaries.  A ptprof killed (SIGKILL, the OOM killer, a power
 * cut) between mkstemp() and the rename leaves DIR/.NAME.XXXXXX behind,
 * and one killed inside keep_old() DIR/.NAME.old.XXXXXX (a hard link to
 * FILE).  The next run that writes FILE removes those of its own name:
 * only that exact pattern (six of mkstemp's letters and digits), only a
 * regular file of the effective user's, only one not changed for
 * STALE_SECS (its ctime: a write or a link() moves it), and only one no
 * live writer holds: a writer keeps an flock() on its temporary from just
 * after mkstemp() until it closes it, and the kernel drops the lock when
 * the writer dies, however it dies.  Both conditions are needed: the lock
 * comes a moment after the file, and the ctime alone cannot tell a long
 * run's file (written only at the end) from a dead one.
 */
enum { STALE_SECS = 2, TEMP_SUFFIX = 6 };

/* Is name prefix followed by exactly TEMP_SUFFIX of mkstemp's letters? */
static bool temp_of(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) || strlen(name + n) != TEMP_SUFFIX)
		return false;
	for (name += n; *name; name++)
		if (!((*name >= 'a' && *name <= 'z') ||
		      (*name >= 'A' && *name <= 'Z') ||
		      (*name >= '0' && *name <= '9')))
			return false;
	return true;
}

/* Remove the entry name of dir (fd dfd) if it is a stale temporary. */
static void remove_if_stale(int dfd, const char *name)
{
	struct stat st, fst;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    time(NULL) - st.st_ctime < STALE_SECS)
		return;
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The same file still, and no live writer's (its lock is free). */
	if (fstat(fd, &fst) == 0 && fst.st_dev == st.st_dev &&
	    fst.st_ino == st.st_ino && flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(dfd, name, 0);
	close(fd);
}

/* Remove the stale temporaries of path (as above); best effort. */
static void remove_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[PATH_MAX], tmp[PATH_MAX], old[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%.*s",
		     slash ? (int)(slash - path + 1) : 1,
		     slash ? path : ".") >= (int)sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), ".%s.", base) >= (int)sizeof(tmp) ||
	    snprintf(old, sizeof(old), ".%s.old.", base) >= (int)sizeof(old))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (temp_of(de->d_name, tmp) || temp_of(de->d_name, old))
			remove_if_stale(dirfd(d), de->d_name);
	closedir(d);
}

int outfile_open(struct outfile *o, const char *path)
{
	int fd, saved;

	o->f = NULL;
	o->err = 0;
	if (resolve_output(path, o->path, sizeof(o->path), 0) ||
	    temp_name(o->path, o->tmp, sizeof(o->tmp)))
		return -1;
	remove_stale(o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return -1;
	/* Ours while we live: remove_stale() of another run leaves it. */
	flock(fd, LOCK_EX | LOCK_NB);
	/* mkstemp makes it 0600, and so it stays: a profile holds the
	 * target's memory map and the names of what it runs (a root
	 * daemon's, written into /tmp, is not for every user to read), as
	 * perf keeps perf.data 0600. */
	o->f = fdopen(fd, "w");
	if (!o->f) {
		saved = errno;
		close(fd);
		unlink(o->tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	unlink(o->tmp);
}

int outfile_flush(struct outfile *o)
{
	if (!fflush(o->f))
		return 0;
	o->err = errno;
	return -1;
}

void outfile_release(struct outfile *o)
{
	if (!o->f)
		return;
	fclose(o->f); /* nothing buffered: outfile_flush() came first */
	o->f = NULL;
}

int outfile_retarget(struct outfile *o, const char *path)
{
	return resolve_output(path, o->path, sizeof(o->path), 0);
}

/* "FILE.old". */
static int old_name(const char *path, char *old, size_t len)
{
	if (snprintf(old, len, "%s.old", path) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * May FILE.old be replaced?  When it does not exist, or is a regular file
 * or a symbolic link of the effective user: rename() replaces a link
 * itself and never follows it.  Anything else, a directory or another
 * user's file in a shared directory (/tmp), is left alone: EEXIST.
 */
static int old_replaceable(const char *old)
{
	struct stat st;

	if (lstat(old, &st))
		return errno == ENOENT ? 0 : -1;
	if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
	    st.st_uid == geteuid())
		return 0;
	errno = EEXIST;
	return -1;
}

/*
 * The profile FILE replaces is kept as FILE.old (perf keeps perf.data.old)
 * just before the new one takes its name: a hard link to it under a
 * temporary name is renamed onto FILE.old, so FILE itself is never
 * missing, and its replacement stays one rename().  Only a regular file
 * is kept.  Best effort: when FILE.old may not be replaced (it changed
 * since outfile_check_writable() said it could be) or the link fails (a
 * file system without hard links), nothing is kept and the new profile is
 * written all the same; a run's result is never lost to its predecessor.
 */
static void keep_old(const char *path)
{
	char old[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	int fd;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) ||
	    old_name(path, old, sizeof(old)) || old_replaceable(old) ||
	    temp_name(old, tmp, sizeof(tmp)))
		return;
	/* A fresh unique name for the link; link() never replaces anything,
	 * so a file created there meanwhile only makes it fail (EEXIST). */
	fd = mkstemp(tmp);
	if (fd < 0)
		return;
	close(fd);
	unlink(tmp);
	if (link(path, tmp))
		return;
	if (rename(tmp, old))
		unlink(tmp);
}

int outfile_commit(struct outfile *o)
{
	int rc = 0, saved = 0;

	/* A failed write (glibc drops the bytes it could not write) leaves
	 * the stream's error flag set, and a later fflush() with nothing
	 * buffered succeeds: the file would have a hole. */
	if (ferror(o->f)) {
		saved = o->err ? o->err : EIO;
		rc = -1;
	} else if (fflush(o->f) || fsync(fileno(o->f))) {
		saved = errno;
		rc = -1;
	}
	if (fclose(o->f) && !rc) {
		saved = errno;
		rc = -1;
	}
	o->f = NULL;
	if (!rc)
		keep_old(o->path);
	if (!rc && rename(o->tmp, o->path)) {
		saved = errno;
		rc = -1;
	}
	if (rc)
		unlink(o->tmp);
	errno = saved;
	return rc;
}

int outfile_check_writable(const char *path)
{
	char tmp[PATH_MAX], real[PATH_MAX], old[PATH_MAX];
	struct stat st;
	int fd;

	if (resolve_output(path, real, sizeof(real), 0) ||
	    temp_name(real, tmp, sizeof(tmp)))
		return -1;
	if (lstat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	    (old_name(real, old, sizeof(old)) || old_replaceable(old)))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}
