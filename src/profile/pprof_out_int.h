/*
 * pprof_out_int.h - what the pprof writer's files share (pprof_out.c:
 * the builder, the samples, the header, gzip and the file;
 * pprof_out_tab.c: the mapping, location and function tables).
 *
 * The builder's chains, and the messages of one write made in an arena
 * (struct pb): pprof_out_alloc() and pprof_out_str() set pb->oom when
 * they fail, and everything is freed at once when the write ends.  Not
 * for anything but these two files.
 */
#ifndef PTPROF_PPROF_OUT_INT_H
#define PTPROF_PPROF_OUT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/pprof_out.h"
#include "profile/profile.pb-c.h"
#include "profile/stacktab.h"
#include "symbols/framename.h"
#include "symbols/symbolize.h"

/* A chain's head: the image's key, the thread's, the time slot's and
 * the wait's, before the PCs. */
#define CHAIN_HEAD 4
_Static_assert(STACKTAB_MAX_DEPTH + CHAIN_HEAD <= STACKTAB_MAX_CHAIN,
	       "a stacktab keeps the deepest stack and its head");
/* The image index of a stack handed without one. */
#define NO_IMAGE PPROF_OUT_NO_IMAGE

struct pprof_out {
	struct stacktab *tab;  /* [image, thread, slot, wait, pc0, ...] ->
				  samples */
	struct strpool *names; /* thread names */
	unsigned max_depth;
	bool failed; /* an add ran out of memory */
	uint64_t chain[STACKTAB_MAX_DEPTH + CHAIN_HEAD];
};

/* The key slots: never 0 (stacktab would cut the chain there). */
static inline uint64_t image_key(const struct sample_origin *from)
{
	return (uint64_t)(from->image ? from->image->index : NO_IMAGE) + 1;
}

static inline uint32_t key_image(const uint64_t *chain)
{
	return (uint32_t)(chain[0] - 1);
}

static inline uint64_t thread_key(int64_t name, pid_t tid)
{
	return ((uint64_t)(name + 1) << 32) | (uint32_t)tid;
}

static inline pid_t key_tid(const uint64_t *chain)
{
	return (pid_t)(uint32_t)chain[1];
}

static inline size_t key_name(const uint64_t *chain)
{
	return (size_t)(chain[1] >> 32) - 1;
}

/* The slot of a time: its number plus 1 (0 would cut the chain); 1 for
 * an unknown time (0) or one before the epoch. */
static inline uint64_t time_key(int64_t time_ns)
{
	return time_ns > 0 ? (uint64_t)time_ns / PPROF_OUT_SLOT_NS + 1 : 1;
}

/* The "time" label of a chain: its slot's start, 0 for none. */
static inline int64_t key_time(const uint64_t *chain)
{
	return (int64_t)((chain[2] - 1) * PPROF_OUT_SLOT_NS);
}

/* The wait's slot (sample_origin.wait, wait_holder): the kind plus 1
 * (0 would cut the chain) in the low byte, the holder's TID above. */
static inline uint64_t wait_key(enum wait_kind kind, pid_t holder)
{
	return ((uint64_t)(uint32_t)(holder > 0 ? holder : 0) << 8) |
	       (((uint64_t)kind & 0xff) + 1);
}

static inline enum wait_kind key_wait(const uint64_t *chain)
{
	return (enum wait_kind)((chain[3] & 0xff) - 1);
}

static inline pid_t key_holder(const uint64_t *chain)
{
	return (pid_t)(uint32_t)(chain[3] >> 8);
}

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/* An image's mappings: pb->ents[first .. first + n). */
struct img_maps {
	size_t first, n;
	bool used; /* it has samples */
};

/* A location: an address in one image. */
struct loc_key {
	uint32_t image;
	uint64_t addr;
};

struct pb {
	const struct pprof_out *b;
	const struct procset *ps;
	const struct pprof_meta *meta;
	PbProfile prof;
	struct strpool *strs;	   /* the string table */
	struct strpool *funcs;	   /* "module\nfunction" -> function id */
	struct symcache *symcache; /* the images' files, loaded once */
	void **blocks;		   /* the arena: every allocation below */
	size_t nblocks, capblocks;
	bool oom;
	/* the mappings, and their map entries, in the same order */
	const struct map_entry **ents;
	struct img_maps *imgs; /* per image of ps */
	size_t nimgs;
	/* distinct locations, sorted: location i has id i+1 */
	struct loc_key *locs;
	size_t nlocs;
	size_t capfuncs;
	/* the perf map of the image being named (framename.h) */
	struct framename_jit jit;
	uint32_t jit_img;
	PbValueType types[2], period_type;
	PbValueType *type_ptrs[2];
	int64_t comment;
	int64_t k_thread_id, k_thread_name, k_process_id, k_process_name;
	int64_t k_time, k_nanoseconds, k_wait, k_wait_holder;
};

/* The image of a stack, or NULL (none given, or not in the set). */
static inline const struct proc_image *image_of(const struct pb *pb, uint32_t i)
{
	return i < pb->nimgs ? procset_at(pb->ps, i) : NULL;
}

/* Location addresses: the leaf as sampled, callers at their return
 * address minus 1 (inside the call instruction). */
static inline uint64_t loc_addr(const uint64_t *chain, size_t i)
{
	return framename_addr(chain[i], i > CHAIN_HEAD);
}

/* n zeroed elements of size bytes in pb's arena; NULL (pb->oom) on
 * ENOMEM. */
void *pprof_out_alloc(struct pb *pb, size_t n, size_t size);

/* The string table index of s (0 with pb->oom set on ENOMEM). */
int64_t pprof_out_str(struct pb *pb, const char *s);

/* The mappings of the images with samples: prof.mapping, and pb->ents
 * and pb->imgs.  0, or -1 (ENOMEM). */
int pprof_out_tab_mappings(struct pb *pb);

/* The locations of every stack, named (and the functions they name):
 * prof.location, prof.function.  0, or -1 (ENOMEM). */
int pprof_out_tab_locations(struct pb *pb);

/* The location id of addr of image img (0: none). */
uint64_t pprof_out_tab_location_id(const struct pb *pb, uint32_t img,
				   uint64_t addr);

#endif /* PTPROF_PPROF_OUT_INT_H */
