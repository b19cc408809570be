/*
 * fdname.c - a target's descriptor, named (fdname.h): its link and
 * fdinfo, a file's offset, a pipe's other end from one scan of every
 * process's /proc/PID/fd, an epoll set's descriptors.  Sockets are
 * fdname_net.c's.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "wait/fdname.h"
#include "wait/fdname_int.h"

/* At most this many holders named in a description, the rest counted. */
#define FDNAME_NAMES 3
/* An fdinfo file: pos and flags are its first lines; an epoll set's may
 * be long (a "tfd:" line, some 80 bytes, a watched descriptor). */
#define FDINFO_MAX 4096
#define EPOLL_FDINFO_MAX (1 << 20)

struct fdname_ctx *fdname_ctx_new(pid_t pid)
{
	struct fdname_ctx *c = calloc(1, sizeof(*c));

	if (c) {
		c->pid = pid;
		c->same_netns = -1;
	}
	return c;
}

/* The scan the next contexts take, while fresh (fdname.h). */
static struct fdname_scanset *shared_scan;

static void scanset_unref(struct fdname_scanset *ss)
{
	if (!ss || --ss->refs)
		return;
	free(ss->holds);
	hashtab_free(&ss->hold_idx);
	free(ss);
}

void fdname_ctx_free(struct fdname_ctx *ctx)
{
	if (!ctx)
		return;
	scanset_unref(ctx->scan);
	fdname_net_free(ctx);
	free(ctx);
}

void fdname_scan_release(void)
{
	scanset_unref(shared_scan);
	shared_scan = NULL;
	fdname_net_release();
}

uint64_t fdname_key(int kind, uint64_t ino)
{
	return hash_mix64(ino ^ ((uint64_t)kind << 56));
}

/* "pipe:[123]" or "socket:[123]", exactly (a regular file may be named
 * "pipe:[1]" too, but its link is an absolute path). */
static int link_inode(const char *link, size_t len, int *kind, uint64_t *ino)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = { { "pipe:[", FDNAME_PIPE },
		      { "socket:[", FDNAME_SOCKET } };
	const char *end = link + len;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t pl = strlen(kinds[k].prefix);
		const char *p = link + pl;

		if (len < pl + 2 || memcmp(link, kinds[k].prefix, pl))
			continue;
		if (scan_dec(&p, end, UINT64_MAX, ino) || p + 1 != end ||
		    *p != ']')
			return -1;
		*kind = kinds[k].kind;
		return 0;
	}
	return -1;
}

/* What a descriptor's fdinfo says. */
struct fdinfo {
	bool have_pos, have_flags, have_ino;
	uint64_t pos, ino;
	unsigned flags;
};

/* One "key:\tNUMBER" line's number (octal for flags). */
static int field_num(const char *p, const char *end, bool octal, uint64_t *v)
{
	uint64_t x = 0;
	const char *s;

	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	if (!octal)
		return scan_dec(&p, end, UINT64_MAX, v);
	for (s = p; p < end && *p >= '0' && *p <= '7' && p - s < 11; p++)
		x = x * 8 + (uint64_t)(*p - '0');
	if (p == s)
		return -1;
	*v = x;
	return 0;
}

/* Parse the pos, flags and ino lines of an fdinfo text. */
static void fdinfo_parse(const char *t, size_t len, struct fdinfo *fi)
{
	const char *end = t + len;

	memset(fi, 0, sizeof(*fi));
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		const char *le = nl ? nl : end;
		uint64_t v;

		if (le - t > 4 && !memcmp(t, "pos:", 4) &&
		    !field_num(t + 4, le, false, &v)) {
			fi->pos = v;
			fi->have_pos = true;
		} else if (le - t > 6 && !memcmp(t, "flags:", 6) &&
			   !field_num(t + 6, le, true, &v)) {
			fi->flags = (unsigned)v;
			fi->have_flags = true;
		} else if (le - t > 4 && !memcmp(t, "ino:", 4) &&
			   !field_num(t + 4, le, false, &v)) {
			fi->ino = v;
			fi->have_ino = true;
		}
		t = le + 1;
	}
}

/* /proc/PID/fdinfo/FD: 0, or -1 with errno. */
static int fdinfo_read(pid_t pid, int fd, struct fdinfo *fi)
{
	char path[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	if (procfs_read_file_max(path, FDINFO_MAX, &text, &len) < 0)
		return -1;
	fdinfo_parse(text, len, fi);
	free(text);
	return 0;
}

static int hold_add(struct fdname_scanset *ss, pid_t pid, int fd, int kind,
		    uint64_t ino)
{
	struct fdname_hold *h;

	h = grow_array(ss->holds, &ss->capholds, ss->nholds + 1, sizeof(*h));
	if (!h)
		return -1;
	ss->holds = h;
	if (hashtab_add(&ss->hold_idx, fdname_key(kind, ino), ss->nholds))
		return -1;
	h[ss->nholds++] = (struct fdname_hold){
		.ino = ino, .pid = pid, .fd = fd, .kind = kind, .acc = -1
	};
	return 0;
}

/* A decimal name of a /proc directory entry, or -1. */
static long dir_num(const char *name)
{
	const char *p = name, *end = name + strlen(name);
	uint64_t v;

	if (scan_dec(&p, end, INT32_MAX, &v) || p != end)
		return -1;
	return (long)v;
}

/* The pipe and socket links of one process; *links counts toward the
 * bound.  1 when the bound is reached, 0, or -1 (no memory). */
static int scan_process(struct fdname_scanset *ss, pid_t pid, size_t *links)
{
	char path[64], link[64];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) /* gone, or not ours to read: its descriptors are unknown */
		return 0;
	while ((de = readdir(d))) {
		long fd = dir_num(de->d_name);
		uint64_t ino;
		ssize_t n;
		int kind;

		if (fd < 0)
			continue;
		if (*links >= FDNAME_SCAN_MAX) {
			rc = 1;
			break;
		}
		++*links;
		/* readlinkat() of the magic link: its text, nothing followed */
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link));
		if (n <= 0 || (size_t)n >= sizeof(link) ||
		    link_inode(link, (size_t)n, &kind, &ino))
			continue;
		if (hold_add(ss, pid, (int)fd, kind, ino)) {
			rc = -1;
			break;
		}
	}
	closedir(d);
	return rc;
}

int fdname_scan(struct fdname_ctx *ctx)
{
	uint64_t now = mono_now_ns();
	struct fdname_scanset *ss;
	struct dirent *de;
	size_t links = 0;
	DIR *proc;
	int rc = 0;

	if (ctx->scan)
		return 0;
	if (shared_scan && now - shared_scan->made_ns < FDNAME_SHARE_NS) {
		shared_scan->refs++;
		ctx->scan = shared_scan;
		return 0;
	}
	ss = calloc(1, sizeof(*ss));
	proc = ss ? opendir("/proc") : NULL;
	if (!proc) {
		free(ss);
		return -1;
	}
	while (rc == 0 && (de = readdir(proc))) {
		long pid = dir_num(de->d_name);

		if (pid > 0)
			rc = scan_process(ss, (pid_t)pid, &links);
	}
	closedir(proc);
	ss->refs = 1;
	if (rc < 0) {
		scanset_unref(ss);
		return -1;
	}
	ss->cut = rc == 1;
	ss->made_ns = now;
	/* the shared one, stale, let go of; this one shared in its place */
	scanset_unref(shared_scan);
	shared_scan = ss;
	ss->refs++;
	ctx->scan = ss;
	return 0;
}

/* A holder's access mode, read on first need: its fdinfo's flags, if
 * the descriptor still holds the same inode (it may have been closed, or
 * reused, since the scan: then it counts for nothing). */
static int hold_acc(struct fdname_hold *h)
{
	struct fdinfo fi;

	if (h->acc != -1)
		return h->acc;
	h->acc = -2;
	if (fdinfo_read(h->pid, h->fd, &fi) == 0 && fi.have_flags &&
	    (!fi.have_ino || fi.ino == h->ino))
		h->acc = (int)(fi.flags & O_ACCMODE);
	return h->acc;
}

static bool acc_fits(int acc, enum fdname_want want)
{
	if (acc < 0)
		return false;
	if (want == FDNAME_READ)
		return acc == O_RDONLY || acc == O_RDWR;
	if (want == FDNAME_WRITE)
		return acc == O_WRONLY || acc == O_RDWR;
	return true;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

size_t fdname_holders(struct fdname_ctx *ctx, int kind, uint64_t ino,
		      enum fdname_want want, pid_t *pids, size_t max)
{
	struct hashtab_probe p;
	struct fdname_hold *holds;
	size_t *cand = NULL, ncand = 0, cap = 0, i, total = 0, n = 0;
	bool self = false;

	if (!ctx->scan) {
		if (max)
			pids[0] = 0;
		return 0;
	}
	holds = ctx->scan->holds;
	hashtab_probe_init(&ctx->scan->hold_idx, fdname_key(kind, ino), &p);
	while (hashtab_next(&ctx->scan->hold_idx, &p, &i)) {
		size_t *g;

		if (holds[i].kind != kind || holds[i].ino != ino)
			continue;
		g = grow_array(cand, &cap, ncand + 1, sizeof(*g));
		if (!g)
			break;
		cand = g;
		cand[ncand++] = i;
	}
	/* in scan order: a process's descriptors one after the other */
	qsort(cand, ncand, sizeof(*cand), cmp_size);
	for (size_t k = 0; k < ncand;) {
		pid_t pid = holds[cand[k]].pid;
		bool fits = false;

		for (; k < ncand && holds[cand[k]].pid == pid; k++)
			if (!fits && acc_fits(hold_acc(&holds[cand[k]]), want))
				fits = true;
		if (!fits)
			continue;
		total++;
		if (pid == ctx->pid)
			self = true;
		else if (n < max)
			pids[n++] = pid;
	}
	free(cand);
	if (self && max) { /* the target first, the last other may go */
		if (n == max)
			n--;
		memmove(pids + 1, pids, n * sizeof(*pids));
		pids[0] = ctx->pid;
		n++;
	}
	if (n < max)
		pids[n] = 0;
	return total;
}

void fdname_name_pids(struct fdname_ctx *ctx, const pid_t *pids, size_t n,
		      size_t total, char *buf, size_t size)
{
	size_t used = strlen(buf), shown = 0;

	for (size_t i = 0; i < n && pids[i] && shown < FDNAME_NAMES; i++) {
		char comm[32], one[96];
		int w;

		if (procfs_comm(pids[i], 0, comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "gone");
		w = snprintf(one, sizeof(one), "%s%d (%s)%s", shown ? ", " : "",
			     (int)pids[i], comm,
			     pids[i] == ctx->pid ? " (this process)" : "");
		/* room kept for " +N more" */
		if (w < 0 || used + (size_t)w + 16 >= size)
			break;
		memcpy(buf + used, one, (size_t)w + 1);
		used += (size_t)w;
		shown++;
	}
	if (total > shown)
		snprintf(buf + used, size - used, " +%zu more", total - shown);
}

/* A pipe: its other end's holders.  want READ (a reader) names the
 * writers; WRITE the readers; ANY whichever the descriptor is not. */
static void describe_pipe(struct fdname_ctx *ctx, uint64_t ino,
			  enum fdname_want want, const struct fdinfo *fi,
			  struct wait_fd *out, pid_t *peers, size_t npeers)
{
	pid_t pids[WAIT_MAX_FDS];
	enum fdname_want other;
	size_t total, n, len;
	bool cut;

	if (want == FDNAME_ANY)
		want = fi->have_flags && (fi->flags & O_ACCMODE) == O_WRONLY ?
			       FDNAME_WRITE :
			       FDNAME_READ;
	other = want == FDNAME_READ ? FDNAME_WRITE : FDNAME_READ;
	if (fdname_scan(ctx)) {
		snprintf(out->name, sizeof(out->name), "pipe:[%" PRIu64 "]",
			 ino);
		return;
	}
	cut = ctx->scan->cut;
	total = fdname_holders(ctx, FDNAME_PIPE, ino, other, pids,
			       WAIT_MAX_FDS);
	n = total < WAIT_MAX_FDS ? total : WAIT_MAX_FDS;
	for (size_t i = 0; peers && i < npeers && i < n; i++)
		peers[i] = pids[i];
	if (peers && n < npeers)
		peers[n] = 0;
	if (total) {
		snprintf(out->name, sizeof(out->name), "pipe:[%" PRIu64 "] %s",
			 ino,
			 other == FDNAME_WRITE ? "written by " : "read by ");
		fdname_name_pids(ctx, pids, n, total, out->name,
				 sizeof(out->name));
	} else
		snprintf(out->name, sizeof(out->name), "pipe:[%" PRIu64 "]%s",
			 ino,
			 cut		       ? "" :
			 other == FDNAME_WRITE ? " no writer found" :
						 " no reader found");
	len = strlen(out->name);
	if (cut)
		snprintf(out->name + len, sizeof(out->name) - len, "%s",
			 total ? ", other end not searched further" :
				 " other end not searched further");
}

/* A path, its offset after it ("/var/log/x @4096"), cut to fit. */
static void describe_path(const char *link, size_t len, const struct fdinfo *fi,
			  struct wait_fd *out)
{
	char off[32] = "";
	size_t room;

	/*
	 * A device (a terminal, /dev/null) has no offset worth naming; the
	 * link's text is all there is to tell it by, as the link is not
	 * followed.  /dev/shm holds files.
	 */
	bool device = len > 5 && !memcmp(link, "/dev/", 5) &&
		      !(len > 9 && !memcmp(link, "/dev/shm/", 9));

	if (fi->have_pos && !device)
		snprintf(off, sizeof(off), " @%" PRIu64, fi->pos);
	room = sizeof(out->name) - 1 - strlen(off);
	if (len > room)
		len = room;
	memcpy(out->name, link, len);
	snprintf(out->name + len, sizeof(out->name) - len, "%s", off);
}

/* The process's /proc directory is gone: ESRCH, else EBADF. */
static int gone_errno(pid_t pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return access(path, F_OK) ? ESRCH : EBADF;
}

int fdname_describe(struct fdname_ctx *ctx, int fd, enum fdname_want want,
		    struct wait_fd *out, pid_t *peers, size_t npeers)
{
	char path[64], link[4096];
	struct fdinfo fi;
	uint64_t ino;
	ssize_t n;
	int kind;

	out->fd = fd;
	out->name[0] = '\0';
	if (peers && npeers)
		peers[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)ctx->pid, fd);
	n = fd < 0 ? -1 : readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		int err = fd < 0 || n == 0 ? EBADF : errno;

		if (err == ENOENT)
			err = gone_errno(ctx->pid);
		snprintf(out->name, sizeof(out->name), "fd %d (closed)", fd);
		errno = err;
		return -1;
	}
	link[n] = '\0';
	/* closed or reused since the readlink: what the link said is kept,
	 * the rest is not believed */
	if (fdinfo_read(ctx->pid, fd, &fi))
		memset(&fi, 0, sizeof(fi));
	if (link_inode(link, (size_t)n, &kind, &ino) == 0) {
		if (fi.have_ino && fi.ino != ino)
			memset(&fi, 0, sizeof(fi));
		if (kind == FDNAME_PIPE) {
			describe_pipe(ctx, ino, want, &fi, out, peers, npeers);
			return 0;
		}
		if (fdname_net_describe(ctx, ino, out->name, sizeof(out->name),
					peers, peers ? npeers : 0))
			snprintf(out->name, sizeof(out->name),
				 "socket:[%" PRIu64 "]", ino);
		return 0;
	}
	if (link[0] == '/') {
		describe_path(link, (size_t)n, &fi, out);
		return 0;
	}
	/* anon_inode:[eventfd], anon_inode:inotify, ...: as the link says */
	if ((size_t)n >= sizeof(out->name))
		n = sizeof(out->name) - 1;
	memcpy(out->name, link, (size_t)n);
	out->name[n] = '\0';
	return 0;
}

/*
 * One watched descriptor, from the rest of its tfd line [p, le).  An
 * epoll set keeps a registration while the file is open anywhere: the
 * number may have been closed and given to another file since (a dup
 * kept the first open).  The line's "ino:" (hex, fs/eventpoll.c) is the
 * file registered; the descriptor's fdinfo "ino:" (decimal) the file
 * the number holds now.  When they differ the number is not described
 * as the file it now is.
 */
static void epoll_target(struct fdname_ctx *ctx, int tfd, const char *p,
			 const char *le, struct wait_fd *out)
{
	const char *q = p;
	struct fdinfo fi;
	uint64_t ino;

	while (q + 5 <= le && memcmp(q, " ino:", 5))
		q++;
	q += 5;
	if (q <= le && !scan_hex(&q, le, 16, SCAN_LOWER, &ino) &&
	    (q == le || *q == ' ') && fdinfo_read(ctx->pid, tfd, &fi) == 0 &&
	    fi.have_ino && fi.ino != ino) {
		out->fd = tfd;
		snprintf(out->name, sizeof(out->name),
			 "fd %d (not the one registered)", tfd);
		return;
	}
	fdname_describe(ctx, tfd, FDNAME_ANY, out, NULL, 0);
}

size_t fdname_epoll(struct fdname_ctx *ctx, int epfd, struct wait_fd *fds,
		    size_t max, size_t *more)
{
	char path[64], *text;
	const char *t, *end;
	size_t len, n = 0;

	*more = 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)ctx->pid, epfd);
	/* cut past EPOLL_FDINFO_MAX: the count of the rest is a floor */
	if (epfd < 0 ||
	    procfs_read_file_max(path, EPOLL_FDINFO_MAX, &text, &len) < 0)
		return 0;
	/* "tfd:        5 events:       19 data: ...", one a watched fd
	 * (fs/eventpoll.c ep_show_fdinfo()) */
	for (t = text, end = text + len; t < end;) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		const char *le = nl ? nl : end, *p = t + 4;
		uint64_t tfd;

		if (le - t > 4 && !memcmp(t, "tfd:", 4)) {
			while (p < le && *p == ' ')
				p++;
			if (!scan_dec(&p, le, INT32_MAX, &tfd) &&
			    (p == le || *p == ' ')) {
				if (n < max)
					epoll_target(ctx, (int)tfd, p, le,
						     &fds[n++]);
				else
					++*more;
			}
		}
		t = le + 1;
	}
	free(text);
	return n;
}
