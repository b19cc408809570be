/*
 * procfs_status.c - the one parser of /proc/PID/status (see procfs.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procfs.h"
#include "util/scan.h"

/* Blanks at *p skipped. */
static const char *blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* The whole number at s (after blanks) up to INT_MAX into *v; 0, or -1. */
static int number(const char *s, const char *end, int *v)
{
	uint64_t u;

	s = blanks(s, end);
	if (scan_dec(&s, end, INT_MAX, &u))
		return -1;
	*v = (int)u;
	return 0;
}

/* "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS": the first two; "Gid:" the same. */
static int ids(const char *s, const char *end, unsigned *real, unsigned *eff)
{
	uint64_t r, e;

	s = blanks(s, end);
	if (scan_dec(&s, end, UINT_MAX, &r))
		return -1;
	s = blanks(s, end);
	if (scan_dec(&s, end, UINT_MAX, &e))
		return -1;
	*real = (unsigned)r;
	*eff = (unsigned)e;
	return 0;
}

/* "NSpid:\tPID\tPID...": the last, the PID in the innermost namespace. */
static int last_pid(const char *s, const char *end, int *v)
{
	uint64_t u;
	int got = -1;

	for (s = blanks(s, end); s < end; s = blanks(s, end)) {
		if (scan_dec(&s, end, INT_MAX, &u))
			break;
		*v = (int)u;
		got = u > 0 ? 0 : -1;
	}
	return got;
}

/* "CapEff:\t000001ffffffffff". */
static int hex(const char *s, const char *end, uint64_t *v)
{
	s = blanks(s, end);
	return scan_hex(&s, end, 16, 0, v);
}

/* How a line's value reads. */
enum kind { NUMBER, UIDS, GIDS, LAST_PID, HEX };

/* The lines read: key, bit in have, how, where in struct procfs_status. */
static const struct {
	const char *key;
	unsigned bit;
	enum kind kind;
	size_t off;
} keys[] = {
	{ "Tgid:", PROCFS_HAVE_TGID, NUMBER,
	  offsetof(struct procfs_status, tgid) },
	{ "PPid:", PROCFS_HAVE_PPID, NUMBER,
	  offsetof(struct procfs_status, ppid) },
	{ "TracerPid:", PROCFS_HAVE_TRACER, NUMBER,
	  offsetof(struct procfs_status, tracer_pid) },
	{ "Uid:", PROCFS_HAVE_UID, UIDS, 0 },
	{ "Gid:", PROCFS_HAVE_GID, GIDS, 0 },
	{ "NSpid:", PROCFS_HAVE_NSPID, LAST_PID,
	  offsetof(struct procfs_status, nspid) },
	{ "CapEff:", PROCFS_HAVE_CAPEFF, HEX,
	  offsetof(struct procfs_status, cap_eff) },
	{ "Seccomp:", PROCFS_HAVE_SECCOMP, NUMBER,
	  offsetof(struct procfs_status, seccomp) },
	{ "Seccomp_filters:", PROCFS_HAVE_SECCOMP_FILTERS, NUMBER,
	  offsetof(struct procfs_status, seccomp_filters) },
};

/* One "Key:value" line (no newline) into st. */
static void status_line(const char *s, const char *end,
			struct procfs_status *st)
{
	const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
	void *field;
	size_t i, n = 0;
	int rc = -1;

	for (i = 0; i < nkeys; i++) {
		n = strlen(keys[i].key);
		if ((size_t)(end - s) >= n && !memcmp(s, keys[i].key, n))
			break;
	}
	if (i == nkeys || (st->have & keys[i].bit))
		return; /* another line, or the same key again: the first */
	s += n;
	field = (char *)st + keys[i].off;
	switch (keys[i].kind) {
	case NUMBER:
		rc = number(s, end, field);
		break;
	case UIDS:
		rc = ids(s, end, &st->uid, &st->euid);
		break;
	case GIDS:
		rc = ids(s, end, &st->gid, &st->egid);
		break;
	case LAST_PID:
		rc = last_pid(s, end, field);
		break;
	case HEX:
		rc = hex(s, end, field);
		break;
	}
	if (rc == 0)
		st->have |= keys[i].bit;
}

void procfs_status_parse(const char *text, size_t len, struct procfs_status *st)
{
	const char *end = text + len;

	memset(st, 0, sizeof(*st));
	for (const char *s = text; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;

		status_line(s, eol, st);
		s = eol + 1;
	}
}

int procfs_status_read(pid_t pid, pid_t tid, struct procfs_status *st)
{
	char path[96], text[4096], *buf;
	size_t len;
	ssize_t n;

	if (pid && tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
			 (int)pid, (int)tid);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	/* About 1.5 KB (the CPU masks grow with the machine: a longer
	 * one is read whole all the same) */
	n = procfs_read_small(path, text, sizeof(text));
	if (n >= 0) {
		procfs_status_parse(text, (size_t)n, st);
		return 0;
	}
	if (errno != EFBIG || procfs_read_file(path, &buf, &len))
		return -1;
	procfs_status_parse(buf, len, st);
	free(buf);
	return 0;
}
