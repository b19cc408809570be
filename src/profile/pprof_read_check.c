/*
 * pprof_read_check.c - validating a decoded pprof profile (pprof_read.h):
 * sample types, mappings, locations and samples refer only to what
 * exists, ids are unique, counts add up within 64 bits; the names the
 * file gives its locations; and the lookups the later steps make in
 * what was checked.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_read.h"
#include "profile/pprof_read_int.h"
#include "python/pyframes.h"
#include "symbols/symbolize.h"
#include "util/errbuf.h"

static int check_str(const struct rd *rd, int64_t i, const char *what,
		     uint64_t id)
{
	if (i >= 0 && (uint64_t)i < rd->pp->n_string_table)
		return 0;
	return BAD(rd,
		   "%s %" PRIu64 " names string %" PRId64
		   ", outside the string table (%zu strings)",
		   what, id, i, rd->pp->n_string_table);
}

static int check_types(struct rd *rd)
{
	const PbProfile *pp = rd->pp;
	size_t i, unit_count = SIZE_MAX;

	if (!pp->n_string_table || pp->string_table[0][0])
		return BAD(rd, "string_table[0] is not the empty string");
	if (!pp->n_sample_type)
		return BAD(rd, "no sample type");
	for (i = 0; i < pp->n_sample_type; i++) {
		int64_t t = pp->sample_type[i]->type,
			u = pp->sample_type[i]->unit;

		if (check_str(rd, t, "sample type", i) ||
		    check_str(rd, u, "sample type", i))
			return -1;
		if (!strcmp(pprof_read_str(rd, u), "count") &&
		    unit_count == SIZE_MAX)
			unit_count = i;
		if (!strcmp(pprof_read_str(rd, t), "samples") &&
		    !strcmp(pprof_read_str(rd, u), "count"))
			break;
	}
	if (i == pp->n_sample_type) /* no samples/count: another count */
		i = unit_count != SIZE_MAX ? unit_count : 0;
	rd->ci = i;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_index *)a)->id;
	uint64_t y = ((const struct id_index *)b)->id;

	return x < y ? -1 : x > y;
}

/* Sort the ids of n messages (ids[i] = id of message i); 0 or a repeat
 * is an error naming what. */
static int index_ids(struct rd *rd, struct id_index *ix, size_t n,
		     const char *what)
{
	qsort(ix, n, sizeof(*ix), cmp_id);
	for (size_t i = 0; i < n; i++) {
		if (!ix[i].id)
			return BAD(rd, "%s %zu has id 0", what, ix[i].i);
		if (i && ix[i].id == ix[i - 1].id)
			return BAD(rd, "two %ss have id %" PRIu64, what,
				   ix[i].id);
	}
	return 0;
}

const struct id_index *pprof_read_find_id(const struct id_index *ix, size_t n,
					  uint64_t id)
{
	struct id_index key = { .id = id };

	return bsearch(&key, ix, n, sizeof(*ix), cmp_id);
}

static int check_mappings(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	rd->maps = calloc(pp->n_mapping ? pp->n_mapping : 1, sizeof(*rd->maps));
	if (!rd->maps)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_mapping; i++) {
		const PbMapping *m = pp->mapping[i];

		rd->maps[i].id = m->id;
		rd->maps[i].i = i;
		if (check_str(rd, m->filename, "mapping", m->id) ||
		    check_str(rd, m->build_id, "mapping", m->id))
			return -1;
		if (strchr(pprof_read_str(rd, m->filename), '\n'))
			return BAD(rd,
				   "mapping %" PRIu64
				   ": file name holds a newline",
				   m->id);
		if (m->memory_start > m->memory_limit)
			return BAD(rd,
				   "mapping %" PRIu64 ": start 0x%" PRIx64
				   " is above its limit 0x%" PRIx64,
				   m->id, m->memory_start, m->memory_limit);
	}
	return index_ids(rd, rd->maps, pp->n_mapping, "mapping");
}

/* Location id's entry: at once when ids are 1, 2, ... (as ptprof and
 * pprof write them), else by binary search. */
const struct id_index *pprof_read_find_loc(const struct rd *rd, uint64_t id)
{
	size_t n = rd->pp->n_location;

	if (id && id <= n && rd->locs[id - 1].id == id)
		return &rd->locs[id - 1];
	return pprof_read_find_id(rd->locs, n, id);
}

static int check_locations(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	rd->locs = calloc(pp->n_location ? pp->n_location : 1,
			  sizeof(*rd->locs));
	if (!rd->locs)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_location; i++) {
		const PbLocation *l = pp->location[i];

		rd->locs[i].id = l->id;
		rd->locs[i].i = i;
		if (l->mapping_id &&
		    !pprof_read_find_id(rd->maps, pp->n_mapping, l->mapping_id))
			return BAD(rd,
				   "location %" PRIu64 " names mapping %" PRIu64
				   ", which does not exist",
				   l->id, l->mapping_id);
	}
	return index_ids(rd, rd->locs, pp->n_location, "location");
}

/* A "time" label's value in ns, or 0: a number label in nanoseconds
 * (num_unit "nanoseconds", or none, as the writer's default), any int64
 * (profile.h); a string, or another unit, is no time. */
static int64_t label_time(const struct rd *rd,
			  const Perftools__Profiles__Label *l)
{
	if (l->str)
		return 0;
	if (l->num_unit &&
	    strcmp(pprof_read_str(rd, l->num_unit), "nanoseconds"))
		return 0;
	return l->num;
}

/* The thread, process, time and wait labels of sample i. */
int pprof_read_labels(const struct rd *rd, size_t i, struct labels *lb)
{
	const PbSample *s = rd->pp->sample[i];

	*lb = (struct labels){ .name = -1, .pname = -1, .wait = -1 };
	for (size_t k = 0; k < s->n_label; k++) {
		const Perftools__Profiles__Label *l = s->label[k];
		const char *key;

		if (check_str(rd, l->key, "a label of sample", i) ||
		    check_str(rd, l->str, "a label of sample", i) ||
		    check_str(rd, l->num_unit, "a label of sample", i))
			return -1;
		key = pprof_read_str(rd, l->key);
		if (!strcmp(key, "thread_id"))
			lb->tid = l->num;
		else if (!strcmp(key, "thread_name"))
			lb->name = l->str;
		else if (!strcmp(key, "process_id")) {
			lb->pid = l->num;
			lb->has_pid = true;
		} else if (!strcmp(key, "process_name"))
			lb->pname = l->str;
		else if (!strcmp(key, "time"))
			lb->time = label_time(rd, l);
		else if (!strcmp(key, "wait"))
			lb->wait = l->str;
		else if (!strcmp(key, "wait_holder"))
			lb->holder = l->num;
	}
	return 0;
}

/* String i goes into the names block (once). */
static void keep_string(struct rd *rd, int64_t i)
{
	if (i > 0 && rd->name_off[i] == SIZE_MAX) {
		rd->name_off[i] = rd->names_len;
		rd->names_len += strlen(pprof_read_str(rd, i)) + 1;
	}
}

static int check_sample(struct rd *rd, size_t i)
{
	const PbSample *s = rd->pp->sample[i];
	struct labels lb;
	int64_t count;

	if (s->n_value != rd->pp->n_sample_type)
		return BAD(rd, "sample %zu has %zu values for %zu sample types",
			   i, s->n_value, rd->pp->n_sample_type);
	count = s->value[rd->ci];
	if (count < 0)
		return BAD(rd, "sample %zu has a negative count %" PRId64, i,
			   count);
	if (pprof_read_labels(rd, i, &lb))
		return -1;
	if (!count)
		return 0;
	if (!s->n_location_id)
		return BAD(rd, "sample %zu has no location", i);
	if (s->n_location_id > PROFILE_MAX_PCS)
		return BAD(rd, "sample %zu has %zu locations, more than %d", i,
			   s->n_location_id, PROFILE_MAX_PCS);
	for (size_t k = 0; k < s->n_location_id; k++)
		if (!pprof_read_find_loc(rd, s->location_id[k]))
			return BAD(rd,
				   "sample %zu names location %" PRIu64
				   ", which does not exist",
				   i, s->location_id[k]);
	if ((uint64_t)count > UINT64_MAX - rd->total)
		return BAD(rd, "sample %zu: the sample counts overflow 64 bits",
			   i);
	rd->total += (uint64_t)count;
	rd->nrecords++;
	rd->npcs += s->n_location_id;
	rd->processes |= lb.has_pid;
	rd->times |= lb.time != 0;
	keep_string(rd, lb.name);
	keep_string(rd, lb.pname);
	keep_string(rd, lb.wait);
	return 0;
}

static int check_samples(struct rd *rd)
{
	size_t n = rd->pp->n_string_table;

	rd->name_off = malloc(n * sizeof(*rd->name_off));
	if (!rd->name_off)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	memset(rd->name_off, 0xff, n * sizeof(*rd->name_off));
	for (size_t i = 0; i < rd->pp->n_sample; i++)
		if (check_sample(rd, i))
			return -1;
	return 0;
}

/* The function of Line k of location l, or NULL when none has its id. */
static const PbFunction *line_func(const struct rd *rd, const PbLocation *l,
				   size_t k)
{
	const struct id_index *f;

	if (k >= l->n_line || !rd->funcs)
		return NULL;
	f = pprof_read_find_id(rd->funcs, rd->pp->n_function,
			       l->line[k]->function_id);
	return f ? rd->pp->function[f->i] : NULL;
}

/* String s when it is in the table and not empty, else -1. */
static int64_t some_str(const struct rd *rd, int64_t s)
{
	return s > 0 && (uint64_t)s < rd->pp->n_string_table &&
			       pprof_read_str(rd, s)[0] ?
		       s :
		       -1;
}

/* The string index of the name the file gives location l, or -1: the
 * function of its last Line (the others were inlined into it). */
int64_t pprof_read_loc_name(const struct rd *rd, const PbLocation *l)
{
	const PbFunction *f = l->n_line ? line_func(rd, l, l->n_line - 1) :
					  NULL;

	return f ? some_str(rd, f->name) : -1;
}

/*
 * The string index of the source file the file gives location l, or -1,
 * and its line into *line: those of its first Line, the leaf-most of an
 * inlined chain (the one the DWARF line table gives for the address, as
 * a legacy profile's --lines shows beside the outer function's name).
 * A Line whose function does not exist or has no file name, or whose
 * line is not in 1..PROFILE_MAX_LINE (0 is pprof's "unknown"), gives
 * none: the location keeps its name alone.  But for a kernel frame
 * (pyframes.h: a synthetic address whose function's file is "[kernel]",
 * as ptprof writes them): that file with line 0, the report's mark.
 */
int64_t pprof_read_loc_file(const struct rd *rd, const PbLocation *l,
			    unsigned *line)
{
	const PbFunction *f = line_func(rd, l, 0);
	int64_t s = f ? some_str(rd, f->filename) : -1;

	*line = 0;
	if (s >= 0 && pyframes_is_pc(l->address) &&
	    !strcmp(pprof_read_str(rd, s), PYFRAMES_KERNEL_MODULE))
		return s;
	if (s < 0 || l->line[0]->line <= 0 ||
	    l->line[0]->line > PROFILE_MAX_LINE)
		return -1;
	*line = (unsigned)l->line[0]->line;
	return s;
}

/* The start line the file gives the function of location l's first
 * Line (the one pprof_read_loc_file() takes the file of), or 0: none, or not in
 * 1..PROFILE_MAX_LINE. */
unsigned pprof_read_loc_start_line(const struct rd *rd, const PbLocation *l)
{
	const PbFunction *f = line_func(rd, l, 0);

	if (!f || f->start_line <= 0 || f->start_line > PROFILE_MAX_LINE)
		return 0;
	return (unsigned)f->start_line;
}

size_t pprof_read_loc_ninl(const PbLocation *l)
{
	size_t n = l->n_line ? l->n_line - 1 : 0;

	return n < SYMBOLIZE_MAX_INLINE ? n : SYMBOLIZE_MAX_INLINE;
}

void pprof_read_loc_line(const struct rd *rd, const PbLocation *l, size_t k,
			 int64_t *name, int64_t *file, unsigned *line)
{
	const PbFunction *f = line_func(rd, l, k);

	*name = f ? some_str(rd, f->name) : -1;
	*file = f ? some_str(rd, f->filename) : -1;
	*line = k < l->n_line && l->line[k]->line > 0 &&
				l->line[k]->line <= PROFILE_MAX_LINE ?
			(unsigned)l->line[k]->line :
			0;
}

/* Keep the strings of location l's inlined frames and of its last Line,
 * and count the frames. */
static void keep_inline(struct rd *rd, const PbLocation *l)
{
	size_t n = pprof_read_loc_ninl(l);
	int64_t name, file;
	unsigned line;

	if (!n)
		return;
	rd->ninl += n;
	for (size_t k = 0; k < n; k++) {
		pprof_read_loc_line(rd, l, k, &name, &file, &line);
		keep_string(rd, name);
		keep_string(rd, file);
	}
	pprof_read_loc_line(rd, l, l->n_line - 1, &name, &file, &line);
	keep_string(rd, file);
}

/*
 * The names the file gives its locations, kept for report to show where
 * no file it can trust names an address (a Go binary has no GNU build ID
 * to check its file against).  Only a help: a function that does not
 * exist or has no name leaves its location unnamed, never refuses the
 * file.  Marks the strings for build_records() to copy.
 */
static int check_names(struct rd *rd)
{
	const PbProfile *pp = rd->pp;

	if (!pp->n_function || !pp->n_location)
		return 0;
	rd->funcs = malloc(pp->n_function * sizeof(*rd->funcs));
	if (!rd->funcs)
		return errbuf_fail(rd->err, rd->errlen, ENOMEM,
				   "out of memory");
	for (size_t i = 0; i < pp->n_function; i++)
		rd->funcs[i] = (struct id_index){ pp->function[i]->id, i };
	qsort(rd->funcs, pp->n_function, sizeof(*rd->funcs), cmp_id);
	for (size_t i = 0; i < pp->n_location; i++) {
		int64_t s = pprof_read_loc_name(rd, pp->location[i]);
		unsigned line;

		if (s < 0)
			continue;
		rd->nnamed++;
		keep_string(rd, s);
		keep_string(rd,
			    pprof_read_loc_file(rd, pp->location[i], &line));
		keep_inline(rd, pp->location[i]);
	}
	return 0;
}

int pprof_read_check(struct rd *rd)
{
	return check_types(rd) || check_mappings(rd) || check_locations(rd) ||
			       check_samples(rd) || check_names(rd) ?
		       -1 :
		       0;
}
