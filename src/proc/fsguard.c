/*
 * fsguard.c - files on filesystems that may never answer: judged by
 * device, opened by a helper process with a deadline (see fsguard.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/fsguard.h"
#include "proc/mapfile.h"
#include "proc/procfs.h"
#include "util/grow.h"
#include "util/scan.h"
#include "util/timeutil.h"

/* What is known of one device. */
struct verdict {
	uint64_t dev;
	bool blocks;	/* gated: of the blocking kind, or listed nowhere */
	uint64_t at_ns; /* when mountinfo last said so */
	char type[32];
};

static struct verdict *verdicts;
static size_t nverdicts, cap_verdicts;
static struct fsguard_hung *hung;
static size_t nhung, cap_hung;
static bool in_helper; /* this process is a helper: open directly */

/* The types whose server is a process or another machine. */
bool fsguard_type_blocks(const char *t)
{
	static const char *const kinds[] = {
		"fuseblk", "virtiofs", "nfs",  "nfs4", "cifs", "smb3",
		"smbfs",   "9p",       "ceph", "afs",  "coda", "orangefs"
	};

	if (!strcmp(t, "fuse") || !strncmp(t, "fuse.", 5))
		return true;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(t, kinds[i]))
			return true;
	return false;
}

static struct verdict *verdict_of(uint64_t dev)
{
	for (size_t i = 0; i < nverdicts; i++)
		if (verdicts[i].dev == dev)
			return &verdicts[i];
	return NULL;
}

static struct fsguard_hung *hung_of(uint64_t dev)
{
	for (size_t i = 0; i < nhung; i++)
		if (hung[i].dev == dev)
			return &hung[i];
	return NULL;
}

/* dev's verdict, made if new (NULL: no memory). */
static struct verdict *verdict_get(uint64_t dev)
{
	struct verdict *v = verdict_of(dev);

	if (v)
		return v;
	v = grow_array(verdicts, &cap_verdicts, nverdicts + 1, sizeof(*v));
	if (!v)
		return NULL;
	verdicts = v;
	v = &verdicts[nverdicts++];
	*v = (struct verdict){ .dev = dev, .blocks = true };
	snprintf(v->type, sizeof(v->type), "unlisted");
	return v;
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] -
 * TYPE SOURCE SUPER".  The kernel escapes white space in the paths and in
 * a FUSE subtype (\040), so " - " cannot be forged by a mount's name.
 */
static void mountinfo_line(const char *s, const char *end, uint64_t now)
{
	uint64_t maj, min;
	const char *type = NULL;
	struct verdict *v;
	size_t n;

	for (int i = 0; i < 2; i++) { /* past ID and PARENT */
		s = memchr(s, ' ', (size_t)(end - s));
		if (!s++)
			return;
	}
	if (scan_dec(&s, end, UINT32_MAX, &maj) || s == end || *s++ != ':' ||
	    scan_dec(&s, end, UINT32_MAX, &min))
		return;
	for (const char *p = s; p + 3 <= end && !type; p++)
		if (p[0] == ' ' && p[1] == '-' && p[2] == ' ')
			type = p + 3;
	if (!type)
		return;
	n = (size_t)(end - type);
	if (memchr(type, ' ', n))
		n = (size_t)((const char *)memchr(type, ' ', n) - type);
	v = verdict_get(makedev(maj, min));
	if (!v)
		return;
	snprintf(v->type, sizeof(v->type), "%.*s", (int)n, type);
	v->blocks = fsguard_type_blocks(v->type);
	v->at_ns = now;
}

/* Read pid's mountinfo into the verdicts.  A device it does not list is
 * gated (a detached mount, the kernel's internal one). */
static void judge(pid_t pid, uint64_t dev)
{
	char path[48], *buf;
	size_t len;
	uint64_t now = mono_now_ns();
	struct verdict *v;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	if (procfs_read_file(path, &buf, &len) == 0) {
		for (size_t off = 0; off < len;) {
			const char *nl = memchr(buf + off, '\n', len - off);
			size_t l = nl ? (size_t)(nl - (buf + off)) : len - off;

			mountinfo_line(buf + off, buf + off + l, now);
			off += l + 1;
		}
		free(buf);
	}
	v = verdict_get(dev);
	if (v && v->at_ns != now) { /* listed nowhere now */
		v->blocks = true;
		v->at_ns = now;
		snprintf(v->type, sizeof(v->type), "unlisted");
	}
}

bool fsguard_gated(pid_t pid, uint64_t dev)
{
	struct verdict *v;

	if (in_helper || pid <= 0)
		return false;
	if (!dev || hung_of(dev))
		return true;
	v = verdict_of(dev);
	if (v && (v->blocks ||
		  mono_now_ns() - v->at_ns < FSGUARD_TTL_MS * NSEC_PER_MSEC))
		return v->blocks;
	judge(pid, dev);
	v = verdict_of(dev);
	return !v || v->blocks;
}

/* ---- the helper -------------------------------------------------------- */

/* Every descriptor but a and b (a < b) closed: a helper left asleep in a
 * FUSE request holds none of ptprof's files.  Best effort (close_range()
 * is Linux 5.9). */
static void close_others(int a, int b)
{
	if (a > 3)
		syscall(SYS_close_range, 3u, (unsigned)a - 1, 0u);
	if (b > a + 1)
		syscall(SYS_close_range, (unsigned)a + 1, (unsigned)b - 1, 0u);
	syscall(SYS_close_range, (unsigned)b + 1, ~0u, 0u);
}

/* Copy fd into mfd, a 0 byte down the pipe for each MiB: 0 or errno. */
static int copy_into(int fd, int mfd, int wfd)
{
	static char buf[64 * 1024];
	struct stat st;
	uint64_t done = 0;
	ssize_t n;

	if (fstat(fd, &st))
		return errno;
	if ((uint64_t)st.st_size > FSGUARD_MAX_COPY)
		return EFBIG;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (write(mfd, buf, (size_t)n) != n)
			return errno ? errno : EIO;
		done += (uint64_t)n;
		if (done > FSGUARD_MAX_COPY)
			return EFBIG; /* grew while read */
		if ((done & ((1u << 20) - 1)) < (uint64_t)n &&
		    write(wfd, "", 1) < 0)
			return errno;
	}
	return 0;
}

/* The helper process: open, copy, close, then one byte (1 + errno). */
static void helper(const char *root, pid_t pid, const struct mapfile_ref *ref,
		   fsguard_open_fn fn, int mfd, int wfd)
{
	unsigned char word;
	int fd, err;

	in_helper = true;
	/* Named so in ps: one left asleep in a request is ours. */
	prctl(PR_SET_NAME, "ptprof-fsguard");
	close_others(mfd < wfd ? mfd : wfd, mfd < wfd ? wfd : mfd);
	fd = fn(root, pid, ref);
	if (fd < 0) {
		err = errno;
	} else {
		err = copy_into(fd, mfd, wfd);
		close(fd); /* before the word: a close may ask the server */
	}
	if (err && (err < 0 || err > 254))
		err = EIO;
	word = (unsigned char)(1 + err);
	(void)!write(wfd, &word, 1);
	_exit(0);
}

/* The helper's words: 0 or its errno; ETIMEDOUT when it fell silent for
 * FSGUARD_QUIET_MS or took FSGUARD_TOTAL_MS; EIO when it died mute. */
static int listen_to(int rfd)
{
	uint64_t until = mono_now_ns() + FSGUARD_TOTAL_MS * NSEC_PER_MSEC;
	struct pollfd pfd = { .fd = rfd, .events = POLLIN };
	unsigned char buf[64];

	for (;;) {
		int r = poll(&pfd, 1, FSGUARD_QUIET_MS);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || mono_now_ns() > until)
			return ETIMEDOUT;
		n = read(rfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return EIO;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i])
				return buf[i] - 1;
	}
}

/* dev did not answer: refuse everything on it from now on. */
static void mark_hung(const struct mapfile_ref *ref)
{
	struct fsguard_hung *h;
	const struct verdict *v = verdict_of(ref->dev);

	h = grow_array(hung, &cap_hung, nhung + 1, sizeof(*h));
	if (!h)
		return;
	hung = h;
	h = &hung[nhung++];
	memset(h, 0, sizeof(*h));
	h->dev = ref->dev;
	snprintf(h->type, sizeof(h->type), "%s", v ? v->type : "unknown");
	snprintf(h->path, sizeof(h->path), "%s", ref->path);
}

int fsguard_open(const char *root, pid_t pid, const struct mapfile_ref *ref,
		 fsguard_open_fn fn)
{
	struct fsguard_hung *h = ref->dev ? hung_of(ref->dev) : NULL;
	int mfd, pp[2], err;
	pid_t c;

	if (h) {
		h->refused++;
		errno = ETIMEDOUT;
		return -1;
	}
	mfd = memfd_create("ptprof-fsguard", MFD_CLOEXEC);
	if (mfd < 0)
		return -1;
	if (pipe2(pp, O_CLOEXEC)) {
		close(mfd);
		return -1;
	}
	c = fork();
	if (c == 0)
		helper(root, pid, ref, fn, mfd, pp[1]);
	close(pp[1]);
	err = c < 0 ? errno : listen_to(pp[0]);
	close(pp[0]);
	if (c > 0 && err == ETIMEDOUT) {
		/* Not waited for: asleep in a request, it cannot be reaped. */
		kill(c, SIGKILL);
		if (ref->dev)
			mark_hung(ref);
	} else if (c > 0) {
		/* It has closed the file and said its word: its exit is
		 * near (the reaper's waitpid(-1) may have taken it). */
		while (waitpid(c, NULL, __WALL) < 0 && errno == EINTR)
			;
	}
	if (err || lseek(mfd, 0, SEEK_SET) != 0) {
		close(mfd);
		errno = err ? err : EIO;
		return -1;
	}
	return mfd;
}

const struct fsguard_hung *fsguard_hung_get(size_t i)
{
	return i < nhung ? &hung[i] : NULL;
}
