/*
 * report.c - flat/cumulative tables and folded stacks (see report.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "report/report.h"
#include "report/report_int.h"
#include "report/timeslice.h"
#include "symbols/framename.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/textsafe.h"

/* --by-process: the root frame of a record, "name (pid)". */
static uint32_t process_frame(struct report *r,
			      const struct profile_record *rec)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s (%" PRId64 ")",
		 rec->process && rec->process[0] ? rec->process : "?",
		 rec->pid);
	return report_name_intern(r, buf, NULL);
}

/*
 * Add count to the stack of frame ids r->frames[off..off+n) (just
 * appended, root first): merged into an equal stack if there is one (then
 * the appended ids are dropped again), else kept.
 */
static int add_stack(struct report *r, size_t off, size_t n, uint64_t count,
		     size_t *index)
{
	uint64_t h = hash_fnv1a(HASH_FNV_SEED, r->frames + off,
				n * sizeof(*r->frames));
	struct hashtab_probe p;
	size_t i;

	if (hashtab_reserve(&r->stack_idx, r->nstacks + 1))
		return -1;
	hashtab_probe_init(&r->stack_idx, hash_mix64(h), &p);
	while (hashtab_next(&r->stack_idx, &p, &i)) {
		struct report_stack *s = &r->stacks[i];

		if (s->n == n && !memcmp(r->frames + s->off, r->frames + off,
					 n * sizeof(*r->frames))) {
			s->count += count;
			r->nframes = off;
			*index = i;
			return 0;
		}
	}
	if (r->nstacks == r->cap_stacks) {
		struct report_stack *s = grow_array(r->stacks, &r->cap_stacks,
						    r->nstacks + 1, sizeof(*s));

		if (!s)
			return -1;
		r->stacks = s;
	}
	r->stacks[r->nstacks] = (struct report_stack){ off, n, count };
	*index = r->nstacks;
	hashtab_set(&r->stack_idx, &p, r->nstacks++); /* room reserved above */
	return 0;
}

/* Make room for the per-name counters of every name interned so far. */
static int grow_counts(struct report *r, size_t *cap)
{
	size_t c = *cap;
	uint64_t *f, *k, *s;

	if (r->nnames <= c)
		return 0;
	c = r->cap_names;
	f = realloc(r->flat, c * sizeof(*f));
	if (f)
		r->flat = f;
	k = realloc(r->cum, c * sizeof(*k));
	if (k)
		r->cum = k;
	s = realloc(r->seen_in, c * sizeof(*s));
	if (s)
		r->seen_in = s;
	if (!f || !k || !s)
		return -1;
	for (size_t i = *cap; i < c; i++)
		r->flat[i] = r->cum[i] = r->seen_in[i] = 0;
	*cap = c;
	return 0;
}

/*
 * The start of a profile's time strip: its start (time_nanos), else its
 * first sample's time.  Whether it has times for a strip: every record
 * has one (a record without would fit no slot).
 */
static bool strip_start(const struct profile *p, int64_t *start)
{
	*start = p->time_nanos;
	if (!p->times)
		return false;
	for (size_t i = 0; i < p->nrecords; i++) {
		int64_t t = p->records[i].time_ns;

		if (!t)
			return false;
		if (p->time_nanos <= 0 && (*start <= 0 || t < *start))
			*start = t;
	}
	return true;
}

/* The time of record rec, counted to stack st (r->times has room). */
static void add_time(struct report *r, const struct profile_record *rec,
		     size_t st)
{
	if (!r->times)
		return;
	/* a time before the start (a clock stepped back, or a hostile
	 * file) is in the first slot */
	r->times[r->ntimes++] = (struct flame_time_sample){
		st, timeslice_after(rec->time_ns, r->start), rec->count
	};
}

/* --waits (report_options.waits): the leaf frame "[wait: KIND]", KIND
 * lower-case letters only (the writer's kinds, wait.h), else "?". */
static uint32_t wait_frame(struct report *r, const char *wait)
{
	char buf[64];
	size_t n = strspn(wait, "abcdefghijklmnopqrstuvwxyz");

	snprintf(buf, sizeof(buf), "[wait: %s]",
		 n && n < 16 && !wait[n] ? wait : "?");
	return report_name_intern(r, buf, NULL);
}

static int add_record(struct report *r, struct symbolizer *const *syms,
		      const struct profile_record *rec, size_t index,
		      size_t *counts_cap)
{
	size_t off = r->nframes, n = off, st;
	uint32_t *f;

	if (rec->npcs == 0)
		return 0;
	/* one frame for each PC at least, and the process and wait ones */
	f = grow_array(r->frames, &r->cap_frames, off + rec->npcs + 2,
		       sizeof(*f));
	if (!f)
		return -1;
	r->frames = f;
	if (r->by_process && (r->frames[n++] = process_frame(r, rec)) == EMPTY)
		return -1;
	/* Root first: the file has the leaf first. */
	for (size_t i = 0; i < rec->npcs; i++) {
		uint64_t pc = rec->pcs[rec->npcs - 1 - i];
		bool caller = i + 1 < rec->npcs;
		size_t at, k;

		/* an address may name several frames (inlined functions) */
		if (report_name_frames(r, syms, rec->space,
				       framename_addr(pc, caller), &at, &k))
			return -1;
		f = grow_array(r->frames, &r->cap_frames,
			       n + k + (rec->npcs - 1 - i) + 1, sizeof(*f));
		if (!f)
			return -1;
		r->frames = f;
		memcpy(f + n, r->addr_ids + at, k * sizeof(*f));
		n += k;
	}
	if (r->waits && rec->wait && rec->wait[0] &&
	    (r->frames[n++] = wait_frame(r, rec->wait)) == EMPTY)
		return -1;
	r->nframes = n;
	n -= off;
	if (grow_counts(r, counts_cap))
		return -1;
	r->flat[r->frames[off + n - 1]] += rec->count;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = r->frames[off + i];

		if (r->seen_in[id] != index + 1) {
			r->seen_in[id] = index + 1;
			r->cum[id] += rec->count;
		}
	}
	r->total += rec->count;
	if (add_stack(r, off, n, rec->count, &st))
		return -1;
	add_time(r, rec, st);
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;

	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int make_rows(struct report *r)
{
	r->rows = calloc(r->nnames ? r->nnames : 1, sizeof(*r->rows));
	if (!r->rows)
		return -1;
	for (size_t i = 0; i < r->nnames; i++)
		r->rows[i] = (struct report_row){ r->names[i], r->modules[i],
						  r->flat[i], r->cum[i] };
	r->nrows = r->nnames;
	qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows);
	return 0;
}

struct report *report_build(const struct profile *p,
			    struct symbolizer *const *syms,
			    const struct report_options *opt)
{
	struct report *r = calloc(1, sizeof(*r));
	size_t counts_cap = 0;

	if (!r)
		return NULL;
	r->profile = p;
	r->jit = opt->jit;
	r->lines = opt->lines;
	r->no_inline = opt->no_inline;
	r->by_process = opt->by_process;
	r->waits = opt->waits;
	r->nspaces = profile_nspaces(p);
	if (strip_start(p, &r->start)) {
		r->times = malloc((p->nrecords ? p->nrecords : 1) *
				  sizeof(*r->times));
		if (!r->times)
			goto fail;
	}
	for (size_t i = 0; i < p->nrecords; i++)
		if (p->records[i].space >= r->nspaces ||
		    p->records[i].space > UINT32_MAX ||
		    add_record(r, syms, &p->records[i], i, &counts_cap))
			goto fail;
	if (grow_counts(r, &counts_cap) || make_rows(r))
		goto fail;
	r->profile = NULL;
	return r;
fail:
	report_free(r);
	errno = ENOMEM;
	return NULL;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nnames; i++) {
		free(r->names[i]);
		free(r->modules[i]);
	}
	free(r->names);
	free(r->modules);
	free(r->flat);
	free(r->cum);
	free(r->seen_in);
	hashtab_free(&r->name_idx);
	free(r->addrs);
	free(r->addr_ids);
	hashtab_free(&r->addr_idx);
	free(r->frames);
	free(r->stacks);
	hashtab_free(&r->stack_idx);
	free(r->rows);
	free(r->times);
	free(r);
}

uint64_t report_total(const struct report *r)
{
	return r->total;
}

const struct report_row *report_rows(const struct report *r, size_t *n)
{
	*n = r->nrows;
	return r->rows;
}

const char *const *report_names(const struct report *r, size_t *n)
{
	*n = r->nnames;
	return (const char *const *)r->names;
}

size_t report_nstacks(const struct report *r)
{
	return r->nstacks;
}

const uint32_t *report_stack(const struct report *r, size_t i, size_t *nframes,
			     uint64_t *count)
{
	*nframes = r->stacks[i].n;
	*count = r->stacks[i].count;
	return r->frames + r->stacks[i].off;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

void report_put_name(FILE *out, const char *name, const char *module)
{
	/* Names come from the target and the profile: a newline or an
	 * escape sequence in one is shown, not acted on. */
	textsafe_fputs(out, name, NULL);
	if (module && module[0] == '[') {
		fputc(' ', out); /* "[vdso]" */
		textsafe_fputs(out, module, NULL);
	} else if (module) {
		fputs(" [", out);
		textsafe_fputs(out, module, NULL);
		fputc(']', out);
	}
	fputc('\n', out);
}

int report_write_text(const struct report *r, FILE *out, size_t top)
{
	uint64_t sum = 0;
	size_t n = top && top < r->nrows ? top : r->nrows;

	fprintf(out, "Total: %" PRIu64 " samples\n", r->total);
	fprintf(out, "%8s %6s %6s %8s %6s  %s\n", "flat", "flat%", "sum%",
		"cum", "cum%", "function [module]");
	for (size_t i = 0; i < n; i++) {
		const struct report_row *row = &r->rows[i];

		sum += row->flat;
		fprintf(out,
			"%8" PRIu64 " %5.1f%% %5.1f%% %8" PRIu64 " %5.1f%%  ",
			row->flat, pct(row->flat, r->total), pct(sum, r->total),
			row->cum, pct(row->cum, r->total));
		report_put_name(out, row->name, row->module);
	}
	if (n < r->nrows)
		fprintf(out, "(%zu more rows; --top=0 shows all)\n",
			r->nrows - n);
	return fflush(out) || ferror(out) ? -1 : 0;
}

void report_put_stack(FILE *out, const char *const *names, const uint32_t *ids,
		      size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputc(';', out);
		/* A newline in a name would forge a stack, a ';' a frame:
		 * both escaped (textsafe.h). */
		textsafe_fputs(out, names[ids[k]], ";");
	}
}

int report_write_folded(const struct report *r, FILE *out)
{
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct report_stack *s = &r->stacks[i];

		report_put_stack(out, (const char *const *)r->names,
				 r->frames + s->off, s->n);
		fprintf(out, " %" PRIu64 "\n", s->count);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

int report_write_svg(const struct report *r, FILE *out, const char *title,
		     struct flame_drawn *drawn)
{
	struct flame_id_stack *fs = calloc(r->nstacks ? r->nstacks : 1,
					   sizeof(*fs));
	struct flame_time tm = { r->times, r->ntimes };
	struct flame_options opt = { .title = title,
				     .time = r->times ? &tm : NULL,
				     .drawn = drawn };
	int rc;

	if (!fs)
		return -1;
	for (size_t i = 0; i < r->nstacks; i++)
		fs[i] = (struct flame_id_stack){ r->frames + r->stacks[i].off,
						 r->stacks[i].n,
						 r->stacks[i].count };
	rc = flame_write_svg_ids(out, (const char *const *)r->names, r->nnames,
				 fs, r->nstacks, &opt);
	free(fs);
	return rc;
}
