/*
 * safeopen.c - a named file opened for reading only once it is known to
 * be a regular file (see safeopen.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/safeopen.h"

/* Times openat2 is asked again when it says EAGAIN: with RESOLVE_IN_ROOT
 * the kernel gives up on a rename or mount that raced with the walk (a
 * target may do that on purpose) and asks the caller to try again. */
#define OPENAT2_TRIES 4

/*
 * Each component of path under dirfd opened O_PATH | O_NOFOLLOW in turn
 * (O_DIRECTORY but the last): no symbolic link is followed, and ".." is
 * refused (EXDEV, as openat2's RESOLVE_BENEATH does) rather than
 * clamped, so the walk stays under dirfd.  The last component's O_PATH
 * descriptor, or -1.
 */
static int walk_nofollow(int dirfd, const char *path)
{
	char buf[PATH_MAX], *s, *next;
	int cur = dirfd, fd, e; /* cur: ours to close unless dirfd */

	if (strlen(path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	for (s = buf; s; s = next) {
		next = strchr(s, '/');
		if (next)
			*next++ = '\0';
		if (!*s || !strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			e = EXDEV;
			goto fail;
		}
		/* a component a '/' follows is a directory, as in a walk */
		fd = openat(cur, s,
			    O_PATH | O_NOFOLLOW | O_CLOEXEC |
				    (next ? O_DIRECTORY : 0));
		if (fd < 0) {
			e = errno;
			goto fail;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
	}
	if (cur != dirfd)
		return cur;
	e = ENOENT; /* no component at all */
fail:
	if (cur != dirfd)
		close(cur);
	errno = e;
	return -1;
}

/* path under dirfd as its root, no symbolic link followed (safeopen.h),
 * as an O_PATH descriptor. */
static int open_in_root(int dirfd, const char *path)
{
#ifdef SYS_openat2
	struct open_how how = {
		/* openat2 refuses O_PATH with any flag but these (EINVAL);
		 * O_NOFOLLOW: a link at the end is opened itself (fstat
		 * tells), not refused with an error that says less */
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	int fd = -1;

	for (int i = 0; i < OPENAT2_TRIES; i++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	/* ENOSYS: a kernel before 5.6; EPERM: a seccomp filter (a
	 * container runtime's) refusing a call it does not know */
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
#endif
	return walk_nofollow(dirfd, path);
}

/*
 * The file of the O_PATH descriptor fd opened for reading through
 * /proc/self/fd: the kernel's link to that very inode, which a rename or
 * a mount since cannot change, and whose open checks the caller's
 * permission as a path's would.  O_NOCTTY: harmless on a regular file,
 * and a terminal can never become ours should a check above be wrong.
 */
static int reopen_read(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

int safeopen_read(int dirfd, const char *path, unsigned flags, uint64_t ino,
		  struct stat *st)
{
	struct stat buf;
	int fd, rfd, e;

	if (!st)
		st = &buf;
	if (flags & SAFEOPEN_IN_ROOT)
		fd = open_in_root(dirfd, path);
	else
		fd = openat(dirfd, path,
			    O_PATH | O_CLOEXEC |
				    (flags & SAFEOPEN_NOFOLLOW ? O_NOFOLLOW :
								 0));
	if (fd < 0)
		return -1;
	if (fstat(fd, st)) {
		e = errno;
	} else if (S_ISLNK(st->st_mode)) {
		e = ELOOP; /* O_PATH | O_NOFOLLOW opens a link itself */
	} else if (!S_ISREG(st->st_mode) &&
		   !(S_ISFIFO(st->st_mode) && (flags & SAFEOPEN_FIFO))) {
		e = EINVAL;
	} else if (ino && (uint64_t)st->st_ino != ino) {
		e = ENOENT;
	} else {
		rfd = reopen_read(fd);
		e = errno;
		close(fd);
		errno = e;
		return rfd;
	}
	close(fd);
	errno = e;
	return -1;
}
