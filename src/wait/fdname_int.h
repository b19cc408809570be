/*
 * fdname_int.h - what fdname.c (descriptors, pipes, the /proc/PID/fd
 * scan, epoll) and fdname_net.c (the socket tables, sock_diag) share:
 * the context and its two maps.  Not for other files.
 *
 * Contract:
 *  - holds: every pipe and socket link of every process, from one scan of
 *    /proc/PID/fd (fdname_scan(), at most FDNAME_SCAN_MAX links; scan_cut
 *    when it stopped there), keyed by (kind, inode) in hold_idx: several
 *    entries share a key (both ends of a pipe, a descriptor inherited by a
 *    child), a lookup walks every candidate.
 *  - socks: the target's network namespace's socket rows, by inode
 *    (fdname_net.c), read on the first socket asked for.
 *  - Both are shared: a context takes the last scan, or the last tables
 *    of its namespace, made under FDNAME_SHARE_NS ago, else makes them
 *    (and they become the shared ones); each is freed with its last
 *    reference (fdname_ctx_free(), fdname_scan_release(), or replaced
 *    when stale).
 *  - fdname_holders() fills up to max distinct PIDs holding (kind, ino)
 *    whose own flags fit want (FDNAME_READ: a reader; FDNAME_WRITE: a
 *    writer; FDNAME_ANY: all), the target first when it is one of them;
 *    returns how many there are in all.  fdname_name_pids() writes
 *    "1234 (comm), 1240 (comm) +2 more" for them.
 */
#ifndef PTPROF_FDNAME_INT_H
#define PTPROF_FDNAME_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashtab.h"
#include "wait/fdname.h"

enum fdname_kind { FDNAME_PIPE = 1, FDNAME_SOCKET = 2 };

struct fdname_hold {
	uint64_t ino;
	pid_t pid;
	int fd;
	int kind;
	int acc; /* O_ACCMODE of its fdinfo flags, -1 not read yet, -2 gone */
};

enum fdname_proto { FDNAME_TCP, FDNAME_UDP, FDNAME_UNIX };

struct fdname_sock {
	uint64_t ino;
	int proto;  /* enum fdname_proto */
	int family; /* AF_INET, AF_INET6 (tcp, udp) */
	unsigned char local[16], remote[16];
	unsigned lport, rport;
	unsigned state;	   /* the table's st column */
	uint64_t txq, rxq; /* tcp, udp: the queue sizes */
	unsigned flags;	   /* unix: __SO_ACCEPTCON 0x10000: listening */
	unsigned type;	   /* unix: SOCK_STREAM, SOCK_DGRAM, ... */
	size_t path_off;   /* unix: its path in unix_text, 0 when none */
	size_t path_len;
	bool twice; /* its inode on two rows: a forged one (a path with a
		     * newline in it); neither is believed */
};

/* One /proc/PID/fd scan, shared by the contexts made within
 * FDNAME_SHARE_NS of it (fdname.h): counted references. */
struct fdname_scanset {
	unsigned refs;
	uint64_t made_ns; /* CLOCK_MONOTONIC */
	bool cut;	  /* stopped at FDNAME_SCAN_MAX links */
	struct fdname_hold *holds;
	size_t nholds, capholds;
	struct hashtab hold_idx;
};

/* One network namespace's tables, shared the same way (keyed by the
 * namespace's device and inode). */
struct fdname_nettab {
	unsigned refs;
	uint64_t made_ns;
	uint64_t ns_dev, ns_ino; /* 0, 0: not shared */
	struct fdname_sock *socks;
	size_t nsocks, capsocks;
	struct hashtab sock_idx;
	char *unix_text; /* /proc/PID/net/unix, kept for the paths */
};

struct fdname_ctx {
	pid_t pid;
	struct fdname_scanset *scan; /* NULL until fdname_scan() */
	struct fdname_nettab *net;   /* NULL until a socket is asked for */
	bool net_read;
	int same_netns; /* -1: not asked yet */
};

uint64_t fdname_key(int kind, uint64_t ino);
/* ctx->scan set (made, or the shared one taken): 0, or -1 (no memory,
 * /proc unreadable) with ctx->scan NULL. */
int fdname_scan(struct fdname_ctx *ctx);
size_t fdname_holders(struct fdname_ctx *ctx, int kind, uint64_t ino,
		      enum fdname_want want, pid_t *pids, size_t max);
void fdname_name_pids(struct fdname_ctx *ctx, const pid_t *pids, size_t n,
		      size_t total, char *buf, size_t size);

/* fdname_net.c: socket inode ino named into buf: 0, or -1 when no table
 * has its row.  pids (max of them, 0-terminated when fewer): a unix
 * socket's peer processes, when the kernel says. */
int fdname_net_describe(struct fdname_ctx *ctx, uint64_t ino, char *buf,
			size_t size, pid_t *pids, size_t max);
void fdname_net_free(struct fdname_ctx *ctx);
/* fdname_net.c: drop the shared tables (fdname_scan_release()). */
void fdname_net_release(void);

#endif /* PTPROF_FDNAME_INT_H */
