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
#include <sys/random.h>
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

/* 0 when the directories of path hold no planted link; else -1, EPERM
 * (or find_planted()'s errno). */
static int refuse_planted(const char *path)
{
	char link[PATH_MAX];

	switch (find_planted(path, link, sizeof(link))) {
	case 1:
		errno = EPERM;
		return -1;
	case -1:
		return -1;
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
	if (refuse_planted(path))
		return -1;
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

/* Remove the stale temporaries of base in dir dfd (as above); best
 * effort. */
static void remove_stale(int dfd, const char *base)
{
	char tmp[PATH_MAX], old[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fd;

	if (snprintf(tmp, sizeof(tmp), ".%s.", base) >= (int)sizeof(tmp) ||
	    snprintf(old, sizeof(old), ".%s.old.", base) >= (int)sizeof(old))
		return;
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (temp_of(de->d_name, tmp) || temp_of(de->d_name, old))
			remove_if_stale(dirfd(d), de->d_name);
	closedir(d);
}

/*
 * Pinned directories.  The checks above are made on names, once; a run
 * that writes for hours (--rotate) would otherwise create each period's
 * file by its name again, and the directory of that name may be another
 * user's (not sticky): its owner can rename it away and put a symbolic
 * link to /etc in its place, and root's next period would go there
 * (issue 27, case 46).  So the directory of each output is opened once,
 * after the walk that refuses planted links, and every later file of
 * that directory (temporary, rename, FILE.old, --keep's removal) is made
 * relative to that descriptor: openat(), renameat(), linkat(),
 * unlinkat(), whatever the name comes to mean.  A swapped directory then
 * gets nothing; the files go on into the directory as it was opened.
 */
enum { PINS = 4 };
static struct {
	char dir[PATH_MAX];
	int fd;
} pins[PINS];
static int npins;

/* The directory part of path ("." without one, "/" for "/x"), into dir;
 * the base name is then path + the returned offset. */
static int split(const char *path, char *dir, size_t len, size_t *base)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		n = snprintf(dir, len, ".");
	else
		n = snprintf(dir, len, "%.*s",
			     slash == path ? 1 : (int)(slash - path), path);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	*base = slash ? (size_t)(slash - path + 1) : 0;
	return 0;
}

/* The pinned descriptor of path's directory (its base name offset into
 * *base), or -1. */
static int pinned_fd(const char *path, size_t *base)
{
	char dir[PATH_MAX];

	if (split(path, dir, sizeof(dir), base))
		return -1;
	for (int i = 0; i < npins; i++)
		if (!strcmp(pins[i].dir, dir))
			return pins[i].fd;
	return -1;
}

int outfile_pin_dir(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t base;
	int fd;

	if (pinned_fd(path, &base) >= 0)
		return 0;
	if (split(path, dir, sizeof(dir), &base))
		return -1;
	if (npins == PINS) {
		errno = EMFILE;
		return -1;
	}
	if (refuse_planted(path))
		return -1;
	/* The walk refused planted links; the others (the user's own) are
	 * followed here, and the directory itself opened without following
	 * one more. */
	if (!realpath(dir, real))
		return -1;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	strcpy(pins[npins].dir, dir);
	pins[npins++].fd = fd;
	return 0;
}

void outfile_unpin_all(void)
{
	while (npins > 0)
		close(pins[--npins].fd);
}

/*
 * Where the profile goes: o->dfd, its directory (pinned, or opened here
 * for this file), and o->path, FILE with its links followed (its base
 * name at o->base).  In a pinned directory FILE is judged by its entry
 * there; a symbolic link of ours at FILE is followed by name, as
 * resolve_output() does (another user's is EPERM there).
 */
static int target(struct outfile *o, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t base;
	int fd = pinned_fd(path, &base);
	bool absent = false;

	o->own_dfd = false;
	if (fd >= 0 && fstatat(fd, path + base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return -1;
		absent = true;
	}
	if (fd >= 0 && (absent || !S_ISLNK(st.st_mode))) {
		if (!absent && S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (!absent && !S_ISREG(st.st_mode)) {
			errno = EINVAL;
			return -1;
		}
		o->dfd = fd;
		o->base = base;
		return copy_name(path, o->path, sizeof(o->path));
	}
	if (resolve_output(path, o->path, sizeof(o->path), 0) ||
	    split(o->path, dir, sizeof(dir), &o->base))
		return -1;
	o->dfd = pinned_fd(o->path, &base);
	if (o->dfd >= 0)
		return 0;
	o->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->own_dfd = o->dfd >= 0;
	return o->dfd >= 0 ? 0 : -1;
}

static void close_dfd(struct outfile *o)
{
	if (o->own_dfd)
		close(o->dfd);
	o->own_dfd = false;
	o->dfd = -1;
}

/* A name of mkstemp's kind, prefix + six letters or digits, created in
 * dfd (mode 0600, O_EXCL) into name; its descriptor or -1.  mkstemp()
 * has no "at" form. */
static int temp_at(int dfd, const char *prefix, char *name, size_t len)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned long counter;
	unsigned char rnd[TEMP_SUFFIX];
	struct timespec ts;
	int fd;

	for (int tries = 0; tries < 100; tries++) {
		unsigned long long x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (unsigned long long)ts.tv_nsec * 2654435761u ^
		    ((unsigned long long)getpid() << 20) ^ ++counter * 40503u;
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(rnd))
			for (int i = 0; i < TEMP_SUFFIX; i++)
				rnd[i] = (unsigned char)(x >> (i * 7));
		if (snprintf(name, len, "%s%c%c%c%c%c%c", prefix,
			     set[rnd[0] % 62], set[rnd[1] % 62],
			     set[rnd[2] % 62], set[rnd[3] % 62],
			     set[rnd[4] % 62], set[rnd[5] % 62]) >= (int)len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = openat(dfd, name,
			    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int outfile_open(struct outfile *o, const char *path)
{
	char prefix[PATH_MAX];
	int fd, saved;

	o->f = NULL;
	o->err = 0;
	o->dfd = -1;
	o->own_dfd = false;
	if (target(o, path))
		return -1;
	remove_stale(o->dfd, o->path + o->base);
	if (snprintf(prefix, sizeof(prefix), ".%s.", o->path + o->base) >=
	    (int)sizeof(prefix)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	fd = temp_at(o->dfd, prefix, o->tmpname, sizeof(o->tmpname));
	if (fd < 0 || snprintf(o->tmp, sizeof(o->tmp), "%.*s%s", (int)o->base,
			       o->path, o->tmpname) >= (int)sizeof(o->tmp)) {
		if (fd >= 0) {
			close(fd);
			unlinkat(o->dfd, o->tmpname, 0);
			errno = ENAMETOOLONG;
		}
		goto fail;
	}
	/* Ours while we live: remove_stale() of another run leaves it. */
	flock(fd, LOCK_EX | LOCK_NB);
	/* 0600, and so it stays: a profile holds the target's memory map
	 * and the names of what it runs (a root daemon's, written into
	 * /tmp, is not for every user to read), as perf keeps perf.data
	 * 0600. */
	o->f = fdopen(fd, "w");
	if (!o->f) {
		saved = errno;
		close(fd);
		unlinkat(o->dfd, o->tmpname, 0);
		errno = saved;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	close_dfd(o);
	errno = saved;
	return -1;
}

void outfile_abort(struct outfile *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	unlinkat(o->dfd, o->tmpname, 0);
	close_dfd(o);
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
	close_dfd(o); /* the child has its own copy */
}

int outfile_retarget(struct outfile *o, const char *path)
{
	struct outfile t = { .f = NULL };
	size_t keep = o->base;
	int rc;

	/* The temporary stays where it is: the new name must be in its
	 * directory (rename() could not move it elsewhere anyway). */
	if (target(&t, path))
		return -1;
	rc = t.base == keep && !strncmp(t.path, o->path, keep) ? 0 : -1;
	if (rc == 0)
		strcpy(o->path, t.path);
	close_dfd(&t);
	errno = rc ? EXDEV : 0;
	return rc;
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
 * May FILE.old (name old in dfd) be replaced?  When it does not exist,
 * or is a regular file or a symbolic link of the effective user:
 * rename() replaces a link itself and never follows it.  Anything else, a
 * directory or another user's file in a shared directory (/tmp), is left
 * alone: EEXIST.
 */
static int old_replaceable(int dfd, const char *old)
{
	struct stat st;

	if (fstatat(dfd, old, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
	    st.st_uid == geteuid())
		return 0;
	errno = EEXIST;
	return -1;
}

/*
 * The profile FILE (name in dfd) replaces is kept as FILE.old (perf keeps
 * perf.data.old) just before the new one takes its name: a hard link to
 * it under a temporary name is renamed onto FILE.old, so FILE itself is
 * never missing, and its replacement stays one rename().  Only a regular
 * file is kept.  Best effort: when FILE.old may not be replaced (it
 * changed since outfile_check_writable() said it could be) or the link
 * fails (a file system without hard links), nothing is kept and the new
 * profile is written all the same; a run's result is never lost to its
 * predecessor.
 */
static void keep_old(int dfd, const char *name)
{
	char old[PATH_MAX], prefix[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || old_name(name, old, sizeof(old)) ||
	    old_replaceable(dfd, old) ||
	    snprintf(prefix, sizeof(prefix), ".%s.", old) >=
		    (int)sizeof(prefix))
		return;
	/* A fresh unique name for the link; linkat() never replaces
	 * anything, so a file created there meanwhile only makes it fail
	 * (EEXIST). */
	fd = temp_at(dfd, prefix, tmp, sizeof(tmp));
	if (fd < 0)
		return;
	close(fd);
	unlinkat(dfd, tmp, 0);
	if (linkat(dfd, name, dfd, tmp, 0))
		return;
	if (renameat(dfd, tmp, dfd, old))
		unlinkat(dfd, tmp, 0);
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
		keep_old(o->dfd, o->path + o->base);
	if (!rc && renameat(o->dfd, o->tmpname, o->dfd, o->path + o->base)) {
		saved = errno;
		rc = -1;
	}
	if (rc)
		unlinkat(o->dfd, o->tmpname, 0);
	close_dfd(o);
	errno = saved;
	return rc;
}

int outfile_lstat(const char *path, struct stat *st)
{
	size_t base;
	int fd = pinned_fd(path, &base);

	if (fd < 0)
		return lstat(path, st);
	return fstatat(fd, path + base, st, AT_SYMLINK_NOFOLLOW);
}

int outfile_unlink(const char *path)
{
	size_t base;
	int fd = pinned_fd(path, &base);

	if (fd < 0)
		return unlink(path);
	return unlinkat(fd, path + base, 0);
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
	    (old_name(real, old, sizeof(old)) ||
	     old_replaceable(AT_FDCWD, old)))
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}
