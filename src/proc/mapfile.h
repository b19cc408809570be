/*
 * mapfile.h - open the file behind a /proc/PID/maps line.
 *
 * The kernel writes a maps path as the process *reading* the maps sees it
 * (d_path() against the reader's root), not as the target sees it:
 *  - the files of a chrooted target come out under their paths on the
 *    host ("/srv/jail/bin/app"), which the target's root does not have;
 *  - the files of another mount namespace that the reader cannot reach
 *    (a container) come out relative to that namespace's root
 *    ("/usr/bin/app"), which may name another file, or none, on the host;
 *  - a file removed since it was mapped gets " (deleted)" appended.
 * So a mapping's file is looked for, in this order:
 *   1. ROOT/path, if it is the inode the maps line names (a container);
 *   2. path itself, if it is that inode (a chroot, or no namespace);
 *   3. /proc/PID/map_files/START-END, if it is that inode: the kernel's
 *      own link to the mapped file, which reaches a deleted one too, while
 *      PID lives (CAP_SYS_ADMIN only: others get EPERM);
 *   4. ROOT/path, whatever its inode (a copy of the files, a sysroot, a
 *      file replaced since).
 * A " (deleted)" path is only looked for by 3.  ROOT is a directory such
 * as "/proc/PID/root" or a sysroot, or NULL for none (then 1 and 4 are the
 * path itself); PID is the live process, or 0 (no step 3).  ino 0 (not
 * known) skips steps 1-3.
 *
 * Contract: no state; never prints.  mapfile_open() returns a file
 * descriptor opened O_RDONLY | O_CLOEXEC, for the caller to close, or -1
 * with errno (ENOENT when no candidate matched).  Only regular files are
 * opened for reading, each candidate through safeopen_read() (O_PATH
 * first, util/safeopen.h): a FIFO, device or directory a profile or a
 * target's mounts name is refused (EINVAL) without its open ever running
 * (a device's driver), so a hostile profile can neither hang a report nor
 * make it open /dev/ptmx or /dev/watchdog.
 * A live target's file (pid > 0) on a filesystem that may never answer
 * (FUSE, network; or dev 0) is opened by a helper process with a deadline
 * and comes as a memfd copy, or -1 with ETIMEDOUT (proc/fsguard.h).
 */
#ifndef PTPROF_MAPFILE_H
#define PTPROF_MAPFILE_H

#include <stdint.h>
#include <sys/types.h>

/* The fields of a maps line that find its file. */
struct mapfile_ref {
	const char *path;    /* as written in the maps line */
	uint64_t start, end; /* the mapping's range */
	uint64_t ino;	     /* inode, or 0 when not known */
	uint64_t dev;	     /* its maps line's device, 0: not known */
};

int mapfile_open(const char *root, pid_t pid, const struct mapfile_ref *ref);

/* The same with steps 1-3 only: the very file that was mapped, or -1. */
int mapfile_open_exact(const char *root, pid_t pid,
		       const struct mapfile_ref *ref);

/* Whether path is a maps path of a file removed since it was mapped. */
int mapfile_is_deleted(const char *path);

#endif /* PTPROF_MAPFILE_H */
