/*
 * maps.h - the memory-map snapshot written after a profile's records.
 *
 * A profile is symbolized offline from the text of /proc/PID/maps, so the
 * snapshot must cover every address a sample can name, even after the
 * target has exited or unloaded a library.  struct maps keeps the union of
 * every mapping seen in the snapshots it was given: a newer snapshot
 * replaces older entries whose address range it overlaps (the range was
 * reused); older executable entries it does not overlap are kept (a
 * library dlclose()d since still names its samples), and older
 * non-executable ones are dropped (no sample can point into them).
 *
 * A kept entry is *gone*: it is written by maps_write() but invisible to
 * the lookups (maps_find, maps_find_at_or_above, maps_covers_exec), which
 * answer for the newest snapshot only.  So a PC in a range that a gone
 * library left makes the sampler read the maps again (a second library
 * may have been loaded there since) rather than be unwound with the
 * first library's tables.  When a newer snapshot maps that range again,
 * the gone entry is dropped, so the samples the first library took there
 * are named after the second one in the written maps (the legacy format
 * has one mapping per address).
 *
 * Build IDs: debugfile_maps_build_ids() (elf/debugfile.h) reads the GNU build ID of each file
 * behind an executable mapping, once, from the very file that was mapped
 * (mapfile_open_exact(): the inode must match), and a later snapshot of
 * the same mapping keeps it.  maps_write() then puts, before the line of
 * such a mapping, the line "START-END PERMS PATH (@OFFSET) BUILDID":
 * pprof's "brief" maps form, the only one whose build ID go tool pprof
 * reads.  go tool pprof gives an address to the first mapping that holds
 * it, so it takes that line and its build ID; google-pprof does not know
 * the form, skips the line and takes the /proc line after it.  A path
 * with white space in it (" (deleted)") gets no such line: the brief form
 * cannot carry it.  (Measured with both, see docs/FORMAT.md.)
 *
 * Parsing: maps_parse_line() is ptprof's one parser of maps lines, for
 * the snapshots read from /proc, the maps text of a profile and the
 * symbolizer alike.  Its input can be hostile (a profile is any file):
 * it reads only the bytes it is given and rejects, with one sentence,
 * every line that is not of the kernel's form.  maps_update() keeps the
 * lines it accepts and ignores the others (pprof's brief lines among
 * them).
 *
 * Contract: not thread-safe, never prints or exits, touches no file.
 * Functions returning int give 0, or -1 with errno (ENOMEM; EINVAL for a line that does not parse, or for
 * text that has no parseable mapping line at all).
 */
#ifndef PTPROF_MAPS_H
#define PTPROF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct maps;

/* One mapping of a struct maps, with its /proc/PID/maps line. */
struct map_entry {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset of start */
	uint64_t ino;	     /* inode of the file, 0 if none */
	uint64_t dev;	     /* makedev(MAJ, MIN) of the line (fsguard.h) */
	bool read, write, exec;
	const char *path;    /* "/usr/lib/...", "[vdso]", "" (anonymous) */
	char *line;	     /* the whole line, without the newline */
	bool gone;	     /* not in the newest snapshot (see above) */
	char *build_id;	     /* GNU build ID in hex, or NULL */
	bool build_id_tried; /* debugfile_maps_build_ids() looked */
};

/* The fields of one maps line, as maps_parse_line() finds them. */
struct maps_line {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset of start */
	uint64_t ino;	     /* inode of the file, 0 if none */
	uint64_t dev;	     /* makedev(MAJ, MIN): its filesystem */
	bool read, write, exec;
	size_t path_off; /* the path is line[path_off, len): "" if none */
};

/*
 * Parse one line of len bytes (no newline; it need not be NUL-terminated)
 * of the form the kernel writes, "START-END PERMS OFFSET MAJ:MIN INODE"
 * then the end of the line or spaces and a path, which runs to the end of
 * the line, spaces and all ("/usr/lib/x.so (deleted)").  START, END and
 * OFFSET are 1 to 16 hex digits with START below END; PERMS is
 * [r-][w-][x-][ps-]; MAJ and MIN are 1 to 8 hex digits; INODE is decimal
 * and below 2^64; single spaces separate the fields.  Returns 0, or -1
 * with errno EINVAL and one sentence in err (when err is not NULL and
 * errlen not 0) naming the column and what was expected there, e.g. "bad
 * maps line at column 15: expected permissions such as r-xp".
 */
int maps_parse_line(const char *line, size_t len, struct maps_line *out,
		    char *err, size_t errlen);

struct maps *maps_new(void);
void maps_free(struct maps *m);

/* Merge one /proc/PID/maps snapshot (text, len bytes). */
int maps_update(struct maps *m, const char *text, size_t len);

/* True when addr lies inside an executable mapping of the newest
 * snapshot. */
bool maps_covers_exec(const struct maps *m, uint64_t addr);

/* The mapping of the newest snapshot holding addr, or NULL.  Valid until
 * the next maps_update(). */
const struct map_entry *maps_find(const struct maps *m, uint64_t addr);

/* The mapping of the newest snapshot holding addr, else the lowest one
 * above it, or NULL. */
const struct map_entry *maps_find_at_or_above(const struct maps *m,
					      uint64_t addr);

/* Whether the mapping is backed by a file (its path names one). */
bool maps_entry_is_file(const struct map_entry *e);

/* Number of mappings held, gone ones included. */
size_t maps_count(const struct maps *m);

/* The i-th mapping by start address, gone ones included (i below
 * maps_count()), for a writer that lists them all. */
const struct map_entry *maps_entry(const struct maps *m, size_t i);

/*
 * Give the i-th mapping (as maps_entry() numbers them) the build ID id (a
 * malloc'd string it takes; NULL: none) and mark it looked at, for the
 * reader of build IDs, debugfile_maps_build_ids() (elf/debugfile.h).
 */
void maps_set_build_id(struct maps *m, size_t i, char *id);

/* Give dst's mappings the build IDs src has for the same mappings (same
 * address and line): for a union made of several maps' written texts.
 * A copy that fails for want of memory leaves that mapping without. */
void maps_copy_build_ids(struct maps *dst, const struct maps *src);

/* Write the mappings, gone ones included, as /proc/PID/maps lines ordered
 * by start address, each known build ID on a brief line before its
 * mapping's line (see above). */
int maps_write(const struct maps *m, FILE *f);

#endif /* PTPROF_MAPS_H */
