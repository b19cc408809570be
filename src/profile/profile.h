/*
 * profile.h - the profile model both readers fill, whatever the file's
 * format: gperftools' legacy CPU profile (profile_read.h) or pprof's
 * protobuf (pprof_read.h).  profile_load.h reads a file and picks the
 * reader; ptprof report, --threads and the folded and SVG outputs work on
 * a struct profile only.
 *
 * A profile is a list of records (a count of samples of one stack, leaf
 * first), the maps text that names the stacks' addresses (lines of
 * /proc/PID/maps, parsed by maps.h), and, from a protobuf, the thread and
 * process of each record.  Records with identical chains are not merged;
 * they are kept in file order.
 *
 * Address spaces: a protobuf of several processes (or of a process that
 * exec'd) holds several, and the same address may mean other code in
 * each (two non-PIE programs at 0x400000).  So the maps text is cut in
 * spaces, each a run of its lines, and each record belongs to one: its
 * addresses are named from its space's lines only.  A legacy profile
 * has one space (nspaces 0 stands for one space of the whole text:
 * profile_space_maps() reads either).
 *
 * Contract: never prints or exits; no state.  A reader that fails leaves
 * *out zeroed, owning nothing; a profile it filled is freed with
 * profile_free(), which also accepts a zeroed profile and zeroes what it
 * freed.  errbuf_fail() (util/errbuf.h) is the readers' one way to fail:
 * one sentence (no trailing newline) into err, errno set, -1 returned.
 */
#ifndef PTPROF_PROFILE_H
#define PTPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbolize.h"

#define PROFILE_MAX_PCS 4096 /* frames of one record, in either format */

struct profile_record {
	uint64_t count;
	size_t npcs;
	const uint64_t *pcs; /* leaf first; points into profile storage */
	int64_t tid;	     /* pprof input: thread_id label, else 0 */
	const char *thread;  /* pprof input: thread_name label, else NULL */
	int64_t pid;	     /* pprof input: process_id label, else 0 */
	const char *process; /* pprof input: process_name label, else NULL */
	size_t space;	     /* its address space, below profile_nspaces() */
	/* pprof input: the "time" label (ns since the epoch: the sample's
	 * tick, or the start of its time slot, pprof_out.h), any int64 a
	 * file gives; 0 when absent (legacy files, older protobufs) */
	int64_t time_ns;
	/* pprof input: the "wait" label (what a --wall sample's thread was
	 * blocked on, wait.h: "mutex", "io", ...; as the file gives it, to
	 * be escaped when printed), else NULL; and "wait_holder" (the TID
	 * it waited on), else 0 */
	const char *wait;
	int64_t wait_holder;
};

/* An address space's lines: maps_text[off .. off + len). */
struct profile_space {
	size_t off, len;
};

/* A name the profile itself gives an address (pprof input: a Location's
 * address and the function of its last Line, the one the others were
 * inlined into), and the source line it gives it (the file of its first
 * Line's function and that Line's line: the leaf-most of an inlined
 * chain, as a DWARF line table has it), for --lines. */
struct profile_name {
	size_t space; /* the address space it is in */
	uint64_t addr;
	const char *name; /* points into profile storage */
	const char *file; /* likewise; NULL: no source line */
	unsigned line;	  /* 1..PROFILE_MAX_LINE; 0 when file is NULL, or
			   * for a kernel frame, whose file is "[kernel]"
			   * (PYFRAMES_KERNEL_MODULE: pprof_read_loc_file()) */
	/* the start line of that Line's function (its Function's
	 * start_line: a Python function's "def" line), 1..PROFILE_MAX_LINE;
	 * 0 when unknown or file is NULL */
	unsigned start_line;
	/* pprof input: the functions inlined at addr (issue 29), its
	 * Location's Lines before the last, innermost first, as
	 * symbolizer_lookup_inline() gives them (symbolize.h): inl[0] at
	 * the address's own line (so its file and line are file and line
	 * above), inl[i] at the line of its call of inl[i-1]; func NULL
	 * when the Line's function has no name, file NULL and line 0 when
	 * unknown.  At most SYMBOLIZE_MAX_INLINE (a file's longer chain
	 * keeps the innermost); in profile storage; NULL and 0: none.
	 * With some, outer_file and outer_line are the last Line's, name's
	 * own: the line of the outermost inlined call (NULL, 0: unknown). */
	const struct symbol_frame *inl;
	size_t ninl;
	const char *outer_file;
	unsigned outer_line;
};

/* The largest source line a profile may give (as libdw's, an int). */
#define PROFILE_MAX_LINE 0x7fffffff

struct profile {
	uint64_t period_us;
	struct profile_record *records;
	size_t nrecords;
	uint64_t total_samples; /* sum of counts */
	char *maps_text;	/* NUL-terminated copy of the maps section */
	size_t maps_len;
	struct profile_space *spaces; /* NULL: one space, all of maps_text */
	size_t nspaces;
	bool threads;	/* pprof input: records can carry threads */
	bool processes; /* some record has a process_id label */
	bool times;	/* some record has a time label (time_ns not 0) */
	/* pprof input: Profile.time_nanos (the run's start, ns since the
	 * epoch) and duration_nanos, as the file gives them; else 0 */
	int64_t time_nanos, duration_nanos;
	/* pprof input: the names the file gives, sorted by space and
	 * address (the
	 * writer named them while the target lived); what report shows for
	 * an address no file it can trust names (symbolize.h). */
	struct profile_name *names;
	size_t nnames;
	/* legacy input: the PID of the process recorded, from the maps
	 * text's "ptprof-pid: PID" line (profile_out.h), else 0 */
	int64_t pid;
	/* pprof input: what a sample measures, the period type's name
	 * ("cpu", "wall"; cut to fit, bytes outside [a-z0-9_] as '?'); ""
	 * when the file does not say (legacy input) */
	char kind[16];
	void *storage_; /* private */
	/* private: the profiles merged into this one (profile_merge.h),
	 * whose storage its records and names point into */
	struct profile *parts_;
	size_t nparts_;
};

/* The line a legacy profile's maps text names its process with. */
#define PROFILE_PID_LINE "ptprof-pid: "

void profile_free(struct profile *p);

/* The name p itself gives addr of that space (p->names), or NULL. */
const char *profile_name_of(const struct profile *p, size_t space,
			    uint64_t addr);

/* The entry of p->names for addr of that space (its name and source
 * line), or NULL. */
const struct profile_name *profile_name_at(const struct profile *p,
					   size_t space, uint64_t addr);

/* Address spaces of p (at least 1), and the maps lines of space i (not
 * NUL-terminated: *len bytes; NULL and 0 for none). */
size_t profile_nspaces(const struct profile *p);
const char *profile_space_maps(const struct profile *p, size_t i, size_t *len);

/* qsort()/bsearch() order of struct profile_name: by space, address. */
int profile_name_cmp(const void *a, const void *b);

enum profile_format {
	PROFILE_LEGACY, /* anything else: the legacy reader judges it */
	PROFILE_PPROF,	/* gzip magic 1f 8b, or byte 0a first */
};

/*
 * The reader data (len bytes) is for, from its first bytes: a gzip file,
 * or a protobuf whose first field is Profile.sample_type (byte 0a), as
 * pprof's are, is PROFILE_PPROF; everything else is handed to the legacy
 * reader, whose first slot is 0.
 */
enum profile_format profile_format_of(const void *data, size_t len);

#endif /* PTPROF_PROFILE_H */
