/*
 * fdname.h - a target's descriptor, named as a user wants it named: a
 * file's path and offset, a pipe with the processes holding its other
 * end, a TCP/UDP socket with its local and peer address and queue sizes,
 * a unix socket with its path (and peer process when the kernel says),
 * an epoll instance with the descriptors it watches.
 *
 * Read from /proc/PID/fd/N (the link), /proc/PID/fdinfo/N (pos, flags,
 * an epoll set's "tfd:" lines), and the target's network namespace's
 * tables /proc/PID/net/{tcp,tcp6,udp,udp6,unix}, read once per
 * fdname_ctx and looked up by socket inode.  A pipe's other end: every
 * process's /proc/PID/fd scanned once (bounded: FDNAME_SCAN_MAX links,
 * then "other end not searched further"), the holders told apart by
 * their fdinfo flags (O_WRONLY: a writer).  All of it is hostile text
 * (a path is the target's to choose): bounded reads, no link followed.
 *
 * Contract:
 *  - fdname_ctx_new(pid): a context for one process (NULL, errno, on no
 *    memory); fdname_ctx_free() frees it.
 *  - fdname_describe(ctx, fd, want, out): out->fd = fd and out->name one
 *    line ("pipe:[4242] written by 1234 (writer)", "TCP 127.0.0.1:6379
 *    <- 127.0.0.1:51234 rx 0 tx 0", "/var/log/x.log @4096", "socket:[99]"
 *    when its table has no row); want is what the waiting call does
 *    (FDNAME_READ: a read end's writers are its peers; FDNAME_WRITE the
 *    reverse; FDNAME_ANY).  peers (may be NULL) gets the other end's
 *    PIDs (at most npeers, 0-terminated when fewer).  0, or -1 with
 *    errno (EBADF: no such descriptor now; ESRCH: the process is gone)
 *    and out->name "fd N (closed)".
 *  - fdname_epoll(ctx, epfd, fds, max, more): the descriptors an epoll
 *    instance watches (its fdinfo's tfd lines), each described with
 *    FDNAME_ANY; the count filled, *more those left out past max.
 *  - Shared for a moment: a context's pipe scan, and its network
 *    namespace's tables, are those another context made under
 *    FDNAME_SHARE_NS (1 s) ago, when there are (dump --children of a
 *    make -j tree, every child reading the jobserver pipe, scans the
 *    machine once, not once a process); a context keeps what it took
 *    for its life.  fdname_scan_release() lets go of the shared ones
 *    (each freed with the last context holding it); a stale one is let
 *    go of when the next is made.  At most one scan and FDNAME_NETNS
 *    namespaces' tables are kept.  Not thread-safe.
 *  - Never prints; never stops or signals anything.
 */
#ifndef PTPROF_FDNAME_H
#define PTPROF_FDNAME_H

#include <stddef.h>
#include <sys/types.h>

#include "wait/wait.h"

#define FDNAME_SCAN_MAX 200000
#define FDNAME_SHARE_NS 1000000000ull
#define FDNAME_NETNS 4

enum fdname_want { FDNAME_ANY, FDNAME_READ, FDNAME_WRITE };

struct fdname_ctx;

struct fdname_ctx *fdname_ctx_new(pid_t pid);
void fdname_ctx_free(struct fdname_ctx *ctx);
void fdname_scan_release(void);
int fdname_describe(struct fdname_ctx *ctx, int fd, enum fdname_want want,
		    struct wait_fd *out, pid_t *peers, size_t npeers);
size_t fdname_epoll(struct fdname_ctx *ctx, int epfd, struct wait_fd *fds,
		    size_t max, size_t *more);

#endif /* PTPROF_FDNAME_H */
