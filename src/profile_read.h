/*
 * profile_read.h - reader of gperftools CPU profiles (legacy pprof format).
 *
 * profile_read_file() also reads pprof protobuf profiles (pprof_read.h):
 * a file that starts with the gzip magic (1f 8b), or with the byte 0a of
 * an uncompressed protobuf, is handed to pprof_parse(), which fills the
 * same struct profile, thread labels included.  What follows is about the
 * legacy format.
 *
 * Reads what profile_out.h writes (64-bit little-endian slots only) and
 * validates every field against the format: header 0, >=3, 0, period, ...;
 * records with count >= 1 and 1 <= npcs <= PROFILE_READ_MAX_PCS; the
 * trailer 0, 1, 0; then the maps text, kept verbatim.
 *
 * What is rejected, beyond the format's own "must"s: an empty input; a
 * period of 0; a header with more than PROFILE_READ_MAX_HDR slots after
 * slot 1 (extra slots up to that are skipped, as pprof does; the padding
 * slot is not checked); a record whose first PC is 0 that is not exactly
 * the trailer (pprof would stop reading there); sample counts whose sum
 * overflows 64 bits; maps text holding a NUL byte; and maps text that is
 * not empty but has no line of the form "START-END PERMS OFFSET ..." with
 * hex numbers (other unparseable lines are kept, as the format says tools
 * ignore them).  Empty maps text is accepted (nothing can be symbolized).
 *
 * Contract: never prints or exits.  On a malformed file the functions
 * return -1, set errno (EINVAL for bad content, EFBIG for a file larger
 * than PROFILE_READ_MAX_BYTES, or the I/O errno) and write one
 * human-readable sentence (no trailing newline) into err naming what is
 * wrong and at which byte offset, e.g. "truncated record at byte 40:
 * expected 3 PCs".  Record errors name the offset where the record starts;
 * header and maps errors name the offset of the offending slot or byte.
 * The reader never trusts a length from the file before checking it
 * against the bytes actually present, so a hostile file cannot make it
 * allocate or loop without bound.  Records with identical chains are NOT
 * merged; they are kept in file order.
 *
 * On failure *out is zeroed and owns nothing; on success the caller frees
 * it with profile_free() (which also accepts a zeroed profile).  err may be
 * NULL or errlen 0 when no message is wanted.
 */
#ifndef PTPROF_PROFILE_READ_H
#define PTPROF_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_READ_MAX_PCS 4096
#define PROFILE_READ_MAX_HDR 64		 /* header slots after slot 1 */
#define PROFILE_READ_MAX_BYTES (1UL << 30) /* profile_read_file() limit */

struct profile_record {
	uint64_t count;
	size_t npcs;
	const uint64_t *pcs; /* leaf first; points into profile storage */
	int64_t tid;	     /* pprof input: thread_id label, else 0 */
	const char *thread;  /* pprof input: thread_name label, else NULL */
};

struct profile {
	uint64_t period_us;
	struct profile_record *records;
	size_t nrecords;
	uint64_t total_samples; /* sum of counts */
	char *maps_text;	/* NUL-terminated copy of the maps section */
	size_t maps_len;
	bool threads;		/* pprof input: records can carry threads */
	void *storage_;		/* private */
};

/* Parse a profile held in memory (data, len bytes; data may be unaligned). */
int profile_parse(const void *data, size_t len, struct profile *out,
		  char *err, size_t errlen);

/* Read and parse a file (regular file, pipe or device), of either format. */
int profile_read_file(const char *path, struct profile *out, char *err,
		      size_t errlen);

void profile_free(struct profile *p);

#endif /* PTPROF_PROFILE_READ_H */
