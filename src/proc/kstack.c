/*
 * kstack.c - a blocked thread's kernel stack from /proc/PID/task/TID/stack
 * (kstack.h): a bounded read, twice, and a strict parser of its lines.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/kstack.h"
#include "util/scan.h"

/*
 * The frames every system call enters the kernel through, outermost
 * last: x86-64's entry and dispatch (x64_sys_call since 6.9, inlined on
 * some builds), and the 32-bit entries of a compat task.  Dropped only
 * from the bottom of the list, where they always are.
 */
static const char *const entry_frames[] = {
	"entry_SYSCALL_64_after_hwframe",
	"entry_SYSCALL_64",
	"do_syscall_64",
	"x64_sys_call",
	"entry_SYSCALL_compat_after_hwframe",
	"entry_SYSENTER_compat_after_hwframe",
	"entry_INT80_compat",
	"do_fast_syscall_32",
	"__do_fast_syscall_32",
	"do_SYSENTER_32",
	"do_int80_syscall_32",
	"ia32_sys_call",
};

static bool is_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

static bool is_hex_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_module_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The literal s at *p (moved past it), or false. */
static bool expect(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/* A run of at least one byte that ok() accepts; its length, or 0. */
static size_t span(const char **p, const char *end, bool (*ok)(unsigned char))
{
	const char *s = *p;

	while (*p < end && ok((unsigned char)**p))
		(*p)++;
	return (size_t)(*p - s);
}

/*
 * " [MODULE]" or " [MODULE BUILDID]" (%pB of a module's function, the
 * build ID with CONFIG_STACKTRACE_BUILD_ID): the module's name into
 * *mod and *modlen; nothing there: *modlen 0.  false when something
 * else is there.
 */
static bool parse_module(const char **p, const char *end, const char **mod,
			 size_t *modlen)
{
	*modlen = 0;
	if (*p == end)
		return true;
	if (!expect(p, end, " ["))
		return false;
	*mod = *p;
	*modlen = span(p, end, is_module_char);
	if (!*modlen || *modlen >= KSTACK_NAME_MAX)
		return false;
	/* a build ID: 20 bytes of SHA-1 (or up to 32), lowercase hex */
	if (expect(p, end, " ")) {
		size_t digits = span(p, end, is_hex_char);

		if (!digits || digits > 64)
			return false;
	}
	return expect(p, end, "]") && *p == end;
}

/* One line [p, end), its '\n' not included, into frame: 0, or -1. */
static int parse_line(const char *p, const char *end, char *frame)
{
	const char *name, *off, *mod = NULL;
	size_t namelen, offlen, modlen;
	uint64_t v;
	int n;

	if (!expect(&p, end, "[<") || scan_hex(&p, end, 16, SCAN_LOWER, &v) ||
	    !expect(&p, end, ">] "))
		return -1;
	name = p;
	namelen = span(&p, end, is_name_char);
	/* too long to fit: no need to read on (nor to cast it to int) */
	if (!namelen || namelen >= KSTACK_NAME_MAX || !expect(&p, end, "+0x"))
		return -1;
	off = p;
	if (scan_hex(&p, end, 16, SCAN_LOWER, &v))
		return -1;
	offlen = (size_t)(p - off);
	if (!expect(&p, end, "/0x") || scan_hex(&p, end, 16, SCAN_LOWER, &v))
		return -1;
	if (!parse_module(&p, end, &mod, &modlen))
		return -1;
	if (modlen)
		n = snprintf(frame, KSTACK_NAME_MAX, "%.*s+0x%.*s [%.*s]",
			     (int)namelen, name, (int)offlen, off, (int)modlen,
			     mod);
	else
		n = snprintf(frame, KSTACK_NAME_MAX, "%.*s+0x%.*s",
			     (int)namelen, name, (int)offlen, off);
	return n > 0 && n < KSTACK_NAME_MAX ? 0 : -1;
}

static bool is_entry_frame(const char *frame)
{
	for (size_t i = 0; i < sizeof(entry_frames) / sizeof(entry_frames[0]);
	     i++) {
		size_t n = strlen(entry_frames[i]);

		if (!strncmp(frame, entry_frames[i], n) && frame[n] == '+')
			return true;
	}
	return false;
}

int kstack_parse(const char *text, size_t len, struct kstack *out)
{
	const char *p = text, *end = text + len;
	int dropped = 0;

	out->n = 0;
	while (p < end && out->n < KSTACK_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		/* The kernel ends every line with '\n': a line without
		 * one is a read cut short, its frame perhaps cut too. */
		if (!nl || parse_line(p, nl, out->frames[out->n]))
			dropped++;
		else
			out->n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	while (out->n && is_entry_frame(out->frames[out->n - 1]))
		out->n--;
	return dropped;
}

/* The whole file from offset 0, at most size - 1 bytes, NUL-terminated:
 * its length, or -1 with errno. */
static ssize_t read_text(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		ssize_t r = pread(fd, buf + n, size - 1 - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

static int open_stack(pid_t pid, pid_t tid)
{
	char path[64];

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid,
			 (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/self/stack");
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* A read of the file: its frames into out.  ESRCH (the task went away
 * between the open and the read) is said as ENOENT, as a TID already
 * gone at the open is. */
static int read_once(int fd, char *buf, struct kstack *out)
{
	ssize_t len = read_text(fd, buf, KSTACK_TEXT_MAX);

	if (len < 0) {
		if (errno == ESRCH)
			errno = ENOENT;
		return -1;
	}
	kstack_parse(buf, (size_t)len, out);
	return 0;
}

static bool same(const struct kstack *a, const struct kstack *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->frames[i], b->frames[i]))
			return false;
	return true;
}

int kstack_read(pid_t pid, pid_t tid, struct kstack *out)
{
	char buf[KSTACK_TEXT_MAX];
	struct kstack again;
	int fd, rc = -1, saved;

	out->n = 0;
	if (pid <= 0 || tid <= 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open_stack(pid, tid);
	if (fd < 0)
		return -1;
	/* A seq file: each pread() at offset 0 makes the kernel walk the
	 * stack anew, so one descriptor gives both readings. */
	if (!read_once(fd, buf, out) && !read_once(fd, buf, &again)) {
		rc = 0;
		if (!same(out, &again)) {
			out->n = 0;
			errno = EAGAIN;
			rc = -1;
		}
	}
	saved = errno;
	close(fd);
	errno = saved;
	if (rc)
		out->n = 0;
	return rc;
}

int kstack_available(pid_t pid)
{
	char buf[KSTACK_TEXT_MAX];
	int fd, saved;
	ssize_t len;

	if (pid < 0) {
		errno = EINVAL;
		return -1;
	}
	/* The permission is checked at the read, not at the open (the
	 * owner may open the file): a read tells. */
	fd = open_stack(pid, pid);
	if (fd < 0)
		return -1;
	len = read_text(fd, buf, sizeof(buf));
	saved = errno;
	close(fd);
	if (len < 0) {
		errno = saved == ESRCH ? ENOENT : saved;
		return -1;
	}
	return 0;
}
