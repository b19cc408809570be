/*
 * profile_load.h - read a profile file of either format into the model
 * of profile.h.
 *
 * The whole file is read into memory (a regular file or a pipe:
 * "ptprof report /dev/stdin" works; a device is refused, O_PATH first:
 * util/safeopen.h), its format told from its
 * first bytes (profile_format_of()), and the bytes handed to the legacy
 * reader (profile_read.h) or the protobuf one (pprof_read.h).  This is
 * the one module that knows both readers; each reader knows profile.h
 * only, so either can be built and fuzzed without the other.
 *
 * Contract: as the readers': never prints or exits; 0, or -1 with errno
 * (the I/O errno, EFBIG for a file larger than PROFILE_LOAD_MAX_BYTES,
 * ENOMEM, or the reader's EINVAL/EFBIG) and one sentence in err (err may
 * be NULL or errlen 0).  On failure *out is zeroed; on success the caller
 * frees it with profile_free().
 */
#ifndef PTPROF_PROFILE_LOAD_H
#define PTPROF_PROFILE_LOAD_H

#include <stddef.h>

#include "profile/profile.h"

#define PROFILE_LOAD_MAX_BYTES (1UL << 30) /* of the file as read */

int profile_load_file(const char *path, struct profile *out, char *err,
		      size_t errlen);

#endif /* PTPROF_PROFILE_LOAD_H */
