/*
 * mapfile.c - the file behind a maps line (see mapfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/fsguard.h"
#include "proc/mapfile.h"
#include "util/safeopen.h"

#define DELETED_SUFFIX " (deleted)"

int mapfile_is_deleted(const char *path)
{
	size_t n = strlen(path), m = strlen(DELETED_SUFFIX);

	return n >= m && !strcmp(path + n - m, DELETED_SUFFIX);
}

/* path opened for reading if it is a regular file, and inode ino unless
 * ino is 0: O_PATH first, never open(O_RDONLY) and then look
 * (safeopen.h): a device or FIFO a maps line or a profile names is never
 * opened. */
static int open_ino(const char *path, uint64_t ino)
{
	return safeopen_read(AT_FDCWD, path, 0, ino, NULL);
}

/*
 * path under root, resolved with root as its root and through no symbolic
 * link (SAFEOPEN_IN_ROOT): "/proc/PID/root" is a link to the target's
 * root, but a symbolic link inside it that starts with '/' would resolve
 * against ptprof's own root, so a target that put such a link at a
 * mapped file's path (step 4: whatever its inode) made root's ptprof
 * read a host file of its choosing as that image.  Maps paths are
 * canonical (d_path()), so they cross no link of their own.
 */
static int open_rooted(const char *root, const char *path, uint64_t ino)
{
	int rfd, fd, e;

	if (!root || !root[0])
		return open_ino(path, ino);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	while (*path == '/')
		path++;
	fd = safeopen_read(rfd, path, SAFEOPEN_IN_ROOT, ino, NULL);
	e = errno;
	close(rfd);
	errno = e;
	return fd;
}

static int open_map_files(pid_t pid, const struct mapfile_ref *ref)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)ref->start, (unsigned long long)ref->end);
	return open_ino(path, ref->ino);
}

int mapfile_open_exact(const char *root, pid_t pid,
		       const struct mapfile_ref *ref)
{
	int fd = -1;

	if (fsguard_gated(pid, ref->dev)) /* FUSE, network: fsguard.h */
		return fsguard_open(root, pid, ref, mapfile_open_exact);
	errno = ENOENT;
	if (!ref->ino)
		return -1;
	if (!mapfile_is_deleted(ref->path)) {
		fd = open_rooted(root, ref->path, ref->ino);
		if (fd < 0 && root && root[0])
			fd = open_ino(ref->path, ref->ino);
	}
	if (fd < 0 && pid > 0)
		fd = open_map_files(pid, ref);
	return fd;
}

int mapfile_open(const char *root, pid_t pid, const struct mapfile_ref *ref)
{
	int fd;

	if (fsguard_gated(pid, ref->dev)) /* FUSE, network: fsguard.h */
		return fsguard_open(root, pid, ref, mapfile_open);
	fd = mapfile_open_exact(root, pid, ref);
	if (fd >= 0 || mapfile_is_deleted(ref->path))
		return fd;
	return open_rooted(root, ref->path, 0);
}
