/*
 * safeopen.h - open a file named by a target or a profile, for reading,
 * only once it is known to be a regular file.
 *
 * ptprof often runs as root, and many of the paths it opens come from
 * someone else: a maps line (the target's mounts decide what it names), a
 * profile's mapping, a .gnu_debuglink, a build-ID path, a perf map under
 * /proc/PID/root.  open(2) of a device runs its driver's open (/dev/ptmx
 * allocates a terminal; /dev/watchdog arms a watchdog whose unexpected
 * close reboots the machine) and open(2) of a FIFO waits for a writer, so
 * looking at what was opened afterwards is too late.  safeopen_read()
 * opens the path with O_PATH first (only the walk happens: no driver
 * runs, nothing waits, no read permission is asked), fstat()s that
 * descriptor, and only if it is a regular file (and the inode asked for,
 * if any) opens it for reading, through /proc/self/fd/N: the very inode
 * the O_PATH descriptor holds, whatever the path names by then, with a
 * full permission check of the caller's credentials.
 *
 * It is the one way ptprof opens such a path: tests/safeopen.test fails
 * if another .c file calls open(), openat(), fopen() and the like, but
 * for the few opens it allow-lists with their reasons (/proc files,
 * outputs).  A regular file is opened before the caller's own checks of
 * its owner or mode (perfmap.h): opening a regular file runs no driver
 * and reads nothing, so a caller that then refuses it has read nothing.
 *
 * flags:
 *  SAFEOPEN_NOFOLLOW  the last component is not followed: a symbolic
 *                     link there is refused (ELOOP);
 *  SAFEOPEN_IN_ROOT   path is resolved with dirfd as its root and through
 *                     no symbolic link at all, the last component
 *                     included (openat2 RESOLVE_IN_ROOT |
 *                     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, Linux
 *                     5.6; before it, or where a seccomp filter refuses
 *                     openat2, each component is opened O_NOFOLLOW in
 *                     turn, and ".." is refused);
 *  SAFEOPEN_FIFO      a FIFO is opened too, and waited on (a path the
 *                     user named: `ptprof report <(zcat p.pb.gz)`).
 *
 * Contract: no state, never prints; thread-safe.  Returns a descriptor
 * opened O_RDONLY | O_CLOEXEC | O_NOCTTY, for the caller to close, and
 * the O_PATH descriptor's fstat() into *st when st is not NULL; or -1
 * with errno: ELOOP (a symbolic link refused), EINVAL (not a regular
 * file: a device, FIFO, directory or socket), ENOENT (no such file, or
 * not inode ino), or the errno of the walk or of the open for reading
 * (EACCES: the caller may not read it).
 */
#ifndef PTPROF_SAFEOPEN_H
#define PTPROF_SAFEOPEN_H

#include <stdint.h>
#include <sys/stat.h>

enum {
	SAFEOPEN_NOFOLLOW = 1 << 0,
	SAFEOPEN_IN_ROOT = 1 << 1,
	SAFEOPEN_FIFO = 1 << 2,
};

/* path under dirfd (AT_FDCWD: the current directory, or an absolute
 * path), opened for reading if it is a regular file (with ino not 0:
 * that inode). */
int safeopen_read(int dirfd, const char *path, unsigned flags, uint64_t ino,
		  struct stat *st);

#endif /* PTPROF_SAFEOPEN_H */
