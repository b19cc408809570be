/*
 * thread_report.c - samples by thread, or by process (see
 * thread_report.h).  Both tables are rows of an ID (TID or PID) and a
 * name, merged the same way.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/thread_report.h"
#include "util/textsafe.h"

struct trow {
	int64_t tid;	  /* or PID */
	const char *name; /* never NULL */
	uint64_t count;	  /* all samples of the thread */
	uint64_t best;	  /* samples under this name */
};

static int cmp_tid_name(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_count(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Merge rows of the same (tid, name), then of the same tid. */
static size_t merge(struct trow *r, size_t n)
{
	size_t k = 0;

	qsort(r, n, sizeof(*r), cmp_tid_name);
	for (size_t i = 0; i < n; i++) {
		if (k && r[k - 1].tid == r[i].tid &&
		    !strcmp(r[k - 1].name, r[i].name)) {
			r[k - 1].best += r[i].best;
			r[k - 1].count += r[i].count;
		} else {
			r[k++] = r[i];
		}
	}
	n = k;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && r[k - 1].tid == r[i].tid) {
			r[k - 1].count += r[i].count;
			if (r[i].best > r[k - 1].best) {
				r[k - 1].best = r[i].best;
				r[k - 1].name = r[i].name;
			}
		} else {
			r[k++] = r[i];
		}
	}
	return k;
}

static int write_rows(const struct trow *r, size_t n, uint64_t total,
		      const char *id, FILE *out)
{
	fprintf(out, "Total: %" PRIu64 " samples\n", total);
	fprintf(out, "%10s %7s %10s  %s\n", "samples", "%", id, "name");
	for (size_t i = 0; i < n; i++) {
		char tid[24] = "-";

		if (r[i].tid)
			snprintf(tid, sizeof(tid), "%" PRId64, r[i].tid);
		fprintf(out, "%10" PRIu64 " %6.2f%% %10s%s", r[i].count,
			total ? 100.0 * (double)r[i].count / (double)total :
				0.0,
			tid, r[i].name[0] ? "  " : "");
		/* A thread or process names itself: shown, never acted on. */
		textsafe_fputs(out, r[i].name, NULL);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

/* The table by thread (by_pid false) or by process. */
static int write_table(const struct profile *p, bool by_pid, FILE *out)
{
	struct trow *r = calloc(p->nrecords ? p->nrecords : 1, sizeof(*r));
	size_t n;
	int rc;

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct profile_record *rec = &p->records[i];
		const char *name = by_pid ? rec->process : rec->thread;

		r[i].tid = by_pid ? rec->pid : rec->tid;
		r[i].name = name ? name : "";
		r[i].count = r[i].best = rec->count;
	}
	n = merge(r, p->nrecords);
	qsort(r, n, sizeof(*r), cmp_count);
	rc = write_rows(r, n, p->total_samples, by_pid ? "pid" : "tid", out);
	free(r);
	return rc;
}

int thread_report_write(const struct profile *p, FILE *out)
{
	return write_table(p, false, out);
}

int thread_report_write_processes(const struct profile *p, FILE *out)
{
	return write_table(p, true, out);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool matches(const struct profile_record *rec, const char *sel,
		    bool numeric, bool by_pid)
{
	int64_t id = by_pid ? rec->pid : rec->tid;
	const char *name = by_pid ? rec->process : rec->thread;

	if (numeric && id == strtoll(sel, NULL, 10))
		return true;
	return name && !strcmp(name, sel);
}

static size_t keep(struct profile *p, const char *sel, bool by_pid)
{
	bool numeric = all_digits(sel);
	size_t k = 0;

	p->total_samples = 0;
	for (size_t i = 0; i < p->nrecords; i++) {
		if (!matches(&p->records[i], sel, numeric, by_pid))
			continue;
		p->records[k++] = p->records[i];
		p->total_samples += p->records[i].count;
	}
	p->nrecords = k;
	return k;
}

size_t thread_report_keep(struct profile *p, const char *sel)
{
	return keep(p, sel, false);
}

size_t thread_report_keep_process(struct profile *p, const char *sel)
{
	return keep(p, sel, true);
}
