/*
 * profile_read.h - reader of gperftools CPU profiles (legacy pprof format).
 *
 * Reads what profile_write.h writes (64-bit little-endian slots only) and
 * validates every field against the format: header 0, >=3, 0, period, ...;
 * records with count >= 1 and 1 <= npcs <= PROFILE_READ_MAX_PCS; the
 * trailer 0, 1, 0; then the maps text, kept verbatim.
 *
 * Contract: never prints or exits.  On a malformed file the functions
 * return -1, set errno (EINVAL for bad content, or the I/O errno) and write
 * one human-readable sentence into err naming what is wrong and at which
 * byte offset, e.g. "truncated record at byte 40: expected 3 PCs".  The
 * reader never trusts a length from the file before checking it against
 * the bytes actually present, so a hostile file cannot make it allocate
 * or loop without bound.  Records with identical chains are NOT merged.
 */
#ifndef PTPROF_PROFILE_READ_H
#define PTPROF_PROFILE_READ_H

#include <stddef.h>
#include <stdint.h>

#define PROFILE_READ_MAX_PCS 4096

struct profile_record {
	uint64_t count;
	size_t npcs;
	const uint64_t *pcs; /* leaf first; points into profile storage */
};

struct profile {
	uint64_t period_us;
	struct profile_record *records;
	size_t nrecords;
	uint64_t total_samples; /* sum of counts */
	char *maps_text;	/* NUL-terminated copy of the maps section */
	size_t maps_len;
	void *storage_;		/* private */
};

/* Parse a profile held in memory (data, len bytes). */
int profile_parse(const void *data, size_t len, struct profile *out,
		  char *err, size_t errlen);

/* Read and parse a file. */
int profile_read_file(const char *path, struct profile *out, char *err,
		      size_t errlen);

void profile_free(struct profile *p);

#endif /* PTPROF_PROFILE_READ_H */
