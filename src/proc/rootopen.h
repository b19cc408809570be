/*
 * rootopen.h - a file under a process's root directory, opened for
 * reading as that process could open it.
 *
 * A process in its own user and mount namespaces (`unshare -Ur -m`, any
 * unprivileged user) may bind-mount any file it can name over any path
 * in its own tree, a file it cannot read included: a root-only file over
 * its /tmp/perf-PID.map.  Root, reading that path through
 * /proc/PID/root, sees the process's mounts with root's rights, and would
 * read the file the process could not.  The owner of what was opened
 * does not tell (the bound file is root's, as a root process's own map
 * would be); who could have put it there does.  So, where pid is in
 * another mount namespace than ours (the inodes of /proc/self/ns/mnt and
 * /proc/PID/ns/mnt differ, or either cannot be read), or where its root
 * is not ours (another mount or inode: a process of our namespace may
 * chroot, in a user namespace of its own, into another namespace's
 * tree), the file is opened
 * by a short-lived child that has dropped to the process's credentials
 * first: no supplementary groups (the raw setgroups(0, NULL): the child
 * of a threaded process calls no libc wrapper that talks to other
 * threads), then setresgid and setresuid to the gid and uid given (the
 * process's effective ones, from /proc/PID/status).  The child walks
 * and opens the file with safeopen_read() (O_PATH first, no symbolic
 * link, only a regular file: util/safeopen.h), so the kernel checks the
 * process's own right to read it (EACCES for root's 0600 file), and
 * hands the descriptor back over a socketpair (SCM_RIGHTS).  In our own
 * mount namespace with our root, and of our own uid (or pid 0), the file
 * is opened directly: there the process could not have bound anything,
 * and the caller's owner check tells who made the file.  Any other
 * process's file goes through the child too, even in our namespace: a
 * user may mount a FUSE file system of his own over a file he owns
 * (fusermount), and its server could then hold an fstat() or a read of
 * ours for good.  The child sends a copy (a memfd, the file at most
 * ROOTOPEN_MAX_COPY bytes, else EFBIG), and the file's own fstat() in
 * *st (its owner and mode are the file's, not the copy's): nothing
 * ptprof's process does afterwards reaches the file's file system.
 *
 * The wait for the child is bounded (ROOTOPEN_WAIT_MS: a walk that hangs,
 * such as on a FUSE mount the process serves itself, gives ETIMEDOUT);
 * the child is then killed, and reaped through its pidfd (never by a
 * waitpid() on a PID the sampler's reaper may have taken: bgwrite.c).
 * A child that does not die within ROOTOPEN_REAP_MS (stuck in the
 * kernel) is left to the reaper.  An unprivileged ptprof that cannot
 * drop its supplementary groups keeps them (they are its own user's); one
 * that cannot take the process's uid or gid opens nothing (EPERM).
 *
 * Contract: no state, never prints; not to be called from a signal
 * handler.  rootopen_read() returns a descriptor open O_RDONLY |
 * O_CLOEXEC, and its fstat() in *st; or -1 with errno: safeopen_read()'s
 * (ELOOP, EINVAL, ENOENT, EACCES...), ETIMEDOUT, or the errno of a failed
 * fork, socketpair or credential change.
 */
#ifndef PTPROF_ROOTOPEN_H
#define PTPROF_ROOTOPEN_H

#include <sys/stat.h>
#include <sys/types.h>

#define ROOTOPEN_WAIT_MS 5000	      /* for the child's answer */
#define ROOTOPEN_REAP_MS 1000	      /* for its exit, after */
#define ROOTOPEN_MAX_COPY (64u << 20) /* a bigger file: EFBIG */

/*
 * rel (relative, no symbolic link in it) under rootfd, an O_PATH
 * descriptor of pid's root directory (/proc/PID/root; pid 0: our own
 * root), opened for reading: directly when pid shares our mount
 * namespace and root, else as uid:gid in a child (see above).
 */
int rootopen_read(pid_t pid, int rootfd, const char *rel, uid_t uid, gid_t gid,
		  struct stat *st);

#endif /* PTPROF_ROOTOPEN_H */
