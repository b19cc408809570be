/*
 * report_int.h - what the files of the report share (private to
 * src/report/report*.c; the interface is report.h).
 *
 *  - report.c: the records counted into stacks and rows, the writers;
 *  - report_name.c: the frames an address names (its function, and
 *    the functions inlined there: issue 29), each address once, and
 *    the name table.
 *
 * Nothing here prints or exits; functions that can fail return EMPTY
 * or -1 (ENOMEM).
 */
#ifndef PTPROF_REPORT_INT_H
#define PTPROF_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/flame.h"
#include "report/report.h"
#include "util/hashtab.h"

/* An address named: its frame ids, r->addr_ids[off..off+n), root first
 * (the function that holds it, then the ones inlined there, innermost
 * last); through addr_idx. */
struct report_addr {
	uint64_t addr;
	uint32_t space; /* the address space of the address */
	uint32_t off, n;
};

struct report_stack {
	size_t off, n; /* frame ids in r->frames[off..off+n), root first */
	uint64_t count;
};

struct report {
	/* frames by id */
	char **names;
	char **modules;
	uint64_t *flat, *cum;
	uint64_t *seen_in; /* last record (+1) that counted the id's cum */
	size_t nnames, cap_names;
	struct hashtab name_idx; /* name hash -> name id */
	/* addresses named so far, and (space, address) hash -> index */
	struct report_addr *addrs;
	size_t naddrs, cap_addrs;
	uint32_t *addr_ids; /* their frame ids */
	size_t naddr_ids, cap_addr_ids;
	struct hashtab addr_idx;
	size_t nspaces;
	/* distinct stacks */
	uint32_t *frames;
	size_t nframes, cap_frames;
	struct report_stack *stacks;
	size_t nstacks, cap_stacks;
	struct hashtab stack_idx; /* stack hash -> stack index */
	uint64_t total;
	struct report_row *rows;
	size_t nrows;
	/* when each record's samples were taken, for the flame graph's
	 * time strip: stack index, ns after the profile's start, count;
	 * only when every record has a time (NULL: no strip) */
	struct flame_time_sample *times;
	size_t ntimes;
	int64_t start; /* of the strip, ns since the epoch */
	/* the profile, for its own names (profile.h), while report_build()
	 * runs */
	const struct profile *profile;
	const struct perfmap *jit; /* report_options.jit */
	/* report_options' */
	bool lines, no_inline, by_process, waits;
};

#define EMPTY UINT32_MAX /* no id: out of memory */

/* The id of name, added (with module) if new; EMPTY on ENOMEM. */
uint32_t report_name_intern(struct report *r, const char *name,
			    const char *module);

/* The frames of addr (a caller's already at PC-1) in space, named by
 * syms[space] at the first time only: their ids at
 * r->addr_ids[*off..*off+*n), root first, at least one.  -1 on ENOMEM. */
int report_name_frames(struct report *r, struct symbolizer *const *syms,
		       size_t space, uint64_t addr, size_t *off, size_t *n);

#endif /* PTPROF_REPORT_INT_H */
