/*
 * profile_read.h - reader of gperftools CPU profiles (legacy pprof format)
 * into the model of profile.h.  (profile_load.h reads a file of either
 * format; pprof_read.h reads pprof protobufs.)
 *
 * Reads what profile_out.h writes (64-bit little-endian slots only) and
 * validates every field against the format: header 0, >=3, 0, period, ...;
 * records with count >= 1 and 1 <= npcs <= PROFILE_MAX_PCS; the trailer
 * 0, 1, 0; then the maps text, kept verbatim.
 *
 * What is rejected, beyond the format's own "must"s: an empty input; a
 * period of 0; a header with more than PROFILE_READ_MAX_HDR slots after
 * slot 1 (extra slots up to that are skipped, as pprof does; the padding
 * slot is not checked); a record whose first PC is 0 that is not exactly
 * the trailer (pprof would stop reading there); sample counts whose sum
 * overflows 64 bits; maps text holding a NUL byte; and maps text that is
 * not empty but has no line that maps_parse_line() (maps.h) accepts
 * (other lines are kept, as the format says tools ignore them).  Empty
 * maps text is accepted (nothing can be symbolized).
 *
 * Contract: never prints or exits.  On a malformed profile
 * profile_read_parse() returns -1, sets errno (EINVAL for bad content,
 * ENOMEM) and writes one human-readable sentence (no trailing newline)
 * into err naming what is wrong and at which byte offset, e.g. "truncated
 * record at byte 40: expected 3 PCs".  Record errors name the offset where
 * the record starts; header and maps errors name the offset of the
 * offending slot or byte.  The reader never trusts a length from the file
 * before checking it against the bytes actually present, so a hostile
 * file cannot make it allocate or loop without bound.
 *
 * On failure *out is zeroed and owns nothing; on success the caller frees
 * it with profile_free().  err may be NULL or errlen 0 when no message is
 * wanted.
 */
#ifndef PTPROF_PROFILE_READ_H
#define PTPROF_PROFILE_READ_H

#include <stddef.h>

#include "profile/profile.h"

#define PROFILE_READ_MAX_HDR 64 /* header slots after slot 1 */

/* Parse a profile held in memory (data, len bytes; data may be unaligned). */
int profile_read_parse(const void *data, size_t len, struct profile *out,
		       char *err, size_t errlen);

/*
 * The same for bytes in a malloc()ed buffer, which the profile takes on
 * success: its records are turned into host order where they lie, not
 * copied, so a profile costs its file once, not twice (profile_free()
 * frees the buffer).  On failure the buffer is still the caller's.
 */
int profile_read_adopt(void *data, size_t len, struct profile *out, char *err,
		       size_t errlen);

#endif /* PTPROF_PROFILE_READ_H */
