/*
 * fuzz_profile_merge.c - libFuzzer target for profile_merge().
 *
 * The input is two profiles: its first two bytes (little-endian) say how
 * long the first is, the rest is the second; each is parsed by the
 * reader its first bytes call for (profile_format_of()).  When both
 * parse, three parts are merged: the first, the second, and the first
 * parsed once more (its spaces are those of the first: shared, unless
 * hostile names make them differ).  Every promise of profile_merge.h is
 * checked against the parts as read: the records in part order, each
 * with its count and PCs, in a space whose maps text is its own space's
 * in its file, every address the file names named so in the merge, the
 * names sorted, the totals added up.  Parts that cannot be added up
 * (periods, kinds) must be refused with EINVAL, one line, and be left as
 * they were.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "profile/pprof_read.h"
#include "profile/profile.h"
#include "profile/profile_merge.h"
#include "profile/profile_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define NPARTS 3

static int parse(const uint8_t *d, size_t len, struct profile *p)
{
	char err[256];

	if (profile_format_of(d, len) == PROFILE_PPROF)
		return pprof_read_parse(d, len, p, err, sizeof(err));
	return profile_read_parse(d, len, p, err, sizeof(err));
}

/* Whether the text of space s of a equals that of space t of b. */
static int same_text(const struct profile *a, size_t s, const struct profile *b,
		     size_t t)
{
	size_t la, lb;
	const char *x = profile_space_maps(a, s, &la);
	const char *y = profile_space_maps(b, t, &lb);

	return la == lb && (!la || !memcmp(x, y, la));
}

/* Whether src names addr of space s by some entry as m names it. */
static int name_kept(const struct profile *src, size_t s, uint64_t addr,
		     const struct profile_name *got)
{
	for (size_t i = 0; i < src->nnames; i++)
		if (src->names[i].space == s && src->names[i].addr == addr &&
		    got && !strcmp(src->names[i].name, got->name))
			return 1;
	return 0;
}

static void check_merge(const struct profile *src, const struct profile *m)
{
	size_t k = 0;
	uint64_t total = 0;

	for (int i = 0; i < NPARTS; i++) {
		total += src[i].total_samples;
		for (size_t r = 0; r < src[i].nrecords; r++, k++) {
			const struct profile_record *a = &src[i].records[r];
			const struct profile_record *b = &m->records[k];

			if (k >= m->nrecords)
				fuzz_violation("records lost in the merge");
			if (a->count != b->count || a->npcs != b->npcs ||
			    memcmp(a->pcs, b->pcs, a->npcs * sizeof(*a->pcs)))
				fuzz_violation("a record changed in the merge");
			if (b->space >= profile_nspaces(m) ||
			    !same_text(&src[i], a->space, m, b->space))
				fuzz_violation(
					"a record's space lost its maps");
			for (size_t j = 0; j < a->npcs && src[i].nnames; j++)
				if (profile_name_at(&src[i], a->space,
						    a->pcs[j]) &&
				    !name_kept(&src[i], a->space, a->pcs[j],
					       profile_name_at(m, b->space,
							       a->pcs[j])))
					fuzz_violation("an address renamed");
		}
	}
	if (k != m->nrecords || total != m->total_samples)
		fuzz_violation("records or samples added in the merge");
	for (size_t i = 1; i < m->nnames; i++)
		if (profile_name_cmp(&m->names[i - 1], &m->names[i]) > 0)
			fuzz_violation("names not sorted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct profile parts[NPARTS], keep[NPARTS], m;
	const char *labels[NPARTS] = { "a", "b", "a2" };
	char err[256];
	size_t l1;
	int ok = 1;

	if (len < 2)
		return 0;
	memset(parts, 0, sizeof(parts)); /* those not parsed: freed zeroed */
	l1 = (size_t)(data[0] | data[1] << 8);
	if (l1 > len - 2)
		return 0;
	ok = parse(data + 2, l1, &parts[0]) == 0;
	ok = ok && parse(data + 2 + l1, len - 2 - l1, &parts[1]) == 0;
	ok = ok && parse(data + 2, l1, &parts[2]) == 0;
	if (!ok) {
		for (int i = 0; i < NPARTS; i++)
			profile_free(&parts[i]);
		return 0;
	}
	/* A second reading of each part, the promises' reference. */
	for (int i = 0; i < NPARTS; i++)
		if (parse(i == 1 ? data + 2 + l1 : data + 2,
			  i == 1 ? len - 2 - l1 : l1, &keep[i]))
			fuzz_violation("a profile parsed once, not twice");
	if (profile_merge(parts, labels, NPARTS, &m, err, sizeof(err)) == 0) {
		check_merge(keep, &m);
		profile_free(&m);
	} else {
		if (errno != EINVAL && errno != ENOMEM && errno != EOVERFLOW)
			fuzz_violation("merge failed with another errno");
		if (!err[0] || strchr(err, '\n'))
			fuzz_violation("no one-line message");
		if (parts[1].nrecords != keep[1].nrecords)
			fuzz_violation("a refused part was changed");
		for (int i = 0; i < NPARTS; i++)
			profile_free(&parts[i]);
	}
	for (int i = 0; i < NPARTS; i++)
		profile_free(&keep[i]);
	return 0;
}
