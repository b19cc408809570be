/*
 * livename.h - the names of a live run's PCs, for ptprof top.
 *
 * A stack the sampler hands over (sampler_config.on_stack) is named
 * while the target runs, frame by frame, the way report.h names a
 * profile's: the function (demangled), "MODULE+0xOFFSET" when the module
 * has no symbol there, "0xADDRESS" outside every mapping; JIT code from
 * the process's perf map as "NAME [jit]"; a Python frame (pyframes.h) as
 * "QUALNAME (FILE:FIRSTLINE) [py]".  The leaf is looked up at its PC,
 * callers at PC-1 (return addresses).  A PC in code the compiler
 * inlined names several frames, as report.h says: livename_frames()
 * gives each function inlined there, "NAME (inline)", then the function
 * that holds it (not after livename_no_inline()).
 *
 * Each image (procset.h) gets a symbolizer over its maps, opened through
 * /proc/PID/root and its map_files while that process lives and still is
 * that image (as the pprof writer opens them), the files shared by all
 * images (symcache).  The maps grow as the target loads libraries: an
 * address no mapping of the symbolizer holds makes it be built again
 * from the image's maps, at most once a second per image; the perf map
 * is read again, as often, when it does not name a JIT address.
 *
 * Each (image, address) is named once and cached, but for one nothing
 * names yet (a bare "0xADDRESS": a library loaded since the symbolizer
 * was built, JIT code not yet in the perf map), which is named anew each
 * time, so that it gets its name once the rebuild above finds it.  The
 * cache holds at most LIVENAME_MAX_ADDRS addresses: when full it is
 * emptied and filled again (JIT code over hours), so memory stays
 * bounded.
 *
 * Contract: not thread-safe, never prints or exits.  Loading a file's
 * symbols the first time takes as long as it takes (one libelf read):
 * the caller decides when to ask.  The strings livename_get() gives stay
 * valid until the next livename_get() or livename_free().  Failures: NULL
 * or -1 with errno (ENOMEM; EINVAL for a NULL argument).
 */
#ifndef PTPROF_LIVENAME_H
#define PTPROF_LIVENAME_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/procset.h"
#include "python/pyframes.h"
#include "symbols/symbolize.h"

#define LIVENAME_MAX_ADDRS (1u << 20)

/* The most frames one PC names: its function and those inlined there. */
#define LIVENAME_MAX_FRAMES (1 + SYMBOLIZE_MAX_INLINE)

struct livename;

/* Names for the images of ps (borrowed for the run); py: the registry
 * the sampler interns Python frames into (NULL: none). */
struct livename *livename_new(const struct procset *ps,
			      const struct pyframes *py);
void livename_free(struct livename *ln);

/* The name of pc of image im (caller: a return address, looked up at
 * pc-1) into *name, and the basename of its module into *module (NULL:
 * none, as for JIT code and Python frames).  0, or -1 with errno. */
int livename_get(struct livename *ln, const struct proc_image *im, uint64_t pc,
		 bool caller, const char **name, const char **module);

/* The frames pc of image im names (caller: as above), innermost first:
 * the functions inlined at it, then its own function, the one
 * livename_get() names; their names into names[] and the basenames of
 * their modules into modules[] (the inlined ones' the module of the
 * function that holds them), at most max (when there are more, the
 * innermost inlined ones are left out).  How many, at least 1, or -1 with errno (EINVAL: max 0).
 * Strings valid as livename_get()'s. */
int livename_frames(struct livename *ln, const struct proc_image *im,
		    uint64_t pc, bool caller, const char **names,
		    const char **modules, size_t max);

/* From now on no frames for inlined functions (ptprof top --no-inline):
 * the addresses named before keep theirs. */
void livename_no_inline(struct livename *ln);

/* Addresses named so far (the cache's size). */
size_t livename_cached(const struct livename *ln);

#endif /* PTPROF_LIVENAME_H */
