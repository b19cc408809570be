/*
 * report_name.c - the frames an address names, and the name table
 * (report_int.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "symbols/framename.h"
#include "util/grow.h"
#include "util/hash.h"

uint32_t report_name_intern(struct report *r, const char *name,
			    const char *module)
{
	struct hashtab_probe p;
	size_t i;
	uint32_t id;

	if (hashtab_reserve(&r->name_idx, r->nnames + 1))
		return EMPTY;
	hashtab_probe_init(&r->name_idx, hash_mix64(hash_fnv1a_str(name)), &p);
	while (hashtab_next(&r->name_idx, &p, &i))
		if (!strcmp(r->names[i], name))
			return (uint32_t)i;
	if (r->nnames == r->cap_names) {
		size_t cap = r->cap_names;
		char **n = grow_array(r->names, &cap, r->nnames + 1,
				      sizeof(*n));

		if (!n)
			return EMPTY;
		r->names = n;
		cap = r->cap_names;
		n = grow_array(r->modules, &cap, r->nnames + 1, sizeof(*n));
		if (!n)
			return EMPTY;
		r->modules = n;
		r->cap_names = cap;
	}
	id = (uint32_t)r->nnames;
	r->names[id] = strdup(name);
	r->modules[id] = module ? strdup(module) : NULL;
	if (!r->names[id] || (module && !r->modules[id])) {
		free(r->names[id]);
		free(r->modules[id]);
		return EMPTY;
	}
	r->nnames++;
	hashtab_set(&r->name_idx, &p, id); /* room reserved above */
	return id;
}

const char *report_base_name(const char *path)
{
	return framename_base(path);
}

void report_name_py(char *buf, size_t len, const char *name, const char *file,
		    unsigned start_line)
{
	if (file && start_line)
		snprintf(buf, len, "%s (%s:%u) " REPORT_PY_MODULE, name,
			 framename_base(file), start_line);
	else if (file)
		snprintf(buf, len, "%s (%s) " REPORT_PY_MODULE, name,
			 framename_base(file));
	else
		snprintf(buf, len, "%s " REPORT_PY_MODULE, name);
}

void report_name_kernel(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s " REPORT_KERNEL_MODULE, name);
}

/* A Python or kernel frame (pyframes.h) the profile names, as report.h
 * says. */
static uint32_t name_py(struct report *r, const struct profile_name *own)
{
	char buf[4096];

	if (own->file && !strcmp(own->file, REPORT_KERNEL_MODULE))
		report_name_kernel(buf, sizeof(buf), own->name);
	else if (r->lines && own->file)
		snprintf(buf, sizeof(buf), "%s %s:%u " REPORT_PY_MODULE,
			 own->name, own->file, own->line);
	else
		report_name_py(buf, sizeof(buf), own->name, own->file,
			       own->start_line);
	return report_name_intern(r, buf, NULL);
}

/* The most frames one address names: its function and those inlined. */
#define MAX_FRAMES (1 + SYMBOLIZE_MAX_INLINE)

/*
 * The frames of addr (already adjusted for callers) in space, as
 * report.h says (framename.h), into ids, root first: the function that
 * holds it, then the functions inlined there (symbolize.h), the
 * innermost last.  How many, or 0 on ENOMEM.
 */
static size_t name_addr(struct report *r, struct symbolizer *sym, size_t space,
			uint64_t addr, uint32_t *ids)
{
	struct framename f;
	struct framename_jit jit = { .map = r->jit };
	struct symbol_frame in[SYMBOLIZE_MAX_INLINE];
	char buf[4096];
	const struct profile_name *own = NULL;
	const char *file = NULL, *module;
	unsigned line = 0;
	size_t nin = 0, n = 0;

	framename_lookup(&f, sym, addr);
	if ((!f.si.func || f.si.fde) && r->profile &&
	    (own = profile_name_at(r->profile, space, addr)))
		/* No file that can be trusted names it (symbolize.h), or only
		 * by its unwind-table entry, but the profile does: its writer
		 * named it while the target lived (a debug file then there),
		 * and gave its source line too (profile.h). */
		f.si.func = own->name;
	if (own && !f.si.module && pyframes_is_pc(addr)) {
		ids[0] = name_py(r, own);
		return ids[0] == EMPTY ? 0 : 1;
	}
	framename_jit(&f, &jit, addr);
	if (!r->no_inline && f.si.func && !own && !framename_in_no_file(&f))
		/* the outer frame's line is the outermost inlined call's */
		nin = symbolizer_lookup_inline(sym, addr, in,
					       SYMBOLIZE_MAX_INLINE, &file,
					       &line);
	if (f.si.func && r->lines && !nin && !framename_in_no_file(&f)) {
		if (own && own->file) {
			file = own->file;
			line = own->line;
		} else if (!own &&
			   symbolizer_lookup_line(sym, addr, &file, &line)) {
			file = NULL;
		}
	}
	if (!r->lines)
		file = NULL;
	framename_format(&f, addr, file, line, buf, sizeof(buf));
	module = framename_module(&f);
	ids[n++] = report_name_intern(r, buf, module);
	/* in[] is innermost first: the root side first here */
	for (size_t i = nin; i-- > 0;) {
		framename_format_inline(&in[i], addr, r->lines, buf,
					sizeof(buf));
		ids[n++] = report_name_intern(r, buf, module);
	}
	framename_done(&f);
	for (size_t i = 0; i < n; i++)
		if (ids[i] == EMPTY)
			return 0;
	return n;
}

int report_name_frames(struct report *r, struct symbolizer *const *syms,
		       size_t space, uint64_t addr, size_t *off, size_t *n)
{
	uint64_t h = hash_mix64(addr ^
				((uint64_t)space * 0x9e3779b97f4a7c15ULL));
	struct hashtab_probe p;
	struct report_addr *a;
	uint32_t ids[MAX_FRAMES], *v;
	size_t i, k;

	if (hashtab_reserve(&r->addr_idx, r->naddrs + 1))
		return -1;
	hashtab_probe_init(&r->addr_idx, h, &p);
	while (hashtab_next(&r->addr_idx, &p, &i))
		if (r->addrs[i].addr == addr && r->addrs[i].space == space) {
			*off = r->addrs[i].off;
			*n = r->addrs[i].n;
			return 0;
		}
	a = grow_array(r->addrs, &r->cap_addrs, r->naddrs + 1, sizeof(*a));
	if (!a)
		return -1;
	r->addrs = a;
	/* name_addr() changes the name table only: p stays valid */
	k = name_addr(r, syms[space], space, addr, ids);
	if (!k || r->naddr_ids + k > UINT32_MAX)
		return -1;
	v = grow_array(r->addr_ids, &r->cap_addr_ids, r->naddr_ids + k,
		       sizeof(*v));
	if (!v)
		return -1;
	r->addr_ids = v;
	memcpy(v + r->naddr_ids, ids, k * sizeof(*ids));
	r->addrs[r->naddrs] = (struct report_addr){ addr, (uint32_t)space,
						    (uint32_t)r->naddr_ids,
						    (uint32_t)k };
	*off = r->naddr_ids;
	*n = k;
	r->naddr_ids += k;
	hashtab_set(&r->addr_idx, &p, r->naddrs++); /* reserved */
	return 0;
}
