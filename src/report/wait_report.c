/*
 * wait_report.c - wall time by what it waited for (wait_report.h).
 *
 * Each record in a wait becomes a row (kind, holder, "from" frame,
 * count); sorted, equal ones merge, and each run of one (kind, holder)
 * is one line of the table, with its most counted "from" frame.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/wait_report.h"
#include "symbols/framename.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strpool.h"
#include "util/textsafe.h"

/* A record in a wait, then a (kind, holder, from) merged. */
struct wrow {
	const char *kind; /* wait_kind() of its label */
	int64_t holder;
	int64_t from; /* in the pool of frame names */
	uint64_t count;
};

/* A line of the table: a (kind, holder). */
struct wline {
	const char *kind;
	int64_t holder;
	uint64_t count;
	int64_t from;	  /* the "from" frame with most samples, */
	uint64_t best;	  /* ... so many */
	size_t more;	  /* other "from" frames */
	const char *name; /* the holder's thread name, or NULL */
};

bool wait_report_has_waits(const struct profile *p)
{
	for (size_t i = 0; i < p->nrecords; i++)
		if (p->records[i].wait && p->records[i].wait[0])
			return true;
	return false;
}

/* The label as the table shows it: lower-case letters only (the
 * writer's kinds, wait.h), at most 15 of them; "?" for anything else a
 * file gives. */
static const char *wait_kind(const char *s)
{
	size_t n = 0;

	while (s[n] >= 'a' && s[n] <= 'z' && n < 16)
		n++;
	return n && n < 16 && !s[n] ? s : "?";
}

/* The C library's modules: a wait's leaf frames are theirs
 * (__futex_abstimed_wait_common, __lll_lock_wait, read...). */
static bool is_libc(const char *module)
{
	static const char *const prefixes[] = { "libc.so",    "libc-",
						"libpthread", "ld-linux",
						"ld-",	      "[vdso]",
						"linux-vdso" };
	const char *base;

	if (!module)
		return false;
	base = framename_base(module);
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The innermost frame of rec that is not the C library's (its root
 * when all are), named into buf. */
static void from_frame(const struct profile *p, struct symbolizer *sym,
		       const struct profile_record *rec, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	for (size_t i = 0; i < rec->npcs; i++) {
		uint64_t addr = framename_addr(rec->pcs[i], i > 0);
		const char *own = NULL;
		struct framename f;
		bool libc;

		const struct profile_name *pn = profile_name_at(p, rec->space,
								addr);

		/* A kernel frame (--kernel) is where it sleeps, not who
		 * waits: the waiter is below it. */
		if (pn && pn->file && !strcmp(pn->file, REPORT_KERNEL_MODULE) &&
		    i + 1 < rec->npcs)
			continue;
		framename_lookup(&f, sym, addr);
		if (!f.si.func || f.si.fde)
			own = profile_name_of(p, rec->space, addr);
		if (own)
			f.si.func = own;
		libc = is_libc(f.si.module);
		if (!libc || i + 1 == rec->npcs)
			framename_format(&f, addr, NULL, 0, buf, len);
		framename_done(&f);
		if (!libc)
			return;
	}
}

static int cmp_wrow(const void *a, const void *b)
{
	const struct wrow *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);

	if (c)
		return c;
	if (x->holder != y->holder)
		return x->holder < y->holder ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int cmp_wline(const void *a, const void *b)
{
	const struct wline *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(x->kind, y->kind);
	if (c)
		return c;
	return x->holder < y->holder ? -1 : x->holder > y->holder;
}

/* The rows of the records in a wait, merged and sorted; *n of them. */
static struct wrow *collect(const struct profile *p,
			    struct symbolizer *const *syms,
			    struct strpool *frames, size_t *n)
{
	struct wrow *r = calloc(p->nrecords ? p->nrecords : 1, sizeof(*r));
	size_t k = 0;
	char buf[1024];

	if (!r)
		return NULL;
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct profile_record *rec = &p->records[i];

		if (!rec->wait || !rec->wait[0] || !rec->npcs)
			continue;
		from_frame(p, syms[rec->space], rec, buf, sizeof(buf));
		r[k] = (struct wrow){ wait_kind(rec->wait), rec->wait_holder,
				      strpool_intern(frames, buf), rec->count };
		if (r[k].from < 0) {
			free(r);
			errno = ENOMEM;
			return NULL;
		}
		k++;
	}
	qsort(r, k, sizeof(*r), cmp_wrow);
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		if (*n && !cmp_wrow(&r[*n - 1], &r[i]))
			r[*n - 1].count += r[i].count;
		else
			r[(*n)++] = r[i];
	}
	return r;
}

/*
 * The threads' names: for each TID, its named record with most samples.
 * Made in one pass over the records (a hostile profile may have many),
 * looked up by TID; no memory leaves every name unknown.
 */
struct tnames {
	size_t *recs; /* a record index a TID */
	size_t n, cap;
	struct hashtab idx;
};

static void tnames_make(const struct profile *p, struct tnames *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct profile_record *rec = &p->records[i];
		struct hashtab_probe pr;
		size_t j, *g;
		bool found = false;

		if (!rec->thread || !rec->thread[0] || !rec->count)
			continue;
		hashtab_probe_init(&t->idx, hash_mix64((uint64_t)rec->tid),
				   &pr);
		while (!found && hashtab_next(&t->idx, &pr, &j))
			found = p->records[t->recs[j]].tid == rec->tid;
		if (found) {
			if (rec->count > p->records[t->recs[j]].count)
				t->recs[j] = i;
			continue;
		}
		g = grow_array(t->recs, &t->cap, t->n + 1, sizeof(*g));
		if (!g || hashtab_add(&t->idx, hash_mix64((uint64_t)rec->tid),
				      t->n)) {
			free(g ? g : t->recs);
			hashtab_free(&t->idx);
			memset(t, 0, sizeof(*t));
			return;
		}
		t->recs = g;
		t->recs[t->n++] = i;
	}
}

static const char *tnames_get(const struct profile *p, const struct tnames *t,
			      int64_t tid)
{
	struct hashtab_probe pr;
	size_t j;

	hashtab_probe_init(&t->idx, hash_mix64((uint64_t)tid), &pr);
	while (hashtab_next(&t->idx, &pr, &j))
		if (p->records[t->recs[j]].tid == tid)
			return p->records[t->recs[j]].thread;
	return NULL;
}

/* The (kind, holder) lines of the merged rows r[0..n), into l; how many. */
static size_t make_lines(const struct profile *p, const struct wrow *r,
			 size_t n, struct wline *l)
{
	struct tnames names;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!k || strcmp(l[k - 1].kind, r[i].kind) ||
		    l[k - 1].holder != r[i].holder) {
			l[k++] = (struct wline){ .kind = r[i].kind,
						 .holder = r[i].holder,
						 .from = r[i].from,
						 .best = r[i].count };
		} else {
			l[k - 1].more++;
			if (r[i].count > l[k - 1].best) {
				l[k - 1].best = r[i].count;
				l[k - 1].from = r[i].from;
			}
		}
		l[k - 1].count += r[i].count;
	}
	tnames_make(p, &names);
	for (size_t i = 0; i < k; i++)
		if (l[i].holder > 0)
			l[i].name = tnames_get(p, &names, l[i].holder);
	free(names.recs);
	hashtab_free(&names.idx);
	qsort(l, k, sizeof(*l), cmp_wline);
	return k;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* A line's share and time ("%6.1f%%  %9.2f s" or its samples). */
static void put_amount(FILE *out, const struct profile *p, uint64_t count)
{
	fprintf(out, "%6.1f%%  ", pct(count, p->total_samples));
	if (p->period_us)
		fprintf(out, "%9.2f s", (double)count * p->period_us / 1e6);
	else
		fprintf(out, "%9" PRIu64 " ", count);
}

static void put_line(FILE *out, const struct profile *p, const struct wline *l,
		     const struct strpool *frames)
{
	put_amount(out, p, l->count);
	fprintf(out, "  %-7s", l->kind);
	if (l->holder > 0) {
		fprintf(out, "  held by thread %" PRId64, l->holder);
		if (l->name) {
			fputs(" (", out);
			textsafe_fputs(out, l->name, NULL);
			fputc(')', out);
		}
	}
	fputs("  from ", out);
	textsafe_fputs(out, strpool_get(frames, (size_t)l->from), NULL);
	if (l->more)
		fprintf(out, " (and %zu more)", l->more);
	fputc('\n', out);
}

int wait_report_write(const struct profile *p, struct symbolizer *const *syms,
		      FILE *out, size_t top)
{
	struct strpool *frames = strpool_new();
	struct wrow *r = NULL;
	struct wline *l = NULL;
	size_t n = 0, k;
	uint64_t waited = 0;

	if (frames)
		r = collect(p, syms, frames, &n);
	if (r)
		l = calloc(n ? n : 1, sizeof(*l));
	if (!l) {
		free(r);
		strpool_free(frames);
		errno = ENOMEM;
		return -1;
	}
	k = make_lines(p, r, n, l);
	for (size_t i = 0; i < k; i++)
		waited += l[i].count;
	fprintf(out, "Total: %" PRIu64 " samples, %" PRIu64 " in a wait\n",
		p->total_samples, waited);
	fprintf(out, "%7s  %11s  %s\n", "%", p->period_us ? "time" : "samples",
		"wait");
	for (size_t i = 0; i < k && (!top || i < top); i++)
		put_line(out, p, &l[i], frames);
	put_amount(out, p, p->total_samples - waited);
	fputs("  (in no wait: running, or not labelled)\n", out);
	free(l);
	free(r);
	strpool_free(frames);
	return ferror(out) || fflush(out) ? -1 : 0;
}
