/*
 * fsguard.h - files ptprof must not touch in its own process: those on a
 * filesystem whose server may never answer.
 *
 * A FUSE server is a process, and a network filesystem's is another
 * machine; either can stop answering.  A system call of ours that asks
 * such a filesystem (the lookup of a path, an open, a stat, a read) then
 * waits in the kernel for good (fuse's request_wait_answer()): deaf to
 * SIGINT and SIGTERM, and once the server has read the request, to
 * SIGKILL too.  A target decides where its files are (a user may mount
 * FUSE through fusermount, or in its own user namespace), so a target
 * could hold root's ptprof forever, with no profile written.
 *
 * So a file a live target maps is judged by its device alone, as its
 * /proc/PID/maps line gives it, against /proc/PID/mountinfo (reading
 * either touches no filesystem but /proc):
 *   - on a filesystem of the blocking kind (fuse, fuse.*, fuseblk,
 *     virtiofs, nfs, nfs4, cifs, smb3, 9p, ceph, afs, coda, orangefs), or
 *     on a device no mount of the target's lists (a FUSE mount detached
 *     since with umount -l; also memfd and SysV shared memory, which live
 *     on the kernel's internal mount), or not known (dev 0): *gated*;
 *   - on any other filesystem: opened by the caller as usual.
 * A gated file is opened by fsguard_open(): a helper process (fork())
 * opens it with the caller's function and copies it into a memfd the
 * parent made, telling its progress through a pipe; the parent waits
 * FSGUARD_QUIET_MS for each word of it (and FSGUARD_TOTAL_MS in all).  A
 * helper that says nothing in time is sent SIGKILL and abandoned, not
 * waited for (a process asleep in a FUSE request cannot be reaped until
 * the server answers; the reaper's waitpid(-1) takes it whenever it
 * ends), and its filesystem is *hung* from then on: every later open
 * there fails at once (ETIMEDOUT), so a run loses one wait per hung
 * filesystem at most.  The caller then goes on without the file (no
 * unwind tables, symbols or build ID from it: frame pointers, addresses).
 * Files larger than FSGUARD_MAX_COPY are not copied (EFBIG).
 *
 * The classification is cached by device for the whole process; a
 * device judged safe is judged again (mountinfo read again) once its
 * verdict is FSGUARD_TTL_MS old, for a device number is reused once its
 * filesystem is unmounted.  Not covered (see docs/RELIABILITY.md, case
 * 49): a path walk through directories of a safe filesystem that the
 * target has since covered with a FUSE mount.
 *
 * Contract: not thread-safe (the sampling thread, or a forked writer,
 * which inherits the verdicts); never prints.  Only live targets are
 * gated (pid > 0): a profile's files are read as the user asks.
 */
#ifndef PTPROF_FSGUARD_H
#define PTPROF_FSGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FSGUARD_QUIET_MS 2000
#define FSGUARD_TOTAL_MS 30000
#define FSGUARD_TTL_MS 1000
#define FSGUARD_MAX_COPY (512ull << 20)

struct mapfile_ref;

/* The opener a helper runs (mapfile_open() or mapfile_open_exact()). */
typedef int (*fsguard_open_fn)(const char *root, pid_t pid,
			       const struct mapfile_ref *ref);

/* Whether the file on device dev (makedev() of its maps line's MAJ:MIN,
 * 0: not known) that live process pid maps must be opened through
 * fsguard_open().  Always false inside a helper. */
bool fsguard_gated(pid_t pid, uint64_t dev);

/*
 * Open ref's file through a helper that runs fn(root, pid, ref): a memfd
 * holding a copy of the file (O_RDONLY use only; its offset at 0), or -1
 * with errno: the helper's (ENOENT...), EFBIG (too large to copy),
 * ETIMEDOUT (the filesystem did not answer in time, or was found hung
 * before).
 */
int fsguard_open(const char *root, pid_t pid, const struct mapfile_ref *ref,
		 fsguard_open_fn fn);

/* One filesystem found hung, for the warning: its type, device, the
 * first file that was waited for and how many opens were refused since. */
struct fsguard_hung {
	char type[32];
	uint64_t dev;
	char path[256];
	unsigned long refused;
};

/* The i-th filesystem found hung (i from 0), or NULL past the last. */
const struct fsguard_hung *fsguard_hung_get(size_t i);

/* Whether fstype is of the blocking kind (above). */
bool fsguard_type_blocks(const char *fstype);

#endif /* PTPROF_FSGUARD_H */
