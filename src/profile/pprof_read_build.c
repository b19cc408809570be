/*
 * pprof_read_build.c - a checked pprof profile as a struct profile
 * (pprof_read.h): one record per sample in one storage block (the PCs,
 * the inlined frames of the named locations, then the strings: thread,
 * process, function and file names), the names the file gives its
 * locations, and the maps text, space after space.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/pprof_read.h"
#include "profile/pprof_read_int.h"
#include "symbols/symbolize.h"

/* ---- building the struct profile ---- */

/* PC k of a record: its location's address, plus 1 for a caller.  The
 * location was found by check_sample(). */
static uint64_t pc_of(const struct rd *rd, uint64_t loc_id, size_t k)
{
	const struct id_index *ix = pprof_read_find_loc(rd, loc_id);
	uint64_t a = ix ? rd->pp->location[ix->i]->address : 0;

	return k ? a + 1 : a;
}

static void build_records(const struct rd *rd, struct profile *out,
			  uint64_t *pcs, char *names)
{
	size_t r = 0;

	for (size_t i = 0; i < rd->pp->n_sample; i++) {
		const PbSample *s = rd->pp->sample[i];
		struct profile_record *rec = &out->records[r];
		struct labels lb;

		if (!s->value[rd->ci])
			continue;
		pprof_read_labels(rd, i, &lb);
		rec->count = (uint64_t)s->value[rd->ci];
		rec->npcs = s->n_location_id;
		rec->pcs = pcs;
		for (size_t k = 0; k < s->n_location_id; k++)
			pcs[k] = pc_of(rd, s->location_id[k], k);
		pcs += s->n_location_id;
		rec->tid = lb.tid;
		if (lb.name > 0)
			rec->thread = names + rd->name_off[lb.name];
		rec->pid = lb.pid;
		if (lb.pname > 0)
			rec->process = names + rd->name_off[lb.pname];
		rec->time_ns = lb.time;
		if (lb.wait > 0)
			rec->wait = names + rd->name_off[lb.wait];
		rec->wait_holder = lb.holder;
		rec->space = pprof_read_sample_space((struct rd *)rd,
						     i); /* made */
		r++;
	}
	for (size_t i = 0; i < rd->pp->n_string_table; i++)
		if (rd->name_off[i] != SIZE_MAX)
			strcpy(names + rd->name_off[i],
			       pprof_read_str(rd, (int64_t)i));
}

/*
 * The build ID of mapping m on a line of pprof's brief form before its
 * maps line, as the legacy format carries it (maps.h): what the
 * symbolizer checks a file against before it trusts its symbols
 * (symbolize.h).  Only a build ID of 2 to 128 hex digits; else nothing.
 * A path with a space is written too, unlike maps_write()'s: this text
 * never leaves ptprof, and the symbolizer reads a brief line from its
 * ends (the start address, and the ID after the last space), so the
 * space that would mislead google-pprof cannot mislead it.  A pprof
 * mapping has no inode, so without this line the file of such a path
 * could not be checked, and would never be trusted for symbols.
 */
static int write_brief(const struct rd *rd, const PbMapping *m, FILE *f)
{
	const char *id = pprof_read_str(rd, m->build_id);
	const char *path = pprof_read_str(rd, m->filename);
	size_t n = strspn(id, "0123456789abcdefABCDEF");

	if (n < 2 || n > 128 || id[n] || path[0] != '/')
		return 0;
	return fprintf(f, "%" PRIx64 "-%" PRIx64 " r-xp %s (@%" PRIx64 ") %s\n",
		       m->memory_start, m->memory_limit, path, m->file_offset,
		       id);
}

/* A mapping in its space, to sort them by space, then address. */
struct spaced {
	size_t space;
	const PbMapping *m;
};

static int cmp_spaced(const void *a, const void *b)
{
	const struct spaced *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->m->memory_start < y->m->memory_start ?
		       -1 :
		       x->m->memory_start > y->m->memory_start;
}

/* One mapping as a /proc/PID/maps line (its build ID's line before). */
static int write_mapping(const struct rd *rd, const PbMapping *m, FILE *f)
{
	int rc = write_brief(rd, m, f);

	if (rc >= 0)
		rc = fprintf(f,
			     "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64
			     " 00:00 0 %s\n",
			     m->memory_start, m->memory_limit, m->file_offset,
			     pprof_read_str(rd, m->filename));
	return rc < 0 ? -1 : 0;
}

/* The sampled mappings, space after space, each space's in address
 * order, equal ones once (two processes', join_groups()); v has room
 * for all; out->spaces says where each space's lines are. */
static int write_spaces(const struct rd *rd, struct spaced *v,
			struct profile *out, FILE *f)
{
	size_t n = 0;

	for (size_t i = 0; i < rd->pp->n_mapping; i++)
		if (rd->map_space[i] != SIZE_MAX)
			v[n++] = (struct spaced){ rd->map_space[i],
						  rd->pp->mapping[i] };
	qsort(v, n, sizeof(*v), cmp_spaced);
	for (size_t i = 0; i < n; i++) {
		struct profile_space *ps = &out->spaces[v[i].space];
		bool again = i && v[i - 1].space == v[i].space;

		if (!again)
			ps->off = (size_t)ftell(f);
		if (again && pprof_read_same_mapping(rd, v[i - 1].m, v[i].m))
			continue;
		if (write_mapping(rd, v[i].m, f))
			return -1;
		ps->len = (size_t)ftell(f) - ps->off;
	}
	return 0;
}

/* The maps text, and where each space's lines are. */
static int build_maps(const struct rd *rd, struct profile *out)
{
	size_t n = rd->pp->n_mapping, len = 0;
	struct spaced *v = malloc((n ? n : 1) * sizeof(*v));
	FILE *f = open_memstream(&out->maps_text, &len);
	int rc;

	out->nspaces = rd->nspaces ? rd->nspaces : 1;
	out->spaces = calloc(out->nspaces, sizeof(*out->spaces));
	if (!v || !f || !out->spaces) {
		free(v);
		if (f)
			fclose(f);
		return -1;
	}
	rc = write_spaces(rd, v, out, f);
	free(v);
	if (fclose(f) || rc)
		return -1;
	out->maps_len = len;
	return 0;
}

/* The inlined frames of location l into fr (pprof_read_loc_ninl() of
 * them) and name's outer file and line into n; the strings from names. */
static void build_inline(const struct rd *rd, const PbLocation *l,
			 const char *names, struct symbol_frame *fr,
			 struct profile_name *n)
{
	int64_t name, file;
	unsigned line;

	n->ninl = pprof_read_loc_ninl(l);
	n->inl = n->ninl ? fr : NULL;
	for (size_t k = 0; k < n->ninl; k++) {
		pprof_read_loc_line(rd, l, k, &name, &file, &line);
		fr[k].func = name >= 0 ? names + rd->name_off[name] : NULL;
		fr[k].file = file >= 0 ? names + rd->name_off[file] : NULL;
		fr[k].line = file >= 0 ? line : 0;
	}
	if (!n->ninl)
		return;
	pprof_read_loc_line(rd, l, l->n_line - 1, &name, &file, &line);
	n->outer_file = file >= 0 ? names + rd->name_off[file] : NULL;
	n->outer_line = file >= 0 ? line : 0;
}

/* Storage: the PCs, the inlined frames, then the strings. */
int pprof_read_build(const struct rd *rd, struct profile *out)
{
	size_t pcs_bytes = rd->npcs * sizeof(uint64_t);
	size_t inl_bytes = rd->ninl * sizeof(struct symbol_frame);
	unsigned char *st = malloc(pcs_bytes + inl_bytes + rd->names_len + 1);
	struct symbol_frame *fr = (struct symbol_frame *)(void *)(st +
								  pcs_bytes);

	out->storage_ = st;
	out->records = calloc(rd->nrecords ? rd->nrecords : 1,
			      sizeof(*out->records));
	if (!st || !out->records || build_maps(rd, out))
		return -1;
	build_records(rd, out, (uint64_t *)(void *)st,
		      (char *)st + pcs_bytes + inl_bytes);
	if (rd->nnamed) {
		const char *names = (const char *)st + pcs_bytes + inl_bytes;

		out->names = malloc(rd->nnamed * sizeof(*out->names));
		if (!out->names)
			return -1;
		for (size_t i = 0; i < rd->pp->n_location; i++) {
			const PbLocation *l = rd->pp->location[i];
			int64_t k = pprof_read_loc_name(rd, l), fk;
			struct profile_name *n;
			unsigned line;

			if (k < 0)
				continue;
			fk = pprof_read_loc_file(rd, l, &line);
			n = &out->names[out->nnames++];
			*n = (struct profile_name){
				.space = rd->loc_space[i],
				.addr = l->address,
				.name = names + rd->name_off[k],
				.file = fk >= 0 ? names + rd->name_off[fk] :
						  NULL,
				.line = line,
				.start_line =
					fk >= 0 ? pprof_read_loc_start_line(rd,
									    l) :
						  0
			};
			build_inline(rd, l, names, fr, n);
			fr += n->ninl;
		}
		qsort(out->names, out->nnames, sizeof(*out->names),
		      profile_name_cmp);
	}
	out->nrecords = rd->nrecords;
	out->total_samples = rd->total;
	out->threads = true; /* the format has them, if only as labels */
	out->processes = rd->processes;
	out->times = rd->times;
	out->time_nanos = rd->pp->time_nanos;
	out->duration_nanos = rd->pp->duration_nanos;
	return 0;
}
