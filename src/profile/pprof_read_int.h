/*
 * pprof_read_int.h - what the files of the pprof reader share (private
 * to src/profile/pprof_read*.c; the interface is pprof_read.h).
 *
 *  - pprof_read.c: gunzip, then the steps below, then the period;
 *  - pprof_read_decode.c: a scan of the wire format that bounds what
 *    decoding allocates, then protobuf-c's decoding within that budget;
 *  - pprof_read_check.c: validating the decoded messages (every index
 *    and id they refer to), and the lookups the later steps use;
 *  - pprof_read_spaces.c: which mappings share an address space;
 *  - pprof_read_build.c: filling the struct profile and its maps text.
 *
 * Each step that fails returns -1 (NULL) with errno and one sentence in
 * the err of struct rd (pprof_read.h says which); none prints or exits.
 * The lookups are only called on what pprof_read_check() accepted.
 */
#ifndef PTPROF_PPROF_READ_INT_H
#define PTPROF_PPROF_READ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "profile/profile.pb-c.h"
#include "util/errbuf.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Line PbLine;

#define BAD(rd, ...) errbuf_fail((rd)->err, (rd)->errlen, EINVAL, __VA_ARGS__)

/* pprof_read_decode.c: decoding counts what it allocates. */
struct budget {
	ProtobufCAllocator a;
	uint64_t used, limit;
	bool over, failed; /* past the limit; malloc() failed */
};

/* Decode the protobuf buf[0..len) within a budget (b, set up here;
 * free the result with b->a), or NULL with errno and the sentence. */
PbProfile *pprof_read_decode(const unsigned char *buf, size_t len,
			     struct budget *b, char *err, size_t errlen);

/* ---- the decoded profile, as the steps after decoding read it ---- */

struct id_index {
	uint64_t id;
	size_t i;
};

struct rd {
	const PbProfile *pp;
	char *err;
	size_t errlen;
	size_t ci;		      /* which value is the count */
	struct id_index *maps, *locs; /* sorted by id */
	struct id_index *funcs;	      /* sorted by id; duplicates allowed */
	size_t nnamed;		      /* locations with a name (check_names) */
	size_t ninl; /* their inlined frames (pprof_read_loc_ninl()) */
	size_t nrecords, npcs;
	uint64_t total;
	size_t *name_off; /* per string: offset in the names, or -1 */
	size_t names_len;
	bool processes; /* a sample has a process_id label */
	bool times;	/* a sample has a time label */
	/* address spaces (find_spaces()): of each mapping, each location */
	size_t *map_space, *loc_space;
	size_t *loc_map; /* location index -> mapping index, or -1 */
	size_t nspaces;
	size_t unmapped; /* the space of samples in no mapping, or -1 */
};

/* The labels ptprof reads from a sample: numbers, and strings as
 * indexes into the string table (-1: none). */
struct labels {
	int64_t tid, name, pid, pname;
	int64_t wait, holder; /* wait (a string, -1: none), wait_holder */
	int64_t time;	      /* 0: none */
	bool has_pid;
};

static inline const char *pprof_read_str(const struct rd *rd, int64_t i)
{
	return rd->pp->string_table[i];
}

/* pprof_read_check.c: check the sample types, mappings, locations,
 * samples and names, counting records and PCs, marking the strings to
 * copy; 0, or -1 with the sentence. */
int pprof_read_check(struct rd *rd);
const struct id_index *pprof_read_find_id(const struct id_index *ix, size_t n,
					  uint64_t id);
const struct id_index *pprof_read_find_loc(const struct rd *rd, uint64_t id);
int pprof_read_labels(const struct rd *rd, size_t i, struct labels *lb);
int64_t pprof_read_loc_name(const struct rd *rd, const PbLocation *l);
int64_t pprof_read_loc_file(const struct rd *rd, const PbLocation *l,
			    unsigned *line);
unsigned pprof_read_loc_start_line(const struct rd *rd, const PbLocation *l);
/* The inlined frames of location l (profile.h: struct profile_name's
 * inl): its Lines before the last, at most SYMBOLIZE_MAX_INLINE. */
size_t pprof_read_loc_ninl(const PbLocation *l);
/* Line k of location l: its function's name and file as string indexes
 * (-1: none) and its line (0: not in 1..PROFILE_MAX_LINE). */
void pprof_read_loc_line(const struct rd *rd, const PbLocation *l, size_t k,
			 int64_t *name, int64_t *file, unsigned *line);

/* pprof_read_spaces.c: the address spaces of the mappings and
 * locations (rd->map_space, loc_space, loc_map, nspaces); 0, or -1 with
 * the sentence. */
int pprof_read_spaces(struct rd *rd);
size_t pprof_read_sample_space(struct rd *rd, size_t i);
bool pprof_read_same_mapping(const struct rd *rd, const PbMapping *x,
			     const PbMapping *y);

/* pprof_read_build.c: fill out from what was checked; -1 (ENOMEM). */
int pprof_read_build(const struct rd *rd, struct profile *out);

#endif /* PTPROF_PPROF_READ_INT_H */
