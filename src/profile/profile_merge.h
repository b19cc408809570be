/*
 * profile_merge.h - several profiles of one program as one (ptprof
 * report A B C): the files of a rotated recording, or runs to be added
 * up, in either format or both.
 *
 * The merge is every part's records, in part order, each copied whole
 * (every field a record has), its address space (profile.h) renumbered:
 * each part's spaces come after the previous parts', so every record
 * keeps the maps lines its own file gave its addresses.  Spaces whose
 * maps text is the same bytes (the rotated files of one process, two runs
 * of one binary without ASLR) become one, so the report makes one
 * symbolizer for them, not one a file, unless the parts give one address
 * of such a space different names (the names a pprof writer gave its
 * Python frames' or JIT code's addresses are its run's own): then the
 * later part keeps a space of its own, so that each address keeps the
 * name its file gave it.  The names (profile.names) are merged likewise,
 * kept sorted by space and address.  Totals add up; threads and
 * processes are true when a part's are; pid is the one every part that
 * names a process names (else 0).  Sample times (time_ns) are kept as
 * they are (since the epoch); time_nanos is the earliest part's start and
 * duration_nanos runs to the latest part's end, so --from/--to and the
 * time strip of a merge count from its first file's start.
 *
 * Parts that cannot be added up are refused: different sampling periods
 * (a sample of one would weigh more than one of the other; 0, a period
 * the file does not give, is a period like any other), or different
 * kinds (profile.kind: a "wall" profile and a "cpu" one; a file that
 * does not say, a legacy one, goes with any kind).  The sentence names
 * the two parts by their labels.
 *
 * Contract: never prints or exits.  On success the parts are moved into
 * *out (each zeroed; profile_free(out) frees everything) and 0 returned;
 * one part is moved as it is.  On failure *out is zeroed, the parts are
 * left as they were (the caller frees them), and -1 returned with errno
 * (EINVAL: the parts cannot be added up, or a record names a space its
 * part lacks; EOVERFLOW: the samples add up past 2^64 - 1; ENOMEM) and
 * one sentence in err (err may be NULL or errlen 0).
 */
#ifndef PTPROF_PROFILE_MERGE_H
#define PTPROF_PROFILE_MERGE_H

#include <stddef.h>

#include "profile/profile.h"

/* Spaces of equal text a part's space is tried against before it gets
 * one of its own (their names conflict with its). */
#define PROFILE_MERGE_MAX_TRIES 8

int profile_merge(struct profile *parts, const char *const *labels, size_t n,
		  struct profile *out, char *err, size_t errlen);

/* Whether a and b can be added up (period and kind); if not, one
 * sentence naming them by la and lb in err, errno EINVAL and -1. */
int profile_merge_check(const struct profile *a, const char *la,
			const struct profile *b, const char *lb, char *err,
			size_t errlen);

#endif /* PTPROF_PROFILE_MERGE_H */
