/*
 * debuginfod.h - debug files and executables fetched by GNU build ID from
 * debuginfod servers, through elfutils' libdebuginfod (never an HTTP
 * client of ptprof's own).
 *
 * When no local debug file carries a module's build ID and the module
 * has no DWARF of its own (debugfile.h), or the file a profile names is
 * gone, ptprof asks the servers that
 * DEBUGINFOD_URLS names (gdb, eu-stack and perf follow the same
 * convention).  Only ptprof's own environment says where: a target never
 * chooses the URL.  Nothing is fetched unless the cli layer switched the
 * module on (debuginfod_setup(), not given --no-debuginfod) and
 * DEBUGINFOD_URLS is set and not empty.
 *
 * libdebuginfod is opened with dlopen() at the first fetch, as libdwfl
 * does, so that a run that fetches nothing loads neither it nor libcurl;
 * when it cannot be loaded, fetching gives up with that reason.
 *
 * The cache.  Files land in libdebuginfod's cache: DEBUGINFOD_CACHE_PATH,
 * else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client: the directory of the user who runs ptprof
 * (root's own under sudo), never anything under a target's /proc/PID/root.
 * debugfile.h trusts a debug file owned by root or by the owner of the
 * stripped file; a cache file belongs to neither, so the rule here is
 * the one for the invoking user's own files: the file must be owned by
 * ptprof's effective user, and neither it, its build-ID directory nor
 * the cache directory may be writable by group or others (the cache
 * directory itself may be root's, as /var/cache is); otherwise nobody
 * but that user (or root) could have put it there.  A cache directory
 * writable by others, owned by someone else, or that cannot be written
 * ends every fetch of the run with one reason.
 *
 * A fetched file is hostile input all the same.  It is used only if
 *   - it is a regular file (reopened by its path with safeopen_read(),
 *     the last component not followed);
 *   - at most the size bound (DEBUGINFOD_MAXSIZE when set, else
 *     DEBUGINFOD_DEFAULT_MAX_SIZE; never above DEBUGFILE_MAX_SIZE) and
 *     not sparse (debugfile_elf_begin()), as debugfile.h requires of
 *     local debug files;
 *   - it carries the very build ID asked for (checked here after the
 *     download: a server may answer with any file).
 *
 * Bounds.  libdebuginfod honours DEBUGINFOD_TIMEOUT (a server that sends
 * nothing for that long is dropped) and DEBUGINFOD_MAXSIZE; on top, the
 * whole run may spend at most DEBUGINFOD_BUDGET_NS (60 s, or
 * PTPROF_DEBUGINFOD_TIME seconds) in fetches, and a download announced
 * or grown past the size bound is stopped: both through the progress
 * callback, which libdebuginfod calls about once a second and which
 * aborts the transfer when it returns non-zero.  After the first failure
 * to reach the servers (refused, timed out, the budget spent, the cache
 * unusable) no other module is tried: one reason, not a timeout per
 * module.  A build ID asked for once and not served is not asked again.
 *
 * Reporting.  This layer never prints: debuginfod_setup() takes a hook
 * that the cli layer prints from.  It is called with DEBUGINFOD_FETCHING
 * while a download runs (bytes so far, at most about once a second),
 * DEBUGINFOD_FETCHED when a downloaded file passed the checks (nothing
 * for a file already in the cache), DEBUGINFOD_REFUSED when one module's
 * file was refused (why), DEBUGINFOD_GAVE_UP once when fetching stops for
 * the run (why).  A module's path and the reasons may hold a target's
 * bytes: escape them before printing (textsafe.h).
 *
 * Contract: one thread at a time (ptprof symbolizes from one thread; a
 * forked writer has its own copy of the state).  debuginfod_fetch()
 * returns the file opened with libelf and its fd in *fd, for the caller
 * to elf_end() and close(); or NULL.  Never prints or exits.
 */
#ifndef PTPROF_DEBUGINFOD_H
#define PTPROF_DEBUGINFOD_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

/* The time a run may spend fetching, all modules together: 60 s. */
#define DEBUGINFOD_BUDGET_NS (60ll * 1000000000)

/* The largest file fetched without DEBUGINFOD_MAXSIZE: 2 GiB (Debian's
 * largest -dbgsym file, of libLLVM, holds under 1 GiB). */
#define DEBUGINFOD_DEFAULT_MAX_SIZE (2ll << 30)

enum debuginfod_kind {
	DEBUGINFOD_DEBUGINFO,  /* the separate debug file */
	DEBUGINFOD_EXECUTABLE, /* the module itself (its file is gone) */
};

enum debuginfod_event {
	DEBUGINFOD_FETCHING,
	DEBUGINFOD_FETCHED,
	DEBUGINFOD_REFUSED,
	DEBUGINFOD_GAVE_UP,
};

/* What the hook is told (valid during the call only). */
struct debuginfod_status {
	enum debuginfod_event event;
	enum debuginfod_kind kind;
	const char *build_id; /* hex; NULL for GAVE_UP */
	const char *module;   /* the module's path as the profile names it */
	int64_t bytes;	      /* downloaded so far (FETCHED: the size) */
	int64_t total;	      /* announced size, 0 when unknown */
	const char *why;      /* REFUSED, GAVE_UP: one clause */
};

typedef void (*debuginfod_hook_fn)(const struct debuginfod_status *st,
				   void *arg);

struct debuginfod_config {
	bool off;		 /* --no-debuginfod */
	debuginfod_hook_fn hook; /* may be NULL */
	void *hook_arg;
};

/* Switch fetching on for this run (unless cfg->off or DEBUGINFOD_URLS is
 * unset or empty), with the bounds read from the environment now. */
void debuginfod_setup(const struct debuginfod_config *cfg);

/* Whether a fetch may still be tried (set up, URLs set, not given up). */
bool debuginfod_enabled(void);

/* The file of kind for build_id (hex) of module (a path, for the hook),
 * checked as above; NULL when none. */
Elf *debuginfod_fetch(enum debuginfod_kind kind, const char *build_id,
		      const char *module, int *fd);

/* Release the client and forget the state (no fetching after it). */
void debuginfod_teardown(void);

#endif /* PTPROF_DEBUGINFOD_H */
