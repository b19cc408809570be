/*
 * profile_load.c - read a profile file and hand it to its reader (see
 * profile_load.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/pprof_read.h"
#include "profile/profile_load.h"
#include "profile/profile_read.h"
#include "util/errbuf.h"
#include "util/safeopen.h"

static int profile_load_too_big(char *err, size_t errlen)
{
	return errbuf_fail(err, errlen, EFBIG, "file is larger than %lu bytes",
			   (unsigned long)PROFILE_LOAD_MAX_BYTES);
}

/* Grow buf (cap bytes) towards max; -1 with ENOMEM. */
static int profile_load_grow(unsigned char **buf, size_t *cap, size_t max,
			     char *err, size_t errlen)
{
	size_t ncap = *cap > max / 2 ? max : *cap * 2;
	unsigned char *nb = realloc(*buf, ncap);

	if (!nb)
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	*buf = nb;
	*cap = ncap;
	return 0;
}

/*
 * Read all of fd into *bufp.  The buffer never grows past
 * PROFILE_LOAD_MAX_BYTES + 1: one byte more than allowed tells "too big".
 */
static int profile_load_fd(int fd, size_t hint, unsigned char **bufp,
			   size_t *lenp, char *err, size_t errlen)
{
	size_t max = PROFILE_LOAD_MAX_BYTES + 1, len = 0;
	size_t cap = hint < (1 << 16) ? (1 << 16) : hint + 1;
	unsigned char *buf = malloc(cap);
	ssize_t n;
	int e;

	if (!buf)
		return errbuf_fail(err, errlen, ENOMEM, "out of memory");
	for (;;) {
		if (len == cap &&
		    profile_load_grow(&buf, &cap, max, err, errlen))
			break;
		n = read(fd, buf + len, cap - len);
		if (n == 0) {
			*bufp = buf;
			*lenp = len;
			return 0;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			errbuf_fail(err, errlen, e,
				    "read error at byte %zu: %s", len,
				    strerror(e));
			break;
		}
		len += (size_t)n;
		if (len == max) {
			profile_load_too_big(err, errlen);
			break;
		}
	}
	e = errno;
	free(buf);
	errno = e;
	return -1;
}

/*
 * Open path and read it all; a regular file's size is checked first.
 * O_PATH first (util/safeopen.h), as every path ptprof opens on someone's
 * word: a regular file or a pipe ("ptprof report /dev/stdin", a shell's
 * <(...)) is read; a device is refused before its driver's open runs.
 */
static int profile_load_bytes(const char *path, unsigned char **buf,
			      size_t *len, char *err, size_t errlen)
{
	struct stat st = { 0 };
	size_t hint = 0;
	int fd, rc, e;

	fd = safeopen_read(AT_FDCWD, path, SAFEOPEN_FIFO, 0, &st);
	/* EINVAL: st is what the O_PATH descriptor is */
	if (fd < 0 && errno == EINVAL && S_ISDIR(st.st_mode))
		return errbuf_fail(err, errlen, EISDIR, "cannot open: %s",
				   strerror(EISDIR));
	if (fd < 0 && errno == EINVAL)
		return errbuf_fail(err, errlen, EINVAL,
				   "cannot open: not a regular file or a pipe");
	if (fd < 0) {
		e = errno;
		return errbuf_fail(err, errlen, e, "cannot open: %s",
				   strerror(e));
	}
	if (S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > PROFILE_LOAD_MAX_BYTES) {
			close(fd);
			return profile_load_too_big(err, errlen);
		}
		hint = (size_t)st.st_size;
	}
	rc = profile_load_fd(fd, hint, buf, len, err, errlen);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int profile_load_file(const char *path, struct profile *out, char *err,
		      size_t errlen)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int rc, e;

	memset(out, 0, sizeof(*out));
	if (profile_load_bytes(path, &buf, &len, err, errlen))
		return -1;
	if (profile_format_of(buf, len) == PROFILE_PPROF)
		rc = pprof_read_parse(buf, len, out, err, errlen);
	else if (profile_read_adopt(buf, len, out, err, errlen) == 0)
		return 0; /* the profile holds buf now */
	else
		rc = -1;
	e = errno;
	free(buf);
	errno = e;
	return rc;
}
