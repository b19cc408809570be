/*
 * thread_report.c - samples by thread (see thread_report.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"
#include "thread_report.h"

struct trow {
	int64_t tid;
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

static int write_rows(const struct trow *r, size_t n, uint64_t total, FILE *out)
{
	fprintf(out, "Total: %" PRIu64 " samples\n", total);
	fprintf(out, "%10s %7s %10s  %s\n", "samples", "%", "tid", "name");
	for (size_t i = 0; i < n; i++) {
		char tid[24] = "-";

		if (r[i].tid)
			snprintf(tid, sizeof(tid), "%" PRId64, r[i].tid);
		fprintf(out, "%10" PRIu64 " %6.2f%% %10s%s", r[i].count,
			total ? 100.0 * (double)r[i].count / (double)total :
				0.0,
			tid, r[i].name[0] ? "  " : "");
		/* A thread names itself: shown, never acted on. */
		textsafe_fputs(out, r[i].name, NULL);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

int thread_report_write(const struct profile *p, FILE *out)
{
	struct trow *r = calloc(p->nrecords ? p->nrecords : 1, sizeof(*r));
	size_t n;
	int rc;

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nrecords; i++) {
		r[i].tid = p->records[i].tid;
		r[i].name = p->records[i].thread ? p->records[i].thread : "";
		r[i].count = r[i].best = p->records[i].count;
	}
	n = merge(r, p->nrecords);
	qsort(r, n, sizeof(*r), cmp_count);
	rc = write_rows(r, n, p->total_samples, out);
	free(r);
	return rc;
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
		    bool numeric)
{
	if (numeric && rec->tid == strtoll(sel, NULL, 10))
		return true;
	return rec->thread && !strcmp(rec->thread, sel);
}

size_t thread_report_keep(struct profile *p, const char *sel)
{
	bool numeric = all_digits(sel);
	size_t k = 0;

	p->total_samples = 0;
	for (size_t i = 0; i < p->nrecords; i++) {
		if (!matches(&p->records[i], sel, numeric))
			continue;
		p->records[k++] = p->records[i];
		p->total_samples += p->records[i].count;
	}
	p->nrecords = k;
	return k;
}
