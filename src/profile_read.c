/*
 * profile_read.c - parse and validate a gperftools CPU profile.
 *
 * Two passes over the bytes: the first validates every slot and counts
 * the records without allocating anything; the second copies the record
 * slots into one aligned, host-order array and points the records into it.
 * Every length read from the file is checked against the bytes left before
 * it is used.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof_read.h"
#include "profile_read.h"

#define SLOT 8u

struct parser {
	const unsigned char *data;
	size_t len;
	char *err;
	size_t errlen;
	/* results of the validating pass */
	uint64_t period_us;
	size_t recs_off;    /* first record */
	size_t trailer_off; /* trailer start */
	size_t maps_off;    /* first byte after the trailer */
	size_t nrecords;
	uint64_t total;
};

static void set_err(char *err, size_t errlen, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void set_err(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

static int fail_errno(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_errno(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_err(err, errlen, fmt, ap);
	va_end(ap);
	errno = e;
	return -1;
}

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_err(p->err, p->errlen, fmt, ap);
	va_end(ap);
	errno = EINVAL;
	return -1;
}

/* True when n whole slots are present at off (off <= len always holds). */
static bool have_slots(const struct parser *p, size_t off, size_t n)
{
	return (p->len - off) / SLOT >= n;
}

static uint64_t slot_at(const struct parser *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p->data + off, sizeof(v));
	return le64toh(v);
}

static bool hdr_count_ok(uint64_t hwords)
{
	return hwords >= 3 && hwords <= PROFILE_READ_MAX_HDR;
}

static int parse_header(struct parser *p)
{
	uint64_t hwords;
	size_t need;

	if (p->len == 0)
		return fail(p, "empty profile at byte 0: no header");
	if (!have_slots(p, 0, 2))
		return fail(p, "truncated header at byte 0: file ends at byte %zu",
			    p->len);
	if (slot_at(p, 0) != 0)
		return fail(p, "bad header at byte 0: not a 64-bit little-endian CPU profile (header count is %llu, must be 0)",
			    (unsigned long long)slot_at(p, 0));
	hwords = slot_at(p, SLOT);
	if (!hdr_count_ok(hwords))
		return fail(p, "bad header at byte 8: header slot count is %llu, must be 3 to %d%s",
			    (unsigned long long)hwords, PROFILE_READ_MAX_HDR,
			    hdr_count_ok(__builtin_bswap64(hwords)) ?
			    " (a big-endian profile?)" : "");
	need = (2 + (size_t)hwords) * SLOT;
	if (!have_slots(p, 0, 2 + (size_t)hwords))
		return fail(p, "truncated header at byte 0: need %zu bytes, file ends at byte %zu",
			    need, p->len);
	if (slot_at(p, 2 * SLOT) != 0)
		return fail(p, "bad header at byte 16: format version is %llu, must be 0",
			    (unsigned long long)slot_at(p, 2 * SLOT));
	p->period_us = slot_at(p, 3 * SLOT);
	if (p->period_us == 0)
		return fail(p, "bad header at byte 24: sampling period is 0");
	p->recs_off = need;
	return 0;
}

/*
 * Check the record (or trailer) at off.  Returns its size in bytes, 0 when
 * it is the trailer, or -1 on error.
 */
static long check_record(struct parser *p, size_t off)
{
	uint64_t count, npcs;

	if (off == p->len)
		return fail(p, "missing trailer at byte %zu: file ends after the last record",
			    off);
	if (!have_slots(p, off, 2))
		return fail(p, "truncated record at byte %zu: need 16 bytes for the counts, file ends at byte %zu",
			    off, p->len);
	count = slot_at(p, off);
	npcs = slot_at(p, off + SLOT);
	if (count == 0 && npcs == 1) {
		if (!have_slots(p, off, 3))
			return fail(p, "truncated trailer at byte %zu: file ends at byte %zu",
				    off, p->len);
		if (slot_at(p, off + 2 * SLOT) == 0)
			return 0;
	}
	if (count == 0)
		return fail(p, "bad record at byte %zu: sample count is 0", off);
	if (npcs == 0)
		return fail(p, "bad record at byte %zu: PC count is 0", off);
	if (npcs > PROFILE_READ_MAX_PCS)
		return fail(p, "bad record at byte %zu: PC count %llu exceeds %d",
			    off, (unsigned long long)npcs,
			    PROFILE_READ_MAX_PCS);
	if (!have_slots(p, off, 2 + (size_t)npcs))
		return fail(p, "truncated record at byte %zu: expected %llu PCs, file ends at byte %zu",
			    off, (unsigned long long)npcs, p->len);
	if (slot_at(p, off + 2 * SLOT) == 0)
		return fail(p, "bad record at byte %zu: first PC is 0 but the record is not the trailer",
			    off);
	if (p->total + count < p->total)
		return fail(p, "bad record at byte %zu: sum of sample counts overflows",
			    off);
	p->total += count;
	return (long)((2 + npcs) * SLOT);
}

static int check_records(struct parser *p)
{
	size_t off = p->recs_off;
	long n;

	while ((n = check_record(p, off)) > 0) {
		off += (size_t)n;
		p->nrecords++;
	}
	if (n < 0)
		return -1;
	p->trailer_off = off;
	p->maps_off = off + 3 * SLOT;
	return 0;
}

static size_t skip_hex(const char *s, size_t i, size_t n)
{
	while (i < n && ((s[i] >= '0' && s[i] <= '9') ||
			 (s[i] >= 'a' && s[i] <= 'f') ||
			 (s[i] >= 'A' && s[i] <= 'F')))
		i++;
	return i;
}

/* "START-END PERMS OFFSET" with hex numbers and 4 permission letters. */
static bool maps_line_ok(const char *s, size_t n)
{
	size_t i, j;

	i = skip_hex(s, 0, n);
	if (i == 0 || i >= n || s[i] != '-')
		return false;
	j = skip_hex(s, ++i, n);
	if (j == i || j >= n || s[j] != ' ')
		return false;
	for (i = j + 1; i < j + 5; i++)
		if (i >= n || !strchr("rwxsp-", s[i]))
			return false;
	if (i >= n || s[i] != ' ')
		return false;
	j = skip_hex(s, ++i, n);
	return j > i && (j == n || s[j] == ' ');
}

static bool maps_has_line(const char *s, size_t n)
{
	const char *nl;
	size_t ll;

	while (n) {
		nl = memchr(s, '\n', n);
		ll = nl ? (size_t)(nl - s) : n;
		if (maps_line_ok(s, ll))
			return true;
		if (!nl)
			break;
		s += ll + 1;
		n -= ll + 1;
	}
	return false;
}

static int check_maps(struct parser *p)
{
	const char *text = (const char *)p->data + p->maps_off;
	size_t n = p->len - p->maps_off;
	const char *nul;

	nul = memchr(text, '\0', n);
	if (nul)
		return fail(p, "bad maps text at byte %zu: NUL byte",
			    p->maps_off + (size_t)(nul - text));
	if (n && !maps_has_line(text, n))
		return fail(p, "bad maps text at byte %zu: no parseable mapping line",
			    p->maps_off);
	return 0;
}

/* Second pass: copy the slots and point the records into them. */
static int build(const struct parser *p, struct profile *out)
{
	size_t nslots = (p->trailer_off - p->recs_off) / SLOT;
	size_t mlen = p->len - p->maps_off;
	uint64_t *st;
	size_t i, k;

	st = malloc(nslots ? nslots * SLOT : 1);
	out->records = calloc(p->nrecords ? p->nrecords : 1,
			      sizeof(*out->records));
	out->maps_text = malloc(mlen + 1);
	out->storage_ = st;
	if (!st || !out->records || !out->maps_text)
		return -1;
	for (i = 0; i < nslots; i++)
		st[i] = slot_at(p, p->recs_off + i * SLOT);
	for (i = 0, k = 0; i < p->nrecords; i++) {
		out->records[i].count = st[k];
		out->records[i].npcs = (size_t)st[k + 1];
		out->records[i].pcs = &st[k + 2];
		k += 2 + (size_t)st[k + 1];
	}
	memcpy(out->maps_text, p->data + p->maps_off, mlen);
	out->maps_text[mlen] = '\0';
	out->maps_len = mlen;
	out->nrecords = p->nrecords;
	out->period_us = p->period_us;
	out->total_samples = p->total;
	return 0;
}

int profile_parse(const void *data, size_t len, struct profile *out,
		  char *err, size_t errlen)
{
	struct parser p = {
		.data = data, .len = len, .err = err, .errlen = errlen,
	};

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (parse_header(&p) || check_records(&p) || check_maps(&p))
		return -1;
	if (build(&p, out)) {
		profile_free(out);
		return fail_errno(err, errlen, ENOMEM, "out of memory");
	}
	return 0;
}

static int too_big(char *err, size_t errlen)
{
	return fail_errno(err, errlen, EFBIG, "file is larger than %lu bytes",
			  (unsigned long)PROFILE_READ_MAX_BYTES);
}

/*
 * Read all of fd into *bufp.  The buffer never grows past
 * PROFILE_READ_MAX_BYTES + 1: one byte more than allowed tells "too big".
 */
static int read_all(int fd, size_t hint, unsigned char **bufp, size_t *lenp,
		    char *err, size_t errlen)
{
	size_t max = PROFILE_READ_MAX_BYTES + 1, len = 0;
	size_t cap = hint < (1 << 16) ? (1 << 16) : hint + 1;
	unsigned char *buf = malloc(cap), *nb;
	ssize_t n;

	if (!buf)
		return fail_errno(err, errlen, ENOMEM, "out of memory");
	for (;;) {
		if (len == cap) {
			cap = cap > max / 2 ? max : cap * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return fail_errno(err, errlen, ENOMEM,
						  "out of memory");
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			return fail_errno(err, errlen, e, "read error at byte %zu: %s",
					  len, strerror(e));
		}
		len += (size_t)n;
		if (len == max) {
			free(buf);
			return too_big(err, errlen);
		}
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

int profile_read_file(const char *path, struct profile *out, char *err,
		      size_t errlen)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t len = 0, hint = 0;
	int fd, rc, e;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return fail_errno(err, errlen, e, "cannot open: %s",
				  strerror(e));
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > PROFILE_READ_MAX_BYTES) {
			close(fd);
			return too_big(err, errlen);
		}
		hint = (size_t)st.st_size;
	}
	rc = read_all(fd, hint, &buf, &len, err, errlen);
	e = errno;
	close(fd);
	if (rc) {
		errno = e;
		return -1;
	}
	if (pprof_detect(buf, len))
		rc = pprof_parse(buf, len, out, err, errlen);
	else
		rc = profile_parse(buf, len, out, err, errlen);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->records);
	free(p->maps_text);
	free(p->storage_);
	memset(p, 0, sizeof(*p));
}
