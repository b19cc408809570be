/*
 * pprof_read.h - reader of pprof protobuf profiles (profile.proto), as
 * ptprof writes them (pprof_out.h) and as go tool pprof and other tools
 * do: gzipped (the format's rule), or not.
 *
 * The profile becomes the struct profile of profile.h, so that
 * ptprof report treats both formats alike: one record per sample, its
 * PCs the addresses of its locations, leaf first, the callers' plus 1
 * (a protobuf stores them already minus 1; the report subtracts 1 from
 * callers again); its count the value of the sample type samples/count
 * (else the first of unit "count", else the first); its thread from the
 * labels thread_id (number) and thread_name (string), and its process
 * from process_id (number) and process_name (string), and its wait from
 * wait (string) and wait_holder (number), when present (0 and NULL
 * otherwise); profile.threads is true for every protobuf,
 * as the format can say which thread a sample is from, and
 * profile.processes when a sample has a process_id label.  The maps text
 * is made from the mappings, one /proc/PID/maps-style line each, in
 * address order within each address space (profile.h), so that the
 * symbolizer names the PCs from the files, as for a legacy profile; the
 * protobuf's own function names are kept for what no file names, with
 * the source line of each location's first Line (profile.h).  The
 * address spaces: the mappings one sample's locations link are one group
 * (a writer of several processes gives each its own mappings); groups go
 * into the first space where none of their mappings overlaps another
 * (but for an equal one: the same file at the same place, written once),
 * so different files at one address are in different spaces, and the
 * processes of a file share a few (ASLR puts them apart); a record's
 * space is that of its locations' mappings.  Mappings no sample is in
 * are left out.  A mapping's
 * build ID goes on a brief line before its line, as in a legacy profile
 * (maps.h): the symbolizer uses only a file that carries it
 * (symbolize.h); the lines carry no inode.  period_us is
 * the period when its unit is nanoseconds or microseconds, else 0.
 * Samples with a count of 0 are skipped.
 *
 * Hostile input: the decompressed protobuf is at most PPROF_READ_MAX_BYTES,
 * and at most PPROF_READ_GZIP_RATIO times the gzip file (but may always
 * reach PPROF_READ_GZIP_FLOOR); its decoding may allocate at most
 * PPROF_READ_MEM_PER_BYTE times its size plus 1 MiB, and never more
 * than PPROF_READ_MAX_MEM.  The protobuf is scanned before it is decoded
 * (nothing allocated), so a profile over that budget, or with a sample of
 * more than PROFILE_MAX_PCS locations or more values than sample types, is
 * refused before decoding, by a sentence saying so with the counts.  So
 * the memory of reading a profile is bounded by its file.  Everything
 * that refers to something else is checked: string indexes inside the
 * string table (whose entry 0 must be ""), ids non-zero and unique, a
 * sample's locations and a location's mapping present, one value per
 * sample type, counts not negative and their sum within 64 bits, at most
 * PROFILE_MAX_PCS locations per sample and at least one, mappings
 * with start <= limit and no newline in their file name.
 *
 * Contract: as profile_read.h: never prints or exits; -1 with errno
 * (EINVAL: bad content; EFBIG: too large; ENOMEM) and one sentence in
 * err, e.g. "bad gzip data at byte 10: invalid block type"; *out zeroed
 * on failure, freed with profile_free() on success.
 */
#ifndef PTPROF_PPROF_READ_H
#define PTPROF_PPROF_READ_H

#include <stddef.h>

#include "profile/profile.h"

#define PPROF_READ_MAX_BYTES (256UL << 20) /* decompressed protobuf */
#define PPROF_READ_MAX_MEM (1UL << 30)	   /* decoding it */
#define PPROF_READ_GZIP_RATIO 100UL	   /* decompressed / gzip file */
#define PPROF_READ_GZIP_FLOOR (16UL << 20) /* allowed whatever the ratio */
#define PPROF_READ_MEM_PER_BYTE 32u /* decoding: bytes per protobuf byte */

int pprof_read_parse(const void *data, size_t len, struct profile *out,
		     char *err, size_t errlen);

#endif /* PTPROF_PPROF_READ_H */
