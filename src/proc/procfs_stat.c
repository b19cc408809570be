/*
 * procfs_stat.c - the one parser of /proc/PID/stat (see procfs.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procfs.h"
#include "util/scan.h"

/* The last field parsed: startstack. */
#define LAST_FIELD 28

int procfs_stat_parse(const char *text, size_t len, struct procfs_stat *st)
{
	const char *end = text + len, *open, *p, *s;
	uint64_t f[LAST_FIELD + 1] = { 0 };
	size_t n;
	int i;

	memset(st, 0, sizeof(*st));
	/* comm may hold spaces and parentheses: it runs from the first '('
	 * to the last ')', and the state follows that. */
	open = memchr(text, '(', len);
	p = memrchr(text, ')', len);
	if (!open || !p || p < open || end - p < 3 || p[1] != ' ' || !p[2]) {
		errno = EINVAL;
		return -1;
	}
	n = (size_t)(p - open - 1);
	if (n >= sizeof(st->comm))
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = '\0';
	st->state = (unsigned char)p[2];
	st->fields = 3;
	for (s = p + 3, i = 4; i <= LAST_FIELD; i++) {
		bool neg;

		if (s >= end || *s != ' ')
			break;
		s++;
		neg = s < end && *s == '-';
		if (neg)
			s++;
		if (scan_dec(&s, end, UINT64_MAX, &f[i]))
			break;
		if (neg)
			f[i] = -f[i];
		st->fields = i;
	}
	st->ppid = (int)f[4];
	st->flags = (unsigned long)f[9];
	st->utime = f[14];
	st->stime = f[15];
	st->cutime = f[16];
	st->cstime = f[17];
	st->num_threads = (long)f[20];
	st->starttime = f[22];
	st->startcode = f[26];
	st->endcode = f[27];
	st->startstack = f[28];
	return 0;
}

int procfs_stat_read(pid_t pid, pid_t tid, struct procfs_stat *st)
{
	char path[96], text[2048], *buf;
	size_t len;
	ssize_t n;
	int rc;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
			 (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	/* 52 fields of 20 digits at most and a name: it fits (a longer
	 * one, whatever a kernel prints, is read whole all the same) */
	n = procfs_read_small(path, text, sizeof(text));
	if (n >= 0)
		return procfs_stat_parse(text, (size_t)n, st);
	if (errno != EFBIG || procfs_read_file(path, &buf, &len))
		return -1;
	rc = procfs_stat_parse(buf, len, st);
	free(buf);
	return rc;
}
