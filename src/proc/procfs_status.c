/*
 * procfs_status.c - the one parser of /proc/PID/status (see procfs.h).
 */
#include "config.h"

#include <limits.h>
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

/* "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS": the first two. */
static int uids(const char *s, const char *end, struct procfs_status *st)
{
	uint64_t r, e;

	s = blanks(s, end);
	if (scan_dec(&s, end, UINT_MAX, &r))
		return -1;
	s = blanks(s, end);
	if (scan_dec(&s, end, UINT_MAX, &e))
		return -1;
	st->uid = (uid_t)r;
	st->euid = (uid_t)e;
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

/* One "Key:value" line (no newline) into st. */
static void status_line(const char *s, const char *end,
			struct procfs_status *st)
{
	static const struct {
		const char *key;
		unsigned bit;
	} keys[] = {
		{ "Tgid:", PROCFS_HAVE_TGID },
		{ "PPid:", PROCFS_HAVE_PPID },
		{ "TracerPid:", PROCFS_HAVE_TRACER },
		{ "Uid:", PROCFS_HAVE_UID },
		{ "NSpid:", PROCFS_HAVE_NSPID },
		{ "CapEff:", PROCFS_HAVE_CAPEFF },
		{ "Seccomp:", PROCFS_HAVE_SECCOMP },
		{ "Seccomp_filters:", PROCFS_HAVE_SECCOMP_FILTERS },
	};
	size_t i, n;
	int rc = -1;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i].key);
		if ((size_t)(end - s) >= n && !memcmp(s, keys[i].key, n))
			break;
	}
	if (i == sizeof(keys) / sizeof(keys[0]) || (st->have & keys[i].bit))
		return; /* another line, or the same key again: the first */
	s += n;
	switch (keys[i].bit) {
	case PROCFS_HAVE_TGID:
		rc = number(s, end, &st->tgid);
		break;
	case PROCFS_HAVE_PPID:
		rc = number(s, end, &st->ppid);
		break;
	case PROCFS_HAVE_TRACER:
		rc = number(s, end, &st->tracer_pid);
		break;
	case PROCFS_HAVE_UID:
		rc = uids(s, end, st);
		break;
	case PROCFS_HAVE_NSPID:
		rc = last_pid(s, end, &st->nspid);
		break;
	case PROCFS_HAVE_CAPEFF:
		rc = hex(s, end, &st->cap_eff);
		break;
	case PROCFS_HAVE_SECCOMP:
		rc = number(s, end, &st->seccomp);
		break;
	case PROCFS_HAVE_SECCOMP_FILTERS:
		rc = number(s, end, &st->seccomp_filters);
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
	char path[96], *buf;
	size_t len;

	if (pid && tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status",
			 (int)pid, (int)tid);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	if (procfs_read_file(path, &buf, &len))
		return -1;
	procfs_status_parse(buf, len, st);
	free(buf);
	return 0;
}
