/*
 * perfmap.h - names for JIT code from a perf map, /tmp/perf-PID.map.
 *
 * A runtime that generates code (V8 with --perf-basic-prof, HotSpot with
 * -XX:+DumpPerfMapAtExit or `jcmd PID Compiler.perfmap`, CPython 3.12
 * with -X perf) writes one line per piece of code, "START SIZE NAME":
 * START and SIZE in hex (with or without "0x": HotSpot writes it, V8 does
 * not), single blanks between, NAME the rest of the line, blanks and all
 * ("LazyCompile:*fib /app/x.js:3:13").  perf report reads the same file.
 *
 * Parsing: perfmap_parse() keeps the lines of that form with SIZE above 0
 * and START + SIZE not past 2^64, and skips and counts the others
 * (perfmap_malformed()); an unterminated last line is the writer's line
 * in progress and is skipped uncounted.  At most PERFMAP_MAX_LINES lines
 * are read; names are cut at PERFMAP_MAX_NAME bytes.
 *
 * Overlaps: a runtime reuses the addresses of code it freed (V8's garbage
 * collector moves code; HotSpot unloads nmethods) and appends a line for
 * the new code, so *a later line wins over an earlier one where they
 * overlap*: the address belongs to the code written last.  The table is
 * flattened into disjoint ranges once, when parsed, so a lookup is one
 * binary search.
 *
 * Opening: the file is written by the target, in a /tmp everybody can
 * write, and ptprof often runs as root, so it is read only when
 *  - it is reached without following any symlink (openat2 with
 *    RESOLVE_NO_SYMLINKS under the process's root, /proc/PID/root, where
 *    the file of a process in a container is, named by its PID in its own
 *    namespace, the last NSpid of /proc/PID/status; without openat2, each
 *    component opened with O_NOFOLLOW: util/safeopen.h);
 *  - it is a regular file: it is opened with O_PATH first, and only once
 *    fstat on that descriptor has seen a regular file is it opened for
 *    reading (through /proc/self/fd: safeopen_read()), so neither a FIFO
 *    nor a device is ever opened (a device's open runs its driver:
 *    /dev/watchdog's starts a watchdog);
 *  - where the process is in another mount namespace than ptprof, the
 *    process itself could read it: it is opened by a child that has
 *    taken the process's effective uid and gid and no other group
 *    (proc/rootopen.h), since a process in its own user and mount
 *    namespaces can bind-mount a file only root may read (/etc/shadow)
 *    over its map;
 *  - it is owned by the uid expected (the target's effective uid, or ours
 *    when reading after the target is gone), root's files not otherwise
 *    (a map a process did not write is none of its names), and it is not
 *    writable by its group or by others;
 *  - it is at most PERFMAP_MAX_BYTES long (checked with fstat before a
 *    byte is read; a larger file is refused, not cut).
 * It is read with read(2) into our memory, never mapped (a target that
 * truncates it would SIGBUS us: modcache.h).
 *
 * Contract: never prints or exits; not thread-safe.  Every refusal fills
 * err with one sentence naming the file and the reason, and returns NULL
 * with errno: ENOENT (no file: the runtime was not asked for one, not an
 * error worth a warning), ELOOP (a symlink), EPERM (owner or mode),
 * EACCES (the process's uid may not read it), ETIMEDOUT (the child that
 * opens it did not answer in time), EFBIG (too large), EINVAL (not a
 * regular file, or no line parses), ENOMEM, or the errno of a failed open
 * or read.
 */
#ifndef PTPROF_PERFMAP_H
#define PTPROF_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERFMAP_MAX_BYTES (64u << 20) /* files past 64 MiB are refused */
#define PERFMAP_MAX_LINES (1u << 20)  /* lines read, at most (~75 MB parsed) */
#define PERFMAP_MAX_NAME 1024	      /* bytes of a name kept */

struct perfmap;

/*
 * The table of the text (len bytes, need not be NUL-terminated: hostile
 * input).  NULL with errno ENOMEM only; a text with no valid line gives
 * an empty table.
 */
struct perfmap *perfmap_parse(const char *text, size_t len);
void perfmap_free(struct perfmap *m);

/* Lines kept, and lines skipped as malformed (or past the line cap). */
size_t perfmap_count(const struct perfmap *m);
size_t perfmap_malformed(const struct perfmap *m);

/*
 * The name of the code holding addr (valid until perfmap_free()), and the
 * offset of addr in it into *off when off is not NULL; NULL when no line
 * covers addr (or m is NULL).
 */
const char *perfmap_lookup(const struct perfmap *m, uint64_t addr,
			   uint64_t *off);

/*
 * The perf map of the live process pid: /proc/PID/root/tmp/perf-NSPID.map,
 * owned by the process's effective uid (and opened with its credentials
 * when it is in another mount namespace).  One sentence into err on
 * failure (see above).
 */
struct perfmap *perfmap_load_pid(pid_t pid, char *err, size_t errlen);

/*
 * The perf map of a process that is gone (a launched COMMAND after its
 * exit, a profile reported later): /tmp/perf-PID.map in our own root,
 * owned by owner.
 */
struct perfmap *perfmap_load_gone(pid_t pid, uid_t owner, char *err,
				  size_t errlen);

/* A perf map named by the user (report --perf-map=FILE): the same
 * checks, the path's last component opened with O_NOFOLLOW; owner
 * PERFMAP_ANY_OWNER checks no owner (the user named the file). */
#define PERFMAP_ANY_OWNER ((uid_t)-1)
struct perfmap *perfmap_load_file(const char *path, uid_t owner, char *err,
				  size_t errlen);

#endif /* PTPROF_PERFMAP_H */
