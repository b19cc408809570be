/*
 * outname.h - the names of a recording's output files: templates and the
 * sequence number of rotated files (--rotate, SIGUSR2; ptprof(1)).
 *
 * A name given with -o may hold directives, expanded for each file:
 *   %p  the PID of the first process sampled (-p, or COMMAND)
 *   %t  the start of the file's period, UTC, as 20261127T091500Z (sortable;
 *       one-second resolution)
 *   %n  the file's sequence number in the run, from 1, at least four
 *       digits (0001; 10000 after 9999)
 *   %%  a '%'
 * Any other '%' (one at the end too) is refused.  A run that rotates
 * writes one file per period: a name with neither %n nor %t would be the
 * same for each, so the sequence number is then appended before the
 * extension (out.prof -> out.0001.prof, out.pb.gz -> out.0001.pb.gz, a
 * name without one: out -> out.0001), as outname_expand() does when told
 * to number.  The extension is ".pb.gz" for such a name, else the last
 * '.' of the file's base name that is not its first character.
 *
 * Contract: pure string work; never prints, exits, or touches a file.
 * Failures return -1 with errno: EINVAL with one sentence in err (a bad
 * directive), ENAMETOOLONG (the name does not fit in len bytes).
 */
#ifndef PTPROF_OUTNAME_H
#define PTPROF_OUTNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct outname_vars {
	pid_t pid;	   /* %p */
	time_t start;	   /* %t: seconds since the epoch */
	unsigned long seq; /* %n: 1, 2, ... */
};

/* 0 when every '%' of name starts a known directive; else -1, EINVAL and
 * one sentence (naming the directive and its place) in err. */
int outname_check(const char *name, char *err, size_t errlen);

/* Whether name holds %n or %t: then each period's name differs. */
bool outname_unique(const char *name);

/* Whether name holds any directive (%%, %p, %n or %t). */
bool outname_is_template(const char *name);

/*
 * name with its directives expanded into out (len bytes); with number
 * set and name not outname_unique(), the sequence number appended before
 * the extension (above).  name must pass outname_check().
 */
int outname_expand(const char *name, const struct outname_vars *v, bool number,
		   char *out, size_t len);

#endif /* PTPROF_OUTNAME_H */
