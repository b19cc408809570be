/*
 * perfmap.c - names for JIT code from /tmp/perf-PID.map (see perfmap.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "proc/rootopen.h"
#include "symbols/perfmap.h"
#include "util/errbuf.h"
#include "util/grow.h"
#include "util/safeopen.h"
#include "util/scan.h"

/* A line as parsed: its range, its name in names[], its line number. */
struct raw {
	uint64_t start, end;
	size_t name;
	size_t seq;
};

/* A range of the flattened table: the name of the line written last. */
struct range {
	uint64_t start, end;
	size_t name;
};

struct perfmap {
	struct range *ranges; /* disjoint, sorted */
	size_t nranges;
	char *names; /* NUL-terminated names, one after another */
	size_t count, malformed;
};

/* ---- parsing ---- */

/* A hex number of 1 to 16 digits, "0x" or not, at *p (before end),
 * ending at a blank; *p moved past the blank.  0, or -1. */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (scan_hex(&s, end, 16, 0, v) || s == end || *s != ' ')
		return -1;
	*p = s + 1;
	return 0;
}

struct parser {
	struct raw *raws;
	size_t nraws, capraws;
	char *names;
	size_t nnames;
	size_t malformed;
};

/* One line (no newline): kept, or counted as malformed. */
static int parse_line(struct parser *ps, const char *s, const char *end)
{
	uint64_t start, size;
	size_t len;
	struct raw *r;

	if (parse_hex(&s, end, &start) || parse_hex(&s, end, &size) ||
	    s == end || size == 0 || start + size < start ||
	    memchr(s, '\0', (size_t)(end - s))) {
		ps->malformed++;
		return 0;
	}
	r = grow_array(ps->raws, &ps->capraws, ps->nraws + 1, sizeof(*r));
	if (!r)
		return -1;
	ps->raws = r;
	len = (size_t)(end - s);
	if (len > PERFMAP_MAX_NAME)
		len = PERFMAP_MAX_NAME;
	memcpy(ps->names + ps->nnames, s, len);
	ps->names[ps->nnames + len] = '\0';
	r[ps->nraws] = (struct raw){ start, start + size, ps->nnames,
				     ps->nraws };
	ps->nnames += len + 1;
	ps->nraws++;
	return 0;
}

static int cmp_raw(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- flattening: a max-heap of the lines covering the sweep point, by
 * line number ---- */

static void heap_push(const struct raw **h, size_t *n, const struct raw *r)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2]->seq < r->seq) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = r;
}

static void heap_pop(const struct raw **h, size_t *n)
{
	const struct raw *last = h[--*n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1]->seq > h[c]->seq)
			c++;
		if (h[c]->seq <= last->seq)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static void emit(struct perfmap *m, uint64_t start, uint64_t end, size_t name)
{
	struct range *prev = m->nranges ? &m->ranges[m->nranges - 1] : NULL;

	if (prev && prev->end == start && prev->name == name)
		prev->end = end;
	else
		m->ranges[m->nranges++] = (struct range){ start, end, name };
}

/*
 * Between two consecutive boundaries (starts and ends of lines) the
 * lines covering the range do not change: the one written last names
 * it.  The sweep keeps the lines begun so far in the heap, dropping
 * from its top those that ended.
 */
static int flatten(struct perfmap *m, struct raw *raws, size_t n)
{
	uint64_t *pts;
	const struct raw **heap;
	size_t npts = 0, k, nheap = 0, next = 0;

	if (!n)
		return 0; /* no line: no table (and raws NULL) */
	pts = malloc(2 * n * sizeof(*pts));
	heap = malloc(n * sizeof(*heap));
	m->ranges = malloc(2 * n * sizeof(*m->ranges));
	if (!pts || !heap || !m->ranges) {
		free(pts);
		free(heap);
		return -1;
	}
	qsort(raws, n, sizeof(*raws), cmp_raw);
	for (k = 0; k < n; k++) {
		pts[npts++] = raws[k].start;
		pts[npts++] = raws[k].end;
	}
	qsort(pts, npts, sizeof(*pts), cmp_u64);
	for (k = 0; k + 1 < npts; k++) {
		if (pts[k] == pts[k + 1])
			continue;
		while (next < n && raws[next].start <= pts[k])
			heap_push(heap, &nheap, &raws[next++]);
		while (nheap && heap[0]->end <= pts[k])
			heap_pop(heap, &nheap);
		if (nheap)
			emit(m, pts[k], pts[k + 1], heap[0]->name);
	}
	free(pts);
	free(heap);
	return 0;
}

struct perfmap *perfmap_parse(const char *text, size_t len)
{
	struct perfmap *m = calloc(1, sizeof(*m));
	struct parser ps = { 0 };
	const char *p = text, *end = text + len, *nl;
	size_t lines = 0;

	if (!m)
		return NULL;
	/* names take at most the text's bytes (a NUL for each newline) */
	ps.names = malloc(len + 1);
	if (!ps.names)
		goto fail;
	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p)));
	     p = nl + 1) {
		if (++lines > PERFMAP_MAX_LINES) {
			ps.malformed++;
			continue;
		}
		if (parse_line(&ps, p, nl))
			goto fail;
	}
	m->names = ps.names;
	m->count = ps.nraws;
	m->malformed = ps.malformed;
	if (flatten(m, ps.raws, ps.nraws))
		goto fail;
	free(ps.raws);
	return m;
fail:
	free(ps.raws);
	if (m->names != ps.names)
		free(ps.names);
	perfmap_free(m);
	errno = ENOMEM;
	return NULL;
}

void perfmap_free(struct perfmap *m)
{
	if (!m)
		return;
	free(m->ranges);
	free(m->names);
	free(m);
}

size_t perfmap_count(const struct perfmap *m)
{
	return m ? m->count : 0;
}

size_t perfmap_malformed(const struct perfmap *m)
{
	return m ? m->malformed : 0;
}

const char *perfmap_lookup(const struct perfmap *m, uint64_t addr,
			   uint64_t *off)
{
	size_t lo = 0, hi = m ? m->nranges : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct range *r = &m->ranges[mid];

		if (addr < r->start) {
			hi = mid;
		} else if (addr >= r->end) {
			lo = mid + 1;
		} else {
			/* a range is a piece of its line: the offset is from
			 * the piece's start, which is the line's unless a
			 * later line cut it */
			if (off)
				*off = addr - r->start;
			return m->names + r->name;
		}
	}
	return NULL;
}

/* ---- opening ---- */

/* One sentence into err, errno e, NULL (profile.h's way to fail). */
#define REFUSE(e, ...) \
	(errbuf_fail(err, errlen, (e), __VA_ARGS__), (struct perfmap *)NULL)

/* The whole of fd (size bytes by fstat) into our memory. */
static char *read_all(int fd, size_t size, size_t *len)
{
	char *buf = malloc(size + 1);
	size_t n = 0;
	ssize_t r;

	if (!buf)
		return NULL;
	/* It may grow while we read: what fstat saw is read, no more. */
	while (n < size) {
		r = pread(fd, buf + n, size - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break; /* truncated meanwhile */
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

/*
 * Check what fd is (st: its fstat; path: for the sentence), then read
 * and parse it.  fd is a regular file opened for reading by
 * safeopen_read(), which checked that on its O_PATH descriptor before
 * the open: opening a regular file runs no driver and reads nothing, so
 * the owner and mode are checked here, before a byte is read.
 */
static struct perfmap *load_fd(int fd, const struct stat *st, const char *path,
			       uid_t owner, char *err, size_t errlen)
{
	struct perfmap *m;
	size_t len;
	char *text;
	int e;

	/* The target's uid only, root not as such (perf's own rule lets
	 * root's files in): a root-owned map of a process that is not
	 * root's is no file that process wrote (rootopen.h) */
	if (owner != PERFMAP_ANY_OWNER && st->st_uid != owner)
		return REFUSE(EPERM,
			      "%s is owned by uid %u, not the process's (%u): "
			      "ignored",
			      path, (unsigned)st->st_uid, (unsigned)owner);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return REFUSE(EPERM,
			      "%s is writable by others (mode %04o): ignored",
			      path, (unsigned)(st->st_mode & 07777));
	if (st->st_size < 0 || (uint64_t)st->st_size > PERFMAP_MAX_BYTES)
		return REFUSE(EFBIG,
			      "%s is %lld bytes, more than the %u MiB a perf "
			      "map is read up to: ignored",
			      path, (long long)st->st_size,
			      PERFMAP_MAX_BYTES >> 20);
	text = read_all(fd, (size_t)st->st_size, &len);
	e = errno;
	if (!text)
		return REFUSE(e, "cannot read %s: %s", path, strerror(e));
	m = perfmap_parse(text, len);
	free(text);
	if (!m)
		return REFUSE(ENOMEM, "%s: out of memory", path);
	if (!m->count && m->malformed) {
		perfmap_free(m);
		return REFUSE(EINVAL,
			      "%s has no line of the form \"START SIZE "
			      "name\": ignored",
			      path);
	}
	return m;
}

/* fd (path: for the sentence) as safeopen_read() or rootopen_read()
 * gave it, or -1 with errno: loaded and closed. */
static struct perfmap *load_opened(int fd, const struct stat *st,
				   const char *path, uid_t owner, char *err,
				   size_t errlen)
{
	struct perfmap *m;

	if (fd < 0 && errno == ELOOP)
		return REFUSE(ELOOP,
			      "%s is or goes through a symbolic link: "
			      "ignored",
			      path);
	if (fd < 0 && errno == EINVAL)
		return REFUSE(EINVAL, "%s is not a regular file: ignored",
			      path);
	if (fd < 0 && (errno == EACCES || errno == ETIMEDOUT) &&
	    owner != PERFMAP_ANY_OWNER)
		return REFUSE(errno,
			      "cannot open %s as the process's uid %u: %s: "
			      "ignored",
			      path, (unsigned)owner, strerror(errno));
	if (fd < 0)
		return REFUSE(errno, "cannot open %s: %s", path,
			      strerror(errno));
	m = load_fd(fd, st, path, owner, err, errlen);
	close(fd);
	return m;
}

/*
 * Open "tmp/perf-NSPID.map" under root (a directory path: pid's root, or
 * "/" with pid 0) and load it: no symbolic link followed, and where pid is
 * in another mount namespace, opened with its credentials, owner:group
 * (rootopen.h).
 */
static struct perfmap *load_under(const char *root, pid_t pid, pid_t nspid,
				  uid_t owner, gid_t group, char *err,
				  size_t errlen)
{
	char rel[64], path[PATH_MAX];
	struct stat st;
	int rootfd, fd;

	snprintf(rel, sizeof(rel), "tmp/perf-%d.map", (int)nspid);
	snprintf(path, sizeof(path), "%s/%s", strcmp(root, "/") ? root : "",
		 rel);
	/* O_PATH: the root directory, for the walk under it */
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return REFUSE(errno, "cannot open %s: %s", root,
			      strerror(errno));
	fd = rootopen_read(pid, rootfd, rel, owner, group, &st);
	close(rootfd);
	return load_opened(fd, &st, path, owner, err, errlen);
}

/* The effective uid and gid (Uid and Gid lines, 2nd field) and the PID
 * in its own namespace (NSpid line, last field; no line: the kernel
 * predates 4.1, no namespaces to mind) of pid. */
static int read_status(pid_t pid, uid_t *euid, gid_t *egid, pid_t *nspid)
{
	struct procfs_status st;

	if (procfs_status_read(pid, 0, &st))
		return -1;
	if (!(st.have & PROCFS_HAVE_UID) || !(st.have & PROCFS_HAVE_GID)) {
		errno = EINVAL;
		return -1;
	}
	*euid = st.euid;
	*egid = st.egid;
	*nspid = st.have & PROCFS_HAVE_NSPID ? st.nspid : pid;
	return 0;
}

struct perfmap *perfmap_load_pid(pid_t pid, char *err, size_t errlen)
{
	char root[64];
	uid_t euid;
	gid_t egid;
	pid_t nspid;

	if (read_status(pid, &euid, &egid, &nspid))
		return REFUSE(errno, "cannot read /proc/%d/status: %s",
			      (int)pid, strerror(errno));
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return load_under(root, pid, nspid, euid, egid, err, errlen);
}

struct perfmap *perfmap_load_gone(pid_t pid, uid_t owner, char *err,
				  size_t errlen)
{
	/* our own root: opened as we are (pid 0) */
	return load_under("/", 0, pid, owner, getegid(), err, errlen);
}

struct perfmap *perfmap_load_file(const char *path, uid_t owner, char *err,
				  size_t errlen)
{
	struct stat st;
	int fd = safeopen_read(AT_FDCWD, path, SAFEOPEN_NOFOLLOW, 0, &st);

	return load_opened(fd, &st, path, owner, err, errlen);
}
